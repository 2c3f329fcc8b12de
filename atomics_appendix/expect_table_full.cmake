cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# cmake -DCOMMAND=<program;args...> -P expect_table_full.cmake
# Passes when the program refuses a table too small for its keys: exit 1 and "table full" on
# stderr. Exit 77 (no CUDA device, or no driver) prints the fixed line "SKIP: no CUDA device or
# driver: ..." whatever the program said, and the test's SKIP_REGULAR_EXPRESSION (CMakeLists.txt)
# matches that line, so CTest reports the test skipped, never passed.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 120)
if(code STREQUAL "77")
  string(STRIP "${err}" err)
  message(STATUS "SKIP: no CUDA device or driver: ${err}")
  return()
endif()
if(NOT code STREQUAL "1" OR NOT err MATCHES "table full")
  message(FATAL_ERROR "expected exit 1 and 'table full', got '${code}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
message(STATUS "exit 1 as expected: ${err}")
