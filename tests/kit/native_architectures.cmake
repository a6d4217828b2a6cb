# Kit.NativeArchitectures (cmake -P): "native" becomes the GPUs' own list when the build is
# configured (cmake/LabNativeArchitectures.cmake), never left for nvcc to resolve per compile, where
# a compile without the GPU in sight (the grader's sandbox) quietly gets sm_75. Each case runs the
# function in a cmake of its own beside a stand-in __nvcc_device_query.
#   cmake -DKIT=<the kit's root> -DWORK=<a scratch folder> -P native_architectures.cmake
# (with -DCASE=...: one case, run by the loop below)
if(DEFINED CASE)
  include("${KIT}/cmake/LabNativeArchitectures.cmake")
  set(CMAKE_CUDA_COMPILER "${WORK}/${CASE}/nvcc")
  if(DEFINED ASKED)
    string(REPLACE "," ";" asked "${ASKED}")  # a list on cmake's command line: commas
    set(CMAKE_CUDA_ARCHITECTURES "${asked}")
  endif()
  lab_resolve_native_architectures()
  message("architectures=[${CMAKE_CUDA_ARCHITECTURES}]")
  return()
endif()

set(failures 0)
# case name, what the stand-in prints, its exit status, what was asked, the list or the error expected
function(expect name printed status asked expected)
  file(REMOVE_RECURSE "${WORK}/${name}")
  file(MAKE_DIRECTORY "${WORK}/${name}")
  file(WRITE "${WORK}/${name}/__nvcc_device_query" "#!/bin/sh\nprintf '%s' '${printed}'\nexit ${status}\n")
  file(CHMOD "${WORK}/${name}/__nvcc_device_query" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  execute_process(COMMAND "${CMAKE_COMMAND}" -DKIT=${KIT} -DWORK=${WORK} -DCASE=${name} -DASKED=${asked}
                          -P "${CMAKE_CURRENT_LIST_FILE}"
                  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(FIND "${out}${err}" "${expected}" at)
  if(at EQUAL -1)
    message("FAIL ${name}: expected '${expected}', got (exit ${result}):\n${out}${err}")
    math(EXPR failures "${failures} + 1")
    set(failures ${failures} PARENT_SCOPE)
  else()
    message("ok   ${name}: ${expected}")
  endif()
endfunction()

expect(one_gpu "90" 0 native "architectures=[90]")
expect(two_kinds "80\n90\n90" 0 native "architectures=[80;90]")
expect(named "90" 0 "75,90" "architectures=[75;90]")
expect(no_gpu "failed to call load_driver_entries()" 1 native "found none")
expect(no_answer "" 0 native "found none")
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} case(s) failed")
endif()
