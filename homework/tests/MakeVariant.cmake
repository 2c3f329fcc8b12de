cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# A deliberately wrong submission, made from a marked file and a variant file:
#   cmake -DSOLUTION=<marked file> -DVARIANT=<homework/wrong/...txt> -DOUTPUT=<file>
#         -P MakeVariant.cmake
# The variant file's blocks start with `// ==== region <k> replace` (the region's code becomes the
# block) or `// ==== region <k> prepend` (the block goes before the solution's code); regions it
# does not name keep the solution. Lines before the first block describe the variant. The output
# has no marks and no STUB lines: it is what a student would hand in.
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/HomeworkText.cmake")

homework_read_lines("${VARIANT}" variant_lines)
string(REGEX REPLACE ";$" "" variant_lines "${variant_lines}")  # the file's last line end
set(k "")
foreach(line IN LISTS variant_lines)
  if(line MATCHES "^// ==== region ([0-9]+) (replace|prepend)$")
    set(k ${CMAKE_MATCH_1})
    set(mode_${k} ${CMAKE_MATCH_2})
    set(block_${k} "")
    set(count_${k} 0)
  elseif(k)
    if(count_${k} EQUAL 0)
      set(block_${k} "${line}")
    else()
      string(APPEND block_${k} ";${line}")
    endif()
    math(EXPR count_${k} "${count_${k}} + 1")
  endif()
endforeach()

homework_read_lines("${SOLUTION}" lines)
set(out "")
set(region 0)
set(inside FALSE)
foreach(line IN LISTS lines)
  if(line MATCHES "^[ \t]*// BEGIN SOLUTION[ \t]*$")
    math(EXPR region "${region} + 1")
    set(inside TRUE)
    if(DEFINED mode_${region} AND count_${region} GREATER 0)
      string(APPEND out "${block_${region}};")
    endif()
  elseif(line MATCHES "^[ \t]*// END SOLUTION[ \t]*$")
    set(inside FALSE)
  elseif(line MATCHES "^[ \t]*// STUB:")
  elseif(NOT inside OR NOT mode_${region} STREQUAL "replace")
    string(APPEND out "${line};")
  endif()
endforeach()
string(REGEX REPLACE ";$" "" out "${out}")
homework_write_lines("${OUTPUT}" "${out}")
