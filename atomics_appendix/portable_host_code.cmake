cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# cmake -DSOURCE_DIR=<atomics_appendix> -P portable_host_code.cmake
# The chapter's code compiles with MSVC as well as GCC and Clang: no GCC-only spelling in any of
# its sources (A1 once held its reference in unsigned __int128, which MSVC lacks). MSVC itself is
# not run here; this keeps out what it is known to refuse.
if(NOT DEFINED SOURCE_DIR)
  message(FATAL_ERROR "portable_host_code.cmake: -DSOURCE_DIR=... is required")
endif()
file(GLOB sources "${SOURCE_DIR}/*.cu" "${SOURCE_DIR}/*.cuh" "${SOURCE_DIR}/*.h"
     "${SOURCE_DIR}/*.cpp")
set(found "")
foreach(source IN LISTS sources)
  file(STRINGS "${source}" lines REGEX "__int128|__builtin_|__attribute__|__typeof__")
  foreach(line IN LISTS lines)
    get_filename_component(name "${source}" NAME)
    string(STRIP "${line}" line)
    string(APPEND found "\n  ${name}: ${line}")
  endforeach()
endforeach()
if(found)
  message(FATAL_ERROR "GCC-only spellings (MSVC refuses them):${found}")
endif()
list(LENGTH sources count)
message(STATUS "${count} sources: no GCC-only spelling")
