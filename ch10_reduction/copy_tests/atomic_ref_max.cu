// copy_tests/atomic_ref_max: exercise 4's one atomic per block, written with libcu++ instead of
// atomic_combine's own loop. Not a program: its compile_alone test (no GPU) compiles it beside
// reduction_kernels.cuh alone and reads the PTX. cuda::atomic_ref<T, Scope>::fetch_max is part of
// CCCL's extended API (<cuda/atomic>); for float it compiles, like atomic_combine(..., Max), to
// one compare-and-swap loop: the test finds exactly one atom...cas.b32 in each kernel below.
#include <cuda/atomic>

#include "reduction_kernels.cuh"

// The chapter's form: atomicCAS until no other block got in between.
__global__ void combine_max_kernel(float* output, float value) {
    ch10::atomic_combine(output, value, ch10::Max{});
}

// The library's form. Relaxed is enough: *output is read only after the kernel has ended.
__global__ void atomic_ref_max_kernel(float* output, float value) {
    cuda::atomic_ref<float, cuda::thread_scope_device>(*output).fetch_max(
        value, cuda::std::memory_order_relaxed);
}
