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
# Every match is on the program's own output as execute_process captured it, never on text CMake
# has formatted, so no test depends on where the repository lies (a long path, a space in it).
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(GPU AND code STREQUAL "77")
  string(STRIP "${err}" err)
  message(STATUS "SKIP: no CUDA device or driver: ${err}")
  return()
endif()
# A failure prints the program's output as it is (message() without a mode leaves text alone;
# FATAL_ERROR re-wraps its text at spaces and would reflow it), then one short FATAL_ERROR.
function(fail reason)
  message("stdout:\n${out}\nstderr:\n${err}")
  message(FATAL_ERROR "${reason}")
endfunction()
if(NOT code STREQUAL EXPECTED_EXIT)
  fail("expected exit ${EXPECTED_EXIT}, got '${code}'")
endif()
if(code STREQUAL "77" AND NOT err MATCHES "SKIP: ")
  fail("exit 77 without require_gpu()'s SKIP line")
endif()
if(code STREQUAL "2" AND NOT err MATCHES "usage")
  fail("exit 2 but no usage text on stderr")
endif()
if(NOT "${EXPECTED_STDERR}" STREQUAL "" AND NOT err MATCHES "${EXPECTED_STDERR}")
  fail("exit ${code} but stderr does not match '${EXPECTED_STDERR}'")
endif()
message(STATUS "exit ${code} as expected")
