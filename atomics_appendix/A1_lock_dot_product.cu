// A1_lock_dot_product: Appendix A.1, a dot product finished on the GPU under a lock.
//
// Chapter 5's dot product left one partial sum per block for the CPU to add. Here each block's
// leader adds its partial sum into the single result *c itself, and since (before compute
// capability 2.0) there was no float atomicAdd, it does so under a lock made from atomicCAS
// (lock.cuh): N = 33*1024*1024, 256 threads per block, min(32, ...) blocks, a grid-stride loop per
// thread, a shared-memory tree per block, then lock; *c += cache[0]; unlock.
//
// Beside it, the version the book leaves to the reader: blocks that add in a fixed order (block 0,
// then 1, ...), so that the float result has the same bits on every run. The block leaders take
// turns through a counter instead of racing for the lock; a block waits for the ones before it,
// so all blocks must be resident at once, which a cooperative launch guarantees (it fails rather
// than deadlocks if they cannot be). And the modern answers: the same kernel ending in a float
// atomicAdd (the book's grid, then a grid that fills the GPU), and CUB's DeviceReduce over the
// products, accumulated in double. The lock, the fixed order and atomicAdd on the book's grid each
// run --reps times, and the program counts the distinct results of each: the fixed order must give
// one; the lock and atomicAdd add in arrival order, and with the book's inputs may give several.
// (CUB's DeviceReduce is documented to give the same bits run to run on one GPU.)
//
// The inputs. By default small integers with random signs (a[i] in {-3..3} without 0, b[i] in
// {1, 2, 3}): every product and every partial sum the kernels can form is an integer far below
// 2^24 (the program checks the bound from the inputs), so every float addition is exact, in any
// order, and each result must equal the exact dot product: one product lost or added twice
// changes it by at least 1, and fails. With --book, the book's a[i] = i, b[i] = 2i, whose sum
// (about 2.8e22) no float holds exactly: the result depends on the order the blocks arrive in (the
// lock can give several results over the runs), and the check is the book's 2 * sum of squares
// within the rounding bound of the summation order, which a lost product can hide inside
// (RESULTS.md#a1-the-dot-products-check).
//
// Before either, a direct test of the lock: 1024 threads each add 1 to a plain int under it. A lock
// that does not exclude (all 32 lanes of a warp inside at once) loses increments, every time. The
// test has whole warps contend for one mutex, which is correct only since sm_70's independent
// thread scheduling (lock.cuh); the dot products take the lock from one thread per block.
//
// The kernels and their launchers need lock.cuh alone (the compile_alone test checks it); main and
// its helpers need the repository's common/. What a copy must keep: block_dot's tree halves the
// block, so the block size is a template parameter, Threads (the book's 256 by default): any power
// of two up to 1024, and every launch must use blocks of exactly Threads threads in x (1-D); the
// launchers do, and a kernel launched with another shape or a 2-D grid traps (a launch failure at
// the next synchronising call) rather than returning a wrong sum. The kernels' grid-stride index is
// 64-bit, so any int n and any 1-D grid are safe inside them; blocks_per_grid computes
// n + Threads - 1 in int, so a launcher needs n <= INT_MAX - Threads + 1 (the program's --n stops
// far below). Everything is in namespace atomics, and the kernels and launchers
// are templates or inline, so a header holding them can be included from several .cu files of one
// program (copy_tests/two_file_main.cu builds one).
//
// Build: cmake --build build --target A1_lock_dot_product
// Run:   build/bin/A1_lock_dot_product [--n 34603008] [--book] [--seed 1234] [--reps 20] [--csv]
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cstdint>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

#include "lock.cuh"

namespace atomics {

constexpr int kThreadsPerBlock = 256;  // the book's block

// The book's imin(32, blocks that cover n), for blocks of `threads`.
inline int blocks_per_grid(int n, int threads = kThreadsPerBlock) {
    const int blocks = (n + threads - 1) / threads;
    return blocks < 32 ? blocks : 32;
}

// Chapter 5's per-block dot product: grid-stride products into a register, then the tree. The
// tree halves the block each step, so it needs a block of exactly Threads threads, a power of two,
// in x alone: the template fixes the shared array's size, and a launch with any other shape traps
// (cudaErrorLaunchFailure at the next synchronising call) instead of summing garbage or part of
// the block. The grid is 1-D too: blocks that differ only in y or z would add the same products
// again (and two blocks would wait for the same turn in dot_in_block_order), so that traps as well.
// The index is 64-bit: blockIdx.x * blockDim.x and the stride are formed in 64 bits, so the loop
// never wraps, whatever n and grid.
template <int Threads>
__device__ float block_dot(const float* a, const float* b, int n) {
    static_assert(Threads > 0 && Threads <= 1024 && (Threads & (Threads - 1)) == 0,
                  "block_dot's tree needs a power of two threads, at most 1024");
    if (blockDim.x != Threads || blockDim.y != 1 || blockDim.z != 1 || gridDim.y != 1 ||
        gridDim.z != 1)
        __trap();
    __shared__ float cache[Threads];
    const int cache_index = threadIdx.x;
    float temp = 0;
    const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
    for (std::int64_t tid = threadIdx.x + std::int64_t{blockIdx.x} * blockDim.x; tid < n;
         tid += stride)
        temp += a[tid] * b[tid];
    cache[cache_index] = temp;
    __syncthreads();
    for (int i = Threads / 2; i != 0; i /= 2) {
        if (cache_index < i) cache[cache_index] += cache[cache_index + i];
        __syncthreads();
    }
    return cache[0];
}

// A.1.2: the Lock arrives by value; it is a pointer, so the copy is harmless (lock.cuh).
template <int Threads = kThreadsPerBlock>
__global__ void dot(Lock lock, const float* a, const float* b, float* c, int n) {
    const float partial = block_dot<Threads>(a, b, n);
    if (threadIdx.x == 0) {
        lock.lock();
        *c += partial;
        lock.unlock();
    }
}

// The reader's exercise: block b adds when *turn == b, then passes the turn on. The acquire load
// sees block b-1's *c; the release store publishes block b's.
template <int Threads = kThreadsPerBlock>
__global__ void dot_in_block_order(const float* a, const float* b, float* c, int* turn, int n) {
    const float partial = block_dot<Threads>(a, b, n);
    if (threadIdx.x == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_device> t(*turn);
        while (t.load(cuda::memory_order_acquire) != static_cast<int>(blockIdx.x)) {
        }
        *c += partial;
        t.store(blockIdx.x + 1, cuda::memory_order_release);
    }
}

// What the lock stood in for: since compute capability 2.0 a float atomicAdd does the same
// read-modify-write in one instruction, in the L2, in whatever order the blocks arrive.
template <int Threads = kThreadsPerBlock>
__global__ void dot_atomic_add(const float* a, const float* b, float* c, int n) {
    const float partial = block_dot<Threads>(a, b, n);
    if (threadIdx.x == 0) atomicAdd(c, partial);
}

// CUB's reduction over the products, a[i] * b[i] formed on the fly, accumulated in double.
struct Product {
    const float* a;
    const float* b;
    __host__ __device__ double operator()(int i) const { return static_cast<double>(a[i]) * b[i]; }
};
using Products = thrust::transform_iterator<Product, thrust::counting_iterator<int>>;

// Each launcher zeroes *c (the book copies 0 in) and launches blocks of Threads threads; it
// returns the first error, a bad launch configuration included (a fault inside the kernel shows
// at the next synchronising call). Templates and inline: a header of them may be included by
// several .cu files of one program (copy_tests/two_file_main.cu).
template <int Threads = kThreadsPerBlock>
cudaError_t dot_with_lock(Lock lock, const float* a, const float* b, float* c, int n) {
    const cudaError_t err = cudaMemsetAsync(c, 0, sizeof(float));
    if (err != cudaSuccess) return err;
    dot<Threads><<<blocks_per_grid(n, Threads), Threads>>>(lock, a, b, c, n);
    return cudaGetLastError();
}

// Every block waits for the blocks before it, so all must be resident at once: a cooperative
// launch guarantees it, and refuses a grid that cannot be (instead of deadlocking).
template <int Threads = kThreadsPerBlock>
cudaError_t dot_ordered(const float* a, const float* b, float* c, int* turn, int n) {
    cudaError_t err = cudaMemsetAsync(c, 0, sizeof(float));
    if (err == cudaSuccess) err = cudaMemsetAsync(turn, 0, sizeof(int));
    if (err != cudaSuccess) return err;
    void* args[] = {&a, &b, &c, &turn, &n};
    return cudaLaunchCooperativeKernel(reinterpret_cast<void*>(dot_in_block_order<Threads>),
                                       blocks_per_grid(n, Threads), Threads, args);
}

// `blocks` blocks of Threads threads.
template <int Threads = kThreadsPerBlock>
cudaError_t dot_with_atomic_add(const float* a, const float* b, float* c, int n, int blocks) {
    const cudaError_t err = cudaMemsetAsync(c, 0, sizeof(float));
    if (err != cudaSuccess) return err;
    dot_atomic_add<Threads><<<blocks, Threads>>>(a, b, c, n);
    return cudaGetLastError();
}

// The temporary storage CUB asks for (`temp` null: only *temp_bytes is set), then the reduction.
inline cudaError_t dot_with_cub(void* temp, std::size_t* temp_bytes, const float* a, const float* b,
                                double* c, int n) {
    const Products products(thrust::counting_iterator<int>(0), Product{a, b});
    return cub::DeviceReduce::Reduce(temp, *temp_bytes, products, c, n, cuda::std::plus<double>{},
                                     0.0);
}

}  // namespace atomics

#ifndef ATOMICS_KERNELS_ONLY  // the compile_alone test takes the kernels and launchers alone
#include <cmath>
#include <cstring>
#include <set>

#include "gpu_table.cuh"

namespace atomics {

// The inputs of one run and what its results must be.
struct DotProblem {
    std::vector<float> a, b;
    bool book;     // the book's inputs: checked within a rounding bound; else exactly
    double exact;  // the dot product (--book: the book's 2 * sum of i^2 for i < n)
};

inline DotProblem make_dot_problem(int n, std::uint64_t seed, bool book) {
    DotProblem p{std::vector<float>(n), std::vector<float>(n), book, 0.0};
    if (book) {
        for (int i = 0; i < n; ++i) {
            p.a[i] = static_cast<float>(i);
            p.b[i] = static_cast<float>(2.0 * i);
        }
        // 2 * x(x+1)(2x+1)/6 with x = n - 1 < 2^30: x(x+1)/2 is exact in 64 bits, 3 divides it or
        // 2x+1, and the last product is formed in double (two roundings: below 2^-52 relative,
        // far inside the tolerance).
        const std::uint64_t x = static_cast<std::uint64_t>(n) - 1;
        std::uint64_t q = x * (x + 1) / 2, r = 2 * x + 1;
        if (q % 3 == 0)
            q /= 3;
        else
            r /= 3;
        p.exact = 2.0 * static_cast<double>(q) * static_cast<double>(r);
        return p;
    }
    const std::vector<int> sign_and_size = common::random_ints(n, seed, 0, 5);
    const std::vector<int> b = common::random_ints(n, seed + 1, 1, 3);
    std::int64_t exact = 0;
    for (int i = 0; i < n; ++i) {
        const int a = sign_and_size[i] < 3 ? sign_and_size[i] - 3 : sign_and_size[i] - 2;
        p.a[i] = static_cast<float>(a);
        p.b[i] = static_cast<float>(b[i]);
        exact += std::int64_t{a} * b[i];
    }
    // A result of 0 would pass a kernel that adds nothing (*c starts at 0): flip one sign.
    if (exact == 0) {
        p.a[0] = -p.a[0];
        exact = 2 * static_cast<std::int64_t>(p.a[0]) * static_cast<std::int64_t>(p.b[0]);
    }
    p.exact = static_cast<double>(exact);  // |exact| <= 9 n < 2^34: exact in double
    return p;
}

// The integer inputs, run by `blocks` blocks of `block` threads (block_dot, then the block sums
// added in any order): the largest magnitude a partial sum can reach. A thread's running sum
// is at most the sum of its |products|; the tree adds subsets of its block's thread sums, so at
// most the sum of their magnitudes; the blocks add subsets of the block sums, likewise.
inline double largest_partial_sum(const DotProblem& p, int blocks, int block = kThreadsPerBlock) {
    const std::size_t threads = static_cast<std::size_t>(blocks) * block;
    std::vector<double> chain(threads, 0.0), thread_sum(threads, 0.0);
    for (std::size_t i = 0, g = 0; i < p.a.size(); ++i, g = g + 1 == threads ? 0 : g + 1) {
        const double product = static_cast<double>(p.a[i]) * p.b[i];  // element i: thread g
        chain[g] += std::fabs(product);
        thread_sum[g] += product;
    }
    double largest = 0, across_blocks = 0;
    for (int b = 0; b < blocks; ++b) {
        double tree = 0, block_sum = 0;
        for (int t = 0; t < block; ++t) {
            const std::size_t g = static_cast<std::size_t>(b) * block + t;
            largest = std::max(largest, chain[g]);
            tree += std::fabs(thread_sum[g]);
            block_sum += thread_sum[g];
        }
        largest = std::max(largest, tree);
        across_blocks += std::fabs(block_sum);
    }
    return std::max(largest, across_blocks);
}

// What a result of `blocks` blocks of `block` threads of block_dot must meet. The integer inputs:
// exactly the dot product, once largest_partial_sum shows every partial sum below 2^24 (a float
// holds every integer up to 2^24). The book's: Higham's bound for any summation order. Every
// product passes through at most h float roundings: a[i] and b[i] themselves (i > 2^24 is not exact
// in float), the product, its thread's grid-stride sum, the tree's log2(block) levels (8) and one
// addition per block into *c, in whichever order; all terms are >= 0, so |error| <= gamma(h) *
// sum|a_i b_i| with gamma(h) = h u / (1 - h u), u = 2^-24. At the book's N = 34,603,008 (32 blocks
// of 256 threads, so ceil(N / 8192) = 4224 products a thread) h = 3 + 4224 + 8 + 32 = 4267 and
// gamma(h) = 2.54e-4 relative: a lost block (1/32 of the sum) always fails; a single lost product
// at the end of the book's input, 2 (N-1)^2, is 3/N = 8.7e-8 of the sum: about one float ulp at the
// sum (2.39e15 against 2^51 = 2.25e15), so float could show it, but it lies 2900 times inside the
// tolerance. *largest (where given) becomes at least the largest partial sum of the integer inputs.
inline bool dot_tolerance(const DotProblem& p, int blocks, common::Tolerance* tol,
                          double* largest_seen = nullptr, int block = kThreadsPerBlock) {
    const int n = static_cast<int>(p.a.size());
    if (!p.book) {
        const double largest = largest_partial_sum(p, blocks, block);
        if (largest_seen != nullptr) *largest_seen = std::max(*largest_seen, largest);
        if (largest > 16777216.0) {
            std::fprintf(stderr,
                         "FAIL: with %d blocks a partial sum could reach %.0f, past 2^24: the "
                         "check could not be exact\n",
                         blocks, largest);
            return false;
        }
        *tol = {0.0, 0.0};
        return true;
    }
    const double h =
        3 + common::ceil_div(n, std::int64_t{blocks} * block) + std::log2(block) + blocks;
    const double u = std::ldexp(1.0, -24);
    *tol = {0.0, h * u / (1 - h * u)};
    return true;
}

// CUB's result, summed in double: exact for the integer inputs (every partial sum below 9 n <
// 2^53); for the book's, the inputs' and products' roundings (3) and the double sum's (n 2^-53 of
// the sum, n 2^-29 in units of u).
inline common::Tolerance cub_tolerance(const DotProblem& p) {
    if (!p.book) return {0.0, 0.0};
    const double h = 3 + std::ldexp(static_cast<double>(p.a.size()), -29);
    const double u = std::ldexp(1.0, -24);
    return {0.0, h * u / (1 - h * u)};
}

inline bool check_dot(const char* what, double got, const DotProblem& p, common::Tolerance tol) {
    return common::check_close(what, &got, &p.exact, 1, tol);
}

template <class T>
T read_result_ungraded(const T* c) {
    T result = 0;
    CUDA_CHECK(cudaMemcpy(&result, c, sizeof(T), cudaMemcpyDeviceToHost));
    return result;
}
template <class T>
T read_result(const T* c, const char* what) {
    T result = read_result_ungraded(c);
    common::graded(what, result);  // grading: recorded, or replayed (common.h)
    return result;
}

inline std::uint32_t bits(float x) {
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

}  // namespace atomics

#ifndef ATOMICS_NO_MAIN_A1  // atomics_copy_test includes this file for its kernels and checks
namespace atomics {

// Every thread takes the lock, so the 32 lanes of each warp contend for it together: correct only
// with sm_70's independent thread scheduling (lock.cuh).
__global__ void lock_test_kernel(Lock lock, int* counter) {
    lock.lock();
    *counter = *counter + 1;  // a plain read-modify-write: only the lock keeps it whole
    lock.unlock();
}

}  // namespace atomics

int main(int argc, char** argv) {
    using namespace atomics;  // the kernels, launchers and checks above
    common::Options opt;
    opt.n = 33 * 1024 * 1024;
    bool book_inputs = false;
    common::Cli cli("A1_lock_dot_product",
                    "Appendix A.1: dot product whose blocks add their sums under a GPU lock");
    // n >= 2: with --book and n = 1 the dot product is 0, which a kernel adding nothing matches.
    cli.add_standard(opt, 2, std::int64_t{1} << 30);
    cli.add_flag("--book", &book_inputs,
                 "the book's a[i] = i, b[i] = 2i (inexact in float), checked within a rounding "
                 "bound, instead of exact integer inputs");
    cli.parse_or_exit(argc, argv);
    if (book_inputs && cli.given("--seed"))
        cli.usage_error("--book inputs have no seed: give one of --book and --seed");
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
        common::checked_launch([&] {
            lock_test_kernel<<<kBlocks, kThreads>>>(mutexes.lock(0), counter.get());
            CUDA_CHECK_LAUNCH();
        });
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
    const DotProblem problem =
        make_dot_problem(n, static_cast<std::uint64_t>(opt.seed), book_inputs);
    // The book's grid, and one that fills the GPU (8 blocks of 256 threads an SM).
    const int blocks = blocks_per_grid(n);
    const int full_grid = static_cast<int>(
        std::min<std::int64_t>(std::int64_t{dev.sm_count} * (2048 / kThreadsPerBlock),
                               common::ceil_div(n, kThreadsPerBlock)));
    common::Tolerance tol, full_tol;
    double largest = 0;
    if (!dot_tolerance(problem, blocks, &tol, &largest) ||
        !dot_tolerance(problem, full_grid, &full_tol, &largest))
        return common::kExitWrong;
    if (!book_inputs)
        std::fprintf(report.text(),
                     "integer inputs: every partial sum below %.0f, exact in float: each result "
                     "must be the dot product, %.0f\n",
                     largest + 1, problem.exact);

    common::DeviceBuffer<float> dev_a(problem.a), dev_b(problem.b), dev_c(1);
    common::DeviceBuffer<double> dev_sum(1);
    common::DeviceBuffer<int> turn(1);
    std::size_t cub_bytes = 0;
    CUDA_CHECK(dot_with_cub(nullptr, &cub_bytes, dev_a.get(), dev_b.get(), dev_sum.get(), n));
    common::DeviceBuffer<unsigned char> cub_temp(cub_bytes);
    const Lock lock = mutexes.lock(0);

    std::set<std::uint32_t> plain_bits, ordered_bits, atomic_bits;
    float plain = 0, ordered = 0;
    for (std::int64_t r = 0; r < opt.reps; ++r) {
        // No poison here: *c is an accumulator that the launcher zeroes, as the book copies 0 in;
        // a kernel that adds nothing leaves 0, which fails against the reference (nonzero).
        common::checked_launch(
            [&] { CUDA_CHECK(dot_with_lock(lock, dev_a.get(), dev_b.get(), dev_c.get(), n)); });
        plain = read_result(dev_c.get(), "dot product");
        if (!check_dot("dot with lock", plain, problem, tol)) return common::kExitWrong;
        plain_bits.insert(bits(plain));

        CUDA_CHECK(dot_ordered(dev_a.get(), dev_b.get(), dev_c.get(), turn.get(), n));
        ordered = read_result(dev_c.get(), "dot product");
        if (!check_dot("dot in block order", ordered, problem, tol)) return common::kExitWrong;
        ordered_bits.insert(bits(ordered));

        // The lock's modern answer, on the same grid: also in arrival order.
        CUDA_CHECK(dot_with_atomic_add(dev_a.get(), dev_b.get(), dev_c.get(), n, blocks));
        const float added = read_result(dev_c.get(), "dot product");
        if (!check_dot("dot with atomicAdd", added, problem, tol)) return common::kExitWrong;
        atomic_bits.insert(bits(added));
    }
    if (!mutexes.all_released("the verified dot products")) return common::kExitWrong;
    std::fprintf(report.text(),
                 "Does GPU value %.9g = %.9g? (relative error %.2e, tolerance %.2e; %d blocks)\n",
                 plain, problem.exact, std::fabs(plain - problem.exact) / std::fabs(problem.exact),
                 tol.rel, blocks);
    std::fprintf(report.text(),
                 "over %lld runs, distinct results: lock, blocks in arrival order: %zu; atomicAdd, "
                 "blocks in arrival order: %zu; turns, blocks in index order: %zu (%.9g)\n",
                 static_cast<long long>(opt.reps), plain_bits.size(), atomic_bits.size(),
                 ordered_bits.size(), ordered);
    if (ordered_bits.size() != 1) {
        std::fprintf(stderr, "FAIL: the block-ordered dot product gave %zu different results\n",
                     ordered_bits.size());
        return common::kExitWrong;
    }
    // The modern answers on the whole GPU, checked the same way.
    CUDA_CHECK(dot_with_atomic_add(dev_a.get(), dev_b.get(), dev_c.get(), n, full_grid));
    if (!check_dot("dot with atomicAdd, full grid", read_result(dev_c.get(), "dot product"),
                   problem, full_tol))
        return common::kExitWrong;
    CUDA_CHECK(
        dot_with_cub(cub_temp.get(), &cub_bytes, dev_a.get(), dev_b.get(), dev_sum.get(), n));
    if (!check_dot("dot with CUB", read_result(dev_sum.get(), "dot product (CUB)"), problem,
                   cub_tolerance(problem)))
        return common::kExitWrong;
    std::fprintf(report.text(), "atomicAdd (%d and %d blocks) and CUB: checked the same way\n",
                 blocks, full_grid);

    common::Timer timer(dev, opt.reps);
    // Bytes: both input vectors read once. A graded run checks every timed launch as the runs
    // above were checked (common::Timer).
    const double bytes = 8.0 * n;
    auto time_row = [&](const std::string& variant, auto launch, const char* what,
                        common::Tolerance row_tol) {
        const bool cub_row = variant.rfind("CUB", 0) == 0;
        auto check = [&] {
            const double got =
                cub_row ? read_result_ungraded(dev_sum.get()) : read_result_ungraded(dev_c.get());
            return check_dot(what, got, problem, row_tol);
        };
        report.print({"A1_lock_dot_product", variant, opt.n,
                      timer
                          .measure(
                              launch, [] {}, check)
                          .median,
                      bytes, dev.peak_gbps});
    };
    time_row(
        "lock", [&] { CUDA_CHECK(dot_with_lock(lock, dev_a.get(), dev_b.get(), dev_c.get(), n)); },
        "dot with lock", tol);
    time_row(
        "block order",
        [&] { CUDA_CHECK(dot_ordered(dev_a.get(), dev_b.get(), dev_c.get(), turn.get(), n)); },
        "dot in block order", tol);
    if (!mutexes.all_released("the timed dot products")) return common::kExitWrong;
    for (const int grid : {blocks, full_grid})
        time_row(
            "atomicAdd " + std::to_string(grid) + " blocks",
            [&] {
                CUDA_CHECK(dot_with_atomic_add(dev_a.get(), dev_b.get(), dev_c.get(), n, grid));
            },
            "dot with atomicAdd", grid == blocks ? tol : full_tol);
    time_row(
        "CUB (double sum)",
        [&] {
            CUDA_CHECK(dot_with_cub(cub_temp.get(), &cub_bytes, dev_a.get(), dev_b.get(),
                                    dev_sum.get(), n));
        },
        "dot with CUB", cub_tolerance(problem));
    return common::kExitOk;
}
#endif  // ATOMICS_NO_MAIN_A1
#endif  // ATOMICS_KERNELS_ONLY
