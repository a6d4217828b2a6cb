# Picks the backend and finds what the kit builds with; says exactly what to install when
# something is missing.
#   LAB_BACKEND=cuda  kernels are compiled by nvcc and run on the GPU
#   LAB_BACKEND=cpu   the same kernel sources are compiled by the host compiler and run by the
#                     kit's emulator (cpu_backend/src), so every kernel case runs without a GPU
#   LAB_BACKEND=auto  cuda when this machine has an NVIDIA GPU and nvcc, cpu otherwise
set(LAB_BACKEND "auto" CACHE STRING "cuda, cpu, or auto (cuda when a GPU and nvcc are present)")
set_property(CACHE LAB_BACKEND PROPERTY STRINGS auto cuda cpu)
include(CheckLanguage)

set(lab_backend "${LAB_BACKEND}")
if(lab_backend STREQUAL "auto")
  check_language(CUDA)
  execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE lab_smi_result OUTPUT_VARIABLE lab_smi_output ERROR_QUIET)
  if(CMAKE_CUDA_COMPILER AND lab_smi_result EQUAL 0 AND lab_smi_output MATCHES "GPU")
    set(lab_backend cuda)
  else()
    set(lab_backend cpu)
  endif()
  message(STATUS "LAB_BACKEND=auto chose ${lab_backend}")
endif()
if(NOT lab_backend MATCHES "^(cuda|cpu)$")
  message(FATAL_ERROR "LAB_BACKEND must be cuda, cpu or auto, not '${LAB_BACKEND}'")
endif()
set(LAB_ACTIVE_BACKEND "${lab_backend}" CACHE INTERNAL "The backend this build uses")

include("${CMAKE_CURRENT_LIST_DIR}/LabNativeArchitectures.cmake")

if(LAB_ACTIVE_BACKEND STREQUAL "cuda")
  check_language(CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR
      "No CUDA compiler (nvcc) found. Install the CUDA Toolkit (12.x or 13.x) from NVIDIA, then either put "
      "its bin/ on PATH or configure with -DCMAKE_CUDA_COMPILER=/path/to/nvcc (or set CUDACXX). "
      "Without a GPU, -DLAB_BACKEND=cpu runs every kernel on the CPU instead.")
  endif()
  lab_resolve_native_architectures()
  enable_language(CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  # One CUDA runtime for the whole program: the host-side harness (.cpp) and the kernels (.cu)
  # must share it, so both link the shared libcudart.
  set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
  find_package(CUDAToolkit REQUIRED)
else()
  find_package(Threads REQUIRED)
  # The CPU backend's host compiler accepts some code nvcc refuses (a helper without __device__
  # called from a kernel, atomicAdd on a type CUDA lacks). Where nvcc is installed, each rung of
  # the tree is also compiled by nvcc for the kit's architectures (front end and PTX only, a few
  # seconds a rung), so what a GPU build refuses is refused here too.
  set(LAB_NVCC_CHECK "auto" CACHE STRING
    "CPU backend: also compile each kernel with nvcc: auto (when nvcc is found), on, off")
  set_property(CACHE LAB_NVCC_CHECK PROPERTY STRINGS auto on off)
  find_program(LAB_NVCC NAMES nvcc HINTS ENV CUDACXX PATHS /usr/local/cuda/bin "$ENV{CUDA_HOME}/bin" NO_CACHE)
  if(CMAKE_CUDA_COMPILER AND EXISTS "${CMAKE_CUDA_COMPILER}")
    set(LAB_NVCC "${CMAKE_CUDA_COMPILER}")
  endif()
  if(LAB_NVCC_CHECK STREQUAL "off")
    set(lab_nvcc_status "off (LAB_NVCC_CHECK=off): nvcc does not check the kernels")
    set(LAB_NVCC_CHECKED OFF)
  elseif(LAB_NVCC)
    set(lab_nvcc_status "on: ${LAB_NVCC} also compiles the kernels")
    set(LAB_NVCC_CHECKED ON)
  elseif(LAB_NVCC_CHECK STREQUAL "on")
    message(FATAL_ERROR "LAB_NVCC_CHECK=on, but no nvcc was found: install the CUDA Toolkit or set CUDACXX")
  else()
    set(lab_nvcc_status "not checked: no nvcc found, so code nvcc would refuse is not caught before a GPU build")
    set(LAB_NVCC_CHECKED OFF)
  endif()
  message(STATUS "GPU compile check: ${lab_nvcc_status}")
  # Read by ./lab test, which repeats it under the results.
  file(WRITE "${CMAKE_BINARY_DIR}/nvcc_check.txt" "${lab_nvcc_status}\n")
  set(lab_arches "${CMAKE_CUDA_ARCHITECTURES}")
  if(DEFINED ENV{CUDAARCHS} AND NOT lab_arches)
    set(lab_arches "$ENV{CUDAARCHS}")
  endif()
  if(NOT lab_arches OR lab_arches MATCHES "native|all")
    set(lab_arches "75;90")
  endif()
  set(LAB_NVCC_GENCODE "")
  foreach(arch IN LISTS lab_arches)
    string(REGEX REPLACE "-.*$" "" arch "${arch}")
    list(APPEND LAB_NVCC_GENCODE "--generate-code=arch=compute_${arch},code=compute_${arch}")
  endforeach()
endif()

find_package(GTest QUIET)
if(NOT GTest_FOUND)
  message(FATAL_ERROR "GoogleTest not found. On Debian or Ubuntu: sudo apt-get install libgtest-dev")
endif()
find_package(nlohmann_json 3.10 QUIET)
if(NOT nlohmann_json_FOUND)
  message(FATAL_ERROR "nlohmann-json not found. On Debian or Ubuntu: sudo apt-get install nlohmann-json3-dev")
endif()
# The grader (grader/): its command line, its rubric and the archives it unpacks.
find_package(CLI11 CONFIG QUIET)
find_package(tomlplusplus CONFIG QUIET)
find_package(LibArchive QUIET)
if(NOT CLI11_FOUND OR NOT tomlplusplus_FOUND OR NOT LibArchive_FOUND)
  message(FATAL_ERROR "The grader's libraries are missing. On Debian or Ubuntu: "
                      "sudo apt-get install libcli11-dev libtomlplusplus-dev libarchive-dev (./lab does it when run as root)")
endif()
include(GoogleTest)
