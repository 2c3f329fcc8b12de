# Line handling for the homework scripts (CMake script mode, so that nothing beyond CMake is
# needed). A source file becomes a CMake list with one element per line; `\`, `;`, `[` and `]`
# are swapped for control characters first, because CMake lists split on `;` only outside
# brackets and not after a backslash. The last element is empty when the file ends with a newline,
# so joining the list with "\n" gives the file back byte for byte.
string(ASCII 1 _hw_backslash)
string(ASCII 2 _hw_semicolon)
string(ASCII 3 _hw_open)
string(ASCII 4 _hw_close)

function(homework_read_lines file out_var)
  file(READ "${file}" content)
  string(REPLACE "\\" "${_hw_backslash}" content "${content}")
  string(REPLACE ";" "${_hw_semicolon}" content "${content}")
  string(REPLACE "[" "${_hw_open}" content "${content}")
  string(REPLACE "]" "${_hw_close}" content "${content}")
  string(REPLACE "\n" ";" content "${content}")
  set(${out_var} "${content}" PARENT_SCOPE)
endfunction()

# One encoded line (or a list of them, joined by newlines) back to plain text.
function(homework_decode out_var text)
  string(REPLACE ";" "\n" text "${text}")
  string(REPLACE "${_hw_close}" "]" text "${text}")
  string(REPLACE "${_hw_open}" "[" text "${text}")
  string(REPLACE "${_hw_semicolon}" ";" text "${text}")
  string(REPLACE "${_hw_backslash}" "\\" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

function(homework_write_lines file lines)
  homework_decode(content "${lines}")
  file(WRITE "${file}" "${content}")
endfunction()

# A line without its surrounding blanks (and the CR of a CRLF file): how lines are compared.
function(homework_strip out_var line)
  string(REGEX REPLACE "^[ \t]+" "" line "${line}")
  string(REGEX REPLACE "[ \t\r]+$" "" line "${line}")
  set(${out_var} "${line}" PARENT_SCOPE)
endfunction()

# Library calls that would do an exercise's work: CUB, Thrust, cuBLAS, cuDNN, NPP. Sets out_var to
# the library's name when `line` (encoded) includes one, names the namespace cub or thrust (as in
# `cub::`, `using namespace thrust`), or names an identifier of the C APIs (`cublas` or `cudnn`
# or `npp` followed by a letter: cublasSgemm, cudnnHandle_t, nppiFilter, nppsSum), outside a `//`
# comment. A student's own `npp_helper` or `cublas_like` is no library.
function(homework_library_call out_var line)
  set(found "")
  string(REGEX REPLACE "//.*$" "" code "${line}")
  string(TOLOWER "${code}" lower)
  if(lower MATCHES "#[ \t]*include[ \t]*[<\"](cub|thrust|cublas|cudnn|npp)")
    set(found "${CMAKE_MATCH_1}")
  elseif(code MATCHES "(^|[^A-Za-z0-9_])(cub|thrust)([^A-Za-z0-9_]|$)")
    set(found "${CMAKE_MATCH_2}")
  elseif(code MATCHES "(^|[^A-Za-z0-9_])(cublas|cudnn|npp)[A-Za-z]")
    set(found "${CMAKE_MATCH_2}")
  endif()
  string(TOUPPER "${found}" found)
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# Screens what a student wrote in one region, so that it stays inside the region: `lines` are
# the region's lines (encoded, joined by `;`), the first of them line `first` of the file. Sets
# out_var to "" when they pass, else to "<line>: <reason>". A small lexer reads the code outside
# `//` and `/* */` comments and string and character literals (with their backslash escapes, and
# digit separators as in 1'000), and the rules are:
#   - no preprocessor directive: no `#` (nor its digraph `%:`) in the code, except a whole line
#     `#pragma unroll` with an optional count (`#pragma unroll 4`, `#pragma unroll (N)`);
#   - no line continuation (a backslash at the end of a line), no raw string literal (R"(...)"),
#     a `/*` comment closes and a literal ends within the region: each could swallow the lines
#     after it;
#   - braces balance: the running count of `{` and `}` (and their digraphs `<%`, `%>`) never drops
#     below zero and ends at zero, so the region cannot close the function it is in;
#   - no `exit`, `_exit`, `_Exit`, `quick_exit`, `atexit` or `at_quick_exit`, which would end the
#     program with 0 before its verification.
function(homework_region_check out_var lines first)
  set(bs "${_hw_backslash}")
  set(chunk_regex "^([^\"'/{}#%<0-9A-Za-z_]|[A-Za-z_][A-Za-z0-9_]*|[0-9]([0-9A-Za-z_.]|'[0-9A-Za-z_])*)+")
  set(exits "exit|_exit|_Exit|quick_exit|atexit|at_quick_exit")
  set(opened "")  # the lines of the braces still open, innermost last
  set(in_comment FALSE)
  math(EXPR j "${first} - 1")
  set(${out_var} "" PARENT_SCOPE)
  foreach(line IN LISTS lines)
    math(EXPR j "${j} + 1")
    string(REGEX REPLACE "\r$" "" rest "${line}")
    homework_decode(text "${rest}")
    string(STRIP "${text}" text)
    if(NOT in_comment AND rest MATCHES
       "^[ \t]*#[ \t]*pragma[ \t]+unroll([ \t(][A-Za-z0-9_()+* \t-]*)?$")
      continue()
    endif()
    if(rest MATCHES "${bs}[ \t]*$")
      set(${out_var} "${j}: a line continuation (`${text}`): a line of yours may not end in a backslash" PARENT_SCOPE)
      return()
    endif()
    set(code "")
    while(NOT rest STREQUAL "")
      if(in_comment)
        string(FIND "${rest}" "*/" at)
        if(at EQUAL -1)
          break()
        endif()
        math(EXPR at "${at} + 2")
        string(SUBSTRING "${rest}" ${at} -1 rest)
        set(in_comment FALSE)
        continue()
      endif()
      if(rest MATCHES "${chunk_regex}")
        set(chunk "${CMAKE_MATCH_0}")
        string(APPEND code " ${chunk}")
        string(LENGTH "${chunk}" length)
        string(SUBSTRING "${rest}" ${length} -1 rest)
        if(chunk MATCHES "(^|[^A-Za-z0-9_])(u8|u|U|L)?R$" AND rest MATCHES "^\"")
          set(${out_var} "${j}: a raw string literal (`${text}`): it may run past the line" PARENT_SCOPE)
          return()
        endif()
        continue()
      endif()
      set(skip 1)
      if(rest MATCHES "^//")
        break()
      elseif(rest MATCHES "^/[*]")
        set(in_comment TRUE)
        set(skip 2)
      elseif(rest MATCHES "^\"")
        if(NOT rest MATCHES "^\"([^\"${bs}]|${bs}.)*\"")
          set(${out_var} "${j}: a string literal that does not end on its line (`${text}`)" PARENT_SCOPE)
          return()
        endif()
        string(LENGTH "${CMAKE_MATCH_0}" skip)
      elseif(rest MATCHES "^'")
        if(NOT rest MATCHES "^'([^'${bs}]|${bs}.)*'")
          set(${out_var} "${j}: a character literal that does not end on its line (`${text}`)" PARENT_SCOPE)
          return()
        endif()
        string(LENGTH "${CMAKE_MATCH_0}" skip)
      elseif(rest MATCHES "^(#|%:)")
        set(${out_var} "${j}: a preprocessor directive (`${text}`): the parts you write may hold no `#` line but `#pragma unroll`" PARENT_SCOPE)
        return()
      elseif(rest MATCHES "^({|<%)")
        list(APPEND opened ${j})
        string(LENGTH "${CMAKE_MATCH_1}" skip)
      elseif(rest MATCHES "^(}|%>)")
        if(NOT opened)
          set(${out_var} "${j}: this `}` closes a brace opened outside the part you write (`${text}`)" PARENT_SCOPE)
          return()
        endif()
        list(POP_BACK opened)
        string(LENGTH "${CMAKE_MATCH_1}" skip)
      endif()
      string(SUBSTRING "${rest}" ${skip} -1 rest)
    endwhile()
    if(code MATCHES "(^|[^A-Za-z0-9_])(${exits})([^A-Za-z0-9_]|$)")
      set(${out_var} "${j}: calls ${CMAKE_MATCH_2} (`${text}`): the program must reach its verification" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  if(in_comment)
    set(${out_var} "${j}: a `/*` comment that does not close in the part you write" PARENT_SCOPE)
  elseif(opened)
    list(GET opened -1 line)
    set(${out_var} "${line}: this `{` is not closed in the part you write (its braces must balance)" PARENT_SCOPE)
  endif()
endfunction()
