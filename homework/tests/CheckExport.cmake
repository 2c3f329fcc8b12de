cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# The export of every exercise of the build, checked (label homework_scheme, no GPU needed):
#   cmake -DSOURCE_DIR=<repository> -DMANIFEST=<build>/homework_manifest.cmake -DWORK=<dir>
#         [-DBUILD=ON -DGENERATOR=Ninja -DARCH=90 -DCUDA_COMPILER=... -DCXX_COMPILER=...]
#         -P CheckExport.cmake
# Without BUILD: the tree holds no mark, no STUB line and, for every region, not the line that
#   only its solution has; the grading command, given the solutions, gives them back byte for byte.
# With BUILD: the tree configures and builds on its own, its host tests pass, every exercise has
#   `homework` and `hidden` tests, and no `homework` test runs with a hidden run's arguments.
include("${SOURCE_DIR}/cmake/HomeworkText.cmake")
set(tree "${WORK}/tree")
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND "${CMAKE_COMMAND}" "-DMANIFEST=${MANIFEST}" "-DDEST=${tree}"
                        -DCHAPTERS= -DPROGRAMS=  # all, whatever the environment says
                        "-DSOLUTION_LINES=${WORK}/solution_lines.cmake"
                        -P "${SOURCE_DIR}/cmake/HomeworkExport.cmake"
                RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "homework_export failed")
endif()
include("${tree}/cmake/HomeworkExercises.cmake")
set(failures "")

if(NOT BUILD)
  # No mark or STUB line anywhere a student reads code or text.
  file(GLOB_RECURSE files "${tree}/*.cu" "${tree}/*.cuh" "${tree}/*.h" "${tree}/*.hpp"
       "${tree}/*.cpp" "${tree}/*.md" "${tree}/*.txt" "${tree}/*.py")
  foreach(file IN LISTS files)
    file(STRINGS "${file}" marks REGEX "SOLUTION|^[ \t]*// STUB:")
    if(marks)
      list(APPEND failures "${file}: a mark is left: ${marks}")
    endif()
  endforeach()
  # Per region, the line only the solution has.
  include("${WORK}/solution_lines.cmake")
  foreach(rel IN LISTS HOMEWORK_CHECK_FILES)
    string(MAKE_C_IDENTIFIER "${rel}" id)
    homework_read_lines("${tree}/${rel}" lines)
    set(exported "")
    foreach(line IN LISTS lines)
      homework_strip(stripped "${line}")
      homework_decode(stripped "${stripped}")
      string(APPEND exported "\n${stripped}\n")
    endforeach()
    foreach(k RANGE 1 ${HOMEWORK_CHECK_${id}_COUNT})
      set(only "${HOMEWORK_CHECK_${id}_${k}}")
      set(where "${SOURCE_DIR}/${rel}:${HOMEWORK_CHECK_${id}_${k}_LINE}")
      if(only STREQUAL "")
        list(APPEND failures "${where}: every line of this region also appears outside it, so no "
                             "test can tell that the student version leaves it out")
      else()
        string(FIND "${exported}" "\n${only}\n" at)
        if(NOT at EQUAL -1)
          list(APPEND failures "${where}: the student version shows the solution line `${only}`")
        else()
          message(STATUS "${rel}, region ${k}: `${only}` left out")
        endif()
      endif()
    endforeach()
  endforeach()
  # The solutions, graded in the tree, come back unchanged.
  execute_process(COMMAND "${CMAKE_COMMAND}" "-DSUBMISSION=${SOURCE_DIR}" "-DOUT=${WORK}/graded"
                          -DRUN=OFF -P "${tree}/cmake/HomeworkGrade.cmake"
                  RESULT_VARIABLE code ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    list(APPEND failures "the solutions are rejected by the grading command:\n${err}")
  endif()
  foreach(rel IN LISTS HOMEWORK_MARKED_FILES)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK}/graded/${rel}"
                            "${SOURCE_DIR}/${rel}" RESULT_VARIABLE differ)
    if(differ)
      list(APPEND failures "${rel}: graded as a submission, the solution does not come back as is")
    endif()
  endforeach()
  # The wrong versions of homework/wrong/ that apply here are graded, not rejected: on a GPU they
  # must then fail their tests (homework/gpu_check_homework.sh).
  file(GLOB variants "${SOURCE_DIR}/homework/wrong/*/*.txt")
  foreach(variant IN LISTS variants)
    file(STRINGS "${variant}" header LIMIT_COUNT 1)
    string(REGEX REPLACE "^.*file: *([^ ]+).*$" "\\1" rel "${header}")
    if(NOT rel IN_LIST HOMEWORK_MARKED_FILES)
      continue()
    endif()
    get_filename_component(name "${variant}" NAME_WE)
    get_filename_component(variant_name "${variant}" NAME)
    set(submission "${WORK}/wrong/${variant_name}")
    execute_process(COMMAND "${CMAKE_COMMAND}" "-DSOLUTION=${SOURCE_DIR}/${rel}"
                            "-DVARIANT=${variant}" "-DOUTPUT=${submission}/${rel}"
                            -P "${SOURCE_DIR}/homework/tests/MakeVariant.cmake")
    execute_process(COMMAND "${CMAKE_COMMAND}" "-DSUBMISSION=${submission}"
                            "-DOUT=${submission}-graded" -DRUN=OFF
                            -P "${tree}/cmake/HomeworkGrade.cmake"
                    RESULT_VARIABLE code ERROR_VARIABLE err)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${submission}-graded/${rel}"
                            "${SOURCE_DIR}/${rel}" RESULT_VARIABLE differ)
    if(NOT code EQUAL 0 OR NOT differ)
      list(APPEND failures "${variant}: not graded as a wrong version of ${rel}:\n${err}")
    else()
      message(STATUS "${variant_name}: graded as a different version of ${rel}")
    endif()
  endforeach()
else()
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${tree}" -B "${WORK}/build" -G "${GENERATOR}"
                          -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=${ARCH}"
                          "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
                  RESULT_VARIABLE code)
  if(code EQUAL 0)
    execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK}/build" -j 2 RESULT_VARIABLE code)
  endif()
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "the student tree does not configure or build")
  endif()
  execute_process(COMMAND ctest --test-dir "${WORK}/build" -L host --output-on-failure
                  RESULT_VARIABLE code)
  if(NOT code EQUAL 0)
    list(APPEND failures "the student tree's host tests fail")
  endif()
  # The tests of each exercise: `homework` ones must not run what a `hidden` one runs.
  execute_process(COMMAND ctest --test-dir "${WORK}/build" --show-only=json-v1
                  OUTPUT_VARIABLE json RESULT_VARIABLE code)
  string(JSON count LENGTH "${json}" tests)
  math(EXPR last "${count} - 1")
  foreach(i RANGE 0 ${last})
    string(JSON name GET "${json}" tests ${i} name)
    string(JSON command GET "${json}" tests ${i} command)
    string(JSON args REMOVE "${command}" 0)  # the program's path
    set(labels "")
    string(JSON n_props LENGTH "${json}" tests ${i} properties)
    math(EXPR last_prop "${n_props} - 1")
    foreach(p RANGE 0 ${last_prop})
      string(JSON prop GET "${json}" tests ${i} properties ${p} name)
      if(prop STREQUAL "LABELS")
        string(JSON labels GET "${json}" tests ${i} properties ${p} value)
      endif()
    endforeach()
    string(REGEX REPLACE "^([^/]+/[^/]+).*$" "\\1" program "${name}")
    foreach(label IN ITEMS homework hidden)
      if(labels MATCHES "\"${label}\"")
        list(APPEND ${label}_${program} "${args}")
        list(APPEND programs_with_${label} "${program}")
      endif()
    endforeach()
  endforeach()
  foreach(entry IN LISTS HOMEWORK_EXERCISES)
    string(REPLACE "|" ";" fields "${entry}")
    list(GET fields 0 chapter)
    list(GET fields 1 name)
    set(program "${chapter}/${name}")
    foreach(label IN ITEMS homework hidden)
      if(NOT program IN_LIST programs_with_${label})
        list(APPEND failures "${program}: no test labelled ${label}")
      endif()
    endforeach()
    foreach(args IN LISTS homework_${program})
      if(args IN_LIST hidden_${program} OR args MATCHES "--seed")
        list(APPEND failures "${program}: a homework test runs hidden arguments ${args}")
      endif()
    endforeach()
    message(STATUS "${program}: homework runs ${homework_${program}}; hidden runs apart")
  endforeach()
endif()

if(failures)
  list(JOIN failures "\n" failures)
  message(FATAL_ERROR "${failures}")
endif()
message(STATUS "export checked: ${HOMEWORK_EXERCISES}")
