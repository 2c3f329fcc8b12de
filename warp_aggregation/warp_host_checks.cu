// warp_host_checks: the host side of the chapter's programs, without a GPU: every CPU reference
// and check that 01-04 run, shown to equal its definition and to fail on a wrong output, then
// timed at each program's default size.
//
// A GPU program here spends milliseconds on the GPU; what a student waits for is the host: the
// inputs, the CPU's answer and the comparison. These must stay linear: 04's multiset check sorted
// its output and the CPU's at every percentage (25 of its 26 s), 03 compared every lane of a warp
// with every other and sorted 10^7 pairs for the partial order, 02 summed every group from its
// mask lane by lane. warp_agg.h now groups a warp's lanes with a small hash table, moves keys with
// a counting sort, and counts a filtered output; this program checks those against the slow
// definitions (on small inputs), checks that a wrong output fails, and then runs the host work of
// each program's default run in the program's own order, on the outputs a right GPU gives (the
// references themselves; 04's in the order of its input), and prints the seconds each took.
// --size-percent scales every program's size (1000: ten times the default).
//
// Build: cmake --build build --target warp_host_checks
// Run:   build/bin/warp_host_checks [--size-percent 100] [--seed 1234]
//        build/bin/warp_host_checks --orders   (03's order lines only: data/key_orders.txt)
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <numeric>
#include <set>

#include "common.h"
#include "warp_agg.h"

using warp_agg::kWarp;
using warp_agg::Order;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
    std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
    if (!ok) ++failures;
}

// The definitions the fast versions replace.
std::vector<unsigned int> peers_by_definition(const std::vector<int>& keys) {
    std::vector<unsigned int> peers(keys.size(), 0);
    for (std::size_t i = 0; i < keys.size(); ++i)
        for (std::size_t j = i / kWarp * kWarp;
             j < std::min(keys.size(), i / kWarp * kWarp + kWarp); ++j)
            if (keys[j] == keys[i]) peers[i] |= 1u << (j % kWarp);
    return peers;
}

std::vector<double> sums_by_definition(const std::vector<int>& keys,
                                       const std::vector<double>& values) {
    const std::vector<unsigned int> peers = peers_by_definition(keys);
    std::vector<double> sums(keys.size(), 0.0);
    for (std::size_t i = 0; i < keys.size(); ++i)
        for (int l = 0; l < kWarp; ++l)
            if ((peers[i] >> l) & 1u) sums[i] += values[i / kWarp * kWarp + l];
    return sums;
}

// The partially sorted order as 03 defined it first: the pairs (i + offset, i), sorted.
std::vector<int> partial_by_sorting(unsigned int n, unsigned int per_cell,
                                    unsigned int displacement, std::uint64_t seed) {
    std::vector<std::uint64_t> position(n);
    std::uint64_t state = seed;
    for (unsigned int i = 0; i < n; ++i)
        position[i] = (std::uint64_t{i} + common::splitmix64(state) % displacement) << 32 | i;
    std::sort(position.begin(), position.end());
    std::vector<int> keys(n);
    for (unsigned int j = 0; j < n; ++j)
        keys[j] = static_cast<int>((position[j] & 0xffffffffu) / per_cell);
    return keys;
}

// The sweep's keys (keys_per_warp, in runs or scattered) as its comment promises: n / 32 bins
// (rounded up) whatever d, every one occurring; in every full warp min(d, warps) distinct keys, in
// that many runs of equal neighbours (in runs, where there are at least d warps), or the same keys
// in another order of the lanes (scattered: at n = 1000, every full warp unsorted for 2 <= d <= 31,
// which a random order of the lanes misses once in many millions of warps); every key 32 times
// where n is a multiple of 32 (and there are at least d warps); and cpu_peers right on them.
bool check_sweep_keys(const std::vector<int>& keys, unsigned int d, bool in_runs) {
    const std::size_t n = keys.size(), warps = (n + kWarp - 1) / kWarp;
    const std::vector<int> sorted_keys = warp_agg::keys_per_warp(static_cast<unsigned int>(n), d);
    std::vector<std::size_t> count(warps, 0);
    bool ok = true;
    std::size_t unsorted = 0;
    for (std::size_t w = 0; w < n; w += kWarp) {
        const std::size_t lanes = std::min<std::size_t>(kWarp, n - w);
        std::vector<int> mine(keys.begin() + w, keys.begin() + w + lanes);
        std::vector<int> reference(sorted_keys.begin() + w, sorted_keys.begin() + w + lanes);
        for (int key : mine) {
            if (key < 0 || static_cast<std::size_t>(key) >= warps) return false;
            ++count[key];
        }
        const std::size_t distinct = std::set<int>(mine.begin(), mine.end()).size();
        std::size_t runs = 1;
        for (std::size_t l = 1; l < lanes; ++l) runs += mine[l] != mine[l - 1];
        if (lanes == kWarp) ok = ok && distinct == std::min<std::size_t>(d, warps);
        if (in_runs && warps >= d) ok = ok && runs == distinct;
        unsorted += lanes == kWarp && !std::is_sorted(mine.begin(), mine.end());
        std::sort(mine.begin(), mine.end());
        std::sort(reference.begin(), reference.end());
        ok = ok && mine == reference;  // scattered: the same keys, in another order
    }
    for (std::size_t c : count) ok = ok && c > 0 && (n % kWarp != 0 || warps < d || c == kWarp);
    if (!in_runs && n == 1000 && d >= 2 && d <= 31) ok = ok && unsorted == n / kWarp;
    return ok && warp_agg::cpu_peers(keys) == peers_by_definition(keys);
}

void check_references(std::uint64_t seed) {
    for (warp_agg::Pattern p : warp_agg::kPatterns) {
        const std::vector<int> keys = warp_agg::pattern_keys(p, 4099, seed);
        const std::vector<double> values = warp_agg::quarter_values<double>(keys.size(), seed);
        const std::string name = warp_agg::pattern_name(p);
        expect(warp_agg::cpu_peers(keys) == peers_by_definition(keys),
               "cpu_peers on '" + name + "' keys is the all-pairs comparison");
        expect(warp_agg::cpu_group_sums(keys, values) == sums_by_definition(keys, values),
               "cpu_group_sums on '" + name + "' keys is the sum over each mask");
    }
    for (unsigned int d : {1u, 2u, 3u, 10u, 32u}) {
        for (unsigned int n : {1u, 33u, 1000u, 3200u}) {
            const std::vector<int> runs = warp_agg::keys_per_warp(n, d);
            const std::vector<int> scattered = warp_agg::keys_per_warp_scattered(n, d, seed);
            expect(check_sweep_keys(runs, d, true) && check_sweep_keys(scattered, d, false),
                   "the sweep's keys, " + std::to_string(d) + " per warp, n " + std::to_string(n) +
                       ": d keys in runs in every full warp, the same shuffled, the same bins "
                       "at every d, 32 values each, peers right");
        }
    }
    for (Order o : {Order::kSorted, Order::kPartial, Order::kRandom}) {
        const std::vector<int> keys = warp_agg::make_keys(o, 100000, 10, 32, seed);
        const warp_agg::DistinctKeys got = warp_agg::distinct_keys(warp_agg::cpu_peers(keys));
        std::vector<int> d;
        for (std::size_t w = 0; w + kWarp <= keys.size(); w += kWarp)
            d.push_back(
                static_cast<int>(std::set<int>(keys.begin() + w, keys.begin() + w + kWarp).size()));
        const double mean = std::accumulate(d.begin(), d.end(), 0.0) / d.size();
        std::sort(d.begin(), d.end());
        const int low = d[d.size() / 200], high = d[d.size() - 1 - d.size() / 200];
        const double share =
            std::count_if(d.begin(), d.end(), [&](int x) { return x >= low && x <= high; }) /
            static_cast<double>(d.size());
        char what[160];
        std::snprintf(what, sizeof what,
                      "distinct keys per warp of 03's order %d: mean %.2f, %d to %d in %.1f%% of "
                      "the warps, as counted with a set",
                      static_cast<int>(o), got.mean, got.low, got.high, 100.0 * got.share);
        expect(std::fabs(got.mean - mean) < 1e-9 && got.low == low && got.high == high &&
                   std::fabs(got.share - share) < 1e-9,
               what);
    }
    for (unsigned int displacement : {1u, 32u, 100u}) {
        for (unsigned int n : {1u, 33u, 100003u}) {
            expect(warp_agg::make_keys(Order::kPartial, n, 10, displacement, seed) ==
                       partial_by_sorting(n, 10, displacement, seed),
                   "the partial order by counting sort is the sorted pairs' (n " +
                       std::to_string(n) + ", displacement " + std::to_string(displacement) + ")");
        }
    }
    const std::vector<int> keys = warp_agg::make_keys(Order::kRandom, 100003, 10, 1, seed);
    expect(warp_agg::cpu_peers(keys) == peers_by_definition(keys),
           "cpu_peers on 03's random order is the all-pairs comparison");
}

// 03's --determinism: its values' sums round, and its comparison of runs counts what differs.
template <class T>
void check_determinism_parts(std::uint64_t seed, const char* type) {
    const std::vector<T> tenths = warp_agg::tenth_values<T>(1000, seed);
    const std::vector<T> quarters = warp_agg::quarter_values<T>(1000, seed);
    // Whether some three values of v sum to other bits in another order: (a + b) + c vs a + (b +
    // c).
    auto order_shows = [](const std::vector<T>& v) {
        for (std::size_t i = 0; i + 2 < v.size(); ++i) {
            const T left = (v[i] + v[i + 1]) + v[i + 2], right = v[i] + (v[i + 1] + v[i + 2]);
            if (std::memcmp(&left, &right, sizeof(T)) != 0) return true;
        }
        return false;
    };
    expect(order_shows(tenths) && !order_shows(quarters),
           std::string(type) +
               ": sums of multiples of 1/10 depend on the order of the additions, "
               "of multiples of 1/4 not");
    const std::vector<T> first = tenths;
    std::vector<T> other = tenths, signed_zero = tenths, same_nan = tenths;
    other[7] = std::nextafter(other[7], T(100));
    signed_zero[0] = T(0);
    same_nan[1] = std::numeric_limits<T>::quiet_NaN();
    warp_agg::RunResults<T> same, one_bin, zeros, nans;
    for (int r = 0; r < 5; ++r) same.add(first);
    one_bin.add(first);
    one_bin.add(other);
    one_bin.add(first);
    one_bin.add(other);
    std::vector<T> minus_zero = signed_zero;
    minus_zero[0] = -T(0);
    zeros.add(signed_zero);
    zeros.add(minus_zero);
    nans.add(same_nan);
    nans.add(same_nan);
    expect(same.runs() == 5 && same.distinct() == 1 && same.elements_that_differ() == 0,
           std::string(type) + ": five identical runs give one result and no bin that differs");
    expect(one_bin.distinct() == 2 && one_bin.elements_that_differ() == 1,
           std::string(type) + ": a bin one bit off in some runs gives two results, one bin");
    expect(zeros.distinct() == 2 && zeros.elements_that_differ() == 1,
           std::string(type) + ": +0 and -0 are different bits");
    expect(nans.distinct() == 1 && nans.elements_that_differ() == 0,
           std::string(type) + ": a NaN with the same bits is the same result");
}

// 04's check: a right output passes in any order, and each kind of wrong one fails.
void check_filter_check(std::uint64_t seed) {
    const int range = 1000;
    const std::vector<int> input = common::random_ints(100003, seed, 0, range - 1);
    const warp_agg::FilterCheck check(input, range);
    const int threshold = 500;
    std::vector<int> kept;
    for (int x : input)
        if (x < threshold) kept.push_back(x);
    expect(check.kept(threshold) == kept.size(), "FilterCheck counts the inputs kept");
    std::vector<int> shuffled = kept;
    std::uint64_t state = seed;
    for (std::size_t i = shuffled.size() - 1; i > 0; --i)
        std::swap(shuffled[i], shuffled[common::splitmix64(state) % (i + 1)]);
    expect(check.check("right, shuffled", shuffled.data(), shuffled.size(), threshold),
           "a right output in any order passes");
    std::fprintf(stderr, "(the FAIL lines below are expected: each wrong output must fail)\n");
    std::vector<int> wrong = shuffled;
    std::size_t other = 1;
    while (shuffled[other] == shuffled[0]) ++other;
    wrong[0] = shuffled[other];  // one value twice, another lost
    expect(!check.check("one value twice", wrong.data(), wrong.size(), threshold),
           "a value written twice and one lost fail");
    wrong = shuffled;
    wrong.back() = -1;
    expect(!check.check("a slot left at -1", wrong.data(), wrong.size(), threshold),
           "a slot never written fails");
    wrong = shuffled;
    wrong[0] = threshold;
    expect(!check.check("a value not below the threshold", wrong.data(), wrong.size(), threshold),
           "a value the filter must drop fails");
}

using Clock = std::chrono::steady_clock;

// The time since `start`, and the processor time of all threads since `cpu_start` (on a busy host
// the two differ).
struct Stopwatch {
    Clock::time_point start = Clock::now();
    std::clock_t cpu_start = std::clock();
    void report(const char* program, std::size_t n) const {
        const double s = std::chrono::duration<double>(Clock::now() - start).count();
        const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
        std::printf("%-30s n = %-10zu host %.3f s (processor time %.3f s)\n", program, n, s, cpu);
    }
};

template <class Got, class Want>
bool exact(const char* what, const std::vector<Got>& got, const std::vector<Want>& want) {
    return common::check_close(what, got.data(), want.data(), want.size(), {0.0, 0.0});
}

// 01's main: per pattern, the keys, the CPU's masks, and two variants' masks checked.
bool time_01(unsigned int n, std::uint64_t seed) {
    const Stopwatch watch;
    bool ok = true;
    for (warp_agg::Pattern p : warp_agg::kPatterns) {
        const std::vector<int> keys = warp_agg::pattern_keys(p, n, seed);
        const std::vector<unsigned int> want = warp_agg::cpu_peers(keys);
        const std::vector<unsigned int> got = want;  // what a right GPU run copies back
        for (int variant = 0; variant < 2; ++variant) ok = exact("01", got, want) && ok;
    }
    watch.report("01_get_peers", n);
    return ok;
}

// 02's main: per precision its values; per pattern the keys, the group sums, one check.
template <class F>
bool time_02_precision(unsigned int n, std::uint64_t seed) {
    const std::vector<F> values = warp_agg::quarter_values<F>(n, seed + 1);
    bool ok = true;
    for (warp_agg::Pattern p : warp_agg::kPatterns) {
        const std::vector<int> keys = warp_agg::pattern_keys(p, n, seed);
        const std::vector<double> want = warp_agg::cpu_group_sums(keys, values);
        const std::vector<F> got(want.begin(), want.end());
        ok = exact("02", got, want) && ok;
    }
    return ok;
}

// 03's main: the values; per order the keys, their masks, the bins' count and sums; per precision
// 10 variants' bins and 2 searches' masks checked, and CUB's bins and unique keys (ReduceByKey on
// sorted keys, sort + ReduceByKey on every order).
template <class T>
bool check_03_precision(const std::vector<unsigned int>& masks, const std::vector<double>& want,
                        bool sorted) {
    const std::vector<T> got(want.begin(), want.end());
    std::vector<int> unique(want.size());
    std::iota(unique.begin(), unique.end(), 0);
    bool ok = true;
    for (int variant = 0; variant < 10; ++variant)
        ok = warp_agg::check_exact("03", got, want) && ok;
    const std::vector<unsigned int> got_masks = masks;
    for (int search = 0; search < 2; ++search)
        ok = warp_agg::check_exact("03", got_masks, masks) && ok;
    for (int library = 0; library < (sorted ? 2 : 1); ++library) {
        std::vector<int> want_unique(want.size());
        std::iota(want_unique.begin(), want_unique.end(), 0);
        ok = warp_agg::check_exact("03", got, want) && exact("03 keys", unique, want_unique) && ok;
    }
    return ok;
}

bool time_03(unsigned int n, std::uint64_t seed) {
    const Stopwatch watch;
    const std::vector<double> values = warp_agg::quarter_values<double>(n, seed + 1);
    bool ok = true;
    for (Order o : {Order::kSorted, Order::kPartial, Order::kRandom}) {
        const warp_agg::OrderKeys k = warp_agg::order_keys(o, 0, n, warp_agg::kDefaultPerCell,
                                                           warp_agg::kDefaultDisplacement, seed);
        ok = k.d.mean > 0.0 && k.most_per_bin > 0 && ok;
        const std::vector<double> want = warp_agg::reference_bins(k.keys, values, k.num_keys);
        ok = check_03_precision<float>(k.masks, want, k.sorted) && ok;
        ok = check_03_precision<double>(k.masks, want, k.sorted) && ok;
    }
    watch.report("03_reduction_by_key_benchmark", n);
    return ok;
}

// --orders: the line 03 prints as it starts each order of its default run and of its sweep
// (warp_agg::describe), from the same keys, without a GPU.
void print_orders(std::uint64_t seed) {
    std::vector<std::pair<Order, unsigned int>> orders = {
        {Order::kSorted, 0}, {Order::kPartial, 0}, {Order::kRandom, 0}};
    for (Order o : {Order::kSweep, Order::kScattered})
        for (unsigned int d : warp_agg::kSweepD) orders.push_back({o, d});
    for (const auto& [o, d] : orders)
        std::printf("%s\n",
                    warp_agg::describe(warp_agg::order_keys(o, d, warp_agg::kDefaultValues,
                                                            warp_agg::kDefaultPerCell,
                                                            warp_agg::kDefaultDisplacement, seed))
                        .c_str());
}

// 04's main: the input, its histogram; per percentage five outputs checked as multisets, CUB's
// also in order.
bool time_04(unsigned int n, std::uint64_t seed) {
    constexpr int kRange = 1000000;
    const Stopwatch watch;
    const std::vector<int> input = common::random_ints(n, seed, 0, kRange - 1);
    const warp_agg::FilterCheck check(input, kRange);
    bool ok = true;
    for (int pct : {1, 10, 50, 90, 100}) {
        const int threshold = pct * (kRange / 100);
        std::vector<int> kept;  // what the GPU writes: the kept inputs, about in input order
        for (int x : input)
            if (x < threshold) kept.push_back(x);
        ok = ok && kept.size() == check.kept(threshold);
        for (int variant = 0; variant < 5; ++variant)
            ok = check.check("04", kept.data(), kept.size(), threshold) && ok;
        std::vector<int> in_order;
        in_order.reserve(check.kept(threshold));
        for (int x : input)
            if (x < threshold) in_order.push_back(x);
        ok = exact("04 in order", kept, in_order) && ok;
    }
    watch.report("04_warp_aggregated_increment", n);
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    common::Options opt;
    std::int64_t percent = 100;
    common::Cli cli("warp_host_checks",
                    "the CPU references and checks of 01-04: right, able to fail, and timed");
    cli.add_seed(opt);
    cli.add_int("--size-percent", &percent, 1, 10000,
                "each program's size, in percent of its default");
    bool orders = false;
    cli.add_flag("--orders", &orders,
                 "only print the line 03 prints as it starts each order of its default "
                 "run and sweep (distinct keys per warp, bins, values a bin), and exit");
    cli.parse_or_exit(argc, argv);
    const std::uint64_t seed = static_cast<std::uint64_t>(opt.seed);
    if (orders) {
        if (cli.given("--size-percent")) cli.usage_error("--orders runs 03's default size only");
        print_orders(seed);
        return common::kExitOk;
    }

    check_references(seed);
    check_determinism_parts<float>(seed, "float");
    check_determinism_parts<double>(seed, "double");
    check_filter_check(seed);

    auto size = [&](double n) {
        return std::max(1u, static_cast<unsigned int>(n * percent / 100));
    };
    std::printf("\nthe host work of each default run (at %d%% of its size), %u threads:\n",
                static_cast<int>(percent), std::max(1u, std::thread::hardware_concurrency()));
    bool ok = time_01(size(1000003), seed);
    const Stopwatch watch_02;
    ok = time_02_precision<float>(size(1000003), seed) && ok;
    ok = time_02_precision<double>(size(1000003), seed) && ok;
    watch_02.report("02_reduce_peers", size(1000003));
    ok = time_03(size(1e7), seed) && ok;
    ok = time_04(size(1 << 24), seed) && ok;
    expect(ok, "every right output passes its program's check");
    return failures == 0 ? common::kExitOk : common::kExitWrong;
}
