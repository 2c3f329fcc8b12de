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
# the library's name when `line` (encoded) calls or includes one outside a `//` comment.
function(homework_library_call out_var line)
  set(found "")
  string(REGEX REPLACE "//.*$" "" code "${line}")
  string(TOLOWER "${code}" lower)
  if(lower MATCHES "#[ \t]*include[ \t]*[<\"](cub|thrust|cublas|cudnn|npp)")
    set(found "${CMAKE_MATCH_1}")
  elseif(code MATCHES "(^|[^A-Za-z0-9_])(cub|thrust)[ \t]*::")
    set(found "${CMAKE_MATCH_2}")
  elseif(code MATCHES "(^|[^A-Za-z0-9_])(cublas|cudnn|npp)[A-Za-z0-9_]*[ \t]*\\(")
    set(found "${CMAKE_MATCH_2}")
  endif()
  string(TOUPPER "${found}" found)
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()
