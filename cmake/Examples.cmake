# add_example(): the one way a program enters the build and the test suite.
#
#   add_example(<name> CHAPTER <folder> HOST|GPU
#               [SOURCE <file>]          default <name>.cu (GPU) or <name>.cpp (HOST)
#               [LIBRARIES <target>...]
#               [ARGS <arg>...]          arguments of the default test run (default: none)
#               [RUNS "<args>"...]       extra test runs, one string of arguments each (odd sizes)
#               [SANITIZE "<args>"]      arguments of the compute-sanitizer runs (GPU only;
#                                        "<tool>" in them becomes the tool's name)
#               [NO_SANITIZE <tool>...]  sanitizer tools that do not support this program
#               [BAD_ARGS "<args>"...]   flag values the program must refuse (exit 2), one
#                                        string each: "--width 0" must give "--width needs ...,
#                                        got '0'" (the last flag and its value); an entry that
#                                        gives no single bad value (two flags that contradict, an
#                                        output folder that cannot be made) ends with
#                                        "=> <stderr regex>", the message it must give
#               [ACCEPT_ARGS "<args>"...]  flag values the program must accept: a GPU program runs
#                                        with every GPU hidden (CUDA_VISIBLE_DEVICES=-1) and must
#                                        reach require_gpu() (exit 77 with its SKIP line), so it
#                                        never runs a kernel, with or without a GPU; a host
#                                        program must exit 0 (give it a small --n)
#               [EXAMPLE_ARGS <arg>...]  arguments for `run_examples` (default: none)
#               [RELOCATABLE]            relocatable device code and the device runtime
#                                        (dynamic parallelism: kernels that launch kernels)
#               [HOMEWORK]               an exercise: its marked files (// BEGIN SOLUTION ...
#               [HOMEWORK_FILES <f>...]  // END SOLUTION) become a student version; the files
#                                        default to SOURCE (homework/grader/hwtext.py)
#               [HOMEWORK_RUNS "<args>"...]  runs of an exercise the student sees too (a second
#                                        form the default run does not reach); else as RUNS
#               [PROGRAM_RUNS "<args>"...]  runs of an exercise that never reach its marked parts
#                                        (the worked example's own code answers them whole):
#                                        tests of the program, not of the student, so grading
#                                        leaves them out; else as RUNS
#               [HOMEWORK_POINTS <n>]    the exercise's weight in grading (default 1), shared by
#                                        its tests
#               [HOMEWORK_TIMEOUT <s>]   the time limit of each of its tests (default 120 s)
#               [HOMEWORK_TIMED "<args>"]  a hidden run, large enough that a method other than the
#                                        exercise's (one thread looping, an atomic per element)
#                                        is far slower; grading holds its times to a budget
#               [HOMEWORK_TIME_FACTOR <f>] that budget: at most f x the worked example's times in
#                                        the same grading (default 5)
#               [HOMEWORK_FORBID <name>...]  names the student's parts may not use: the helpers
#                                        that answer the exercise
#               [TEST_ONLY])             a test program (checks a helper): no usage test, and
#                                        `run_examples` leaves it out
#
# Tests (names <folder>/<name>[/<run>]; labels: the chapter, then `host` or `gpu`):
#   <name>           the default run; exit 0 passes, 77 (no GPU) is reported as skipped
#   <name>/<run>     one per RUNS entry, named after its arguments ("--n 2047" -> n_2047)
#   <name>/usage     an unknown flag, and a malformed --n (<name>/bad_value), must print usage
#                    and exit 2: flags are parsed before the GPU is looked for, so these run
#                    anywhere (label host)
#   <name>/bad_<run>     one per BAD_ARGS entry ("--width -1" -> bad_width_minus1), label host
#   <name>/accept_<run>  one per ACCEPT_ARGS entry, label host
#   <name>/<tool>    memcheck, racecheck, synccheck, initcheck under compute-sanitizer, label
#                    `sanitize`; registered only for GPU programs and where compute-sanitizer exists
# A HOMEWORK program's default run is also labelled `homework` (the sizes a student sees), as are
# its HOMEWORK_RUNS; its PROGRAM_RUNS keep the two labels alone; its RUNS are labelled `hidden`, with one more run, <name>/hidden_seed, of the
# default arguments and --seed HOMEWORK_HIDDEN_SEED (the instructor's grading passes its own
# seed), and its HOMEWORK_TIMED run, <name>/timed. The exercises, with their runs, points and
# limits, are written to build/homework_exercises.json, which homework/export.py and the grader
# (homework/grader) read.
#
# Four helpers for the tests add_example() does not make, with the same conventions:
#   add_expect_exit_test(<test> <chapter> host|gpu <exit> "<stderr regex>" <program> <arg>...)
#   add_sanitizer_tests(<chapter> <program> <suffix> "<tools to leave out>" <arg>...)
#   add_plot_script_tests(<chapter> <script> <csv>)
#   add_compile_alone_test(<chapter> <test> <program> <header> <kernels-only macro> <arg>...)
set(EXAMPLES_SANITIZER_TOOLS memcheck racecheck synccheck initcheck)
set(_examples_dir "${CMAKE_CURRENT_LIST_DIR}")
set(HOMEWORK_HIDDEN_SEED 20261122 CACHE STRING "seed of the hidden homework runs")

# A test that passes when <program> <args> exits with <exit> and its stderr matches the regex (""
# for any), through cmake/ExpectExit.cmake (CTest alone tells only zero from non-zero). A gpu test
# is reported as skipped where there is no CUDA device or driver (exit 77). <program> is a target,
# or a command (an interpreter and its script).
function(add_expect_exit_test test chapter kind exit stderr_regex program)
  set(gpu "")
  if(kind STREQUAL "gpu")
    set(gpu -DGPU=ON)
  endif()
  if(TARGET ${program})
    set(program $<TARGET_FILE:${program}>)
  endif()
  add_test(NAME ${test}
           COMMAND ${CMAKE_COMMAND} -DEXPECTED_EXIT=${exit} "-DEXPECTED_STDERR=${stderr_regex}"
                   ${gpu} "-DCOMMAND=${program};${ARGN}"
                   -P "${_examples_dir}/ExpectExit.cmake")
  set_tests_properties(${test} PROPERTIES LABELS "${chapter};${kind}")
  if(gpu)
    set_tests_properties(${test} PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP: no CUDA device or driver: ")
  endif()
endfunction()

# <program> under compute-sanitizer's tools (EXAMPLES_SANITIZER_TOOLS, but those listed in
# <skip_tools>), one test each, <chapter>/<program>/<tool><suffix>, label `sanitize`; any error the
# tool reports fails it. "<tool>" in the arguments becomes the tool's name (for a program that
# writes files: a folder per tool, so that tests running at the same time never share a file).
# Nothing is registered where compute-sanitizer is not found.
function(add_sanitizer_tests chapter program suffix skip_tools)
  if(NOT COMPUTE_SANITIZER)
    return()
  endif()
  foreach(tool IN LISTS EXAMPLES_SANITIZER_TOOLS)
    if(tool IN_LIST skip_tools)
      continue()
    endif()
    set(tool_args --tool ${tool} --error-exitcode 1)
    if(tool STREQUAL "memcheck")
      list(APPEND tool_args --leak-check full)
    endif()
    string(REPLACE "<tool>" "${tool}" args "${ARGN}")
    add_test(NAME ${chapter}/${program}/${tool}${suffix}
             COMMAND ${COMPUTE_SANITIZER} ${tool_args} $<TARGET_FILE:${program}> ${args})
    set_tests_properties(${chapter}/${program}/${tool}${suffix} PROPERTIES
                         LABELS "${chapter};sanitize" SKIP_RETURN_CODE 77)
  endforeach()
endfunction()

# A chapter's plot script (scripts/report.py): the folder of --png is made as mkdir -p
# (<chapter>/<script>/accept_png_folder, from the chapter's <csv>), and one that cannot be made is a
# usage error before the CSV is read (<chapter>/<script>/bad_png_folder: under a file, with a CSV
# that does not exist). Label host; registered where Python 3 is found.
function(add_plot_script_tests chapter script csv)
  if(NOT Python3_Interpreter_FOUND)
    return()
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/plot_script_tests")
  file(WRITE "${dir}/not_a_folder" "a file where a folder is asked for\n")
  set(run ${Python3_EXECUTABLE} "${CMAKE_CURRENT_SOURCE_DIR}/${script}")
  add_expect_exit_test(${chapter}/${script}/bad_png_folder ${chapter} host 2
                       "cannot create the folder" ${run} "${dir}/not_a_folder/no.csv"
                       --png "${dir}/not_a_folder/sub/plot.png")
  add_expect_exit_test(${chapter}/${script}/accept_png_folder ${chapter} host 0 "" ${run}
                       "${CMAKE_CURRENT_SOURCE_DIR}/${csv}" --png "${dir}/made/as/mkdir/p/plot.png")
endfunction()

# add_compile_alone_test(<chapter> <test> <program> <header> <kernels-only macro> [<arg>...]): a
# test (label host, no GPU needed) that compiles <program>.cu (or, for a host program,
# <program>.cpp) with its main left out (<macro>
# defined) in an empty folder beside <header> alone, as a reader who copies the kernel and
# launcher into a project of their own would (cmake/CompileAlone.cmake; the <arg>s are its -D
# options).
function(add_compile_alone_test chapter test program header kernels_only)
  set(source ${CMAKE_CURRENT_SOURCE_DIR}/${program}.cu)
  if(NOT EXISTS ${source})
    set(source ${CMAKE_CURRENT_SOURCE_DIR}/${program}.cpp)
  endif()
  set(args -DNVCC=${CMAKE_CUDA_COMPILER} -DSOURCE=${source}
           -DHEADER=${CMAKE_CURRENT_SOURCE_DIR}/${header} -DKERNELS_ONLY=${kernels_only})
  string(REGEX REPLACE "[^A-Za-z0-9_]+" "_" work "${test}")
  list(APPEND args -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/compile_alone/${work})
  if(CMAKE_CUDA_HOST_COMPILER)
    list(APPEND args -DCCBIN=${CMAKE_CUDA_HOST_COMPILER})
  endif()
  add_test(NAME ${test} COMMAND ${CMAKE_COMMAND} ${args} ${ARGN}
                                -P "${_examples_dir}/CompileAlone.cmake")
  set_tests_properties(${test} PROPERTIES LABELS "${chapter};host")
endfunction()

# add_two_file_example(<name> <chapter>): a copy test, the chapter's kernels in a program of two
# files, copy_tests/two_file_main.cu and copy_tests/two_file_kernels.cu, built twice as a GPU
# test-only program: <name> whole-program and <name>_rdc with relocatable device code. A header or
# kernel that two files cannot share fails the build (the link).
function(add_two_file_example name chapter)
  foreach(build IN ITEMS "" _rdc)
    add_example(${name}${build} CHAPTER ${chapter} GPU TEST_ONLY SOURCE copy_tests/two_file_main.cu)
    target_sources(${name}${build} PRIVATE copy_tests/two_file_kernels.cu)
  endforeach()
  set_target_properties(${name}_rdc PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
endfunction()

# The text of a call `add_example(<args>)`, each argument quoted where it needs it; the source
# folder becomes ${CMAKE_CURRENT_SOURCE_DIR} again.
function(_examples_call_text out_var)
  set(text "add_example(")
  set(separator "")
  math(EXPR last "${ARGC} - 1")
  foreach(i RANGE 1 ${last})
    set(arg "${ARGV${i}}")
    string(REPLACE "${CMAKE_CURRENT_SOURCE_DIR}" "\${CMAKE_CURRENT_SOURCE_DIR}" arg "${arg}")
    if(NOT arg MATCHES "^[A-Za-z0-9_.,/:+=-]+$")
      string(REGEX REPLACE "([\"\\])" "\\\\1" arg "${arg}")
      set(arg "\"${arg}\"")
    endif()
    if(arg MATCHES "^[A-Z_]+$")
      set(separator "\n            ")  # one keyword per line
    endif()
    string(APPEND text "${separator}${arg}")
    set(separator " ")
  endforeach()
  set(${out_var} "${text})" PARENT_SCOPE)
endfunction()

# A test name's suffix from a run's arguments: "--radius 4 --width 3" -> radius_4_width_3; a
# negative value keeps its sign as "minus" ("--width -1" -> width_minus1).
function(_examples_run_suffix out_var run)
  string(REGEX REPLACE "(^| )-([0-9])" "\\1minus\\2" suffix "${run}")
  string(REGEX REPLACE "[^A-Za-z0-9]+" "_" suffix "${suffix}")
  string(REGEX REPLACE "^_+|_+$" "" suffix "${suffix}")
  set(${out_var} "${suffix}" PARENT_SCOPE)
endfunction()

# The tests of BAD_ARGS and ACCEPT_ARGS (see add_example).
function(_examples_flag_tests test_name chapter kind program)
  cmake_parse_arguments(PARSE_ARGV 4 FT "" "" "BAD;ACCEPT")
  foreach(entry IN LISTS FT_BAD)
    set(regex "")
    if(entry MATCHES "^(.*[^ ]) *=> *(.+)$")
      set(entry "${CMAKE_MATCH_1}")
      set(regex "${CMAKE_MATCH_2}")
    endif()
    separate_arguments(args UNIX_COMMAND "${entry}")
    if(regex STREQUAL "")
      # The refused value is the last argument, the flag before it: the message must name both,
      # so that a misspelt flag (an unknown flag exits 2 too) cannot pass for a refused value.
      list(LENGTH args count)
      if(count LESS 2)
        message(FATAL_ERROR "${test_name}: BAD_ARGS \"${entry}\" needs a flag and its value, or "
                            "\"=> <message>\"")
      endif()
      list(GET args -2 flag)
      list(GET args -1 value)
      if(NOT flag MATCHES "^--")
        message(FATAL_ERROR "${test_name}: BAD_ARGS \"${entry}\" does not end in a flag and its "
                            "value; give \"=> <message>\"")
      endif()
      string(REGEX REPLACE "([][+.*?()^$|\\{}])" "\\\\\\1" value_regex "${value}")
      set(regex "${flag} needs [^']*, got '${value_regex}'")
    endif()
    _examples_run_suffix(suffix "${entry}")
    add_expect_exit_test(${test_name}/bad_${suffix} ${chapter} host 2 "${regex}" ${program}
                         ${args})
  endforeach()
  set(accepted 0)
  if(kind STREQUAL "gpu")
    set(accepted 77)  # every GPU hidden: the flags passed, the program went on to look for one
  endif()
  foreach(entry IN LISTS FT_ACCEPT)
    separate_arguments(args UNIX_COMMAND "${entry}")
    _examples_run_suffix(suffix "${entry}")
    add_expect_exit_test(${test_name}/accept_${suffix} ${chapter} host ${accepted} "" ${program}
                         ${args})
    set_tests_properties(${test_name}/accept_${suffix} PROPERTIES
                         ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1")
  endforeach()
endfunction()

# JSON text of a string, and of an array of JSON texts.
function(_examples_json_string out_var value)
  string(REPLACE "\\" "\\\\" value "${value}")
  string(REPLACE "\"" "\\\"" value "${value}")
  string(REPLACE "\n" "\\n" value "${value}")
  string(REPLACE "\t" "\\t" value "${value}")
  set(${out_var} "\"${value}\"" PARENT_SCOPE)
endfunction()
function(_examples_json_strings out_var)
  set(items "")
  foreach(item IN LISTS ARGN)
    _examples_json_string(item "${item}")
    list(APPEND items "${item}")
  endforeach()
  list(JOIN items ", " items)
  set(${out_var} "[${items}]" PARENT_SCOPE)
endfunction()

# One test run of an exercise, as JSON: its test name, arguments, label (homework, hidden or
# timed) and whether grading adds its own --seed.
function(_examples_json_run out_var test label seeded)
  _examples_json_string(test "${test}")
  _examples_json_strings(args ${ARGN})
  set(${out_var} "{\"test\": ${test}, \"args\": ${args}, \"label\": \"${label}\", \"seeded\": ${seeded}}"
      PARENT_SCOPE)
endfunction()

# The exercise of the add_example() call this is called from, as JSON (its variables EX_...,
# json_runs and the call's arguments).
macro(_examples_homework_json out_var)
  _examples_json_string(_hw_name "${name}")
  _examples_json_string(_hw_chapter "${EX_CHAPTER}")
  file(RELATIVE_PATH _hw_source "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}/${EX_SOURCE}")
  file(RELATIVE_PATH _hw_dir "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}")
  set(_hw_files "")
  foreach(_hw_file IN LISTS EX_HOMEWORK_FILES)
    file(RELATIVE_PATH _hw_file "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}/${_hw_file}")
    list(APPEND _hw_files "${_hw_file}")
  endforeach()
  _examples_json_strings(_hw_files ${_hw_files})
  _examples_json_strings(_hw_forbid ${EX_HOMEWORK_FORBID})
  _examples_json_string(_hw_source "${_hw_source}")
  _examples_json_string(_hw_dir "${_hw_dir}")
  _examples_json_string(_hw_call "${homework_call}")
  list(JOIN json_runs ",\n    " _hw_runs)
  set(${out_var} "{\"name\": ${_hw_name}, \"chapter\": ${_hw_chapter}, \"kind\": \"${kind}\",
  \"source\": ${_hw_source}, \"dir\": ${_hw_dir}, \"files\": ${_hw_files},
  \"points\": ${EX_HOMEWORK_POINTS}, \"timeout\": ${EX_HOMEWORK_TIMEOUT},
  \"time_factor\": ${EX_HOMEWORK_TIME_FACTOR},
  \"forbid\": ${_hw_forbid}, \"call\": ${_hw_call},
  \"runs\": [\n    ${_hw_runs}]}")
endmacro()

function(add_example name)
  set(homework_values HOMEWORK_POINTS HOMEWORK_TIMEOUT HOMEWORK_TIMED HOMEWORK_TIME_FACTOR)
  set(lists LIBRARIES ARGS RUNS HOMEWORK_RUNS PROGRAM_RUNS NO_SANITIZE EXAMPLE_ARGS HOMEWORK_FILES HOMEWORK_FORBID
            BAD_ARGS ACCEPT_ARGS)
  cmake_parse_arguments(PARSE_ARGV 1 EX "HOST;GPU;TEST_ONLY;RELOCATABLE;HOMEWORK"
                        "CHAPTER;SOURCE;SANITIZE;${homework_values}" "${lists}")
  if(NOT EX_CHAPTER OR EX_HOST STREQUAL EX_GPU)
    message(FATAL_ERROR "add_example(${name}): give CHAPTER and exactly one of HOST or GPU")
  endif()
  if(EX_HOST)
    set(kind host)
    set(default_source ${name}.cpp)
  else()
    set(kind gpu)
    set(default_source ${name}.cu)
  endif()
  if(NOT EX_SOURCE)
    set(EX_SOURCE ${default_source})
  endif()

  add_executable(${name} ${EX_SOURCE})
  target_link_libraries(${name} PRIVATE common ${EX_LIBRARIES})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
  if(EX_RELOCATABLE)
    if(NOT TARGET CUDA::cudadevrt)  # FindCUDAToolkit of CMake 3.25 does not define it
      find_library(EXAMPLES_CUDADEVRT cudadevrt HINTS "${CUDAToolkit_LIBRARY_DIR}" REQUIRED)
      add_library(CUDA::cudadevrt STATIC IMPORTED GLOBAL)
      set_target_properties(CUDA::cudadevrt PROPERTIES IMPORTED_LOCATION "${EXAMPLES_CUDADEVRT}")
    endif()
    set_target_properties(${name} PROPERTIES CUDA_SEPARABLE_COMPILATION ON
                                             CUDA_RESOLVE_DEVICE_SYMBOLS ON)
    target_link_libraries(${name} PRIVATE CUDA::cudadevrt)
  endif()
  if(EX_HOMEWORK)
    # The grading record and its replay (common/grading.cpp): in an exercise's program alone.
    # grading.cpp's main() calls the program's, renamed, once a run (several runs in one
    # process when the grader asks: HOMEWORK_BATCH).
    target_link_libraries(${name} PRIVATE common_grading)
    target_compile_definitions(${name} PRIVATE main=homework_program_main)
    if(NOT EX_HOMEWORK_FILES)
      set(EX_HOMEWORK_FILES ${EX_SOURCE})
    endif()
    foreach(var IN ITEMS POINTS:1 TIMEOUT:120 TIME_FACTOR:5)
      string(REPLACE ":" ";" var "${var}")
      list(GET var 0 key)
      list(GET var 1 default)
      if(NOT DEFINED EX_HOMEWORK_${key})
        set(EX_HOMEWORK_${key} ${default})
      endif()
      if(NOT EX_HOMEWORK_${key} MATCHES "^[0-9]+(\\.[0-9]+)?$")
        message(FATAL_ERROR "add_example(${name}): HOMEWORK_${key} must be a number")
      endif()
    endforeach()
    if(NOT EX_HOMEWORK_TIMED)
      message(FATAL_ERROR "add_example(${name}): an exercise needs HOMEWORK_TIMED \"<args>\", a "
                          "hidden run whose times grading holds to a budget")
    endif()
  endif()

  set(test_name "${EX_CHAPTER}/${name}")
  add_test(NAME ${test_name} COMMAND ${name} ${EX_ARGS})
  set(tests ${test_name})
  set(student_tests ${test_name})
  _examples_json_run(json_runs "${test_name}" homework false ${EX_ARGS})
  set(program_tests)
  foreach(run IN LISTS EX_RUNS EX_HOMEWORK_RUNS EX_PROGRAM_RUNS)
    _examples_run_suffix(suffix "${run}")
    separate_arguments(run_args UNIX_COMMAND "${run}")
    add_test(NAME ${test_name}/${suffix} COMMAND ${name} ${run_args})
    if(run IN_LIST EX_PROGRAM_RUNS)
      list(APPEND program_tests ${test_name}/${suffix})
      continue()
    elseif(run IN_LIST EX_HOMEWORK_RUNS)
      list(APPEND student_tests ${test_name}/${suffix})
      _examples_json_run(json_run "${test_name}/${suffix}" homework false ${run_args})
    else()
      list(APPEND tests ${test_name}/${suffix})
      _examples_json_run(json_run "${test_name}/${suffix}" hidden false ${run_args})
    endif()
    list(APPEND json_runs "${json_run}")
  endforeach()
  set_tests_properties(${tests} ${student_tests} ${program_tests}
                       PROPERTIES LABELS "${EX_CHAPTER};${kind}" SKIP_RETURN_CODE 77)
  if(EX_HOMEWORK)
    add_test(NAME ${test_name}/hidden_seed COMMAND ${name} ${EX_ARGS} --seed ${HOMEWORK_HIDDEN_SEED})
    separate_arguments(timed_args UNIX_COMMAND "${EX_HOMEWORK_TIMED}")
    add_test(NAME ${test_name}/timed COMMAND ${name} ${timed_args})
    list(POP_FRONT tests default_test)
    list(APPEND tests ${test_name}/hidden_seed ${test_name}/timed)
    set_tests_properties(${student_tests} PROPERTIES LABELS "${EX_CHAPTER};${kind};homework"
                                                     TIMEOUT ${EX_HOMEWORK_TIMEOUT})
    set_tests_properties(${tests} PROPERTIES LABELS "${EX_CHAPTER};${kind};hidden"
                                             SKIP_RETURN_CODE 77 TIMEOUT ${EX_HOMEWORK_TIMEOUT})
    _examples_json_run(json_run "${test_name}/hidden_seed" hidden true ${EX_ARGS})
    list(APPEND json_runs "${json_run}")
    _examples_json_run(json_run "${test_name}/timed" timed false ${timed_args})
    list(APPEND json_runs "${json_run}")
    _examples_call_text(homework_call ${ARGV})
    _examples_homework_json(json)
    set_property(GLOBAL APPEND PROPERTY HOMEWORK_JSON "${json}")
  endif()

  if(NOT EX_TEST_ONLY)
    foreach(bad_args IN ITEMS "usage|--no-such-flag" "bad_value|--n|not-a-number")
      string(REPLACE "|" ";" bad_args "${bad_args}")
      list(POP_FRONT bad_args suffix)
      add_expect_exit_test(${test_name}/${suffix} ${EX_CHAPTER} host 2 "" ${name} ${bad_args})
    endforeach()
  endif()
  _examples_flag_tests(${test_name} ${EX_CHAPTER} ${kind} ${name} BAD ${EX_BAD_ARGS}
                       ACCEPT ${EX_ACCEPT_ARGS})

  if(EX_GPU)
    separate_arguments(sanitize_args UNIX_COMMAND "${EX_SANITIZE}")
    add_sanitizer_tests(${EX_CHAPTER} ${name} "" "${EX_NO_SANITIZE}" ${sanitize_args})
  endif()

  if(EX_TEST_ONLY)
    return()
  endif()
  string(REPLACE ";" " " example_args "${EX_EXAMPLE_ARGS}")
  set_property(GLOBAL APPEND PROPERTY EXAMPLES_MANIFEST
               "${EX_CHAPTER}|${name}|${kind}|$<TARGET_FILE:${name}>|${example_args}")
  set_property(GLOBAL APPEND PROPERTY EXAMPLES_TARGETS ${name})
endfunction()

# Writes the list of programs, in the order they were added, and the `run_examples` target that
# runs each one at its default size and prints a per-chapter summary (cmake/RunExamples.cmake);
# and, when there are exercises, build/homework_exercises.json.
function(write_examples_manifest)
  get_property(entries GLOBAL PROPERTY EXAMPLES_MANIFEST)
  get_property(targets GLOBAL PROPERTY EXAMPLES_TARGETS)
  list(JOIN entries "\n" content)
  set(manifest "${CMAKE_BINARY_DIR}/examples_manifest.txt")
  file(GENERATE OUTPUT "${manifest}" CONTENT "${content}\n")
  get_property(exercises GLOBAL PROPERTY HOMEWORK_JSON)
  if(exercises)
    list(JOIN exercises ",\n" exercises)
    _examples_json_string(source_dir "${PROJECT_SOURCE_DIR}")
    file(WRITE "${CMAKE_BINARY_DIR}/homework_exercises.json"
         "{\"source_dir\": ${source_dir}, \"hidden_seed\": ${HOMEWORK_HIDDEN_SEED},\n"
         "\"exercises\": [\n${exercises}]}\n")
  endif()
  add_custom_target(
    run_examples
    COMMAND ${CMAKE_COMMAND} "-DMANIFEST=${manifest}" -P "${_examples_dir}/RunExamples.cmake"
    DEPENDS ${targets}
    USES_TERMINAL
    COMMENT "Running every example, chapter by chapter")
endfunction()
