cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# cmake -DPROGRAM=<an exercise's program> -P RequireGpu.cmake
#
# The homework tree's test `homework/gpu`: without a usable GPU every exercise's test is reported
# as skipped, and a run of the `homework` tests would otherwise end "100% tests passed" with
# nothing checked. This runs one exercise and fails, saying so plainly, where it finds no GPU.
execute_process(COMMAND "${PROGRAM}" RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(code EQUAL 77)
  string(STRIP "${err}" err)
  message(FATAL_ERROR
          "NOTHING WAS CHECKED: there is no usable CUDA GPU here (${err}). The exercises' tests "
          "were skipped, not passed: run them on a machine with an NVIDIA GPU (or in the Colab "
          "notebook, on a hosted GPU).")
endif()
message(STATUS "a GPU is here: the exercises' tests ran on it")
