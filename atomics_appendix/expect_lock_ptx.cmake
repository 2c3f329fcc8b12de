cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# cmake -DNVCC=<nvcc> -DLOCK_DIR=<atomics_appendix> -DWORK_DIR=<dir>
#       [-DCCBIN=<host compiler>] -P expect_lock_ptx.cmake
# Compiles lock.cuh's Lock::lock() and Lock::unlock() to PTX for sm_90 (no GPU needed) and passes
# when the ordering README.md promises is in the instructions: the CAS that takes the lock is
# `atom.cas.acquire.gpu`, the exchange that frees it `atom.exch.release.gpu`, one each, and no
# separate fence or membar. A lock written with relaxed orderings (the printed atomicCAS and
# atomicExch: `atom.cas.relaxed.gpu`, `atom.exch.relaxed.gpu`), or scoped to the block (`.cta`),
# fails it. PTX as nvcc 13.0 writes it; another nvcc that spells these differently fails loudly.
foreach(var NVCC LOCK_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "expect_lock_ptx.cmake: -D${var}=... is required")
  endif()
endforeach()

file(MAKE_DIRECTORY "${WORK_DIR}")
set(source "${WORK_DIR}/lock_ptx.cu")
set(ptx "${WORK_DIR}/lock_ptx.ptx")
file(WRITE "${source}" [=[
#include "lock.cuh"
__global__ void take_lock(atomics::Lock lock) { lock.lock(); }
__global__ void free_lock(atomics::Lock lock) { lock.unlock(); }
]=])
set(flags -std=c++17 -arch=sm_90 -ptx "-I${LOCK_DIR}")
if(CCBIN)
  list(APPEND flags -ccbin "${CCBIN}")
endif()
execute_process(COMMAND "${NVCC}" ${flags} "${source}" -o "${ptx}"
                RESULT_VARIABLE code ERROR_VARIABLE err TIMEOUT 120)
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

# Exactly one instruction matching `want` in the kernel, and nothing matching `unwanted`.
function(expect_one kernel want unwanted)
  kernel_ptx(body ${kernel})
  string(REGEX MATCHALL "${want}" found "${body}")
  list(LENGTH found count)
  string(REGEX MATCHALL "atom\\.[a-z0-9.]*" atomics "${body}")
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "${kernel}: expected one '${want}', found ${count}; its atomics: "
                        "${atomics}\n${body}")
  endif()
  if(body MATCHES "${unwanted}")
    string(STRIP "${CMAKE_MATCH_0}" instruction)
    message(FATAL_ERROR "${kernel}: '${instruction}' where no fence belongs\n${body}")
  endif()
  message(STATUS "${kernel}: ${found}")
endfunction()

# A fence is an instruction: the first word of a line, so that no name or comment matches.
set(fence "\n[ \t]*(fence|membar)[a-z.]*")
expect_one(take_lock "atom\\.cas\\.acquire\\.gpu\\.b32" "${fence}")
expect_one(free_lock "atom\\.exch\\.release\\.gpu\\.b32" "${fence}")
