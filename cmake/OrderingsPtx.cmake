cmake_minimum_required(VERSION 3.25)  # script mode: set the policies of the build
# cmake -DSOURCE_DIR=<atomics_appendix> -DWORK_DIR=<dir> [-DCHECK=<check>] [-DHEADER=<file>]
#       [-DLOCK=<type>] [-DEXPECT=reject] [-DNVCC=<nvcc>] [-DCCBIN=<host compiler>]
#       -P OrderingsPtx.cmake
# The memory orderings of atomics_appendix's lock and chained-table walk, read in the instructions:
# the code copied out alone, compiled to PTX for sm_90 (no GPU needed), one kernel read at a time.
# A run on the GPU can only show what one run lost; the instructions say what every run may do.
# CHECK (default lock_orderings):
#  lock_orderings  LOCK (default atomics::Lock) of HEADER (default lock.cuh) orders memory as a lock
#                  must, at device scope, in either spelling the PTX memory model gives
#                  (parallel-thread-execution, "Release and Acquire Patterns"): lock() takes
#                  the mutex with an atomic read-modify-write that is an acquire, or that a fence
#                  follows (an acquire pattern); unlock() frees it with a release, or with a
#                  strong write (atomic, relaxed or volatile: not a plain store) after a fence (a
#                  release pattern); nothing scoped to the block. How it waits is not its business.
#  lock_waiting    lock.cuh's own spelling, the worked example's: the orderings on the atomics
#                  (atom.cas.acquire.gpu, atom.exch.release.gpu, no separate fence), waiting on
#                  relaxed atomic loads (ld.relaxed.gpu) with __nanosleep between them
#                  (test-and-test-and-set with back-off). A correct lock may be spelt otherwise.
#  walk_orderings  A4's walk_chains reads every link with an acquire load (ld.acquire.gpu.b64) and
#                  none with a plain 64-bit load, so it may run while a cas push inserts.
# EXPECT=reject: the check must find a problem (a lock known to be wrong: the test of the test).
# A student's tree (homework) holds this file too, and checks its own lock.cuh from its root:
#   cmake -DSOURCE_DIR=atomics_appendix -DWORK_DIR=build/lock_orderings -P cmake/OrderingsPtx.cmake
# PTX as nvcc 12 and 13 write it; another nvcc that spells these differently fails loudly.
foreach(var SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "OrderingsPtx.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED CHECK)
  set(CHECK lock_orderings)
endif()
if(NOT DEFINED HEADER)
  set(HEADER lock.cuh)
endif()
if(NOT DEFINED LOCK)
  set(LOCK atomics::Lock)
endif()
if(NOT NVCC)
  find_program(NVCC nvcc HINTS "$ENV{CUDA_PATH}/bin" /usr/local/cuda/bin)
  if(NOT NVCC)
    message(FATAL_ERROR "OrderingsPtx.cmake: no nvcc on the PATH; give -DNVCC=<nvcc>")
  endif()
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
if(CHECK STREQUAL "walk_orderings")
  set(files device_table.h A4_lock_free_hash_table.cu)
  set(unit "#define ATOMICS_KERNELS_ONLY\n#include \"A4_lock_free_hash_table.cu\"\n")
elseif(CHECK MATCHES "^lock_(orderings|waiting)$")
  set(files "${HEADER}")
  set(unit [=[
#include "@HEADER@"
__global__ void take_lock(@LOCK@ lock) { lock.lock(); }
__global__ void free_lock(@LOCK@ lock) { lock.unlock(); }
]=])
  string(CONFIGURE "${unit}" unit @ONLY)
else()
  message(FATAL_ERROR "OrderingsPtx.cmake: no check '${CHECK}' (lock_orderings, lock_waiting, "
                      "walk_orderings)")
endif()
foreach(file IN LISTS files)
  file(COPY_FILE "${SOURCE_DIR}/${file}" "${WORK_DIR}/${file}")
endforeach()
file(WRITE "${WORK_DIR}/orderings.cu" "${unit}")
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
file(READ "${WORK_DIR}/orderings.ptx" text)

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

# A kernel's instructions, in order: the first word of each line (labels, directives and braces
# left out), so that no operand, name or comment matches.
function(instructions out_var kernel)
  kernel_ptx(body ${kernel})
  string(REGEX MATCHALL "\n[ \t]*[a-z][a-z0-9_.:]*" words "${body}")
  list(TRANSFORM words STRIP)
  set(${out_var} "${words}" PARENT_SCOPE)
endfunction()

# The strict-style check: every atomic of the kernel matches ATOMICS (and there is one at least),
# each REQUIRE matches an instruction, no FORBID does.
function(expect kernel)
  cmake_parse_arguments(PARSE_ARGV 1 X "" "ATOMICS" "REQUIRE;FORBID")
  instructions(words ${kernel})
  set(atomics ${words})
  list(FILTER atomics INCLUDE REGEX "^atom\\.")
  if(X_ATOMICS)
    set(wanted ${atomics})
    list(FILTER wanted INCLUDE REGEX "^${X_ATOMICS}$")
    list(LENGTH atomics all)
    list(LENGTH wanted count)
    if(count EQUAL 0 OR NOT count EQUAL all)
      message(FATAL_ERROR "${kernel}: every atomic must be '${X_ATOMICS}'; its atomics: "
                          "${atomics}")
    endif()
  endif()
  foreach(regex IN LISTS X_REQUIRE)
    set(found ${words})
    list(FILTER found INCLUDE REGEX "^${regex}")
    if(NOT found)
      message(FATAL_ERROR "${kernel}: no '${regex}'; its instructions: ${words}")
    endif()
  endforeach()
  foreach(regex IN LISTS X_FORBID)
    set(found ${words})
    list(FILTER found INCLUDE REGEX "^${regex}")
    if(found)
      message(FATAL_ERROR "${kernel}: '${found}' where none belongs")
    endif()
  endforeach()
  list(FILTER words INCLUDE REGEX "^(atom|red|fence|membar|nanosleep|ld\\.(acquire|relaxed))")
  string(REPLACE ";" " " words "${words}")
  message(STATUS "${kernel}: as promised (${words})")
endfunction()

if(CHECK STREQUAL "walk_orderings")
  expect(walk_chains REQUIRE "ld\\.acquire\\.gpu\\.b64" FORBID "ld(\\.global)?(\\.nc)?\\.[bu]64$")
  return()
endif()
if(CHECK STREQUAL "lock_waiting")
  set(fence "(fence|membar)[a-z.]*")
  expect(take_lock ATOMICS "atom\\.cas\\.acquire\\.gpu\\.b32" REQUIRE "ld\\.relaxed\\.gpu"
         "nanosleep" FORBID "${fence}")
  expect(free_lock ATOMICS "atom\\.exch\\.release\\.gpu\\.b32" FORBID "${fence}")
  return()
endif()

# lock_orderings. The memory model's fences: membar.gl and membar.sys are fence.sc on sm_70 and
# later, fence.sc is at least fence.acq_rel, and a fence without .sem is .acq_rel; device scope or
# wider. An atomic without a scope is .gpu, without .sem .relaxed.
set(narrow "\\.(cta|cluster)(\\.|$)")
set(device_fence "^(fence(\\.sc|\\.acq_rel|\\.acquire|\\.release)?\\.(gpu|sys)|membar\\.(gl|sys))$")
set(problems "")
# problem(<text>...): one more problem, its parts joined (lists in them with spaces).
macro(problem)
  string(REPLACE ";" " " _problem "${ARGN}")
  string(REPLACE "( " "(" _problem "${_problem}")
  string(REPLACE " )" ")" _problem "${_problem}")
  string(REPLACE "  " " " _problem "${_problem}")
  string(REPLACE " ()" " (none)" _problem "${_problem}")
  list(APPEND problems "${_problem}")
endmacro()
# The instructions of `kernel` that touch global memory, in order: atomics, fences, and loads and
# stores that are not of parameters, local or shared memory.
function(memory_instructions out_var kernel)
  instructions(words ${kernel})
  set(kept "")
  foreach(word IN LISTS words)
    if(word MATCHES "^(atom|red|fence|membar)\\." OR
       (word MATCHES "^(ld|st)\\." AND NOT word MATCHES "\\.(param|local|shared|const)"))
      list(APPEND kept "${word}")
    endif()
  endforeach()
  set(${out_var} "${kept}" PARENT_SCOPE)
endfunction()

# lock(): an atomic read-modify-write takes the mutex; an acquire, or a device-wide fence after the
# last one (a strong read followed by a fence is an acquire pattern; a fence before it orders
# nothing that follows).
memory_instructions(take take_lock)
set(relaxed "")
set(last_rmw -1)
set(fence_after -1)
set(i 0)
foreach(word IN LISTS take)
  if(word MATCHES "${narrow}")
    problem("lock() is scoped to the block (" ${word} "): it orders nothing for threads on other"
            " SMs")
  endif()
  if(word MATCHES "^atom\\.(.*\\.)?(cas|exch)\\.")
    set(last_rmw ${i})
    if(NOT word MATCHES "\\.(acquire|acq_rel)\\.")
      list(APPEND relaxed "${word}")
    endif()
  elseif(word MATCHES "${device_fence}" AND NOT word MATCHES "\\.release\\.")
    set(fence_after ${i})
  endif()
  math(EXPR i "${i} + 1")
endforeach()
if(last_rmw EQUAL -1)
  problem("lock() takes the mutex with no atomic read-modify-write (" ${take} "): two threads can"
          " both find it free and both enter")
elseif(relaxed AND fence_after LESS last_rmw)
  problem("lock() takes the mutex with a relaxed atomic (" ${relaxed} ") that no device-wide fence"
          " follows: nothing keeps the critical section after it, nor off copies older than the"
          " last holder's writes")
endif()

# unlock(): a strong write frees the mutex (an atomic, or a relaxed, release or volatile store, not
# a plain one); a release, or a device-wide fence before the first such write (a fence followed by
# a strong write is a release pattern).
memory_instructions(give free_lock)
set(relaxed "")
set(first_write -1)
set(fence_before -1)
set(i 0)
foreach(word IN LISTS give)
  if(word MATCHES "${narrow}")
    problem("unlock() is scoped to the block (" ${word} "): it publishes nothing to threads on"
            " other SMs")
  endif()
  if(word MATCHES "^(atom|red|st)\\.")
    if(first_write EQUAL -1)
      set(first_write ${i})
    endif()
    if(word MATCHES "^st\\." AND NOT word MATCHES "\\.(relaxed|release|acq_rel|volatile|mmio)\\.")
      problem("unlock() frees the mutex with a plain store (" ${word} "): a weak write, which no"
              " release pattern ends with: use an atomic, or a release store")
    elseif(NOT word MATCHES "\\.(release|acq_rel)\\.")
      list(APPEND relaxed "${word}")
    endif()
  elseif(first_write EQUAL -1 AND word MATCHES "${device_fence}" AND
         NOT word MATCHES "\\.acquire\\.")
    set(fence_before ${i})
  endif()
  math(EXPR i "${i} + 1")
endforeach()
if(first_write EQUAL -1)
  problem("unlock() writes nothing to the mutex (" ${give} "): the lock is never freed")
elseif(relaxed AND fence_before EQUAL -1)
  problem("unlock() frees the mutex with a relaxed write (" ${relaxed} ") after no device-wide"
          " fence: the critical section's writes may become visible after the mutex reads 0")
endif()

string(REPLACE ";" " " take_text "${take}")
string(REPLACE ";" " " give_text "${give}")
set(listing "\n lock():   ${take_text}\n unlock(): ${give_text}")
if(EXPECT STREQUAL "reject")
  if(NOT problems)
    message(FATAL_ERROR "${LOCK} (${HEADER}) passed the orderings check, which it must fail: the "
                        "check cannot tell a lock that orders nothing${listing}")
  endif()
  string(REPLACE ";" "\n  " problems "${problems}")
  message(STATUS "${LOCK} (${HEADER}) rejected, as it must be:\n  ${problems}${listing}")
  return()
endif()
if(problems)
  string(REPLACE ";" "\n  " problems "${problems}")
  message(FATAL_ERROR "${LOCK} (${HEADER}) does not order memory as a lock must:\n  ${problems}"
                      "${listing}")
endif()
message(STATUS "${LOCK} (${HEADER}) orders memory as a lock must${listing}")
