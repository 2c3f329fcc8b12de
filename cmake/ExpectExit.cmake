cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# cmake -DEXPECTED_EXIT=<code> [-DEXPECTED_STDERR=<regex>] [-DGPU=ON]
#       -DCOMMAND=<program;args...> -P ExpectExit.cmake
# Passes when COMMAND exits with EXPECTED_EXIT; CTest by itself can only tell zero from non-zero.
# An expected 77 (flags a GPU program must accept, run with every GPU hidden) must come with
# require_gpu()'s "SKIP: " line: the program took its flags and went on to look for a GPU.
# Exit 2 must come with usage text on stderr, and with EXPECTED_STDERR stderr must match it: a
# test that provokes a failure checks that the program says why, so that one failing for another
# reason (or a crash that happens to exit 1) fails the test. With GPU (a GPU program), exit 77 (no
# CUDA device or driver) prints "SKIP: no CUDA device or driver: <the program's message>", which
# the test's SKIP_REGULAR_EXPRESSION matches (add_expect_exit_test), so CTest reports it skipped.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(GPU AND code STREQUAL "77")
  string(STRIP "${err}" err)
  message(STATUS "SKIP: no CUDA device or driver: ${err}")
  return()
endif()
if(NOT code STREQUAL EXPECTED_EXIT)
  message(FATAL_ERROR "expected exit ${EXPECTED_EXIT}, got '${code}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(code STREQUAL "77" AND NOT err MATCHES "SKIP: ")
  message(FATAL_ERROR "exit 77 without require_gpu()'s SKIP line:\n${err}")
endif()
if(code STREQUAL "2" AND NOT err MATCHES "usage")
  message(FATAL_ERROR "exit 2 but no usage text on stderr:\n${err}")
endif()
if(NOT "${EXPECTED_STDERR}" STREQUAL "" AND NOT err MATCHES "${EXPECTED_STDERR}")
  message(FATAL_ERROR "exit ${code} but stderr does not match '${EXPECTED_STDERR}':\n${err}")
endif()
message(STATUS "exit ${code} as expected")
