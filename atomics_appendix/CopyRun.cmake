cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# cmake -DPAGE=<COPYING_KERNELS.md> -DHEADING=<a heading of it> -DSOURCE=<program.cu>
#       -DHEADERS=<header>|<header>... -DNVCC=<nvcc> -DWORK_DIR=<dir> -DPROBE=<a GPU program>
#       -DREGEX=<regex> [-DCCBIN=<host compiler>] -P CopyRun.cmake
#
# Builds and runs a host block of COPYING_KERNELS.md as the page tells a reader to, from the page's
# text, so that an edit of it that breaks the copy fails here: SOURCE's part above
# `#ifndef ATOMICS_KERNELS_ONLY`, then the first ```cuda block under HEADING, in app.cu beside
# HEADERS, built by the section's `nvcc ... app.cu` line word for word (but the compiler's path),
# then run: it must exit 0 and print REGEX. Where PROBE (a program of the chapter) exits 77, there
# is no CUDA device: the copy is built, not run, and a line starting "SKIP:" says so.
foreach(var PAGE HEADING SOURCE HEADERS NVCC WORK_DIR PROBE REGEX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CopyRun.cmake: -D${var}=... is required")
  endif()
endforeach()
set(ENV{LC_ALL} C)

# The page's section, from its heading to the next of its level or above.
file(READ "${PAGE}" page)
set(heading "${HEADING}\n")
string(FIND "${page}" "${heading}" begin)
if(begin EQUAL -1)
  message(FATAL_ERROR "${PAGE} has no heading '${HEADING}'")
endif()
string(LENGTH "${heading}" skip)
math(EXPR begin "${begin} + ${skip}")
string(SUBSTRING "${page}" ${begin} -1 section)
string(FIND "${section}" "\n## " end)
if(NOT end EQUAL -1)
  string(SUBSTRING "${section}" 0 ${end} section)
endif()

# The section's first ```cuda block (string(FIND): a regex would split C++ at its semicolons).
string(FIND "${section}" "```cuda\n" open)
if(open EQUAL -1)
  message(FATAL_ERROR "the page's section '${HEADING}' has no ```cuda block")
endif()
math(EXPR open "${open} + 8")
string(SUBSTRING "${section}" ${open} -1 block)
string(FIND "${block}" "```" close)
string(SUBSTRING "${block}" 0 ${close} block)
if(NOT section MATCHES "`(nvcc [^`]* app\\.cu[^`]*)`")
  message(FATAL_ERROR "the page's section '${HEADING}' has no `nvcc ... app.cu` line")
endif()
set(nvcc_line "${CMAKE_MATCH_1}")

# The copy: the program's part above ATOMICS_KERNELS_ONLY, the headers beside it.
file(READ "${SOURCE}" source)
string(FIND "${source}" "\n#ifndef ATOMICS_KERNELS_ONLY" part_end)
if(part_end EQUAL -1)
  message(FATAL_ERROR "${SOURCE} has no #ifndef ATOMICS_KERNELS_ONLY")
endif()
string(SUBSTRING "${source}" 0 ${part_end} copy)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
string(REPLACE "|" ";" headers "${HEADERS}")
foreach(header IN LISTS headers)
  get_filename_component(header_name "${header}" NAME)
  file(COPY_FILE "${header}" "${WORK_DIR}/${header_name}")
endforeach()
file(WRITE "${WORK_DIR}/app.cu" "${copy}\n\n${block}")

# The page's nvcc line, word for word, but the compiler's path.
separate_arguments(words UNIX_COMMAND "${nvcc_line}")
list(POP_FRONT words)
if(CCBIN)
  list(PREPEND words -ccbin "${CCBIN}")
endif()
execute_process(COMMAND "${NVCC}" ${words} WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE code
                OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
list(JOIN words " " shown)
if(NOT code STREQUAL "0")
  message(FATAL_ERROR "the page's nvcc line failed (${code}): nvcc ${shown}\n${out}${err}")
endif()
message(STATUS "the page's nvcc line builds the copy of ${SOURCE}: nvcc ${shown}")

execute_process(COMMAND "${PROBE}" RESULT_VARIABLE code OUTPUT_QUIET ERROR_QUIET TIMEOUT 120)
if(code STREQUAL "77")
  message(STATUS "SKIP: no CUDA device (${PROBE} exited 77): the copy was built, not run")
  return()
endif()
execute_process(COMMAND "${WORK_DIR}/app" WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE code
                OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
if(NOT code STREQUAL "0")
  message(FATAL_ERROR "the copy's main() exited ${code}:\n${out}${err}")
endif()
if(NOT out MATCHES "${REGEX}")
  message(FATAL_ERROR "the copy's main() exited 0 without printing '${REGEX}':\n${out}${err}")
endif()
message(STATUS "the copy's main() ran: ${CMAKE_MATCH_0}")
