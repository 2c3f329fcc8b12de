# Chooses CMAKE_CUDA_ARCHITECTURES when the user did not:
#   - the compute capability of every GPU that nvidia-smi reports (what `native` would pick), or
#   - with no GPU visible, an explicit list that builds for Ampere (80) and Hopper (90, with PTX
#     so that newer GPUs can JIT-compile it).
# CMake's own `native` value is not used because it is a configure error on a machine with no GPU.
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  return()
endif()

set(_fallback_archs "80-real;90")
find_program(_nvidia_smi nvidia-smi)
if(_nvidia_smi)
  execute_process(
    COMMAND "${_nvidia_smi}" --query-gpu=compute_cap --format=csv,noheader
    RESULT_VARIABLE _smi_result
    OUTPUT_VARIABLE _smi_output
    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()

if(_nvidia_smi AND _smi_result EQUAL 0 AND _smi_output MATCHES "^[0-9]+\\.[0-9]+")
  string(REPLACE "." "" _smi_output "${_smi_output}")
  string(REGEX REPLACE "[\r\n]+" ";" _archs "${_smi_output}")
  list(REMOVE_DUPLICATES _archs)
  message(STATUS "GPU found: building for compute capability ${_archs}")
else()
  set(_archs "${_fallback_archs}")
  message(STATUS "No GPU found: building for the fallback list ${_archs} "
                 "(set -DCMAKE_CUDA_ARCHITECTURES=... to choose)")
endif()
set(CMAKE_CUDA_ARCHITECTURES "${_archs}" CACHE STRING "CUDA architectures to build for")
