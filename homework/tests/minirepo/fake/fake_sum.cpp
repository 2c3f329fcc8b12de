// fake_sum: an exercise that runs without a GPU, for the grader's own tests (homework/tests).
// sum_kernel stands for a kernel (the grader reads it as device code: `__device__` below is
// empty); its result goes through common::graded as DeviceBuffer::to_host's would. With
// CUDA_VISIBLE_DEVICES set to nothing it behaves as a GPU program where there is no GPU.
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "common.h"

#define __device__

// A helper that answers the exercise: the exercise's parts may not use it (HOMEWORK_FORBID).
inline long long answer_helper(const int* in, int n) {
    long long s = 0;
    for (int i = 0; i < n; ++i) s += in[i];
    return s;
}

__device__ void sum_kernel(const int* in, long long* out, int n) {
    // BEGIN SOLUTION
    long long s = 0;
    for (int i = 0; i < n; ++i) s += in[i];
    *out = s;
    // STUB: *out = 0;
    // END SOLUTION
}

int sum_blocks(int n) {
    // BEGIN SOLUTION
    return (n + 255) / 256;
    // STUB: return 1;
    // END SOLUTION
}

// One "launch", timed as common::Timer and common::checked_launch time a kernel's in a graded run:
// the time goes to the record as "launch ms".
template <class F>
void launch_timed(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
    if (common::grading()) common::graded("launch ms", ms);
}

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1000;
    common::Cli cli("fake_sum", "a sum that stands for a kernel, for the grader's tests");
    cli.add_standard(opt, 1, 1 << 24);
    cli.parse_or_exit(argc, argv);
    const char* devices = std::getenv("CUDA_VISIBLE_DEVICES");
    if (devices != nullptr && (*devices == '\0' || std::strcmp(devices, "-1") == 0)) {
        std::fprintf(stderr, "SKIP: no CUDA device\n");
        return common::kExitSkip;
    }
    common::Reporter report(opt.csv);
    const int n = static_cast<int>(opt.n);
    const std::vector<int> in = common::random_ints(n, opt.seed, 1, 100);
    long long want = 0;
    for (int x : in) want += x;
    const double w = static_cast<double>(want);

    int blocks = sum_blocks(n);
    common::graded("blocks", blocks);
    std::vector<long long> out(1, -1);
    launch_timed([&] { sum_kernel(in.data(), out.data(), n); });
    common::graded("device data", out);
    if (!common::check_close("fake sum", out.data(), &w, 1, {})) return common::kExitWrong;
    const double b = (n + 255) / 256;
    const double got_blocks = blocks;
    if (!common::check_close("fake blocks", &got_blocks, &b, 1, {})) return common::kExitWrong;
    // The timed "launches", each checked in a graded run (common::Timer does the same).
    std::vector<double> ms;
    for (std::int64_t r = 0; r < 2 + opt.reps; ++r) {
        out[0] = -1;
        const auto t0 = std::chrono::steady_clock::now();
        sum_kernel(in.data(), out.data(), n);
        double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                       .count();
        if (r >= 2) ms.push_back(t);
        if (!common::grading()) continue;
        common::graded("launch ms", t);
        std::uint8_t ok = common::check_close("fake sum", out.data(), &w, 1, {}) ? 1 : 0;
        common::graded("launch checked", ok);
        if (!ok) {
            std::fprintf(stderr, "FAIL launch %lld timed: its output is wrong\n",
                         static_cast<long long>(r + 1));
            return common::kExitWrong;
        }
    }
    report.print({"fake_sum", "", opt.n, common::median(ms), 4.0 * n, 0.0});
    return common::kExitOk;
}
