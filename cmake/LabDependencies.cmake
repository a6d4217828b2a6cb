# Finds what the kit builds with, and says exactly what to install when something is missing.
include(CheckLanguage)

check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(FATAL_ERROR
    "No CUDA compiler (nvcc) found. Install the CUDA Toolkit (12.x or 13.x) from NVIDIA, then either put "
    "its bin/ on PATH or configure with -DCMAKE_CUDA_COMPILER=/path/to/nvcc (or set CUDACXX).")
endif()
enable_language(CUDA)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
# One CUDA runtime for the whole program: the host-side harness (.cpp) and the kernels (.cu)
# must share it, so both link the shared libcudart.
set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
find_package(CUDAToolkit REQUIRED)

find_package(GTest QUIET)
if(NOT GTest_FOUND)
  message(FATAL_ERROR "GoogleTest not found. On Debian or Ubuntu: sudo apt-get install libgtest-dev")
endif()
find_package(nlohmann_json 3.10 QUIET)
if(NOT nlohmann_json_FOUND)
  message(FATAL_ERROR "nlohmann-json not found. On Debian or Ubuntu: sudo apt-get install nlohmann-json3-dev")
endif()
include(GoogleTest)
