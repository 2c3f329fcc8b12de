cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# cmake -DNVCC=<nvcc> -DSOURCE=<figure.cu> -DHEADER=<the chapter's header> -DKERNELS_ONLY=<macro>
#       -DWORK_DIR=<dir> [-DCCBIN=<host compiler>] [-DFLAGS=<flag>|<flag>...]
#       [-DTAIL=<file>] [-DLAUNCH=<expression>]
#       [-DPTX_KERNEL=<name> -DPTX_ONE=<regex> [-DPTX_NONE=<regex>]] -P CompileAlone.cmake
#
# What a reader who copies one figure's kernel and launcher into a project of their own needs:
# SOURCE and HEADER are copied alone into an empty folder, and SOURCE is compiled there with
# KERNELS_ONLY defined (its main and the headers main uses are left out) and nothing on the
# include path, so that anything else it reaches for (common/, another header of the chapter)
# fails the compile. No GPU is needed.
#
# Templates are compiled only when something instantiates them: TAIL, a file appended to the
# compiled unit, can do that with LAUNCH, an expression of (in, out, n, op) given here as the
# macro LAUNCH(in, out, n, op).
#
# With PTX_KERNEL, the unit is also compiled to PTX for sm_90, and every kernel whose name contains
# PTX_KERNEL (one per instantiation) must hold exactly one instruction matching PTX_ONE and
# nothing matching PTX_NONE: the instructions are what nvcc emits, whatever the folder or the
# locale. FLAGS (separated by |) go to both compiles.
foreach(var NVCC SOURCE HEADER KERNELS_ONLY WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CompileAlone.cmake: -D${var}=... is required")
  endif()
endforeach()
set(ENV{LC_ALL} C)

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
get_filename_component(source_name "${SOURCE}" NAME)
get_filename_component(header_name "${HEADER}" NAME)
file(COPY_FILE "${SOURCE}" "${WORK_DIR}/${source_name}")
file(COPY_FILE "${HEADER}" "${WORK_DIR}/${header_name}")

set(unit "${WORK_DIR}/alone.cu")
set(text "#define ${KERNELS_ONLY}\n#include \"${source_name}\"\n")
if(DEFINED LAUNCH)
  string(APPEND text "#define LAUNCH(in, out, n, op) ${LAUNCH}\n")
endif()
if(DEFINED TAIL)
  file(READ "${TAIL}" tail)
  string(APPEND text "${tail}")
endif()
file(WRITE "${unit}" "${text}")

set(flags -std=c++17 -arch=sm_90)
if(DEFINED FLAGS)
  string(REPLACE "|" ";" extra "${FLAGS}")
  list(APPEND flags ${extra})
endif()
if(CCBIN)
  list(APPEND flags -ccbin "${CCBIN}")
endif()

execute_process(COMMAND "${NVCC}" ${flags} -c alone.cu -o alone.o WORKING_DIRECTORY "${WORK_DIR}"
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
if(NOT code STREQUAL "0")
  message(FATAL_ERROR "${source_name} does not compile with ${header_name} alone (${code}):\n"
                      "${out}${err}")
endif()
message(STATUS "${source_name}: kernel and launcher compile with ${header_name} alone")

if(NOT DEFINED PTX_KERNEL)
  return()
endif()
execute_process(COMMAND "${NVCC}" ${flags} -ptx alone.cu -o alone.ptx
                WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE code ERROR_VARIABLE err TIMEOUT 300)
if(NOT code STREQUAL "0")
  message(FATAL_ERROR "nvcc -ptx failed (${code}):\n${err}")
endif()
file(READ "${WORK_DIR}/alone.ptx" ptx)

# Each kernel: from its .entry to the next `.entry`, or to the end.
string(REGEX MATCHALL "\\.entry [_A-Za-z0-9]*${PTX_KERNEL}[_A-Za-z0-9]*" entries "${ptx}")
list(LENGTH entries kernels)
if(kernels EQUAL 0)
  message(FATAL_ERROR "no kernel named *${PTX_KERNEL}* in the PTX:\n${ptx}")
endif()
foreach(entry IN LISTS entries)
  string(FIND "${ptx}" "${entry}" begin)
  string(SUBSTRING "${ptx}" ${begin} -1 body)
  string(LENGTH "${entry}" skip)
  string(SUBSTRING "${body}" ${skip} -1 rest)
  string(FIND "${rest}" ".entry " next)
  if(NOT next EQUAL -1)
    math(EXPR end "${skip} + ${next}")
    string(SUBSTRING "${body}" 0 ${end} body)
  endif()
  string(REGEX MATCHALL "${PTX_ONE}" found "${body}")
  list(LENGTH found count)
  string(REGEX MATCHALL "(atom|red|fence|membar)\\.[a-z0-9_.]*" ordering "${body}")
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "${entry}: expected one '${PTX_ONE}', found ${count}; its atomics and "
                        "fences: ${ordering}\n${body}")
  endif()
  if(DEFINED PTX_NONE AND body MATCHES "${PTX_NONE}")
    message(FATAL_ERROR "${entry}: '${CMAKE_MATCH_0}' where none belongs; its atomics and fences: "
                        "${ordering}")
  endif()
  message(STATUS "${entry}: ${found}")
endforeach()
