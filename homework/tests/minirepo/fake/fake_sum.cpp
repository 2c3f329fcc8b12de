// fake_sum: an exercise that runs without a GPU, for the grader's own tests (homework/tests).
// sum_kernel stands for a kernel (the grader reads it as device code: `__device__` below is
// empty); its result goes through common::graded as DeviceBuffer::to_host's would. With
// CUDA_VISIBLE_DEVICES set to nothing it behaves as a GPU program where there is no GPU.
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

    int blocks = sum_blocks(n);
    common::graded("blocks", blocks);
    std::vector<long long> out(1, -1);
    sum_kernel(in.data(), out.data(), n);
    common::graded("device data", out);
    const double w = static_cast<double>(want);
    if (!common::check_close("fake sum", out.data(), &w, 1, {})) return common::kExitWrong;
    const double b = (n + 255) / 256;
    const double got_blocks = blocks;
    if (!common::check_close("fake blocks", &got_blocks, &b, 1, {})) return common::kExitWrong;
    const double ms = common::host_median_ms(opt.reps, [&] { sum_kernel(in.data(), out.data(), n); });
    report.print({"fake_sum", "", opt.n, ms, 4.0 * n, 0.0});
    return common::kExitOk;
}
