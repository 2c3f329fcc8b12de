# Chooses CMAKE_CUDA_ARCHITECTURES when the user did not (-DCMAKE_CUDA_ARCHITECTURES=... or
# CUDAARCHS always win):
#   - a GPU visible through nvidia-smi: its compute capability (what `native` would pick), checked
#     against what the installed nvcc can target. Older than nvcc's oldest: a configure error that
#     says so. Newer than nvcc's newest: PTX for nvcc's newest, which the driver compiles at load.
#   - no GPU visible (CI, a login node): `75;90-real`, i.e. Turing (sm_75) machine code plus
#     compute_75 PTX, which every later GPU (Ampere, Ada, Blackwell) compiles at load time, and
#     Hopper (sm_90) machine code, the GPU the READMEs' measurements come from. Two device
#     compilations per file, as many as the previous fallback (80-real;90), so CI takes no longer.
#     If nvcc cannot target 75 (a future toolkit), its oldest architecture takes that place.
# Whichever way the list comes, an architecture below compute capability 7.0 (Volta) stops the
# configure, naming the GPU: the examples use `__nanosleep` (dynamic_parallelism) and
# `__match_any_sync` (warp_aggregation), which exist from 7.0 on, and their warp code relies on
# Volta's independent thread scheduling. CUDA 12 can still target Pascal (6.x), so without this
# check such a GPU would configure and then fail to compile. A machine with GPUs on both sides of
# 7.0 builds for the newer ones and says which GPU cannot run the programs.
# CMake's own `native` value is not used because it is a configure error on a machine with no GPU.
# This runs before project(), so nvcc is found here the way CMake will find it: $CUDACXX, else
# `nvcc` on the PATH, else in $CUDA_PATH/bin.
#
# Also a script, which decides the same way and prints the result instead of setting it (run by
# scripts/doctor.py, and by the tests with stand-ins for nvidia-smi and nvcc):
#   cmake [-DCMAKE_CUDA_ARCHITECTURES=...] -P cmake/CudaArchitectures.cmake
# prints "CUDA architectures: <list>" and exits 0, or prints why no list would build and exits 1.
set(_pmpp_min_cc 70)
set(_pmpp_min_why "these examples need compute capability 7.0 (Volta) or later: they use \
__nanosleep and __match_any_sync, which older GPUs lack")
set(_pmpp_script_mode OFF)
if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  set(_pmpp_script_mode ON)
  # The policies of what this file uses (IN_LIST, list(SORT COMPARE)); an included file has the
  # build's. Older than the build's 3.25 on purpose: the doctor asks even an outdated CMake.
  cmake_minimum_required(VERSION 3.18)
endif()

# An explicit list: numeric entries below the minimum are refused here, where the message can say
# why, rather than by the compiler on the first __nanosleep. CMake's keywords name no number:
# `all` and `all-major` are checked below against nvcc's oldest target (CUDA 12's is 5.0), `native`
# against the GPUs nvidia-smi lists; any other value is left to CMake.
set(_pmpp_keyword "")
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  if(DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(_archs "${CMAKE_CUDA_ARCHITECTURES}")
  else()
    set(_archs "$ENV{CUDAARCHS}")
  endif()
  foreach(_arch IN LISTS _archs)
    if(_arch MATCHES "^([0-9]+)" AND CMAKE_MATCH_1 LESS _pmpp_min_cc)
      message(FATAL_ERROR "CUDA architecture ${_arch} was asked for, but ${_pmpp_min_why}. "
                          "Give a list of ${_pmpp_min_cc} or later.")
    endif()
  endforeach()
  if(_archs MATCHES "^(all|all-major|native)$")
    set(_pmpp_keyword "${_archs}")
  else()
    if(_pmpp_script_mode)
      message(STATUS "CUDA architectures: ${_archs} (given)")
    endif()
    return()
  endif()
endif()

# The architectures the installed nvcc can target (nvcc --list-gpu-arch, CUDA 11.1 and later).
if(DEFINED ENV{CUDACXX})
  set(_nvcc "$ENV{CUDACXX}")
elseif(CMAKE_CUDA_COMPILER)
  set(_nvcc "${CMAKE_CUDA_COMPILER}")
else()
  find_program(PMPP_NVCC nvcc PATHS "$ENV{CUDA_PATH}/bin")  # PATHS: after the PATH, as CMake does
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
if(_pmpp_keyword MATCHES "^all")
  if(_nvcc_archs AND _oldest LESS _pmpp_min_cc)
    message(FATAL_ERROR "CUDA architectures '${_pmpp_keyword}' was asked for, which with this nvcc "
                        "(${_nvcc}) includes ${_oldest}, but ${_pmpp_min_why}. Give a list of "
                        "${_pmpp_min_cc} or later (for example 70;80;90).")
  endif()
  if(_pmpp_script_mode)
    message(STATUS "CUDA architectures: ${_pmpp_keyword} (given)")
  endif()
  return()
endif()

find_program(_nvidia_smi nvidia-smi)
if(_nvidia_smi)
  execute_process(
    COMMAND "${_nvidia_smi}" --query-gpu=name,compute_cap --format=csv,noheader
    RESULT_VARIABLE _smi_result
    OUTPUT_VARIABLE _smi_output
    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()

# The GPUs nvidia-smi lists, in its order: their names and compute capabilities ("8.6").
set(_gpu_names "")
set(_gpu_ccs "")
if(_nvidia_smi AND _smi_result EQUAL 0)
  string(REGEX REPLACE "[\r\n]+" ";" _gpus "${_smi_output}")
  foreach(_gpu IN LISTS _gpus)
    if(_gpu MATCHES "^(.*), *([0-9]+)\\.([0-9]+)")
      list(APPEND _gpu_names "${CMAKE_MATCH_1}")
      list(APPEND _gpu_ccs "${CMAKE_MATCH_2}.${CMAKE_MATCH_3}")
    endif()
  endforeach()
endif()

# `native` builds for every GPU that nvidia-smi lists: each must be 7.0 or later.
if(_pmpp_keyword STREQUAL "native")
  foreach(_name _cc_dotted IN ZIP_LISTS _gpu_names _gpu_ccs)
    string(REPLACE "." "" _cc "${_cc_dotted}")
    if(_cc LESS _pmpp_min_cc)
      message(FATAL_ERROR
        "CUDA architectures 'native' was asked for, which builds for every GPU here, but the "
        "GPU '${_name}' has compute capability ${_cc_dotted} and ${_pmpp_min_why}. Give the "
        "architectures of the GPUs of 7.0 or later instead (-DCMAKE_CUDA_ARCHITECTURES=...).")
    endif()
  endforeach()
  if(_pmpp_script_mode)
    message(STATUS "CUDA architectures: native (given)")
  endif()
  return()
endif()

if(_nvidia_smi AND _smi_result EQUAL 0 AND _smi_output MATCHES "[0-9]+\\.[0-9]+")
  set(_archs "")
  set(_too_old "")
  foreach(_name _cc_dotted IN ZIP_LISTS _gpu_names _gpu_ccs)
    string(REPLACE "." "" _cc "${_cc_dotted}")
    if(_cc LESS _pmpp_min_cc)
      list(APPEND _too_old "'${_name}' (compute capability ${_cc_dotted}, sm_${_cc})")
    elseif(_cc LESS _oldest)
      message(FATAL_ERROR
        "The GPU '${_name}' has compute capability ${_cc_dotted}, but the installed nvcc "
        "(${_nvcc}) targets ${_oldest} and later only, so no program built here could run on it. "
        "Install a CUDA toolkit that supports it (CUDA 12.x targets 5.0 and later), or pass "
        "-DCMAKE_CUDA_ARCHITECTURES=... to build for another GPU.")
    elseif(_nvcc_archs AND NOT _cc IN_LIST _nvcc_archs)
      message(STATUS "The GPU '${_name}' (compute capability ${_cc}) is newer than this nvcc "
                     "knows: building PTX for ${_newest}, which the driver compiles at load")
      list(APPEND _archs "${_newest}-virtual")
    else()
      list(APPEND _archs "${_cc}")
    endif()
  endforeach()
  list(JOIN _too_old ", " _too_old)
  if(_too_old AND NOT _archs)
    message(FATAL_ERROR
      "The GPU ${_too_old} is too old: ${_pmpp_min_why}. Use a GPU of "
      "compute capability 7.0 or later (a hosted notebook's T4 is 7.5), or pass "
      "-DCMAKE_CUDA_ARCHITECTURES=75 (or your other GPU's) to build here without running.")
  elseif(_too_old)
    message(WARNING "Not building for the GPU ${_too_old}: ${_pmpp_min_why}. The programs use "
                    "the first GPU they see: set CUDA_VISIBLE_DEVICES to a newer one's index.")
  endif()
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
if(_pmpp_script_mode)
  message(STATUS "CUDA architectures: ${_archs}")
  return()
endif()
set(CMAKE_CUDA_ARCHITECTURES "${_archs}" CACHE STRING "CUDA architectures to build for")
