cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# cmake -DEXPECTED_EXIT=<code> -DCOMMAND=<program;args...> -P ExpectExit.cmake
# Passes when COMMAND exits with EXPECTED_EXIT; CTest by itself can only tell zero from non-zero.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code STREQUAL EXPECTED_EXIT)
  message(FATAL_ERROR "expected exit ${EXPECTED_EXIT}, got '${code}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(EXPECTED_EXIT STREQUAL "2" AND NOT err MATCHES "usage")
  message(FATAL_ERROR "exit 2 but no usage text on stderr:\n${err}")
endif()
message(STATUS "exit ${code} as expected")
