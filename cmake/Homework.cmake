# homework_add_export(): the `homework_export` target, which writes the student tree of the
# programs registered with add_example(... HOMEWORK) (homework/export.py does the work, from
# build/homework_exercises.json, which write_examples_manifest() writes at configure time).
#
#   cmake --build build --target homework_export                  every exercise of the build
#   HOMEWORK_CHAPTERS=ch10_reduction cmake --build build --target homework_export
#                                                                 one chapter (or a list: a,b)
#   HOMEWORK_PROGRAMS=10_13_segmented_sum,10_15_coarsened_sum cmake --build build --target homework_export
#   cmake -B build -DHOMEWORK_EXPORT_DIR=/somewhere/else          default build/homework-export
#
# The choice of chapters and programs is an environment variable of the export command, read when
# it runs, so that it holds for that export only: as a cache variable it stayed in the build and
# made every later export as narrow.

set(HOMEWORK_EXPORT_DIR "${CMAKE_BINARY_DIR}/homework-export"
    CACHE PATH "where homework_export writes the student tree (replaced on every export)")
foreach(_homework_var IN ITEMS HOMEWORK_CHAPTERS HOMEWORK_PROGRAMS)
  if(DEFINED CACHE{${_homework_var}})
    if(NOT "${${_homework_var}}" STREQUAL "")
      message(WARNING "${_homework_var}=${${_homework_var}} at configure time is ignored "
                      "(and removed from the cache): give it to the export instead, "
                      "`${_homework_var}=${${_homework_var}} cmake --build build --target "
                      "homework_export`")
    endif()
    unset(${_homework_var} CACHE)
  endif()
endforeach()

function(homework_add_export)
  if(NOT Python3_EXECUTABLE)
    add_custom_target(homework_export
                      COMMAND ${CMAKE_COMMAND} -E echo "homework_export needs Python 3, which this configure did not find"
                      COMMAND ${CMAKE_COMMAND} -E false)
    return()
  endif()
  add_custom_target(
    homework_export
    COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/homework/export.py"
            --manifest "${CMAKE_BINARY_DIR}/homework_exercises.json" --dest "${HOMEWORK_EXPORT_DIR}"
    VERBATIM USES_TERMINAL
    COMMENT "Writing the student tree to ${HOMEWORK_EXPORT_DIR}")
endfunction()
