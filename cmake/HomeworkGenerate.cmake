# The homework generator: the student version of a marked file.
#
#   cmake -DINPUT=<marked file> -DOUTPUT=<student file> -P cmake/HomeworkGenerate.cmake
#
# A region is what a student writes, between two whole-line comments (leading blanks allowed):
#     // BEGIN SOLUTION
#     ...the worked example's code...
#     // STUB: <code>           optional, any number: the student's starting point
#     // END SOLUTION
# In the student version the region becomes its STUB lines with "// STUB: " removed (each keeping
# its own indentation), or, with none, one `// TODO` line at the BEGIN line's indentation. Regions
# do not nest. A line that contains the upper-case word SOLUTION but is not one of the two marks,
# a comment that starts like a mark in other case (`// end solution`, `/* Begin_Solution`), a
# misspelt STUB, a STUB outside a region, an unclosed region or a file with no region is an error
# naming the file and line; "solution" in lower or mixed case elsewhere ("// the solutions are
# graded", "we append solutions") is prose, not a mark. The output is the same bytes on every run
# (CMake reads CRLF line ends as LF). Included from other scripts, this file only defines
# homework_generate().
cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
include("${CMAKE_CURRENT_LIST_DIR}/HomeworkText.cmake")

# Appends `lines` (`n` encoded lines, joined by `;`) to the list in `var`, counted in `count_var`.
function(_homework_push var count_var lines n)
  if(${count_var} EQUAL 0)
    set(${var} "${lines}" PARENT_SCOPE)
  else()
    set(${var} "${${var}};${lines}" PARENT_SCOPE)
  endif()
  math(EXPR total "${${count_var}} + ${n}")
  set(${count_var} ${total} PARENT_SCOPE)
endfunction()

# homework_generate(<input> <output>)
# Writes the student version and sets, in the caller's scope:
#   HOMEWORK_REGION_COUNT      number of regions
#   HOMEWORK_REGION_<k>        "<first>-<last>": the region's lines in the student version
#   HOMEWORK_REGION_<k>_LINE   the line of its BEGIN mark in the input
#   HOMEWORK_REGION_<k>_ONLY   a line of the region (stripped, encoded) that the student version
#                              does not contain, for tests that look for leaked solutions; empty
#                              when every line of the region also appears outside it
function(homework_generate input output)
  homework_read_lines("${input}" lines)
  # `out` and `stubs` grow by string(APPEND): list(APPEND) would drop a leading empty line.
  set(out "")
  set(out_count 0)
  set(lineno 0)
  set(count 0)
  set(in_region FALSE)
  set(word_solution "SOLUTION")  # spelt once, so that grep finds only the marks' patterns
  foreach(line IN LISTS lines)
    math(EXPR lineno "${lineno} + 1")
    set(bare "${line}")
    set(where "${input}:${lineno}")
    if(bare MATCHES "^([ \t]*)// BEGIN ${word_solution}[ \t]*$")
      if(in_region)
        message(FATAL_ERROR "${where}: nested BEGIN mark (the region opened at line "
                            "${begin_line} is not closed)")
      endif()
      set(in_region TRUE)
      math(EXPR count "${count} + 1")
      set(begin_line ${lineno})
      set(indent "${CMAKE_MATCH_1}")
      set(stubs "")
      set(stub_count 0)
      set(solution_lines "")
    elseif(bare MATCHES "^[ \t]*// END ${word_solution}[ \t]*$")
      if(NOT in_region)
        message(FATAL_ERROR "${where}: END mark without a BEGIN mark")
      endif()
      set(in_region FALSE)
      if(stub_count EQUAL 0)
        set(stubs "${indent}// TODO: write this part (exercise ${count} of this file)")
        set(stub_count 1)
      endif()
      math(EXPR first "${out_count} + 1")
      _homework_push(out out_count "${stubs}" ${stub_count})
      set(last ${out_count})
      set(HOMEWORK_REGION_${count} "${first}-${last}" PARENT_SCOPE)
      set(HOMEWORK_REGION_${count}_LINE ${begin_line} PARENT_SCOPE)
      set(region_${count}_lines "${solution_lines}")
    elseif(bare MATCHES "${word_solution}"
           OR bare MATCHES "^[ \t]*/[/*]+[ \t]*([Bb][Ee][Gg][Ii][Nn]|[Ee][Nn][Dd])[ \t_-]*[Ss][Oo][Ll][Uu][Tt][Ii][Oo][Nn]")
      homework_decode(text "${bare}")
      message(FATAL_ERROR "${where}: not an exact mark: `${text}` (the marks are whole lines "
                          "`// BEGIN ${word_solution}` and `// END ${word_solution}`, no other "
                          "line may contain the upper-case word ${word_solution}, and no comment "
                          "may start like a mark in other case)")
    elseif(bare MATCHES "^([ \t]*)// STUB:( (.*))?$")
      if(NOT in_region)
        message(FATAL_ERROR "${where}: STUB line outside a region")
      endif()
      if(CMAKE_MATCH_3 STREQUAL "")
        _homework_push(stubs stub_count "" 1)  # an empty line, without trailing blanks
      else()
        _homework_push(stubs stub_count "${CMAKE_MATCH_1}${CMAKE_MATCH_3}" 1)
      endif()
    elseif(bare MATCHES "^[ \t]*//[ \t]*[Ss][Tt][Uu][Bb]([^A-Za-z0-9_]|$)")
      homework_decode(text "${bare}")
      message(FATAL_ERROR "${where}: misspelt STUB line: `${text}` (write `// STUB: <code>`)")
    elseif(in_region)
      homework_strip(stripped "${bare}")
      if(NOT stripped STREQUAL "" AND NOT stripped MATCHES "^//")
        list(APPEND solution_lines "${stripped}")
      endif()
    else()
      _homework_push(out out_count "${line}" 1)
    endif()
  endforeach()
  if(in_region)
    message(FATAL_ERROR "${input}:${begin_line}: unclosed region (no END mark before the end "
                        "of the file)")
  endif()
  if(count EQUAL 0)
    message(FATAL_ERROR "${input}:1: no region: a file registered as homework needs at least one "
                        "`// BEGIN ${word_solution}` ... `// END ${word_solution}` region")
  endif()
  homework_write_lines("${output}" "${out}")

  # A solution line found nowhere in the student version (the longest, to be specific).
  set(student_stripped "")
  foreach(line IN LISTS out)
    homework_strip(stripped "${line}")
    list(APPEND student_stripped "${stripped}")
  endforeach()
  foreach(k RANGE 1 ${count})
    set(best "")
    string(LENGTH "" best_length)
    foreach(candidate IN LISTS region_${k}_lines)
      list(FIND student_stripped "${candidate}" found)
      string(LENGTH "${candidate}" length)
      if(found EQUAL -1 AND length GREATER best_length)
        set(best "${candidate}")
        set(best_length ${length})
      endif()
    endforeach()
    set(HOMEWORK_REGION_${k}_ONLY "${best}" PARENT_SCOPE)
  endforeach()
  set(HOMEWORK_REGION_COUNT ${count} PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT DEFINED INPUT OR NOT DEFINED OUTPUT)
    message(FATAL_ERROR "usage: cmake -DINPUT=<marked file> -DOUTPUT=<student file> -P "
                        "${CMAKE_CURRENT_LIST_FILE}")
  endif()
  homework_generate("${INPUT}" "${OUTPUT}")
  message(STATUS "${OUTPUT}: ${HOMEWORK_REGION_COUNT} region(s)")
endif()
