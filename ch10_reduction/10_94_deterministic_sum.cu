// 10_94_deterministic_sum: beyond the book, a one-pass reduction whose float result has the same
// bits on every run (any N).
//
// What changed from 10_92: 10_92 and Figs 10.13-10.15 combine the blocks' results with atomicAdd,
// in whatever order the blocks finish, and float addition is not associative, so the last bits of
// the sum can change from run to run. Here no float atomic is used:
//  1. the input is read in chunks of DET_CHUNK = 8192 elements (512 threads x four 16-byte
//     loads). The grid is a function of N alone, never of the GPU: one block per chunk, at most
//     DET_MAX_BLOCKS = 512 (about what an H200 holds at once, 132 SMs x 4 blocks, so that at
//     large N the blocks stream through the input as 10_92's do). Block b takes chunks b,
//     b + gridDim.x, ... (a grid-stride loop as in 10_92); each thread combines its elements in a
//     fixed order, the block combines its threads with shuffles (a fixed tree), and thread 0
//     writes the block's result to partials[blockIdx.x];
//  2. thread 0 then counts its block in with one integer atomic, a fetch_add with acq_rel order
//     (cuda::atomic_ref, device scope). The release half makes the partial visible to whichever
//     block counts after it; the acquire half makes every partial counted before visible here;
//  3. the block that counts last (it sees gridDim.x - 1) knows every partial is written and
//     visible: it reduces partials[0 .. gridDim.x) in a fixed order and writes the result. The
//     __syncthreads() between its thread 0's acquire and the other threads' loads carries the
//     visibility on to them (the barrier orders the block's threads, and ordering is transitive).
// Every addition happens in an order fixed by N alone, not by the GPU, its number of SMs or the
// scheduling, so the bits depend on the input only. The program shows it: several runs of 10_94
// and of 10_92 on an input whose sum rounds, with the bits of each.
// The count must start at 0 and serve one launch at a time. The partials and the count are a
// workspace that belongs to one stream (DeterministicSumWorkspace), and the launcher zeroes the
// count in that stream right before the kernel: a 4-byte memset, as 10_92 sets its output; the
// last block writes the output itself.
//
// Build: cmake --build build --target 10_94_deterministic_sum
// Run:   build/bin/10_94_deterministic_sum [--n 1000003] [--seed 1234] [--reps 20] [--csv]
#include <algorithm>
#include <cstdint>
#include <cuda/atomic>

#include "reduction_kernels.cuh"

constexpr unsigned int DET_THREADS = 512;
constexpr unsigned int DET_UNROLL = 4;  // 16-byte loads in flight per thread
constexpr unsigned int DET_CHUNK = DET_THREADS * DET_UNROLL * 4;
constexpr unsigned int DET_MAX_BLOCKS = 512;

// The grid: a function of n alone, so that the order of the additions is too.
unsigned int deterministic_sum_blocks(unsigned int n) {
    const unsigned int chunks = ch10::ceil_div(n, DET_CHUNK);
    return std::min(chunks, DET_MAX_BLOCKS);
}

// This thread's share: in chunk c, vectors u * DET_THREADS + threadIdx.x for u = 0 .. 3 (each
// warp's loads contiguous), chunks in the order b, b + gridDim.x, ...; the last, partial chunk (if
// any) element by element, by the block whose turn it is.
template <class T, class Op>
__device__ T chunks_reduce(const T* __restrict__ input, unsigned int n, Op op) {
    using V = typename ch10::Vec4<T>::type;
    const unsigned int full_chunks = n / DET_CHUNK;
    T result = Op::identity();
    unsigned int c = blockIdx.x;
    for (; c < full_chunks; c += gridDim.x) {
        const V* chunk =
            reinterpret_cast<const V*>(input + static_cast<std::size_t>(c) * DET_CHUNK);
        V v[DET_UNROLL];
#pragma unroll
        for (unsigned int u = 0; u < DET_UNROLL; ++u) v[u] = chunk[u * DET_THREADS + threadIdx.x];
#pragma unroll
        for (unsigned int u = 0; u < DET_UNROLL; ++u) result = op(result, ch10::combine4(v[u], op));
    }
    if (c == full_chunks) {
        for (unsigned int k = 0; k < DET_CHUNK / DET_THREADS; ++k) {
            const unsigned int i = full_chunks * DET_CHUNK + k * DET_THREADS + threadIdx.x;
            if (i < n) result = op(result, input[i]);
        }
    }
    return result;
}

template <class T, class Op>
__global__ void __launch_bounds__(DET_THREADS)
    deterministic_sum_kernel(const T* __restrict__ input, T* partials, unsigned int* blocks_done,
                             T* output, unsigned int n, Op op) {
    __shared__ bool is_last;
    const T block_result = ch10::block_reduce(chunks_reduce(input, n, op), op);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = block_result;
        cuda::atomic_ref<unsigned int, cuda::thread_scope_device> done(*blocks_done);
        const unsigned int ticket = done.fetch_add(1, cuda::memory_order_acq_rel);
        if (ticket >= gridDim.x) {  // more blocks than this grid: another launch counts here too
            printf(
                "10_94: block %u drew ticket %u of a grid of %u: *blocks_done was not 0 at the "
                "launch, or another launch in flight shares it\n",
                blockIdx.x, ticket, gridDim.x);
            __trap();
        }
        is_last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return;

    T result = Op::identity();
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += DET_THREADS) {
        result = op(result, partials[b]);
    }
    result = ch10::block_reduce(result, op);
    if (threadIdx.x == 0) *output = result;
}

// What the launches of one stream share: room for the blocks' partial results and the count of
// blocks done. The count works only if it is 0 when a launch starts and no other launch counts in
// it meanwhile: the launcher zeroes it in the workspace's stream right before each kernel, and
// every launch through the workspace runs in that stream, after the one before. So nothing a
// previous launch left (one stopped half-way, a count never zeroed) reaches the next, and two
// streams need two workspaces, which is all they need. A kernel launched by hand must keep both
// rules itself; one that breaks them is usually stopped (a block that draws a ticket beyond the
// grid traps), but not always.
struct DeterministicSumWorkspace {
    void* partials = nullptr;  // 4-byte results, one per block
    unsigned int* blocks_done = nullptr;
    unsigned int max_blocks = 0;
    cudaStream_t stream = nullptr;

    DeterministicSumWorkspace() = default;
    DeterministicSumWorkspace(const DeterministicSumWorkspace&) = delete;
    DeterministicSumWorkspace& operator=(const DeterministicSumWorkspace&) = delete;
    ~DeterministicSumWorkspace() {
        cudaFree(partials);
        cudaFree(blocks_done);
    }

    // Room for inputs of up to max_n elements, for launches in `s`.
    cudaError_t allocate(unsigned int max_n, cudaStream_t s) {
        max_blocks = deterministic_sum_blocks(max_n);
        stream = s;
        const cudaError_t err = cudaMalloc(&partials, max_blocks * sizeof(float));
        return err != cudaSuccess ? err : cudaMalloc(&blocks_done, sizeof(unsigned int));
    }
};

// One kernel in the workspace's stream, after the count's reset; the last block writes *output
// itself. Refused before anything runs (cudaErrorInvalidValue): an input that is not 16-byte
// aligned, or more blocks than the workspace has room for.
template <class T, class Op>
cudaError_t deterministic_sum(const T* input, T* output, unsigned int n, Op op,
                              const DeterministicSumWorkspace& ws) {
    static_assert(sizeof(T) == sizeof(float), "the workspace holds 4-byte partial results");
    const unsigned int blocks = deterministic_sum_blocks(n);
    if (reinterpret_cast<std::uintptr_t>(input) % 16 != 0 || blocks > ws.max_blocks)
        return cudaErrorInvalidValue;
    const cudaError_t err = cudaMemsetAsync(ws.blocks_done, 0, sizeof(unsigned int), ws.stream);
    if (err != cudaSuccess) return err;
    deterministic_sum_kernel<<<blocks, DET_THREADS, 0, ws.stream>>>(
        input, static_cast<T*>(ws.partials), ws.blocks_done, output, n, op);
    return cudaGetLastError();
}

#ifndef CH10_KERNELS_ONLY  // 10_99_benchmark takes the kernel and launcher alone
#define CH10_KERNELS_ONLY
#include "10_92_vectorized_sum.cu"  // the atomic single pass, to compare bits with
#undef CH10_KERNELS_ONLY

#include <cstring>

#include "reduction.cuh"

// Runs `launch` `runs` times on the device input and prints the bits of each float result;
// returns whether they were all the same.
template <class Launch>
bool same_bits_every_run(std::FILE* text, const char* name, int runs, Launch launch) {
    common::DeviceBuffer<float> output(1);
    std::vector<std::uint32_t> bits;
    for (int r = 0; r < runs; ++r) {
        output.poison();
        launch(output.get());
        const float value = output.to_host()[0];
        std::uint32_t b;
        std::memcpy(&b, &value, sizeof b);
        bits.push_back(b);
    }
    const bool same = std::count(bits.begin(), bits.end(), bits[0]) == runs;
    std::fprintf(text, "  %-22s", name);
    for (std::uint32_t b : bits) std::fprintf(text, " %08x", b);
    std::fprintf(text, "  %s\n", same ? "identical" : "DIFFERENT");
    return same;
}

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1000003;
    common::Cli cli("10_94_deterministic_sum",
                    "beyond the book: one pass, no float atomics, the same bits on every run");
    cli.add_standard(opt, 1, ch10::kMaxN);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const unsigned int n = static_cast<unsigned int>(opt.n);
    DeterministicSumWorkspace ws;
    CUDA_CHECK(ws.allocate(n, nullptr));
    auto launch = [&ws, n](auto op, auto* input, auto* output) {
        CUDA_CHECK(deterministic_sum(input, output, n, op, ws));
    };
    const ch10::KernelInfo info = {"deterministic", /*in_place=*/false};
    if (!ch10::verify_then_time(dev, opt, report, "10_94_deterministic_sum",
                                std::to_string(deterministic_sum_blocks(n)) + " blocks", info,
                                launch))
        return common::kExitWrong;

    // The bits, on 24-bit random floats in [0, 1), whose sum rounds at every size: 10_94 must give
    // the same bits every time; 10_92's atomicAdd order may change them (or may not, by chance).
    const std::vector<float> rounding = common::random_floats(n, opt.seed, 0.0f, 1.0f);
    const common::DeviceBuffer<float> input(rounding);
    unsigned int blocks = 0;
    CUDA_CHECK(vectorized_sum_blocks(dev.sm_count, n, &blocks));
    constexpr int kRuns = 8;
    std::fprintf(report.text(), "bits of the float sum of %u random floats in [0, 1), %d runs:\n",
                 n, kRuns);
    const bool deterministic =
        same_bits_every_run(report.text(), "10_94 deterministic", kRuns, [&](float* out) {
            CUDA_CHECK(deterministic_sum(input.get(), out, n, ch10::Sum<float>{}, ws));
        });
    same_bits_every_run(report.text(), "10_92 atomicAdd", kRuns, [&](float* out) {
        CUDA_CHECK(vectorized_sum(input.get(), out, n, blocks, ch10::Sum<float>{}));
    });
    if (!deterministic) {
        std::fprintf(stderr, "FAIL: 10_94 gave different bits on the same input\n");
        return common::kExitWrong;
    }
    return common::kExitOk;
}
#endif
