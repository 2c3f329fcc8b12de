cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# cmake -DEXPECTED_EXIT=<code> -DEXPECTED_OUTPUT=<regex> -DCOMMAND=<program;args...> -P expect_exit.cmake
# Passes when COMMAND exits with EXPECTED_EXIT and its output matches EXPECTED_OUTPUT: the tests
# that provoke a failure (a device-side launch refused, a race made certain) check that the program
# notices it, says why, and exits 1. Exit 77 (no GPU) prints the line the test's
# SKIP_REGULAR_EXPRESSION matches, so the test is reported as skipped, not passed.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(code STREQUAL "77")
  message(STATUS "SKIP: no CUDA device")
  return()
endif()
if(NOT code STREQUAL EXPECTED_EXIT)
  message(FATAL_ERROR "expected exit ${EXPECTED_EXIT}, got '${code}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECTED_OUTPUT}")
  message(FATAL_ERROR "exit ${code} but no output matching '${EXPECTED_OUTPUT}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
message(STATUS "exit ${code} as expected:\n${err}")
