# Shared by the chapters' copy tests (atomics_appendix/CopyRun.cmake,
# dynamic_parallelism/CopyBuild.cmake), which build a copy of a program's kernels from the text of
# a page, as the page tells a reader to, so that an edit of the page that breaks the copy fails.
# Script mode: the caller sets NVCC, WORK_DIR and, where needed, CCBIN. Tools' messages in the C
# locale, as the tests that match them expect.
set(ENV{LC_ALL} C)

# copy_require(<var>...): stops, naming the -P script, where a -D<var>=... was not given.
function(copy_require)
  get_filename_component(script "${CMAKE_SCRIPT_MODE_FILE}" NAME)
  foreach(var IN LISTS ARGN)
    if(NOT DEFINED ${var})
      message(FATAL_ERROR "${script}: -D${var}=... is required")
    endif()
  endforeach()
endfunction()

# copy_section(<page text> <heading line> <out_var>): the text under the heading, up to the next
# heading of level 2 ("\n## ").
function(copy_section text heading out_var)
  string(FIND "${text}" "${heading}\n" begin)
  if(begin EQUAL -1)
    message(FATAL_ERROR "the page has no heading '${heading}'")
  endif()
  string(LENGTH "${heading}\n" skip)
  math(EXPR begin "${begin} + ${skip}")
  string(SUBSTRING "${text}" ${begin} -1 section)
  string(FIND "${section}" "\n## " end)
  if(NOT end EQUAL -1)
    string(SUBSTRING "${section}" 0 ${end} section)
  endif()
  set(${out_var} "${section}" PARENT_SCOPE)
endfunction()

# copy_fenced_block(<text> <lang> <from> <out_var> <next_var>): the fenced block that starts at or
# after `from` with ```<lang>, into out_var; where the text goes on after it, into next_var.
# (string(FIND): string(REGEX MATCHALL) would split C++ at its semicolons.)
function(copy_fenced_block text lang from out_var next_var)
  string(SUBSTRING "${text}" ${from} -1 tail)
  string(FIND "${tail}" "```${lang}\n" open)
  if(open EQUAL -1)
    message(FATAL_ERROR "the page's section has no ```${lang} block (past the ones used)")
  endif()
  string(LENGTH "```${lang}\n" fence)
  math(EXPR open "${open} + ${fence}")
  string(SUBSTRING "${tail}" ${open} -1 tail)
  string(FIND "${tail}" "```" close)
  string(SUBSTRING "${tail}" 0 ${close} block)
  math(EXPR next "${from} + ${open} + ${close} + 3")
  set(${out_var} "${block}" PARENT_SCOPE)
  set(${next_var} ${next} PARENT_SCOPE)
endfunction()

# copy_work_dir(<headers> <names_var>): WORK_DIR made afresh, with the headers (a "|"-separated
# list of paths) copied into it; their file names into names_var.
function(copy_work_dir headers names_var)
  file(REMOVE_RECURSE "${WORK_DIR}")
  file(MAKE_DIRECTORY "${WORK_DIR}")
  string(REPLACE "|" ";" headers "${headers}")
  set(names "")
  foreach(header IN LISTS headers)
    get_filename_component(name "${header}" NAME)
    file(COPY_FILE "${header}" "${WORK_DIR}/${name}")
    list(APPEND names "${name}")
  endforeach()
  set(${names_var} "${names}" PARENT_SCOPE)
endfunction()

# copy_nvcc(<nvcc line> <result_var> <output_var> <shown_var> [<file>...]): the page's
# `nvcc ... app.cu` line, word for word, run in WORK_DIR, but the compiler's path (NVCC, with
# -ccbin CCBIN where set) and, where files are given, those files in place of app.cu. Into the
# variables: nvcc's exit code, what it printed, and the command line as run.
function(copy_nvcc nvcc_line result_var output_var shown_var)
  separate_arguments(words UNIX_COMMAND "${nvcc_line}")
  list(POP_FRONT words)
  if(ARGN)
    list(FIND words app.cu at)
    list(REMOVE_AT words ${at})
    list(INSERT words ${at} ${ARGN})
  endif()
  if(CCBIN)
    list(PREPEND words -ccbin "${CCBIN}")
  endif()
  execute_process(COMMAND "${NVCC}" ${words} WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE code
                  OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
  list(JOIN words " " shown)
  set(${result_var} "${code}" PARENT_SCOPE)
  set(${output_var} "${out}${err}" PARENT_SCOPE)
  set(${shown_var} "nvcc ${shown}" PARENT_SCOPE)
endfunction()

# copy_run(<probe> <regex>): runs WORK_DIR/app, which must exit 0 and print regex. Where probe
# (a GPU program of the chapter) exits 77, there is no CUDA device: the copy was built, not run,
# and a line starting "SKIP:" says so.
function(copy_run probe regex)
  execute_process(COMMAND "${probe}" RESULT_VARIABLE code OUTPUT_QUIET ERROR_QUIET TIMEOUT 120)
  if(code STREQUAL "77")
    message(STATUS "SKIP: no CUDA device (${probe} exited 77): the copy was built, not run")
    return()
  endif()
  execute_process(COMMAND "${WORK_DIR}/app" WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE code
                  OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  if(NOT code STREQUAL "0")
    message(FATAL_ERROR "the copy's main() exited ${code}:\n${out}${err}")
  endif()
  if(NOT out MATCHES "${regex}")
    message(FATAL_ERROR "the copy's main() exited 0 without printing '${regex}':\n${out}${err}")
  endif()
  message(STATUS "the copy's main() ran: ${CMAKE_MATCH_0}")
endfunction()
