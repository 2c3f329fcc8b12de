// copy_tests/deterministic_streams: 10_94's kernel, launcher and workspace, included from its own
// file (the part above CH10_KERNELS_ONLY, as a reader copies it), used the way a program with
// several streams uses them.
//
// 10_94's last block is the one that draws the last ticket from a count of blocks done, so the
// count must be 0 when a launch starts and serve that launch alone. It used to be zeroed once and
// reset by each launch's last block: a count left non-zero (a launch stopped half-way, a buffer
// never zeroed) or shared by launches in two streams gave wrong sums with no error. Now a
// workspace belongs to one stream and the launcher zeroes its count there before every kernel.
// This checks:
//  - two streams, each with its own workspace and input (different grids), launches interleaved
//    with no synchronisation between them: every sum exact, and the float sums the same bits in
//    every round;
//  - a workspace whose count holds garbage before a launch (what an aborted launch leaves): the
//    next sum is still right;
//  - a workspace too small for the input: the launcher refuses it (cudaErrorInvalidValue).
#include <cstdio>
#include <cstring>
#include <vector>

#define CH10_KERNELS_ONLY
#include "../10_94_deterministic_sum.cu"
#include "../reduction.h"
#include "common.cuh"

constexpr int kRounds = 16;

class Stream {
  public:
    Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(s_); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return s_; }

  private:
    cudaStream_t s_ = nullptr;
};

// One stream's work: an input, its exact sums, a workspace, and an output slot per round.
struct Lane {
    unsigned int n;
    std::vector<unsigned int> ints;
    std::vector<float> floats;
    unsigned int int_sum = 0;
    double float_sum = 0;
    common::DeviceBuffer<unsigned int> d_ints;
    common::DeviceBuffer<float> d_floats;
    common::DeviceBuffer<unsigned int> int_out{kRounds};
    common::DeviceBuffer<float> float_out{kRounds};
    DeterministicSumWorkspace ws;

    Lane(unsigned int size, std::uint64_t seed, cudaStream_t stream)
        : n(size),
          ints(ch10::operator_input<ch10::Sum<unsigned int>>(size, seed)),
          floats(ch10::reduction_input(size, seed)),
          d_ints(ints),
          d_floats(floats) {
        for (unsigned int x : ints) int_sum += x;
        float_sum = ch10::reference_sum(floats);
        CUDA_CHECK(ws.allocate(n, stream));
    }
    void launch(int round) {
        CUDA_CHECK(deterministic_sum(d_ints.get(), int_out.get() + round, n,
                                     ch10::Sum<unsigned int>{}, ws));
        CUDA_CHECK(
            deterministic_sum(d_floats.get(), float_out.get() + round, n, ch10::Sum<float>{}, ws));
    }
    bool check(const char* what) const {
        const std::vector<unsigned int> ints_got = int_out.to_host();
        const std::vector<float> floats_got = float_out.to_host();
        bool ok = true;
        for (int r = 0; r < kRounds; ++r) {
            char label[96];
            std::snprintf(label, sizeof label, "%s, n = %u, round %d", what, n, r);
            ok &= ch10::check_result<ch10::Sum<unsigned int>>(label, ints_got[r], int_sum);
            ok &= ch10::check_result<ch10::Sum<float>>(label, floats_got[r], float_sum);
            ok &= std::memcmp(&floats_got[r], &floats_got[0], sizeof(float)) == 0;
        }
        return ok;
    }
};

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1000003;
    common::Cli cli("deterministic_streams", "10_94 in two streams at once, and after garbage");
    cli.add_n(opt, 1, 1 << 26, "the first stream's size (the second's is 4n + 1)");
    cli.add_seed(opt);
    cli.parse_or_exit(argc, argv);
    common::require_gpu();

    const auto n = static_cast<unsigned int>(opt.n);
    bool ok = true;
    {
        Stream s1, s2;
        Lane a(n, opt.seed, s1.get()), b(4 * n + 1, opt.seed + 1, s2.get());
        for (int r = 0; r < kRounds; ++r) {
            a.launch(r);
            b.launch(r);
        }
        CUDA_CHECK(cudaDeviceSynchronize());
        ok &= a.check("stream 1");
        ok &= b.check("stream 2");

        // Garbage in the count before every launch of a round: the launcher zeroes it.
        for (int r = 0; r < kRounds; ++r) {
            CUDA_CHECK(cudaMemsetAsync(a.ws.blocks_done, 0x5a, sizeof(unsigned int), s1.get()));
            a.launch(r);
        }
        CUDA_CHECK(cudaDeviceSynchronize());
        ok &= a.check("after a count left non-zero");
    }

    DeterministicSumWorkspace small;
    CUDA_CHECK(small.allocate(DET_CHUNK, nullptr));
    const common::DeviceBuffer<float> input(ch10::reduction_input(n, opt.seed));
    const common::DeviceBuffer<float> output(1);
    const cudaError_t err =
        deterministic_sum(input.get(), output.get(), n, ch10::Sum<float>{}, small);
    if (n > DET_CHUNK && err != cudaErrorInvalidValue) {
        std::fprintf(stderr, "FAIL: a workspace for %u elements took %u: %s\n", DET_CHUNK, n,
                     cudaGetErrorName(err));
        ok = false;
    }
    if (!ok) return common::kExitWrong;
    std::printf("10_94 right in two streams at once and after a count left non-zero\n");
    return common::kExitOk;
}
