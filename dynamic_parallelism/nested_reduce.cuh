// nested_reduce.cuh: what the reductions 02–05 share: their flags, the input and its exact
// reference, and Runner, which checks a kernel's per-block sums, its device-side launch count and
// the blocks each level ran before it times the kernel.
#pragma once

#include <functional>

#include "cdp_host.cuh"

namespace dp {

constexpr std::int64_t kDefaultN = 1 << 20;  // the document's array
constexpr std::int64_t kDefaultBlock = 512;  // the document's block (grid 2048 at the default n)
constexpr std::int64_t kMaxN = 1 << 21;      // values <= 1000: the total fits in an int
constexpr int kMaxValue = 1000;
inline const std::vector<std::int64_t> kBlockSizes = {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};

struct ReduceOptions {
    common::Options base;
    std::int64_t block = kDefaultBlock;
    std::int64_t pending_limit = 0;  // 0: not given, the launch count the recursion needs
    std::int64_t stall_ns = 0;
    bool faithful = false;
};

// --faithful selects the document's kernel as printed; --stall-ns is offered by the programs whose
// printed kernels race (they call cdp::stall_unless()), and delays only those.
inline void add_reduce_flags(common::Cli& cli, ReduceOptions& o, bool faithful_variant,
                             bool stall_hook) {
    o.base.n = kDefaultN;
    cli.add_standard(o.base, 1, kMaxN);
    cli.add_choice("--block", &o.block, kBlockSizes,
                   "threads per parent block: a power of two from 2 to 1024, because every level "
                   "halves it");
    cdp::add_pending_limit_flag(cli, &o.pending_limit);
    if (faithful_variant) {
        cli.add_flag("--faithful", &o.faithful, "run the document's kernel as printed");
    }
    if (stall_hook) {
        cli.add_int("--stall-ns", &o.stall_ns, 0, 10000000,
                    "make every warp but the launching one this late (exposes the printed race)");
    }
}

// n random ints in [1, kMaxValue], zero-padded (0 is the identity) to whole blocks: the nested
// kernels reduce exactly blockDim.x elements per block, so any n works. No value is 0, so a
// dropped or doubled element always changes its block's sum.
struct Problem {
    std::int64_t n;
    unsigned int grid, block;
    std::vector<int> input;             // grid * block elements
    std::vector<long long> block_sums;  // the sequential sum of each block's elements
    long long total;
};

inline Problem make_problem(const ReduceOptions& o) {
    Problem p;
    p.n = o.base.n;
    p.block = static_cast<unsigned int>(o.block);
    p.grid = common::ceil_div(p.n, o.block);
    p.input = common::random_ints(p.n, o.base.seed, 1, kMaxValue);
    p.input.resize(std::size_t(p.grid) * p.block, 0);
    p.block_sums.assign(p.grid, 0);
    for (std::size_t i = 0; i < p.input.size(); ++i) p.block_sums[i / p.block] += p.input[i];
    p.total = 0;
    for (long long s : p.block_sums) p.total += s;
    return p;
}

// A kernel's launch, its errors checked: (input, one output per block). The kernels reduce in
// place, so every run gets a fresh copy of the input.
using Launch = std::function<void(int*, int*)>;

class Runner {
  public:
    Runner(const common::Device& dev, const Problem& p, std::int64_t reps)
        : p_(p),
          timer_(dev, reps),
          reps_(reps),
          pristine_(p.input),
          work_(p.input.size()),
          odata_(p.grid) {}

    int* input() const { return work_.get(); }
    int* odata() const { return odata_.get(); }
    void restore() const {
        CUDA_CHECK(cudaMemcpyAsync(work_.get(), pristine_.get(), p_.input.size() * sizeof(int),
                                   cudaMemcpyDeviceToDevice));
    }

    // One run, checked: no device-side launch failed, every block's sum is exact (the output is
    // poisoned first: -1, which no sum of positive ints can be), the device counted `launches`
    // device-side launches, and the blocks of every level ran (`levels`: cdp::count_block()).
    // *counted (if given) receives the device's launch count.
    bool verify(const char* what, const Launch& launch, std::int64_t launches,
                const cdp::Levels& levels, std::int64_t* counted = nullptr) const {
        prepare();
        cdp::reset_log();
        common::checked_launch([&] { launch(work_.get(), odata_.get()); });
        const cdp::LaunchLog log = cdp::read_log();
        if (counted != nullptr) *counted = static_cast<std::int64_t>(log.launches);
        return check_run(what, log, odata_.to_host(), launches, levels, 1);
    }

    // The kernel alone timed (the input is restored outside the timed region): the median of the
    // runs, and the fastest and the slowest. The timed runs must not fail a launch either; a graded
    // run checks each of them as verify() checks its own (common::Timer).
    common::TimeStats time(const char* what, const Launch& launch, std::int64_t launches,
                           const cdp::Levels& levels) {
        cdp::reset_log();
        std::int64_t runs = 0;
        const common::TimeStats t = timer_.measure(
            [&] { launch(work_.get(), odata_.get()); }, [&] { prepare(); },
            [&] {
                return check_run(what, cdp::read_log_ungraded(), odata_.to_host_ungraded(),
                                 launches, levels, ++runs);
            });
        const cdp::LaunchLog log = cdp::read_log();
        const std::int64_t all = reps_ + common::Timer::kWarmup;
        if (!cdp::check_launches(what, log, launches * all) ||
            !cdp::check_blocks(what, log, levels, all))
            std::exit(common::kExitWrong);
        return t;
    }

  private:
    void prepare() const {
        restore();
        odata_.poison();
    }
    // The log holds `runs` runs' counts; `got` is the last run's per-block sums.
    bool check_run(const char* what, const cdp::LaunchLog& log, const std::vector<int>& got,
                   std::int64_t launches, const cdp::Levels& levels, std::int64_t runs) const {
        if (log.failures != 0) return cdp::check_launches(what, log, launches * runs);
        return common::check_close(what, got.data(), p_.block_sums.data(), p_.grid, {0.0, 0.0}) &&
               cdp::check_launches(what, log, launches * runs) &&
               cdp::check_blocks(what, log, levels, runs);
    }

    const Problem& p_;
    common::Timer timer_;
    std::int64_t reps_;
    common::DeviceBuffer<int> pristine_, work_, odata_;
};

// The document's result line: the sum on the CPU and on the GPU (the per-block sums added on the
// host, as the document does).
inline long long gpu_sum(const Runner& r, const Problem& p) {
    std::vector<int> partial(p.grid);
    CUDA_CHECK(cudaMemcpy(partial.data(), r.odata(), p.grid * sizeof(int), cudaMemcpyDeviceToHost));
    common::graded("per-block sums", partial);  // grading: recorded, or replayed (common.h)
    long long sum = 0;
    for (int s : partial) sum += s;
    return sum;
}

}  // namespace dp
