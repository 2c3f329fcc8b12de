// stop_condition_check: the stop condition of 02's printed kernel, alone, where synccheck can see
// it.
//
// As printed, gpuRecursiveReduce stops with `if (isize == 2 && tid == 0) { ...; return; }`: at the
// last level (one block of two threads) thread 0 returns, and thread 1 goes on alone to the two
// __syncthreads() that thread 0 never reaches. compute-sanitizer's synccheck is the tool for such a
// barrier, but it refuses every program that uses dynamic parallelism ("CUDA Dynamic Parallelism
// is not supported by the selected tool"). So this program runs that last level from the host,
// without dynamic parallelism: last_level_as_printed is the printed kernel less its child launch,
// which at isize == 2 only thread 0 could reach, and thread 0 has returned by then, so nothing
// that runs at this level is left out. The default run checks 02's stop condition, --printed the
// printed one; the tests run each under synccheck and the other tools.
//
// Build: cmake --build build --target stop_condition_check
// Run:   build/bin/stop_condition_check [--n 4096] [--printed]
#include "common.cuh"

// The printed kernel at its last level: thread 0 returns, thread 1 reaches the barriers alone.
__global__ void last_level_as_printed(int* g_idata, int* g_odata, unsigned int isize) {
    unsigned int tid = threadIdx.x;
    int* idata = g_idata + blockIdx.x * blockDim.x;
    if (isize == 2 && tid == 0) {
        g_odata[blockIdx.x] = idata[0] + idata[1];
        return;
    }
    unsigned int istride = isize >> 1;
    if (istride > 1 && tid < istride) idata[tid] += idata[tid + istride];
    __syncthreads();
    __syncthreads();
}

// 02's stop condition: the whole block returns.
__global__ void last_level(int* g_idata, int* g_odata, unsigned int isize) {
    unsigned int tid = threadIdx.x;
    int* idata = g_idata + blockIdx.x * blockDim.x;
    if (isize == 2) {
        if (tid == 0) g_odata[blockIdx.x] = idata[0] + idata[1];
        return;
    }
}

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 4096;
    bool printed = false;
    common::Cli cli("stop_condition_check",
                    "the last level of 02's kernel (blocks of two threads), without dynamic "
                    "parallelism, for synccheck");
    cli.add_n(opt, 1, 1 << 20, "blocks of two ints");
    cli.add_seed(opt);
    cli.add_flag("--printed", &printed, "only the printed stop condition (what synccheck runs)");
    cli.parse_or_exit(argc, argv);
    common::require_gpu();

    // Blocks of 2 ints; values in [1, 1000] so that no block's sum is the -1 of the poison.
    const unsigned int blocks = static_cast<unsigned int>(opt.n);
    const std::vector<int> input = common::random_ints(2 * opt.n, opt.seed, 1, 1000);
    std::vector<int> want(blocks);
    for (unsigned int b = 0; b < blocks; ++b) want[b] = input[2 * b] + input[2 * b + 1];
    common::DeviceBuffer<int> d_in(input), d_out(blocks);

    const char* name = printed ? "printed stop condition" : "02's stop condition";
    d_out.poison();
    if (printed) {
        last_level_as_printed<<<blocks, 2>>>(d_in.get(), d_out.get(), 2);
    } else {
        last_level<<<blocks, 2>>>(d_in.get(), d_out.get(), 2);
    }
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<int> got = d_out.to_host();
    if (!common::check_close(name, got.data(), want.data(), blocks, {0.0, 0.0}))
        return common::kExitWrong;
    std::printf("%s: %u blocks of two, every sum exact, no hang\n", name, blocks);
    return common::kExitOk;
}
