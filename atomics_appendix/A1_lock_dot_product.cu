// A1_lock_dot_product: Appendix A.1, a dot product finished on the GPU under a lock.
//
// Chapter 5's dot product left one partial sum per block for the CPU to add. Here each block's
// leader adds its partial sum into the single result *c itself, and since (before compute
// capability 2.0) there was no float atomicAdd, it does so under a lock made from atomicCAS
// (lock.cuh): N = 33*1024*1024, a[i] = i, b[i] = 2i, 256 threads per block, min(32, ...) blocks,
// a grid-stride loop per thread, a shared-memory tree per block, then lock; *c += cache[0]; unlock.
//
// Beside it, the version the book leaves to the reader: blocks that add in a fixed order (block 0,
// then 1, ...), so that the float result has the same bits on every run. The block leaders take
// turns through a counter instead of racing for the lock; a block waits for the ones before it,
// so all blocks must be resident at once, which a cooperative launch guarantees (it fails rather
// than deadlocks if they cannot be). The program runs both --reps times and counts the distinct
// results: the fixed order must give one; the lock gives whatever order the blocks arrive in.
//
// Before either, a direct test of the lock: 1024 threads each add 1 to a plain int under it. A lock
// that does not exclude (all 32 lanes of a warp inside at once) loses increments, every time. The
// test has whole warps contend for one mutex, which is correct only since sm_70's independent
// thread scheduling (lock.cuh); the dot products take the lock from one thread per block.
//
// The kernels and their launchers need lock.cuh alone (the compile_alone test checks it); main and
// its helpers need the repository's common/.
//
// Build: cmake --build build --target A1_lock_dot_product
// Run:   build/bin/A1_lock_dot_product [--n 34603008] [--random] [--seed 1234 (implies --random)]
//        [--reps 20] [--csv]
#include "lock.cuh"

using atomics::Lock;

constexpr int kThreadsPerBlock = 256;  // the tree below needs a power of two

int blocks_per_grid(int n) {
    const int blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
    return blocks < 32 ? blocks : 32;  // the book's imin(32, ...)
}

// Chapter 5's per-block dot product: grid-stride products into a register, then the tree.
__device__ float block_dot(const float* a, const float* b, int n) {
    __shared__ float cache[kThreadsPerBlock];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    const int cache_index = threadIdx.x;
    float temp = 0;
    while (tid < n) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[cache_index] = temp;
    __syncthreads();
    for (int i = blockDim.x / 2; i != 0; i /= 2) {
        if (cache_index < i) cache[cache_index] += cache[cache_index + i];
        __syncthreads();
    }
    return cache[0];
}

// A.1.2: the Lock arrives by value; it is a pointer, so the copy is harmless (lock.cuh).
__global__ void dot(Lock lock, const float* a, const float* b, float* c, int n) {
    const float partial = block_dot(a, b, n);
    if (threadIdx.x == 0) {
        lock.lock();
        *c += partial;
        lock.unlock();
    }
}

// The reader's exercise: block b adds when *turn == b, then passes the turn on. The acquire load
// sees block b-1's *c; the release store publishes block b's.
__global__ void dot_in_block_order(const float* a, const float* b, float* c, int* turn, int n) {
    const float partial = block_dot(a, b, n);
    if (threadIdx.x == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_device> t(*turn);
        while (t.load(cuda::memory_order_acquire) != static_cast<int>(blockIdx.x)) {
        }
        *c += partial;
        t.store(blockIdx.x + 1, cuda::memory_order_release);
    }
}

// Every thread takes the lock, so the 32 lanes of each warp contend for it together: correct only
// with sm_70's independent thread scheduling (lock.cuh).
__global__ void lock_test_kernel(Lock lock, int* counter) {
    lock.lock();
    *counter = *counter + 1;  // a plain read-modify-write: only the lock keeps it whole
    lock.unlock();
}

// Each launcher zeroes *c (the book copies 0 in) and launches; it returns the first error, a bad
// launch configuration included (a fault inside the kernel shows at the next synchronising call).
cudaError_t dot_with_lock(Lock lock, const float* a, const float* b, float* c, int n) {
    const cudaError_t err = cudaMemsetAsync(c, 0, sizeof(float));
    if (err != cudaSuccess) return err;
    dot<<<blocks_per_grid(n), kThreadsPerBlock>>>(lock, a, b, c, n);
    return cudaGetLastError();
}

// Every block waits for the blocks before it, so all must be resident at once: a cooperative
// launch guarantees it, and refuses a grid that cannot be (instead of deadlocking).
cudaError_t dot_ordered(const float* a, const float* b, float* c, int* turn, int n) {
    cudaError_t err = cudaMemsetAsync(c, 0, sizeof(float));
    if (err == cudaSuccess) err = cudaMemsetAsync(turn, 0, sizeof(int));
    if (err != cudaSuccess) return err;
    void* args[] = {&a, &b, &c, &turn, &n};
    return cudaLaunchCooperativeKernel(reinterpret_cast<void*>(dot_in_block_order),
                                       blocks_per_grid(n), kThreadsPerBlock, args);
}

#ifndef ATOMICS_KERNELS_ONLY  // the compile_alone test takes the kernels and launchers alone
#include <cmath>
#include <cstring>
#include <set>

#include "gpu_table.cuh"

float read_result(const float* c) {
    float result = 0;
    CUDA_CHECK(cudaMemcpy(&result, c, sizeof(float), cudaMemcpyDeviceToHost));
    common::graded("dot product", result);  // grading: recorded, or replayed (common.h)
    return result;
}

std::uint32_t bits(float x) {
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 33 * 1024 * 1024;
    bool random_inputs = false;
    common::Cli cli("A1_lock_dot_product",
                    "Appendix A.1: dot product whose blocks add their sums under a GPU lock");
    // n >= 2: with a[i] = i, n = 1 gives a dot product of 0, which a kernel writing nothing
    // matches.
    cli.add_standard(opt, 2, std::int64_t{1} << 30);
    cli.add_flag("--random", &random_inputs,
                 "random a, b in [0, 1) instead of a[i] = i, b[i] = 2i (--seed implies it)");
    cli.parse_or_exit(argc, argv);
    // a[i] = i, b[i] = 2i have no seed: a seed asks for random inputs.
    random_inputs |= cli.given("--seed");
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());
    int cooperative = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, dev.id));
    if (!cooperative) {
        std::fprintf(stderr, "this device cannot launch cooperative kernels\n");
        return common::kExitWrong;
    }

    // The lock first: 16 blocks of 64 threads, one increment each.
    atomics::Mutexes mutexes(1);
    {
        constexpr int kBlocks = 16, kThreads = 64;
        common::DeviceBuffer<int> counter(std::vector<int>{0});
        lock_test_kernel<<<kBlocks, kThreads>>>(mutexes.lock(0), counter.get());
        CUDA_CHECK_LAUNCH();
        const int got = counter.to_host()[0];
        const bool released = mutexes.all_released("the lock test");
        if (got != kBlocks * kThreads || !released) {
            std::fprintf(
                stderr, "FAIL lock: %d threads each added 1 under the lock, the counter reads %d\n",
                kBlocks * kThreads, got);
            return common::kExitWrong;
        }
        std::fprintf(report.text(), "lock: %d increments under the lock, none lost\n", got);
    }

    const int n = static_cast<int>(opt.n);
    common::require_device_bytes(2.0 * n * sizeof(float), "the two input vectors");
    std::vector<float> a(n), b(n);
    double reference = 0;  // the exact dot product; every term is >= 0, so also sum |a_i b_i|
    if (random_inputs) {
        a = common::random_floats(n, opt.seed, 0.0f, 1.0f);
        b = common::random_floats(n, opt.seed + 1, 0.0f, 1.0f);
        // The products of two 24-bit floats are exact in double, and the sum of n < 2^30 of them
        // loses less than n * 2^-53 relative, far inside the tolerance below.
        for (int i = 0; i < n; ++i) reference += static_cast<double>(a[i]) * b[i];
    } else {
        for (int i = 0; i < n; ++i) {
            a[i] = static_cast<float>(i);
            b[i] = static_cast<float>(2.0 * i);
        }
        // The book's check, 2 * sum_squares(N - 1), computed exactly in 128-bit integers.
        const unsigned __int128 x = static_cast<unsigned>(n - 1);
        reference = static_cast<double>(2 * (x * (x + 1) * (2 * x + 1) / 6));
    }
    // Tolerance (Higham): every product passes through at most h float roundings: a[i] and b[i]
    // themselves (i > 2^24 is not exact in float), the product, its thread's grid-stride sum, the
    // 8 tree levels and one addition per block into *c, in whichever order; all terms are >= 0, so
    // |error| <= gamma(h) * sum|a_i b_i| with gamma(h) = h u / (1 - h u), u = 2^-24. At the
    // book's N = 34,603,008 (32 blocks of 256 threads, so ceil(N / 8192) = 4224 products a thread)
    // h = 3 + 4224 + 8 + 32 = 4267 and gamma(h) = 2.54e-4 relative: a lost block (1/32 of the sum)
    // always fails; a single lost product at the end of the book's input (4e-8 of the sum) is
    // below float resolution, and no float check could see it.
    const int blocks = blocks_per_grid(n);
    const double h = 3 + common::ceil_div(n, std::int64_t{blocks} * kThreadsPerBlock) + 8 + blocks;
    const double u = std::ldexp(1.0, -24);
    const common::Tolerance tol{0.0, h * u / (1 - h * u)};

    common::DeviceBuffer<float> dev_a(a), dev_b(b), dev_c(1);
    common::DeviceBuffer<int> turn(1);
    const Lock lock = mutexes.lock(0);

    std::set<std::uint32_t> plain_bits, ordered_bits;
    float plain = 0, ordered = 0;
    for (std::int64_t r = 0; r < opt.reps; ++r) {
        // No poison here: *c is an accumulator that the launcher zeroes, as the book copies 0 in;
        // a kernel that adds nothing leaves 0, which fails against the positive reference.
        CUDA_CHECK(dot_with_lock(lock, dev_a.get(), dev_b.get(), dev_c.get(), n));
        plain = read_result(dev_c.get());
        if (!common::check_close("dot with lock", &plain, &reference, 1, tol))
            return common::kExitWrong;
        plain_bits.insert(bits(plain));

        CUDA_CHECK(dot_ordered(dev_a.get(), dev_b.get(), dev_c.get(), turn.get(), n));
        ordered = read_result(dev_c.get());
        if (!common::check_close("dot in block order", &ordered, &reference, 1, tol))
            return common::kExitWrong;
        ordered_bits.insert(bits(ordered));
    }
    if (!mutexes.all_released("the verified dot products")) return common::kExitWrong;
    std::fprintf(report.text(),
                 "Does GPU value %.9g = %.9g? (relative error %.2e, tolerance %.2e; %d blocks)\n",
                 plain, reference, std::fabs(plain - reference) / reference, tol.rel, blocks);
    std::fprintf(report.text(),
                 "over %lld runs: lock, blocks in arrival order: %zu distinct result(s); "
                 "turns, blocks in index order: %zu distinct result(s) (%.9g)\n",
                 static_cast<long long>(opt.reps), plain_bits.size(), ordered_bits.size(), ordered);
    if (ordered_bits.size() != 1) {
        std::fprintf(stderr, "FAIL: the block-ordered dot product gave %zu different results\n",
                     ordered_bits.size());
        return common::kExitWrong;
    }

    common::Timer timer(dev, opt.reps);
    // Bytes: both input vectors read once.
    const double bytes = 8.0 * n;
    report.print({"A1_lock_dot_product", "lock", opt.n, timer.median_ms([&] {
                      CUDA_CHECK(dot_with_lock(lock, dev_a.get(), dev_b.get(), dev_c.get(), n));
                  }),
                  bytes, dev.peak_gbps});
    report.print({"A1_lock_dot_product", "block order", opt.n, timer.median_ms([&] {
                      CUDA_CHECK(dot_ordered(dev_a.get(), dev_b.get(), dev_c.get(), turn.get(), n));
                  }),
                  bytes, dev.peak_gbps});
    if (!mutexes.all_released("the timed dot products")) return common::kExitWrong;
    return common::kExitOk;
}
#endif  // ATOMICS_KERNELS_ONLY
