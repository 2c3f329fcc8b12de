# homework_add_export(): the `homework_export` target, which writes the student tree of the
# programs registered with add_example(... HOMEWORK) (cmake/HomeworkExport.cmake does the work).
#
#   cmake --build build --target homework_export                  every exercise of the build
#   HOMEWORK_CHAPTERS=ch10_reduction cmake --build build --target homework_export
#                                                                 one chapter (or a list: a,b)
#   HOMEWORK_PROGRAMS=10_13_segmented_sum,10_15_coarsened_sum cmake --build build --target homework_export
#   cmake -B build -DHOMEWORK_EXPORT_DIR=/somewhere/else          default build/homework-export
#
# The choice of chapters and programs is an environment variable of the export command, read when
# it runs, so that it holds for that export only: as a cache variable it stayed in the build and
# made every later export as narrow. Call homework_add_export() after every chapter has been added:
# it writes the list of exercises as the build knows them at that point, in
# build/homework_manifest.cmake.
set(_homework_dir "${CMAKE_CURRENT_LIST_DIR}")

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

function(homework_write_manifest manifest)
  get_property(exercises GLOBAL PROPERTY HOMEWORK_EXERCISES)
  set(content "# Written by cmake/Homework.cmake at configure time: the exercises of this build.\n")
  string(APPEND content "set(HOMEWORK_SOURCE_DIR [==[${PROJECT_SOURCE_DIR}]==])\n")
  string(APPEND content "set(HOMEWORK_EXERCISES [==[${exercises}]==])\n")
  foreach(entry IN LISTS exercises)
    string(REPLACE "|" ";" fields "${entry}")
    list(GET fields 1 name)
    foreach(what IN ITEMS CALL DIR SOURCE)
      get_property(value GLOBAL PROPERTY HOMEWORK_${what}_${name})
      string(APPEND content "set(HOMEWORK_${what}_${name} [==[${value}]==])\n")
    endforeach()
  endforeach()
  file(WRITE "${manifest}" "${content}")
endfunction()

function(homework_add_export)
  set(manifest "${CMAKE_BINARY_DIR}/homework_manifest.cmake")
  homework_write_manifest("${manifest}")
  add_custom_target(
    homework_export
    COMMAND ${CMAKE_COMMAND} "-DMANIFEST=${manifest}" "-DDEST=${HOMEWORK_EXPORT_DIR}"
            "-DSOLUTION_LINES=${CMAKE_BINARY_DIR}/homework_solution_lines.cmake"
            -P "${_homework_dir}/HomeworkExport.cmake"
    VERBATIM USES_TERMINAL
    COMMENT "Writing the student tree to ${HOMEWORK_EXPORT_DIR}")
endfunction()
