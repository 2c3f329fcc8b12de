cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# cmake -DNVCC=<nvcc> -DSOURCE=<file.cu> -DHEADER=<header> -DWORK_DIR=<dir> -DEXPECTED=<regex>
#       [-DCCBIN=<host compiler>] -P CompileFails.cmake
# Passes when SOURCE, copied with HEADER alone into an empty folder as a reader copies them, does
# not compile (nvcc -c, whole-program) and nvcc's message matches EXPECTED: the error a misuse
# must give, instead of a program that builds and computes wrong.
foreach(var NVCC SOURCE HEADER WORK_DIR EXPECTED)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CompileFails.cmake: -D${var}=... is required")
  endif()
endforeach()
set(ENV{LC_ALL} C)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
get_filename_component(source_name "${SOURCE}" NAME)
get_filename_component(header_name "${HEADER}" NAME)
file(COPY_FILE "${SOURCE}" "${WORK_DIR}/${source_name}")
file(COPY_FILE "${HEADER}" "${WORK_DIR}/${header_name}")
set(flags -std=c++17 -arch=sm_90)
if(CCBIN)
  list(APPEND flags -ccbin "${CCBIN}")
endif()
execute_process(COMMAND "${NVCC}" ${flags} -c "${source_name}" -o out.o
                WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE code OUTPUT_VARIABLE out
                ERROR_VARIABLE err TIMEOUT 300)
if(code STREQUAL "0")
  message(FATAL_ERROR "${source_name} compiled; it must fail with '${EXPECTED}'")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECTED}")
  message("${out}${err}")
  message(FATAL_ERROR "${source_name} failed (${code}), but not with '${EXPECTED}'")
endif()
message(STATUS "${source_name} does not compile, as it must: ${EXPECTED}")
