# Reads the registry of rungs (rungs.json) and makes each rung's targets from it; nothing else
# in the build lists the rungs.
file(READ "${PROJECT_SOURCE_DIR}/rungs.json" LAB_REGISTRY_JSON)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/rungs.json")
string(JSON lab_rung_count LENGTH "${LAB_REGISTRY_JSON}" rungs)
math(EXPR lab_last_rung "${lab_rung_count} - 1")
set(LAB_RUNG_IDS "")
foreach(i RANGE ${lab_last_rung})
  string(JSON id GET "${LAB_REGISTRY_JSON}" rungs ${i} id)
  list(APPEND LAB_RUNG_IDS ${id})
endforeach()

# lab_rung_field(<out> <id> <field>): one field of a rung's entry.
function(lab_rung_field out id field)
  list(FIND LAB_RUNG_IDS ${id} index)
  string(JSON value GET "${LAB_REGISTRY_JSON}" rungs ${index} ${field})
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# lab_rung_definitions(<out> <id> <kernel's rung> <file compiled> <kernel file>): the definitions
# harness/src/rung_glue.cu reads (its header says what each means).
function(lab_rung_definitions out id kernel_rung compiled source)
  string(SUBSTRING ${kernel_rung} 0 2 number)
  # The glue of the kernel's form: "form" where its shape has several, else the shape's own
  # (RungInfo::form, lab/shape.hpp).
  list(FIND LAB_RUNG_IDS ${kernel_rung} index)
  string(JSON form ERROR_VARIABLE no_form GET "${LAB_REGISTRY_JSON}" rungs ${index} form)
  if(no_form)
    lab_rung_field(form ${kernel_rung} shape)
  endif()
  set(glue "${PROJECT_SOURCE_DIR}/harness/src/glue/${form}.cuh")
  if(NOT EXISTS "${glue}")
    message(FATAL_ERROR "rungs.json: rung ${kernel_rung}'s form is '${form}', which has no glue (${glue})")
  endif()
  set(definitions LAB_RUNG_SOURCE="${compiled}" LAB_RUNG_ORIGINAL="${source}" LAB_RUNG_ID="${id}"
      LAB_RUNG_NS=ex${number} LAB_GLUE="${glue}")  # ex03: RungInfo::kernel_namespace()
  # A driver rung's schemes, one definition each: LAB_RUNG_SCHEME_0=multipass, ...
  string(JSON schemes ERROR_VARIABLE none LENGTH "${LAB_REGISTRY_JSON}" rungs ${index} variants)
  if(NOT none AND schemes GREATER 0)
    math(EXPR last "${schemes} - 1")
    foreach(s RANGE ${last})
      string(JSON scheme GET "${LAB_REGISTRY_JSON}" rungs ${index} variants ${s})
      list(APPEND definitions LAB_RUNG_SCHEME_${s}=${scheme})
    endforeach()
  endif()
  set(${out} ${definitions} PARENT_SCOPE)
endfunction()

# lab_add_rung_kernel(<target> <id> <kernel file> [<kernel's rung>]): an object library holding
# rung <id>'s kernel from <kernel file> (exercises/, solutions/, or a planted mistake), bound to the
# kit's entry shape by harness/src/rung_glue.cu. When the file holds another rung's kernel, <kernel's
# rung> names it: its form and namespace are used, and <id>'s plan and tests. On the CPU backend the
# file first goes through lab-cpu-rewrite (cpu_backend/src/cpu_rewrite.cpp).
function(lab_add_rung_kernel target id source)
  set(kernel_rung ${id})
  if(ARGC GREATER 3)
    set(kernel_rung ${ARGV3})
  endif()
  if(NOT EXISTS "${source}")
    message(FATAL_ERROR "rungs.json lists ${id}, but ${source} does not exist")
  endif()
  if(LAB_ACTIVE_BACKEND STREQUAL "cuda")
    add_library(${target} OBJECT "${PROJECT_SOURCE_DIR}/harness/src/rung_glue.cu")
    set(compiled "${source}")
    # Line numbers in the kernels for compute-sanitizer and cuda-gdb (no effect on speed), and
    # constexpr standard functions (std::numeric_limits) usable in device code.
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo --expt-relaxed-constexpr>)
  else()
    set(compiled "${CMAKE_BINARY_DIR}/cpu_sources/${target}.cu")
    lab_cpu_rewrite("${source}" "${compiled}")
    add_library(${target} OBJECT "${PROJECT_SOURCE_DIR}/harness/src/rung_glue_cpu.cpp" "${compiled}")
    set_source_files_properties("${compiled}" PROPERTIES HEADER_FILE_ONLY ON)
    # Line tables and inlined calls only (-g1), which is all a fault's message needs to name the
    # kernel file's line (cpu_backend/src/faults.cpp reads them with addr2line): a fifth less
    # compiling than -g, the first verdict's longest step after an edit (rung 13: 2.7 s to 2.2 s).
    # A Debug build, made to debug with, keeps its full -g.
    target_compile_options(${target} PRIVATE $<$<CONFIG:RelWithDebInfo>:-g1>)
  endif()
  lab_rung_definitions(definitions ${id} ${kernel_rung} "${compiled}" "${source}")
  target_compile_definitions(${target} PRIVATE ${definitions})
  target_link_libraries(${target} PRIVATE lab_device)
endfunction()

# lab_add_explain_main(): the explain programs' main (harness/explain/explain.cpp), the same for
# every rung (it finds its rung at run time): compiled once, unoptimised (it runs one launch and
# writes JSON; CLI11's templates took half a minute of optimised compiling on one core).
function(lab_add_explain_main)
  if(NOT TARGET lab_explain_main)
    add_library(lab_explain_main OBJECT "${PROJECT_SOURCE_DIR}/harness/explain/explain.cpp")
    target_link_libraries(lab_explain_main PRIVATE lab_device CLI11::CLI11)
    target_compile_options(lab_explain_main PRIVATE -O0)
  endif()
endfunction()

# lab_add_explain_program(<target> <id> <kernel file>): on the CPU backend, the program that runs rung
# <id>'s kernel from <kernel file> once with every load and store measured (./lab explain;
# cpu_backend/CPU_BACKEND.md, "Measuring a kernel"): the kernel compiled with GCC's thread-sanitizer
# instrumentation, each load, store and atomic a call that cpu_backend/src/explain_hooks.cpp answers
# (no sanitizer runtime), linked with harness/explain/explain.cpp.
function(lab_add_explain_program target id source)
  string(REPLACE "-" "_" kernel "${target}_kernel")
  lab_add_rung_kernel(${kernel} ${id} "${source}")
  target_compile_options(${kernel} PRIVATE -fsanitize=thread --param=tsan-instrument-func-entry-exit=0)
  lab_add_explain_main()
  add_executable(${target} $<TARGET_OBJECTS:lab_explain_main>)
  target_link_libraries(${target} PRIVATE ${kernel} lab_explain_hooks lab_device)
endfunction()

# lab_nvcc_command(<out> <id> <kernel file> <object>): the nvcc command line that compiles rung
# <id>'s glue and the kernel file as a GPU build would (every template instantiated), for the
# architectures in LAB_NVCC_GENCODE, PTX only, writing <object> and <object>.d.
function(lab_nvcc_command out id source object)
  lab_rung_definitions(definitions ${id} ${id} "${source}" "${source}")
  list(TRANSFORM definitions PREPEND "-D")
  set(${out} "${LAB_NVCC}" -std=c++17 --expt-relaxed-constexpr ${LAB_NVCC_GENCODE}
      "-I${PROJECT_SOURCE_DIR}/kit/include" "-I${PROJECT_SOURCE_DIR}/harness/include"
      "-I${PROJECT_SOURCE_DIR}/cpu_backend/include" ${definitions}
      -MD -MF "${object}.d" -x cu -c "${PROJECT_SOURCE_DIR}/harness/src/rung_glue.cu" -o "${object}" PARENT_SCOPE)
endfunction()

# lab_nvcc_check(<target> <id> <kernel file> [<keep dir>]): on the CPU backend with LAB_NVCC_CHECKED,
# <target> builds only once nvcc accepts the kernel file (lab_nvcc_command); with <keep dir>, nvcc
# keeps its intermediate files there (the grader's integrity checks read them). With
# LAB_NVCC_CHECK_APART set, <target> does not wait for it: <target>_nvcc is built on its own (./lab check).
function(lab_nvcc_check target id source)
  if(NOT LAB_ACTIVE_BACKEND STREQUAL "cpu" OR NOT LAB_NVCC_CHECKED)
    return()
  endif()
  set(object "${CMAKE_BINARY_DIR}/nvcc_check/${target}.o")
  lab_nvcc_command(command ${id} "${source}" "${object}")
  if(ARGC GREATER 3)
    list(APPEND command --keep "--keep-dir=${ARGV3}")
  endif()
  add_custom_command(OUTPUT "${object}"
    COMMAND ${command}
    DEPENDS "${source}" "${PROJECT_SOURCE_DIR}/harness/src/rung_glue.cu"
    DEPFILE "${object}.d"
    COMMENT "Compiling ${source} with nvcc as a GPU build would"
    VERBATIM)
  add_custom_target(${target}_nvcc DEPENDS "${object}")
  if(NOT LAB_NVCC_CHECK_APART)
    add_dependencies(${target} ${target}_nvcc)
  endif()
endfunction()

# lab_kernel_sources(<target> <.cu files...>): adds kernel sources to a target for the active
# backend: as CUDA for nvcc, or rewritten (lab_cpu_rewrite) and compiled as C++ for the CPU backend.
function(lab_kernel_sources target)
  foreach(source IN LISTS ARGN)
    get_filename_component(source "${source}" ABSOLUTE)
    if(LAB_ACTIVE_BACKEND STREQUAL "cuda")
      target_sources(${target} PRIVATE "${source}")
    else()
      get_filename_component(name "${source}" NAME)
      set(compiled "${CMAKE_BINARY_DIR}/cpu_sources/${target}/${name}.cpp")
      lab_cpu_rewrite("${source}" "${compiled}")
      target_sources(${target} PRIVATE "${compiled}")
    endif()
  endforeach()
endfunction()

# lab_cpu_rewrite(<input .cu> <output>): the CPU backend's source rewrite, redone when either the
# source or the rewriter changes.
function(lab_cpu_rewrite input output)
  add_custom_command(OUTPUT "${output}"
    COMMAND lab-cpu-rewrite "${input}" "${output}"
    DEPENDS "${input}" lab-cpu-rewrite
    COMMENT "Preparing ${input} for the CPU backend"
    VERBATIM)
endfunction()

# lab_add_rung_tests(<suites program target> <rung id>): declares the rung's tests to ctest, one
# process a test: the program itself writes the list once it is built (--lab_ctest_file, the kit's
# list of the rung's tests: lab/rung_tests.hpp), with the runner's limit for one case
# (LAB_CASE_SECONDS) under each test's TIMEOUT. A tree not built yet has one test that says so.
function(lab_add_rung_tests target id)
  set(list_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake")
  math(EXPR case_seconds "${LAB_TEST_TIMEOUT} * 4 / 5")
  add_custom_command(OUTPUT "${list_file}"
    COMMAND "${CMAKE_COMMAND}" -E env LAB_CASE_SECONDS=${case_seconds} $<TARGET_FILE:${target}> "--lab_ctest_file=${list_file}"
    DEPENDS ${target} "${PROJECT_SOURCE_DIR}/rungs.json" "${PROJECT_SOURCE_DIR}/tests/cases.json"
            "${PROJECT_SOURCE_DIR}/tests/speed.json"
    COMMENT "Listing the tests of rung ${id}"
    VERBATIM)
  add_custom_target(${target}_list ALL DEPENDS "${list_file}")
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_include.cmake")
  file(WRITE "${include_file}"
    "if(EXISTS \"${list_file}\")\n  include(\"${list_file}\")\nelse()\n  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()

# lab_label_tests(<test target> <labels...>): labels every test gtest discovers in the target.
# gtest_discover_tests keeps only the first of several LABELS, so they are set by a file that
# ctest includes after the discovered tests.
function(lab_label_tests target)
  set(file "${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake")
  file(WRITE "${file}"
    "set(LAB_TESTS \"\${${target}_TESTS}\")\n"
    "set(LAB_LABELS \"${ARGN}\")\n"
    "include(\"${PROJECT_SOURCE_DIR}/cmake/LabLabelTests.cmake\")\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${file}")
endfunction()

# lab_guard_device_memory(<target>): on a GPU, the target's cudaMalloc and cudaFree (the kit's and the
# kernel file's) give memory laid out as the CPU backend's: poisoned, ending at an unmapped guard
# (harness/include/lab/guarded_memory.hpp). The suites' programs and the grader's runner, so that
# both judges see a stray read alike. The source goes into the target itself (an executable, or an
# object library whose objects its executables link directly), where the linker's --wrap finds it.
function(lab_guard_device_memory target)
  if(LAB_ACTIVE_BACKEND STREQUAL "cuda")
    target_sources(${target} PRIVATE "${PROJECT_SOURCE_DIR}/harness/src/guarded_memory.cpp")
    # PUBLIC: an executable's own link, and an object library's executables'.
    target_link_options(${target} PUBLIC "LINKER:--wrap=cudaMalloc" "LINKER:--wrap=cudaFree")
  endif()
endfunction()
