cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# cmake -DEXPECTED_EXIT=<code> -DEXPECTED_STDERR=<regex> -DCOMMAND=<program;args...> -P expect_message.cmake
# cmake/ExpectExit.cmake checks the exit code; 07_98's bad-file tests also check that stderr says
# why, so that a file rejected for the wrong reason (or a crash that happens to exit 1) fails.
# ExpectExit.cmake runs the command and leaves its stderr in `err`.
include("${CMAKE_CURRENT_LIST_DIR}/../cmake/ExpectExit.cmake")
if(NOT err MATCHES "${EXPECTED_STDERR}")
  message(FATAL_ERROR "stderr does not match '${EXPECTED_STDERR}':\n${err}")
endif()
message(STATUS "stderr matches '${EXPECTED_STDERR}'")
