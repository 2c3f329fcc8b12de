cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# cmake -DREADME=<README.md> -DSOURCE=<program.cu> -DROW=<the program's row, e.g. 02>
#       -DHEADERS=<header>|<header>... -DNVCC=<nvcc> -DWORK_DIR=<dir> -DMODE=nvcc|cmake|split|twice
#       -DLAUNCH=<statement>|<statement>... [-DLAUNCHES=<expression>] [-DDECLARE=<decl>|<decl>...]
#       [-DREGEX=<regex>] [-DPROBE=<a GPU program>] [-DCCBIN=<host compiler>]
#       [-DGENERATOR=<generator> -DMAKE_PROGRAM=<path> -DCXX=<C++ compiler>] -P CopyBuild.cmake
#
# Builds a copy of one program's kernels into a program of its own, as the README's section
# "Copying a kernel into your own build" tells a reader to, and from that section's text, so that
# an edit of it that breaks the copy fails here. No GPU is needed: the program is compiled and
# linked, never run, but in MODE run.
#
# The copy: SOURCE's part above `#ifndef DP_KERNELS_ONLY`, less the definitions that the table
# under "What to copy" names in ROW's "delete" column (the names before the column's first
# parenthesis; each definition from the comment above it to its closing brace), in which every name
# of the "copy" column must still be found. HEADERS are copied beside it. Its main(): the README's
# two C++ blocks (set the pending-launch limit to `launches`, LAUNCHES or 2048; read the launch
# log), with the log zeroed as the README says between them, and LAUNCH's statements (the launch)
# before the second; above it, the header the first block's comment names (<algorithm>). MODE:
#   nvcc   app.cu (the copy and main) built by the README's nvcc line, run as written
#   cmake  the same app.cu beside the README's CMake file, configured and built as a project
#   split  the copy in app.cu, main in main.cu (which includes the headers and declares DECLARE's
#          declarations), built by the nvcc line with both files in place of app.cu: the README's
#          way to split a copy
#   twice  the copy in app.cu and again in app2.cu, main in main.cu: the link must fail, and
#          nvcc's messages match REGEX (why the README keeps a copy in one file)
#   run    app.cu as "A whole main() for 02" says (<cstdio>, <vector>, the copy, then that section's
#          main(), in place of the one above), built by the nvcc line, then run: it must exit 0 and
#          print REGEX. Where PROBE (a program of the chapter) exits 77, there is no CUDA device:
#          the copy is built, not run, and a line starting "SKIP:" says so.
include("${CMAKE_CURRENT_LIST_DIR}/../cmake/RunCopy.cmake")
copy_require(README SOURCE ROW HEADERS NVCC WORK_DIR MODE LAUNCH)
if(NOT MODE MATCHES "^(nvcc|cmake|split|twice|run)$")
  message(FATAL_ERROR "CopyBuild.cmake: -DMODE=${MODE}: give nvcc, cmake, split, twice or run")
endif()
if(MODE STREQUAL "run" AND (NOT DEFINED PROBE OR NOT DEFINED REGEX))
  message(FATAL_ERROR "CopyBuild.cmake: -DMODE=run needs -DPROBE=... and -DREGEX=...")
endif()

# The page's section.
file(READ "${README}" readme)
copy_section("${readme}" "## Copying a kernel into your own build" section)

# The inline code span that matches regex (its text, without the backticks).
function(inline_code text regex out_var)
  if(NOT text MATCHES "`(${regex})`")
    message(FATAL_ERROR "the README's section has no `${regex}`")
  endif()
  set(${out_var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

copy_fenced_block("${section}" cpp 0 set_limit after)
copy_fenced_block("${section}" cpp ${after} read_log after)
inline_code("${section}" "cdp::LaunchLog zero{}" zero_declared)
inline_code("${section}" "cudaMemcpyToSymbol\\(cdp::g_launch_log[^`]*" zero_copied)
inline_code("${section}" "nvcc [^`]* app\\.cu[^`]*" nvcc_line)

# The program's row of the table: | ROW | copy | delete |.
if(NOT section MATCHES "\n\\| ${ROW} \\| ([^|\n]*) \\| ([^|\n]*) \\|")
  message(FATAL_ERROR "the README's table under 'What to copy' has no row '| ${ROW} |'")
endif()
set(copy_cell "${CMAKE_MATCH_1}")
set(delete_cell "${CMAKE_MATCH_2}")
string(FIND "${delete_cell}" "(" paren)
if(NOT paren EQUAL -1)
  string(SUBSTRING "${delete_cell}" 0 ${paren} delete_cell)
endif()
string(REGEX MATCHALL "`[A-Za-z_][A-Za-z0-9_]*" copy_names "${copy_cell}")
string(REGEX MATCHALL "`[A-Za-z_][A-Za-z0-9_]*" delete_names "${delete_cell}")
list(TRANSFORM copy_names REPLACE "^`" "")
list(TRANSFORM delete_names REPLACE "^`" "")

# The copy: the part above DP_KERNELS_ONLY, the delete column's definitions cut out.
file(READ "${SOURCE}" source)
string(FIND "${source}" "\n#ifndef DP_KERNELS_ONLY" part_end)
if(part_end EQUAL -1)
  message(FATAL_ERROR "${SOURCE} has no #ifndef DP_KERNELS_ONLY")
endif()
string(SUBSTRING "${source}" 0 ${part_end} copy)
foreach(name IN LISTS delete_names)
  # The definition's first line: at the margin, no semicolon before `name(`.
  if(NOT copy MATCHES "\n[A-Za-z_][^\n;]*[ *&]${name}\\(")
    message(FATAL_ERROR "the README says to delete '${name}', which ${SOURCE} does not define")
  endif()
  string(FIND "${copy}" "${CMAKE_MATCH_0}" start)
  string(SUBSTRING "${copy}" 0 ${start} before)
  string(SUBSTRING "${copy}" ${start} -1 after)
  string(FIND "${after}" "\n}\n" close)
  math(EXPR close "${close} + 2")
  string(SUBSTRING "${after}" ${close} -1 after)
  string(REGEX REPLACE "(\n//[^\n]*)+$" "" before "${before}")
  set(copy "${before}${after}")
endforeach()
foreach(name IN LISTS copy_names)
  if(NOT copy MATCHES "[^A-Za-z0-9_]${name}[^A-Za-z0-9_]")
    message(FATAL_ERROR "the README says to copy '${name}', which the copy of ${SOURCE} lacks")
  endif()
endforeach()
list(JOIN delete_names ", " deleted)
if(deleted STREQUAL "")
  set(deleted "nothing")
endif()
list(JOIN copy_names ", " copied)
message(STATUS "the copy of ${SOURCE}: ${copied} kept; ${deleted} deleted")

# main(), around the README's two host blocks.
if(NOT DEFINED LAUNCHES)
  set(LAUNCHES 2048)
endif()
string(REPLACE "|" ";\n    " launch "${LAUNCH}")
string(CONCAT main
       "#include <algorithm>\n"
       "// Compiled and linked by the test, never run: the pointers are null.\n"
       "int main() {\n"
       "    const size_t launches = ${LAUNCHES};\n"
       "${set_limit}"
       "    ${zero_declared};\n"
       "    ${zero_copied};\n"
       "    ${launch};\n"
       "${read_log}"
       "    return 0;\n"
       "}\n")

copy_work_dir("${HEADERS}" header_names)
set(includes "")
foreach(header_name IN LISTS header_names)
  string(APPEND includes "#include \"${header_name}\"\n")
endforeach()
set(declarations "")
if(DEFINED DECLARE)
  string(REPLACE "|" ";\n" declarations "${DECLARE};\n")
endif()

set(files app.cu)
if(MODE STREQUAL "run")
  set(whole "### A whole main() for 02\n")
  string(FIND "${section}" "${whole}" whole_at)
  if(whole_at EQUAL -1)
    message(FATAL_ERROR "the README's section has no '${whole}'")
  endif()
  copy_fenced_block("${section}" cuda ${whole_at} main after)
  file(WRITE "${WORK_DIR}/app.cu" "#include <cstdio>\n#include <vector>\n${copy}\n\n${main}")
elseif(MODE STREQUAL "nvcc" OR MODE STREQUAL "cmake")
  file(WRITE "${WORK_DIR}/app.cu" "${copy}\n\n${main}")
else()
  file(WRITE "${WORK_DIR}/app.cu" "${copy}\n")
  file(WRITE "${WORK_DIR}/main.cu" "${includes}\n${declarations}\n${main}")
  list(APPEND files main.cu)
  if(MODE STREQUAL "twice")
    file(WRITE "${WORK_DIR}/app2.cu" "${copy}\n")
    list(APPEND files app2.cu)
  endif()
endif()

if(MODE STREQUAL "cmake")
  copy_fenced_block("${section}" cmake 0 cmake_lists after)
  file(WRITE "${WORK_DIR}/CMakeLists.txt" "${cmake_lists}")
  set(configure "${CMAKE_COMMAND}" -S . -B build "-DCMAKE_CUDA_COMPILER=${NVCC}")
  foreach(pair GENERATOR:-G MAKE_PROGRAM:-DCMAKE_MAKE_PROGRAM= CXX:-DCMAKE_CXX_COMPILER=
          CCBIN:-DCMAKE_CUDA_HOST_COMPILER=)
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 var)
    list(GET pair 1 option)
    if(${var})
      if(option STREQUAL "-G")
        list(APPEND configure -G "${${var}}")
      else()
        list(APPEND configure "${option}${${var}}")
      endif()
    endif()
  endforeach()
  foreach(step configure build)
    if(step STREQUAL "build")
      set(command "${CMAKE_COMMAND}" --build build)
    else()
      set(command ${configure})
    endif()
    execute_process(COMMAND ${command} WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE code
                    OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
    if(NOT code STREQUAL "0")
      message(FATAL_ERROR "the README's CMake file: the ${step} failed (${code}):\n${out}${err}")
    endif()
  endforeach()
  if(NOT EXISTS "${WORK_DIR}/build/app" AND NOT EXISTS "${WORK_DIR}/build/app.exe")
    message(FATAL_ERROR "the README's CMake file built no program 'app'")
  endif()
  message(STATUS "the README's CMake file builds the copy of ${SOURCE}")
  return()
endif()

# The README's nvcc line, word for word, but the compiler's path and the files.
copy_nvcc("${nvcc_line}" code out shown ${files})
if(MODE STREQUAL "twice")
  if(code STREQUAL "0")
    message(FATAL_ERROR "${shown} linked; the copy in two files must not")
  endif()
  if(NOT "${out}" MATCHES "${REGEX}")
    message(FATAL_ERROR "${shown} failed without saying '${REGEX}':\n${out}")
  endif()
  message(STATUS "the copy in two files: nvcc says, as it must: ${CMAKE_MATCH_0}")
  return()
endif()
if(NOT code STREQUAL "0")
  message(FATAL_ERROR "the README's nvcc line failed (${code}): ${shown}\n${out}")
endif()
message(STATUS "the README's nvcc line builds the copy of ${SOURCE}: ${shown}")

if(MODE STREQUAL "run")
  copy_run("${PROBE}" "${REGEX}")
endif()
