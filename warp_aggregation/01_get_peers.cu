// 01_get_peers: the blog's Example 1, get_peers, beside __match_any_sync.
//
// Before a warp can add its same-key elements together it must know, for every lane, which other
// lanes hold the same key: its "peers", as a 32-bit mask. The blog's loop takes the key of the
// first lane not yet matched, broadcasts it with a shuffle, votes on who holds it, and removes
// those lanes: one round per distinct key in the warp. Volta (sm_70) added __match_any_sync, which
// returns the same mask in one instruction. Both run on the same keys here, one thread per key, and
// every mask is checked against the CPU for four key patterns (all equal, all distinct, runs,
// 8 keys), the last warp partial whenever --n is not a multiple of 32. Then each is timed.
//
// What changed from the blog: __shfl and __ballot became __shfl_sync and __ballot_sync with the
// mask of the lanes still in the loop (warp_peers.cuh says why that mask is right), and the search
// starts from the lanes that exist, so a final partial warp works.
//
// The kernel and its launcher need warp_peers.cuh alone (the compile_alone test checks it); main
// and the trace need warp_agg.h and the repository's common/.
//
// Build: cmake --build build --target 01_get_peers
// Run:   build/bin/01_get_peers [--n 1000003] [--seed 1234] [--reps 20] [--csv] [--trace]
//        --trace prints the loop round by round for one warp of each pattern (to stderr with
//        --csv, so that stdout holds nothing but CSV).
#include "warp_peers.cuh"

constexpr unsigned int kBlock = 256;  // whole warps: the kernels vote on the full mask

// Every thread of a warp votes on whether it holds a key, so that the partial last warp knows
// which lanes exist; then the lanes past the end leave and the rest search for their peers.
template <bool kMatchAny, class Trace = warp_agg::NoPeersTrace>
__global__ void peers_kernel(const int* keys, unsigned int* peers, unsigned int n,
                             Trace trace = {}) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int active = __ballot_sync(warp_agg::kFullMask, i < n);
    if (i >= n) return;
    if (kMatchAny) {
        peers[i] = warp_agg::match_peers(keys[i], active);
    } else {
        peers[i] = warp_agg::get_peers(keys[i], active, trace);
    }
}

// Returns the launch's error (a fault inside the kernel shows at the next synchronising call).
template <bool kMatchAny>
cudaError_t find_peers(const int* keys, unsigned int* peers, unsigned int n) {
    peers_kernel<kMatchAny><<<(n + kBlock - 1) / kBlock, kBlock>>>(keys, peers, n);
    return cudaGetLastError();
}

#ifndef WARP_KERNELS_ONLY  // the compile_alone test takes the kernel and launcher alone
#include "common.cuh"
#include "warp_agg.h"

using warp_agg::kWarp;

// One round of the loop as the --trace run records it.
struct PeersStep {
    int leader;
    unsigned int peers;
    unsigned int unclaimed_after;
};
constexpr int kMaxSteps = kWarp;  // one round per distinct key of the warp

// Records each round once, from the lane that led it.
struct PeersRecorder {
    PeersStep* steps;
    int* count;
    __device__ void operator()(int step, int leader, unsigned int peers,
                               unsigned int unclaimed) const {
        if (static_cast<int>(warp_agg::lane_id()) == leader) {
            steps[step] = {leader, peers, unclaimed};
            atomicMax(count, step + 1);  // each round's leader is another lane
        }
    }
};

// Runs get_peers on the first warp of `keys` with the recorder and prints each round to `text`
// (stdout, or stderr with --csv, so that stdout holds nothing but CSV).
void trace_first_warp(const std::vector<int>& keys, warp_agg::Pattern p, std::FILE* text) {
    const unsigned int lanes = static_cast<unsigned int>(std::min<std::size_t>(keys.size(), kWarp));
    common::DeviceBuffer<int> d_keys(std::vector<int>(keys.begin(), keys.begin() + lanes));
    common::DeviceBuffer<unsigned int> d_peers(lanes);
    common::DeviceBuffer<PeersStep> d_steps(kMaxSteps);
    common::DeviceBuffer<int> d_count(1);
    CUDA_CHECK(cudaMemset(d_count.get(), 0, sizeof(int)));
    peers_kernel<false><<<1, kWarp>>>(d_keys.get(), d_peers.get(), lanes,
                                      PeersRecorder{d_steps.get(), d_count.get()});
    CUDA_CHECK_LAUNCH();
    const int count = d_count.to_host()[0];
    const std::vector<PeersStep> steps = d_steps.to_host();

    std::fprintf(text, "\nget_peers, round by round, first warp of '%s' (lane 0 on the left)\n",
                 warp_agg::pattern_name(p));
    std::fprintf(text, "  keys     ");
    for (unsigned int l = 0; l < lanes; ++l) std::fprintf(text, "%d ", keys[l]);
    std::fprintf(text, "\n  %-5s %-6s %-4s  %-32s  %s\n", "round", "leader", "key",
                 "peers (ballot)", "unclaimed after");
    for (int s = 0; s < count; ++s) {
        const PeersStep& st = steps[s];
        std::fprintf(text, "  %-5d %-6d %-4d  %s  %s\n", s, st.leader, keys[st.leader],
                     warp_agg::lanes_string(st.peers, lanes).c_str(),
                     warp_agg::lanes_string(st.unclaimed_after, lanes).c_str());
    }
}

int main(int argc, char** argv) {
    common::Options opt;
    opt.n = 1000003;
    bool trace = false;
    common::Cli cli("01_get_peers",
                    "the blog's get_peers loop and __match_any_sync: peer masks per warp");
    cli.add_standard(opt, 1, std::int64_t{1} << 30);
    cli.add_flag(
        "--trace", &trace,
        "print the loop round by round for one warp of each pattern (to stderr with --csv)");
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    const common::Device dev = common::require_gpu(report.text());

    const unsigned int n = static_cast<unsigned int>(opt.n);
    common::require_device_bytes(2.0 * n * sizeof(int), "the keys and the masks");
    common::DeviceBuffer<int> d_keys(n);
    common::DeviceBuffer<unsigned int> d_peers(n);
    common::Timer timer(dev, opt.reps);

    struct Variant {
        const char* name;
        cudaError_t (*launch)(const int*, unsigned int*, unsigned int);
    };
    const Variant variants[] = {{"get_peers", find_peers<false>},
                                {"__match_any_sync", find_peers<true>}};

    bool ok = true;
    for (warp_agg::Pattern p : warp_agg::kPatterns) {
        const std::vector<int> keys = warp_agg::pattern_keys(p, n, opt.seed);
        if (trace) trace_first_warp(keys, p, report.text());
        const std::vector<unsigned int> want = warp_agg::cpu_peers(keys);
        CUDA_CHECK(cudaMemcpy(d_keys.get(), keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
        for (const Variant& v : variants) {
            // Every real mask holds its own lane's bit, so 0 marks a mask that was never written.
            auto clear = [&] {
                CUDA_CHECK(cudaMemset(d_peers.get(), 0, n * sizeof(unsigned int)));
            };
            auto launch = [&] { CUDA_CHECK(v.launch(d_keys.get(), d_peers.get(), n)); };
            // Masks are exact: tolerance 0.
            const std::string what = std::string(v.name) + "/" + warp_agg::pattern_name(p);
            auto check = [&](const std::vector<unsigned int>& got) {
                return common::check_close(what.c_str(), got.data(), want.data(), n, {0.0, 0.0});
            };
            clear();
            common::checked_launch(launch);
            CUDA_CHECK(cudaDeviceSynchronize());
            if (!check(d_peers.to_host())) {
                ok = false;
                continue;
            }
            // Bytes: a key read and a mask written per element. A graded run checks every timed
            // launch too (common::Timer).
            const double ms =
                timer.measure(launch, clear, [&] { return check(d_peers.to_host_ungraded()); })
                    .median;
            report.print({"01_get_peers", what, opt.n, ms, 8.0 * n, dev.peak_gbps});
        }
    }
    if (!ok) return common::kExitWrong;
    std::fprintf(report.text(), "every peer mask matches the CPU for every pattern\n");
    return common::kExitOk;
}
#endif  // WARP_KERNELS_ONLY
