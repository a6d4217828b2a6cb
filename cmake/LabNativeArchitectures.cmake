# CMAKE_CUDA_ARCHITECTURES=native (the cuda presets, CUDAARCHS=native) means this machine's GPUs,
# but CMake hands nvcc "-arch=native", which nvcc resolves at each compile by asking the driver. A
# compile that cannot see the GPU then quietly gets nvcc's default (sm_75, its PTX JIT-compiled by
# the driver at run time): the grader builds each submission in a sandbox without the GPU, and on
# an H200 rung 13's kernels ran as sm_75 code, without clusters, while its host code launched them.
# So "native" is resolved once here, where the GPU is in sight, into the list of its architectures.
function(lab_resolve_native_architectures)
  set(asked "${CMAKE_CUDA_ARCHITECTURES}")
  if(NOT asked AND DEFINED ENV{CUDAARCHS})
    set(asked "$ENV{CUDAARCHS}")
  endif()
  if(NOT asked STREQUAL "native")
    return()
  endif()
  get_filename_component(bin "${CMAKE_CUDA_COMPILER}" DIRECTORY)
  execute_process(COMMAND "${bin}/__nvcc_device_query" RESULT_VARIABLE result OUTPUT_VARIABLE found
                  ERROR_VARIABLE error OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE)
  string(REGEX MATCHALL "[0-9][0-9]+" archs "${found}")
  if(NOT result EQUAL 0 OR NOT archs)
    message(FATAL_ERROR "CUDA architectures 'native' asks for this machine's GPUs, but ${bin}/__nvcc_device_query "
                        "found none (${result}: ${found}${error}). Name them instead, e.g. CUDAARCHS=90 "
                        "(an H100 or H200), 80 (an A100), 89 (an L4 or RTX 40), or leave CUDAARCHS unset for 75;90.")
  endif()
  list(REMOVE_DUPLICATES archs)
  set(CMAKE_CUDA_ARCHITECTURES "${archs}" CACHE STRING "CUDA architectures to build for (native: this machine's GPUs)" FORCE)
  set(CMAKE_CUDA_ARCHITECTURES "${archs}" PARENT_SCOPE)  # where the caller has its own variable too
  message(STATUS "CUDA architectures: native is ${archs} on this machine")
endfunction()
