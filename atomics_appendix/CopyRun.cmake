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
include("${CMAKE_CURRENT_LIST_DIR}/../cmake/RunCopy.cmake")
copy_require(PAGE HEADING SOURCE HEADERS NVCC WORK_DIR PROBE REGEX)

# The section's first ```cuda block, and its `nvcc ... app.cu` line.
file(READ "${PAGE}" page)
copy_section("${page}" "${HEADING}" section)
copy_fenced_block("${section}" cuda 0 block after)
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
copy_work_dir("${HEADERS}" header_names)
file(WRITE "${WORK_DIR}/app.cu" "${copy}\n\n${block}")

copy_nvcc("${nvcc_line}" code out shown)
if(NOT code STREQUAL "0")
  message(FATAL_ERROR "the page's nvcc line failed (${code}): ${shown}\n${out}")
endif()
message(STATUS "the page's nvcc line builds the copy of ${SOURCE}: ${shown}")
copy_run("${PROBE}" "${REGEX}")
