cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# cmake -DNVCC=<nvcc> -DSOURCE_DIR=<atomics_appendix> -DWORK_DIR=<dir>
#       [-DCCBIN=<host compiler>] -P expect_ptx.cmake
# The orderings README.md promises, in the instructions: lock.cuh's lock() and unlock() and A4's
# walk_chains, copied out as a reader copies them, compiled to PTX for sm_90 (no GPU needed).
#  - lock(): every atomic is `atom.cas.acquire.gpu` (the printed relaxed atomicCAS, or a lock
#    scoped to the block, fails), the waiting reads the mutex with `ld.relaxed.gpu` and sleeps
#    (`nanosleep`): test-and-test-and-set with back-off; no separate fence or membar.
#  - unlock(): every atomic is `atom.exch.release.gpu`, no fence.
#  - walk_chains: every link it follows is an acquire load (`ld.acquire.gpu.b64`), no plain 64-bit
#    load, so it may run while a cas push inserts.
# PTX as nvcc 13.0 writes it; another nvcc that spells these differently fails loudly.
foreach(var NVCC SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "expect_ptx.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
foreach(file lock.cuh hash_table.h A4_lock_free_hash_table.cu)
  file(COPY_FILE "${SOURCE_DIR}/${file}" "${WORK_DIR}/${file}")
endforeach()
set(source "${WORK_DIR}/orderings.cu")
set(ptx "${WORK_DIR}/orderings.ptx")
file(WRITE "${source}" [=[
#include "lock.cuh"
__global__ void take_lock(atomics::Lock lock) { lock.lock(); }
__global__ void free_lock(atomics::Lock lock) { lock.unlock(); }
#define ATOMICS_KERNELS_ONLY
#include "A4_lock_free_hash_table.cu"
]=])
set(flags -std=c++17 -arch=sm_90 -ptx)
if(CCBIN)
  list(APPEND flags -ccbin "${CCBIN}")
endif()
execute_process(COMMAND "${NVCC}" ${flags} orderings.cu -o orderings.ptx
                WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE code ERROR_VARIABLE err
                TIMEOUT 300)
if(NOT code STREQUAL "0")
  message(FATAL_ERROR "nvcc -ptx failed (${code}):\n${err}")
endif()
file(READ "${ptx}" text)

# The PTX of one kernel: from its .entry (the name is mangled: _Z9take_lockN7atomics4LockE) to the
# `}` that closes its body (a line of its own). What follows the last kernel (debug sections, with
# `.file` lines naming the source's path, where NVCC_APPEND_FLAGS adds -lineinfo) is no part of it.
function(kernel_ptx out_var name)
  string(REGEX MATCH "\\.entry [_A-Za-z0-9]*${name}[_A-Za-z0-9]*" entry "${text}")
  if(NOT entry)
    message(FATAL_ERROR "no kernel ${name} in the PTX:\n${text}")
  endif()
  string(FIND "${text}" "${entry}" begin)
  string(SUBSTRING "${text}" ${begin} -1 rest)
  string(FIND "${rest}" "\n}" end)
  if(end EQUAL -1)
    message(FATAL_ERROR "kernel ${name}: no closing brace in the PTX:\n${rest}")
  endif()
  string(SUBSTRING "${rest}" 0 ${end} rest)
  set(${out_var} "${rest}" PARENT_SCOPE)
endfunction()

# An instruction is the first word of a line, so that no name or comment matches.
set(line "\n[ \t]*")
# expect(<kernel> [ATOMICS <regex>] [REQUIRE <regex>...] [FORBID <regex>...]): every atomic of the
# kernel matches ATOMICS (and there is one at least), each REQUIRE matches an instruction, no
# FORBID does.
function(expect kernel)
  cmake_parse_arguments(PARSE_ARGV 1 X "" "ATOMICS" "REQUIRE;FORBID")
  kernel_ptx(body ${kernel})
  string(REGEX MATCHALL "${line}atom\\.[a-z0-9.]*" atomics "${body}")
  if(X_ATOMICS)
    string(REGEX MATCHALL "${line}${X_ATOMICS}" wanted "${body}")
    list(LENGTH atomics all)
    list(LENGTH wanted count)
    if(count EQUAL 0 OR NOT count EQUAL all)
      message(FATAL_ERROR "${kernel}: every atomic must be '${X_ATOMICS}'; its atomics: "
                          "${atomics}\n${body}")
    endif()
  endif()
  foreach(regex IN LISTS X_REQUIRE)
    if(NOT body MATCHES "${line}${regex}")
      message(FATAL_ERROR "${kernel}: no '${regex}'\n${body}")
    endif()
  endforeach()
  foreach(regex IN LISTS X_FORBID)
    if(body MATCHES "${line}${regex}")
      string(STRIP "${CMAKE_MATCH_0}" instruction)
      message(FATAL_ERROR "${kernel}: '${instruction}' where none belongs\n${body}")
    endif()
  endforeach()
  string(REGEX REPLACE "[\n \t]+" " " atomics "${atomics}")
  message(STATUS "${kernel}: as promised (atomics:${atomics})")
endfunction()

set(fence "(fence|membar)[a-z.]*")
expect(take_lock ATOMICS "atom\\.cas\\.acquire\\.gpu\\.b32" REQUIRE "ld\\.relaxed\\.gpu" "nanosleep"
       FORBID "${fence}")
expect(free_lock ATOMICS "atom\\.exch\\.release\\.gpu\\.b32" FORBID "${fence}")
expect(walk_chains REQUIRE "ld\\.acquire\\.gpu\\.b64" FORBID "ld(\\.global)?(\\.nc)?\\.[bu]64")
