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
#               [EXAMPLE_ARGS <arg>...]  arguments for `run_examples` (default: none)
#               [RELOCATABLE]            relocatable device code and the device runtime
#                                        (dynamic parallelism: kernels that launch kernels)
#               [HOMEWORK]               an exercise: its marked files (// BEGIN SOLUTION ...
#               [HOMEWORK_FILES <f>...]  // END SOLUTION) become a student version; the files
#                                        default to SOURCE (cmake/HomeworkGenerate.cmake)
#               [HOMEWORK_RUNS "<args>"...]  runs of an exercise the student sees too (a second
#                                        form the default run does not reach); else as RUNS
#               [TEST_ONLY])             a test program (checks a helper): no usage test, and
#                                        `run_examples` leaves it out
#
# Tests (names <folder>/<name>[/<run>]; labels: the chapter, then `host` or `gpu`):
#   <name>           the default run; exit 0 passes, 77 (no GPU) is reported as skipped
#   <name>/<run>     one per RUNS entry, named after its arguments ("--n 2047" -> n_2047)
#   <name>/usage     an unknown flag, and a malformed --n (<name>/bad_value), must print usage
#                    and exit 2: flags are parsed before the GPU is looked for, so these run
#                    anywhere (label host)
#   <name>/<tool>    memcheck, racecheck, synccheck, initcheck under compute-sanitizer, label
#                    `sanitize`; registered only for GPU programs and where compute-sanitizer exists
# A HOMEWORK program's default run is also labelled `homework` (the sizes a student sees), as are
# its HOMEWORK_RUNS; its RUNS are labelled `hidden`, with one more run, <name>/hidden_seed, of the
# default arguments and --seed HOMEWORK_HIDDEN_SEED: the instructor's grading passes its own seed.
#
# Two helpers for the tests add_example() does not make, with the same conventions:
#   add_expect_exit_test(<test> <chapter> host|gpu <exit> "<stderr regex>" <program> <arg>...)
#   add_sanitizer_tests(<chapter> <program> <suffix> "<tools to leave out>" <arg>...)
set(EXAMPLES_SANITIZER_TOOLS memcheck racecheck synccheck initcheck)
set(_examples_dir "${CMAKE_CURRENT_LIST_DIR}")
set(HOMEWORK_HIDDEN_SEED 20261122 CACHE STRING "seed of the hidden homework runs")

# A test that passes when <program> <args> exits with <exit> and its stderr matches the regex
# ("" for any), through cmake/ExpectExit.cmake (CTest alone tells only zero from non-zero). A gpu
# test is reported as skipped where there is no CUDA device or driver (exit 77).
function(add_expect_exit_test test chapter kind exit stderr_regex program)
  set(gpu "")
  if(kind STREQUAL "gpu")
    set(gpu -DGPU=ON)
  endif()
  add_test(NAME ${test}
           COMMAND ${CMAKE_COMMAND} -DEXPECTED_EXIT=${exit} "-DEXPECTED_STDERR=${stderr_regex}"
                   ${gpu} "-DCOMMAND=$<TARGET_FILE:${program}>;${ARGN}"
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

# add_compile_alone_test(<chapter> <test> <program> <header> <kernels-only macro> [<arg>...]): a
# test (label host, no GPU needed) that compiles <program>.cu with its main left out (<macro>
# defined) in an empty folder beside <header> alone, as a reader who copies the kernel and
# launcher into a project of their own would (cmake/CompileAlone.cmake; the <arg>s are its -D
# options).
function(add_compile_alone_test chapter test program header kernels_only)
  set(args -DNVCC=${CMAKE_CUDA_COMPILER} -DSOURCE=${CMAKE_CURRENT_SOURCE_DIR}/${program}.cu
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

function(add_example name)
  cmake_parse_arguments(PARSE_ARGV 1 EX "HOST;GPU;TEST_ONLY;RELOCATABLE;HOMEWORK"
                        "CHAPTER;SOURCE;SANITIZE"
                        "LIBRARIES;ARGS;RUNS;HOMEWORK_RUNS;NO_SANITIZE;EXAMPLE_ARGS;HOMEWORK_FILES")
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
    if(NOT EX_HOMEWORK_FILES)
      set(EX_HOMEWORK_FILES ${EX_SOURCE})
    endif()
    list(TRANSFORM EX_HOMEWORK_FILES PREPEND "${CMAKE_CURRENT_SOURCE_DIR}/")
    list(JOIN EX_HOMEWORK_FILES "," homework_files)
    set_property(GLOBAL APPEND PROPERTY HOMEWORK_EXERCISES
                 "${EX_CHAPTER}|${name}|${homework_files}")
    # The call itself, for the student tree's CMakeLists.txt (cmake/HomeworkExport.cmake).
    _examples_call_text(call ${ARGV})
    set_property(GLOBAL PROPERTY HOMEWORK_CALL_${name} "${call}")
    set_property(GLOBAL PROPERTY HOMEWORK_DIR_${name} "${CMAKE_CURRENT_SOURCE_DIR}")
    set_property(GLOBAL PROPERTY HOMEWORK_SOURCE_${name} "${CMAKE_CURRENT_SOURCE_DIR}/${EX_SOURCE}")
  endif()

  set(test_name "${EX_CHAPTER}/${name}")
  add_test(NAME ${test_name} COMMAND ${name} ${EX_ARGS})
  set(tests ${test_name})
  set(student_tests ${test_name})
  foreach(run IN LISTS EX_RUNS EX_HOMEWORK_RUNS)
    string(REGEX REPLACE "[^A-Za-z0-9]+" "_" suffix "${run}")
    string(REGEX REPLACE "^_+|_+$" "" suffix "${suffix}")
    separate_arguments(run_args UNIX_COMMAND "${run}")
    add_test(NAME ${test_name}/${suffix} COMMAND ${name} ${run_args})
    if(run IN_LIST EX_HOMEWORK_RUNS)
      list(APPEND student_tests ${test_name}/${suffix})
    else()
      list(APPEND tests ${test_name}/${suffix})
    endif()
  endforeach()
  set_tests_properties(${tests} ${student_tests} PROPERTIES LABELS "${EX_CHAPTER};${kind}"
                                                            SKIP_RETURN_CODE 77)
  if(EX_HOMEWORK)
    add_test(NAME ${test_name}/hidden_seed COMMAND ${name} ${EX_ARGS} --seed ${HOMEWORK_HIDDEN_SEED})
    list(POP_FRONT tests default_test)
    list(APPEND tests ${test_name}/hidden_seed)
    set_tests_properties(${student_tests} PROPERTIES LABELS "${EX_CHAPTER};${kind};homework"
                                                     TIMEOUT 120)
    set_tests_properties(${tests} PROPERTIES LABELS "${EX_CHAPTER};${kind};hidden"
                                             SKIP_RETURN_CODE 77 TIMEOUT 120)
  endif()

  if(NOT EX_TEST_ONLY)
    foreach(bad_args IN ITEMS "usage|--no-such-flag" "bad_value|--n|not-a-number")
      string(REPLACE "|" ";" bad_args "${bad_args}")
      list(POP_FRONT bad_args suffix)
      add_expect_exit_test(${test_name}/${suffix} ${EX_CHAPTER} host 2 "" ${name} ${bad_args})
    endforeach()
  endif()

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
# runs each one at its default size and prints a per-chapter summary (cmake/RunExamples.cmake).
function(write_examples_manifest)
  get_property(entries GLOBAL PROPERTY EXAMPLES_MANIFEST)
  get_property(targets GLOBAL PROPERTY EXAMPLES_TARGETS)
  list(JOIN entries "\n" content)
  set(manifest "${CMAKE_BINARY_DIR}/examples_manifest.txt")
  file(GENERATE OUTPUT "${manifest}" CONTENT "${content}\n")
  add_custom_target(
    run_examples
    COMMAND ${CMAKE_COMMAND} "-DMANIFEST=${manifest}" -P "${_examples_dir}/RunExamples.cmake"
    DEPENDS ${targets}
    USES_TERMINAL
    COMMENT "Running every example, chapter by chapter")
endfunction()
