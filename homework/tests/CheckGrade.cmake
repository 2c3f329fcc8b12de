cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# The grading command on a tree of one fixture (good.cu, handed out as its student version):
#   cmake -DSOURCE_DIR=<repository> -DWORK=<dir> -P CheckGrade.cmake
# The solution itself and a student's own answer (with `#pragma unroll`, and braces in a comment
# and a string) are accepted and spliced exactly; a file changed outside the student's parts, or
# one whose part calls a library, holds a preprocessor directive (`#define kExitWrong kExitOk`)
# or closes the function it is in (to specialise the verification after it), is rejected with
# the reason and line.
set(fixtures "${CMAKE_CURRENT_LIST_DIR}")
include("${SOURCE_DIR}/cmake/HomeworkGenerate.cmake")
set(tree "${WORK}/tree")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${tree}/cmake" "${tree}/x")
file(COPY "${SOURCE_DIR}/cmake/HomeworkGrade.cmake" "${SOURCE_DIR}/cmake/HomeworkText.cmake"
     DESTINATION "${tree}/cmake")
homework_generate("${fixtures}/good.cu" "${tree}/x/good.cu")
set(regions "")
foreach(k RANGE 1 ${HOMEWORK_REGION_COUNT})
  list(APPEND regions "${HOMEWORK_REGION_${k}}")
endforeach()
file(WRITE "${tree}/cmake/HomeworkExercises.cmake"
     "set(HOMEWORK_MARKED_FILES x/good.cu)\nset(HOMEWORK_REGIONS_x_good_cu \"${regions}\")\n")

# grade(<case> <submitted file> <path in the submission> <expected file or error regex>)
function(grade case file path expected)
  file(MAKE_DIRECTORY "${WORK}/${case}")
  configure_file("${file}" "${WORK}/${case}/${path}" COPYONLY)
  execute_process(COMMAND "${CMAKE_COMMAND}" "-DSUBMISSION=${WORK}/${case}"
                          "-DOUT=${WORK}/${case}-graded" -DRUN=OFF -P "${tree}/cmake/HomeworkGrade.cmake"
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(EXISTS "${expected}")
    execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK}/${case}-graded/x/good.cu"
                            "${expected}" RESULT_VARIABLE differ)
    if(NOT code EQUAL 0 OR differ)
      message(FATAL_ERROR "${case}: not accepted as ${expected} (exit ${code}):\n${out}\n${err}")
    endif()
    message(STATUS "${case}: accepted, graded file as expected")
  else()
    string(REGEX REPLACE "[ \n]+" " " err "${err}")  # CMake wraps its messages
    if(code EQUAL 0 OR NOT err MATCHES "${expected}")
      message(FATAL_ERROR "${case}: not rejected with /${expected}/ (exit ${code}):\n${err}")
    endif()
    message(STATUS "${case}: rejected: ${err}")
  endif()
endfunction()

grade(solution "${fixtures}/good.cu" x/good.cu "${fixtures}/good.cu")
grade(own "${fixtures}/submission_own.cu" good.cu "${fixtures}/submission_own.graded.cu")
grade(unanswered "${tree}/x/good.cu" x/good.cu "${tree}/x/good.cu")
grade(library "${fixtures}/submission_library.cu" x/good.cu
      "library/x/good.cu:12: calls THRUST")
grade(changed "${fixtures}/submission_changed.cu" x/good.cu
      "good.cu: the lines outside the parts you write changed: line 8 ")
grade(directive "${fixtures}/submission_directive.cu" x/good.cu
      "directive/x/good.cu:20: a preprocessor directive \\(`#define kExitWrong kExitOk`\\)")
grade(braces "${fixtures}/submission_braces.cu" x/good.cu
      "braces/x/good.cu:21: this `}` closes a brace opened outside the part you write")
