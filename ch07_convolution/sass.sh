#!/usr/bin/env bash
# What the compiler made of the chapter's kernels for sm_90 (the H100 and H200), as data/sass.txt
# holds it. It reads the built programs and needs no GPU, only cuobjdump:
#   bash ch07_convolution/sass.sh build/bin > ch07_convolution/data/sass.txt
# 1. For every kernel of every figure program: the instructions in its code (NOPs left out; the
#    code's size, not what a thread executes, which loops repeat and branches skip), and how many of
#    them are FFMA (fused multiply-add), FFMA with an operand in a constant bank (c[...]), LDG
#    (global load), LDS (shared-memory load), LDC and ULDC from bank 3 (where the __constant__
#    filter F_c lives: a weight loaded into an ordinary register, one per thread, or into a
#    uniform register, one per warp), ULDC.64 from bank 3 (two weights at once) and SHFL.
#    The same for the two kernels of 07_99_benchmark that take Fig 7.9's two changes one at a time
#    (basic_kernel_compile_time_r, const_mem_kernel_run_time_r).
# 2. For every kernel: its registers per thread and its stack frame in bytes (cuobjdump -res-usage;
#    none of the kernels has a local array, so a stack frame holds registers spilled to memory).
# 3. Fig 7.7's kernel and Fig 7.9's kernel for r = 2, whole, without their encodings: the lines the
#    README quotes.
set -euo pipefail
bin=${1:?usage: sass.sh <folder of the built programs>}
demangle() { if command -v c++filt >/dev/null; then c++filt; else cat; fi; }
sass() { cuobjdump -arch sm_90 -sass "$bin/$1"; }

programs="07_07_conv2d_basic 07_09_conv2d_constant_memory 07_12_conv2d_tiled
  07_15_conv2d_tiled_cached_halo 07_ex1_conv1d 07_ex2_conv2d_output_tiled 07_ex3_conv3d
  07_91_conv2d_register_tiled 07_92_conv2d_register_cached 07_93_conv2d_strip_float4
  07_94_conv2d_strip_fma"

# count: one line per kernel of the SASS on stdin, with the counts above.
count() {
  awk '
    function flush() {
      if (f) printf "%s  instructions %d  FFMA %d  FFMA_c %d  LDG %d  LDS %d  LDC_3 %d  ULDC_3 %d  ULDC.64_3 %d  SHFL %d\n",
        f, n, ffma, ffmac, ldg, lds, ldc, uldc, uldc64, shfl
    }
    /Function :/ { flush(); f = $3; n = ffma = ffmac = ldg = lds = ldc = uldc = uldc64 = shfl = 0; next }
    /\/\*[0-9a-f]+\*\// && !/ NOP/ { n++ }
    / FFMA / { ffma++; if (/c\[/) ffmac++ }
    / LDG/ { ldg++ }
    / LDS/ { lds++ }
    / LDC/ && /c\[0x3\]/ { ldc++ }
    / ULDC/ && /c\[0x3\]/ { uldc++; if (/ULDC\.64/) uldc64++ }
    / SHFL/ { shfl++ }
    END { flush() }' | demangle
}
# The kernels of 07_99_benchmark that are in no figure program.
halves="basic_kernel_compile_time_r|const_mem_kernel_run_time_r"

echo "== per kernel (sm_90): instructions, FFMA, FFMA with a c[] operand, LDG, LDS, LDC c[0x3], ULDC c[0x3], ULDC.64 c[0x3], SHFL"
for p in $programs; do
  echo "-- $p"
  sass $p | count
done
echo "-- 07_99_benchmark: Fig 7.9's two changes one at a time"
sass 07_99_benchmark | count | grep -E "$halves"

echo
echo "== per kernel (sm_90): registers per thread, stack frame in bytes"
for p in $programs; do
  echo "-- $p"
  cuobjdump -arch sm_90 -res-usage "$bin/$p" |
    awk '/Function / { f = $2; sub(/:$/, "", f) } /REG:/ { print f "  " $1 "  " $2 }' | demangle
done
echo "-- 07_99_benchmark: Fig 7.9's two changes one at a time"
cuobjdump -arch sm_90 -res-usage "$bin/07_99_benchmark" |
  awk '/Function / { f = $2; sub(/:$/, "", f) } /REG:/ { print f "  " $1 "  " $2 }' | demangle |
  grep -E "$halves"

# A kernel's instructions from its "Function :" line to the next, each as "/*addr*/ instruction;".
whole() {
  sass "$1" | awk -v want="$2" '
    /Function :/ { on = ($3 == want); if (on) print "Function : " $3; next }
    on && /\/\*[0-9a-f]+\*\// && !/ NOP/ {
      sub(/ *\/\* 0x[0-9a-f]* \*\//, ""); sub(/^ */, "  "); print }'
}
echo
echo "== Fig 7.7, convolution_2D_basic_kernel (r at run time)"
whole 07_07_conv2d_basic _Z27convolution_2D_basic_kernelPKfS0_Pfiii | demangle
echo
echo "== Fig 7.9, convolution_2D_const_mem_kernel<2> (FILTER_RADIUS = 2)"
whole 07_09_conv2d_constant_memory _Z31convolution_2D_const_mem_kernelILi2EEvPKfPfii | demangle
