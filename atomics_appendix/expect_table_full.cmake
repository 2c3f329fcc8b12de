cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# cmake -DCOMMAND=<program;args...> -P expect_table_full.cmake
# Passes when the program refuses a table too small for its keys: exit 1 and "table full" on
# stderr. With no GPU the program's "SKIP: no CUDA device" is printed, and the test's
# SKIP_REGULAR_EXPRESSION marks it skipped.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 120)
if(code STREQUAL "77")
  message(STATUS "${err}")
  return()
endif()
if(NOT code STREQUAL "1" OR NOT err MATCHES "table full")
  message(FATAL_ERROR "expected exit 1 and 'table full', got '${code}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
message(STATUS "exit 1 as expected: ${err}")
