// 02_nested_reduce: the document's gpuRecursiveReduce, ported to today's dynamic parallelism.
//
// Each block of the parent grid owns blockDim.x elements. Its threads add the upper half of them
// onto the lower half in place, then thread 0 launches a child grid of one block with half the
// threads on the lower half, and so on until two elements are left, which the last child adds into
// g_odata[block]. The host adds the per-block sums. Grid 2048 x block 512: 8 levels below each
// parent block, 2048 x 8 = 16384 device-side launches, counted on the device.
//
// What changed from the document, and why:
//   - The device-side cudaDeviceSynchronize() after the launch is gone: CUDA 12 removed it from the
//     device runtime and CUDA 13's nvcc rejects it for sm_90. Nothing here needed it: the parent
//     never reads what its child writes, and the host reads g_odata only after the kernel is
//     complete, which a grid is only when all its child grids are. The second __syncthreads(),
//     which held the block while thread 0 waited, went with it.
//   - The first __syncthreads() stays, and is what makes the kernel correct: a child grid is
//     guaranteed to see what the launching thread wrote before the launch, and what the other
//     threads of its block wrote only when a barrier orders those writes before the launch.
//   - The stop condition returns with the whole block (isize == 2 holds for every thread). As
//     printed, only thread 0 returned and thread 1 went on alone to a __syncthreads() that thread 0
//     never reaches. --faithful runs the printed kernel. With the whole block gone at isize == 2,
//     istride is at least 2 below it, so the printed `istride > 1 &&` test is always true: dropped.
//
// Build: cmake --build build --target 02_nested_reduce
// Run:   build/bin/02_nested_reduce [--n 1048576] [--block 512] [--faithful] [--pending-limit N]
#include "cdp.cuh"

__global__ void gpuRecursiveReduce(int* g_idata, int* g_odata, unsigned int isize) {
    cdp::count_block();  // the check that every level of the recursion ran (cdp.cuh)
    // set thread ID
    unsigned int tid = threadIdx.x;
    // convert global data pointer to the local pointer of this block
    int* idata = g_idata + blockIdx.x * blockDim.x;
    int* odata = &g_odata[blockIdx.x];
    // stop condition: the whole block returns
    if (isize == 2) {
        if (tid == 0) g_odata[blockIdx.x] = idata[0] + idata[1];
        return;
    }
    unsigned int istride = isize >> 1;
    // BEGIN SOLUTION
    // STUB: // TODO: add idata[tid + istride] onto idata[tid] (tid < istride), make every thread's
    // STUB: // sum visible to the child grid, then let thread 0 launch the next level,
    // STUB: // gpuRecursiveReduce<<<1, istride>>>(idata, odata, istride), and call
    // STUB: // cdp::log_launch() right after the launch (it counts the launch on the device).
    // in place reduction
    if (tid < istride) idata[tid] += idata[tid + istride];
    // the child must see every thread's sum, not only thread 0's
    __syncthreads();
    // nested invocation to generate child grids
    if (tid == 0) {
        gpuRecursiveReduce<<<1, istride>>>(idata, odata, istride);
        cdp::log_launch();
    }
    // END SOLUTION
}

// As printed, less the device-side cudaDeviceSynchronize() (it no longer compiles): at isize == 2
// thread 0 returns and thread 1 alone reaches the two __syncthreads().
__global__ void gpuRecursiveReduceAsPrinted(int* g_idata, int* g_odata, unsigned int isize) {
    cdp::count_block();  // the check that every level of the recursion ran (cdp.cuh)
    unsigned int tid = threadIdx.x;
    int* idata = g_idata + blockIdx.x * blockDim.x;
    int* odata = &g_odata[blockIdx.x];
    if (isize == 2 && tid == 0) {
        g_odata[blockIdx.x] = idata[0] + idata[1];
        return;
    }
    unsigned int istride = isize >> 1;
    if (istride > 1 && tid < istride) idata[tid] += idata[tid + istride];
    __syncthreads();
    if (tid == 0) {
        gpuRecursiveReduceAsPrinted<<<1, istride>>>(idata, odata, istride);
        cdp::log_launch();
    }
    __syncthreads();
}

// Each of the grid's blocks reduces `block` elements to g_odata[block]. The shape is checked first:
// `block` a power of two from 2 to 1024 and grid * block below 2^32, or cudaErrorInvalidValue
// (cdp::is_reduce_shape()). A bad launch configuration is reported here; a failed device-side
// launch, in cdp::g_launch_log.
cudaError_t nested_reduce(int* input, int* odata, unsigned int grid, unsigned int block) {
    if (!cdp::is_reduce_shape(grid, block)) return cudaErrorInvalidValue;
    gpuRecursiveReduce<<<grid, block>>>(input, odata, block);
    return cudaGetLastError();
}
cudaError_t nested_reduce_as_printed(int* input, int* odata, unsigned int grid,
                                     unsigned int block) {
    if (!cdp::is_reduce_shape(grid, block)) return cudaErrorInvalidValue;
    gpuRecursiveReduceAsPrinted<<<grid, block>>>(input, odata, block);
    return cudaGetLastError();
}

// Every parent block launches one child per halving of its elements, from `block` down to 2.
long long nested_reduce_launches(unsigned int grid, unsigned int block) {
    long long per_block = 0;
    for (unsigned int isize = block; isize > 2; isize /= 2) ++per_block;
    return grid * per_block;
}

// The blocks the recursion runs (cdp::count_block()): the parent grid's blocks, then one child
// block per parent block at each halving, down to 2 threads.
cdp::Levels nested_reduce_levels(unsigned int grid, unsigned int block) {
    return {grid, block, 2};
}

#ifndef DP_KERNELS_ONLY  // 05_reduction_comparison takes the kernels and launchers alone
#include "nested_reduce.cuh"

int main(int argc, char** argv) {
    dp::ReduceOptions o;
    common::Cli cli("02_nested_reduce",
                    "gpuRecursiveReduce: each block halves its elements and launches a child on "
                    "the lower half");
    dp::add_reduce_flags(cli, o, /*faithful_variant=*/true, /*stall_hook=*/false);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(o.base.csv);
    const common::Device dev = common::require_gpu(report.text());

    const dp::Problem p = dp::make_problem(o);
    const std::int64_t launches = nested_reduce_launches(p.grid, p.block);
    const cdp::Levels levels = nested_reduce_levels(p.grid, p.block);
    const std::size_t limit = cdp::set_pending_limit(launches, o.pending_limit,
                                                     "Give a smaller --n or a larger --block.");
    std::fprintf(
        report.text(),
        "array %lld grid %u block %u: %lld device-side launches, pending-launch limit %zu\n",
        static_cast<long long>(p.n), p.grid, p.block, static_cast<long long>(launches), limit);

    dp::Runner runner(dev, p, o.base.reps);
    const char* name = o.faithful ? "gpuRecursiveReduce as printed" : "gpuRecursiveReduce";
    auto launch = [&](int* in, int* out) {
        CUDA_CHECK(o.faithful ? nested_reduce_as_printed(in, out, p.grid, p.block)
                              : nested_reduce(in, out, p.grid, p.block));
    };
    if (!runner.verify(name, launch, launches, levels)) return common::kExitWrong;
    std::fprintf(report.text(), "cpu_sum: %lld gpu_sum: %lld, every block's sum exact\n", p.total,
                 dp::gpu_sum(runner, p));
    // Bytes: the n inputs read once.
    const common::TimeStats t = runner.time(name, launch, launches, levels);
    report.print({"02_nested_reduce", o.faithful ? "as printed" : "", p.n, t.median, 4.0 * p.n,
                  dev.peak_gbps});
    cdp::print_spread(report.text(), o.base.reps, t);
    return common::kExitOk;
}
#endif
