cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# The generator's own test, run through CTest:
#   cmake -DGENERATOR=<HomeworkGenerate.cmake> -DINPUT=<fixture> -DWORK=<dir>
#         (-DEXPECTED=<expected student file> | -DEXPECT_ERROR=<line>) -P CheckGenerator.cmake
# A good fixture must give EXPECTED byte for byte, twice; a bad one must fail and name
# <fixture file>:<line>.
get_filename_component(name "${INPUT}" NAME)
file(MAKE_DIRECTORY "${WORK}")
foreach(run 1 2)
  execute_process(COMMAND "${CMAKE_COMMAND}" "-DINPUT=${INPUT}" "-DOUTPUT=${WORK}/${name}.${run}"
                          -P "${GENERATOR}"
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(DEFINED EXPECT_ERROR)
    if(code EQUAL 0)
      message(FATAL_ERROR "${name}: the generator accepted a bad file")
    endif()
    if(NOT err MATCHES "${name}:${EXPECT_ERROR}: ")
      message(FATAL_ERROR "${name}: the error does not name line ${EXPECT_ERROR}:\n${err}")
    endif()
    message(STATUS "rejected as expected:\n${err}")
    return()
  endif()
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "${name}: the generator failed:\n${err}")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK}/${name}.${run}"
                          "${EXPECTED}" RESULT_VARIABLE differ)
  if(differ)
    message(FATAL_ERROR "${name}: run ${run} differs from ${EXPECTED}")
  endif()
endforeach()
message(STATUS "${name}: the expected bytes, twice")
