# Chooses CMAKE_CUDA_ARCHITECTURES when the user did not (-DCMAKE_CUDA_ARCHITECTURES=... or CUDAARCHS
# always win):
#   - a GPU visible through nvidia-smi: its compute capability (what `native` would pick), checked
#     against what the installed nvcc can target. Older than nvcc's oldest: a configure error that
#     says so. Newer than nvcc's newest: PTX for nvcc's newest, which the driver compiles at load.
#   - no GPU visible (CI, a login node): `75;90-real`, i.e. Turing (sm_75) machine code plus
#     compute_75 PTX, which every later GPU (Ampere, Ada, Blackwell) compiles at load time, and
#     Hopper (sm_90) machine code, the GPU the READMEs' measurements come from. Two device
#     compilations per file, as many as the previous fallback (80-real;90), so CI takes no longer.
#     If nvcc cannot target 75 (a future toolkit), its oldest architecture takes that place.
# CMake's own `native` value is not used because it is a configure error on a machine with no GPU.
# This runs before project(), so nvcc is found here the way CMake will find it.
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  return()
endif()

# The architectures the installed nvcc can target (nvcc --list-gpu-arch, CUDA 11.1 and later).
if(DEFINED ENV{CUDACXX})
  set(_nvcc "$ENV{CUDACXX}")
elseif(CMAKE_CUDA_COMPILER)
  set(_nvcc "${CMAKE_CUDA_COMPILER}")
else()
  find_program(PMPP_NVCC nvcc HINTS "$ENV{CUDA_PATH}/bin" /usr/local/cuda/bin)
  set(_nvcc "${PMPP_NVCC}")
endif()
set(_nvcc_archs "")
if(_nvcc)
  execute_process(COMMAND "${_nvcc}" --list-gpu-arch RESULT_VARIABLE _list_result
                  OUTPUT_VARIABLE _list_output ERROR_QUIET)
  if(_list_result EQUAL 0)
    string(REGEX MATCHALL "compute_[0-9]+" _nvcc_archs "${_list_output}")
    list(TRANSFORM _nvcc_archs REPLACE "compute_" "")
    list(SORT _nvcc_archs COMPARE NATURAL)
    list(REMOVE_DUPLICATES _nvcc_archs)
  endif()
endif()
if(_nvcc_archs)
  list(GET _nvcc_archs 0 _oldest)
  list(GET _nvcc_archs -1 _newest)
else()
  set(_oldest 75)  # unknown nvcc: assume CUDA 12/13, whose oldest common target is Turing
  set(_newest 90)
endif()

find_program(_nvidia_smi nvidia-smi)
if(_nvidia_smi)
  execute_process(
    COMMAND "${_nvidia_smi}" --query-gpu=name,compute_cap --format=csv,noheader
    RESULT_VARIABLE _smi_result
    OUTPUT_VARIABLE _smi_output
    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()

if(_nvidia_smi AND _smi_result EQUAL 0 AND _smi_output MATCHES "[0-9]+\\.[0-9]+")
  string(REGEX REPLACE "[\r\n]+" ";" _gpus "${_smi_output}")
  set(_archs "")
  foreach(_gpu IN LISTS _gpus)
    if(NOT _gpu MATCHES "^(.*), *([0-9]+)\\.([0-9]+)")
      continue()
    endif()
    set(_name "${CMAKE_MATCH_1}")
    set(_cc "${CMAKE_MATCH_2}${CMAKE_MATCH_3}")
    if(_cc LESS _oldest)
      message(FATAL_ERROR
        "The GPU '${_name}' has compute capability ${CMAKE_MATCH_2}.${CMAKE_MATCH_3}, but the "
        "installed nvcc (${_nvcc}) targets ${_oldest} and later only, so no program built here "
        "could run on it. Install a CUDA toolkit that supports it (CUDA 12.x supports 5.0 and "
        "later; these examples need 7.5 or later), or pass -DCMAKE_CUDA_ARCHITECTURES=... to "
        "build for another GPU.")
    elseif(_nvcc_archs AND NOT _cc IN_LIST _nvcc_archs)
      message(STATUS "The GPU '${_name}' (compute capability ${_cc}) is newer than this nvcc "
                     "knows: building PTX for ${_newest}, which the driver compiles at load")
      list(APPEND _archs "${_newest}-virtual")
    else()
      list(APPEND _archs "${_cc}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES _archs)
  message(STATUS "GPU found: building for ${_archs}")
else()
  set(_turing 75)
  if(_oldest GREATER 75)
    set(_turing ${_oldest})
  endif()
  set(_archs "${_turing};90-real")
  message(STATUS "No GPU found: building for the fallback list ${_archs} (machine code for "
                 "${_turing} and Hopper, PTX for ${_turing} and later; "
                 "-DCMAKE_CUDA_ARCHITECTURES=... chooses)")
endif()
set(CMAKE_CUDA_ARCHITECTURES "${_archs}" CACHE STRING "CUDA architectures to build for")
