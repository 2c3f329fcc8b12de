// divergence_analysis_test: the counts of sections 10.4-10.6 and of Fig 10.16 against every number
// the book prints, and the counted values (walking each kernel's loop) against the book's closed
// forms.
#include <algorithm>
#include <cstdio>

#include "divergence_analysis.h"

static int failures = 0;

static void expect_eq(const char* what, std::int64_t n, std::int64_t got, std::int64_t want) {
    if (got == want) return;
    std::fprintf(stderr, "FAIL %s for N = %lld: got %lld, expected %lld\n", what,
                 static_cast<long long>(n), static_cast<long long>(got),
                 static_cast<long long>(want));
    ++failures;
}

int main() {
    using namespace ch10;
    // The numbers printed in the chapter.
    expect_eq("Fig 10.6 consumed (book)", 256, book_simple_consumed(256), 736);
    expect_eq("Fig 10.6 committed (book)", 256, book_committed(256), 255);
    expect_eq("Fig 10.6 requests (book)", 256, book_simple_requests(256), 141);
    expect_eq("Fig 10.6 requests (book)", 2048, book_simple_requests(2048), 1149);
    expect_eq("Fig 10.9 consumed (book)", 256, book_convergent_consumed(256), 384);
    expect_eq("Fig 10.9 requests (book)", 256, book_convergent_requests(256), 36);
    expect_eq("Fig 10.9 requests (book)", 2048, book_convergent_requests(2048), 204);
    expect_eq("Fig 10.11 requests (book)", 256, book_shared_memory_requests(256), 9);
    expect_eq("Fig 10.6 counted committed", 256, count_simple_sum(256).committed, 255);
    expect_eq("Fig 10.6 counted requests", 256, count_simple_sum(256).requests, 141);
    expect_eq("Fig 10.6 counted requests", 2048, count_simple_sum(2048).requests, 1149);
    expect_eq("Fig 10.9 counted committed", 256, count_convergent_sum(256).committed, 255);
    expect_eq("Fig 10.9 counted consumed", 256, count_convergent_sum(256).consumed, 384);
    expect_eq("Fig 10.9 counted requests", 256, count_convergent_sum(256).requests, 36);
    expect_eq("Fig 10.9 counted requests", 2048, count_convergent_sum(2048).requests, 204);
    expect_eq("Fig 10.11 counted requests", 256, count_shared_memory_requests(256), 9);
    // Fig 10.6's loop keeps every warp busy for six iterations (stride 1..32: thread 0 of each
    // warp is still active at stride 32), the book's consumed-resource formula counts five: the
    // count is 864 lanes for N = 256, 255/864 = 30% rather than 255/736 = 35%.
    expect_eq("Fig 10.6 counted consumed", 256, count_simple_sum(256).consumed, 864);

    // Every power of two the single-block programs can run: the closed forms and the counts agree
    // (Fig 10.6's consumed lanes differ by exactly that sixth iteration, 32 lanes per warp).
    for (std::int64_t n = 64; n <= 2048; n *= 2) {
        const Counts simple = count_simple_sum(n), convergent = count_convergent_sum(n);
        expect_eq("Fig 10.6 committed", n, simple.committed, book_committed(n));
        expect_eq("Fig 10.6 consumed", n, simple.consumed, book_simple_consumed(n) + 32 * (n / 64));
        expect_eq("Fig 10.6 requests", n, simple.requests, book_simple_requests(n));
        expect_eq("Fig 10.9 committed", n, convergent.committed, book_committed(n));
        expect_eq("Fig 10.9 consumed", n, convergent.consumed, book_convergent_consumed(n));
        expect_eq("Fig 10.9 requests", n, convergent.requests, book_convergent_requests(n));
        expect_eq("Fig 10.11 requests", n, count_shared_memory_requests(n),
                  book_shared_memory_requests(n));
    }
    // Any N: a tree commits N - 1 additions.
    for (std::int64_t n : {1, 2, 3, 100, 1000, 2047}) {
        expect_eq("Fig 10.6 committed", n, count_simple_sum(n).committed, n - 1);
        expect_eq("Fig 10.9 committed", n, count_convergent_sum(n).committed, n - 1);
    }

    // The end-of-chapter exercises. 1 and 2: N = 1024 (512 threads, 16 warps), the warps that
    // diverge in the fifth iteration: all 16 in Fig 10.6 (stride 16: two active threads in each),
    // none in Fig 10.9 (stride 32: warp 0 whole, the others idle), counting the iterations from 1
    // as the book's text mostly does (its "iteration 5" with stride 32 counts from 0: then 16, 1).
    const std::vector<std::int64_t> simple_1024 = {0, 16, 16, 16, 16, 16, 8, 4, 2, 1};
    const std::vector<std::int64_t> convergent_1024 = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1};
    expect_eq("exercise 1: Fig 10.6 divergent warps, iteration 5", 1024,
              count_simple_sum(1024).divergent.at(4), 16);
    expect_eq("exercise 2: Fig 10.9 divergent warps, iteration 5", 1024,
              count_convergent_sum(1024).divergent.at(4), 0);
    expect_eq("Fig 10.6 divergent warps, every iteration", 1024,
              count_simple_sum(1024).divergent == simple_1024, 1);
    expect_eq("Fig 10.9 divergent warps, every iteration", 1024,
              count_convergent_sum(1024).divergent == convergent_1024, 1);
    // The number of iterations with divergence: Fig 10.6 from the second on, Fig 10.9 the last
    // five. The book's "from ten to five" is N = 2048 (11 iterations); N = 256 has 8, 7 to 5.
    auto diverging = [](const Counts& c) {
        return std::count_if(c.divergent.begin(), c.divergent.end(),
                             [](std::int64_t d) { return d > 0; });
    };
    expect_eq("iterations with divergence, Fig 10.6", 2048, diverging(count_simple_sum(2048)), 10);
    expect_eq("iterations with divergence, Fig 10.9", 2048, diverging(count_convergent_sum(2048)),
              5);
    expect_eq("iterations with divergence, Fig 10.6", 256, diverging(count_simple_sum(256)), 7);
    expect_eq("iterations with divergence, Fig 10.9", 256, diverging(count_convergent_sum(256)), 5);
    // 3: the mirrored kernel adds N - 1 times with Fig 10.9's warps (the same lanes consumed, the
    // same warps diverging) at every N. Its requests are Fig 10.9's where N is a multiple of 32;
    // elsewhere its warps, which own the array's last elements, straddle 128-byte segments, and
    // it needs more.
    for (std::int64_t n = 1; n <= 2048; n += (n < 70 ? 1 : 97)) {
        const Counts mirrored = count_mirrored_sum(n), convergent = count_convergent_sum(n);
        expect_eq("exercise 3 committed", n, mirrored.committed, n - 1);
        expect_eq("exercise 3 consumed (Fig 10.9's)", n, mirrored.consumed, convergent.consumed);
        expect_eq("exercise 3 divergent warps (Fig 10.9's)", n,
                  mirrored.divergent == convergent.divergent, 1);
        if (n % 32 == 0)
            expect_eq("exercise 3 requests (Fig 10.9's)", n, mirrored.requests,
                      convergent.requests);
        else
            expect_eq("exercise 3 requests, at least Fig 10.9's", n,
                      mirrored.requests >= convergent.requests, 1);
    }
    // 6: the array 6 2 7 4 5 8 3 1 after each iteration of Fig 10.6 and of Fig 10.9, and of the
    // mirrored kernel of exercise 3.
    const std::vector<float> ex6 = {6, 2, 7, 4, 5, 8, 3, 1};
    const std::vector<std::vector<float>> simple_ex6 = {
        {8, 2, 11, 4, 13, 8, 4, 1}, {19, 2, 11, 4, 17, 8, 4, 1}, {36, 2, 11, 4, 17, 8, 4, 1}};
    const std::vector<std::vector<float>> convergent_ex6 = {
        {11, 10, 10, 5, 5, 8, 3, 1}, {21, 15, 10, 5, 5, 8, 3, 1}, {36, 15, 10, 5, 5, 8, 3, 1}};
    const std::vector<std::vector<float>> mirrored_ex6 = {
        {6, 2, 7, 4, 11, 10, 10, 5}, {6, 2, 7, 4, 11, 10, 21, 15}, {6, 2, 7, 4, 11, 10, 21, 36}};
    const auto after = [](const std::vector<TraceStep>& steps) {
        std::vector<std::vector<float>> a;
        for (const TraceStep& s : steps) a.push_back(s.after);
        return a;
    };
    expect_eq("exercise 6a, Fig 10.6", 8, after(replay_simple_sum(ex6)) == simple_ex6, 1);
    expect_eq("exercise 6b, Fig 10.9", 8, after(replay_convergent_sum(ex6)) == convergent_ex6, 1);
    expect_eq("exercise 3 on exercise 6's array", 8,
              after(replay_mirrored_sum(ex6)) == mirrored_ex6, 1);

    // Fig 10.16: two blocks of 8 threads (Fig 10.10's example) one after another take 8 steps, 2
    // with every thread busy and 6 in the tree; one block coarsened by 2 takes 6, 3 and 3.
    const Steps two_blocks = times(count_segmented_steps(8), 2);
    const Steps coarsened = count_coarsened_steps(2, 8);
    expect_eq("Fig 10.16A steps", 8, two_blocks.total(), 8);
    expect_eq("Fig 10.16A steps with every thread busy", 8, two_blocks.busy, 2);
    expect_eq("Fig 10.16A steps in the tree", 8, two_blocks.tree, 6);
    expect_eq("Fig 10.16B steps", 8, coarsened.total(), 6);
    expect_eq("Fig 10.16B steps with every thread busy", 8, coarsened.busy, 3);
    expect_eq("Fig 10.16B steps in the tree", 8, coarsened.tree, 3);
    // Any block and factor the programs use: COARSE_FACTOR blocks of Fig 10.13 take
    // COARSE_FACTOR * (1 + log2 blockDim) steps, one block of Fig 10.15 2*COARSE_FACTOR - 1 + log2
    // blockDim; with COARSE_FACTOR 1 the two kernels take the same steps.
    for (std::int64_t block = 8; block <= 1024; block *= 2) {
        for (std::int64_t cf = 1; cf <= 64; cf *= 2) {
            const std::int64_t levels = ceil_log2(block);
            expect_eq("Fig 10.16A steps", block, times(count_segmented_steps(block), cf).total(),
                      cf * (1 + levels));
            expect_eq("Fig 10.16B steps", block, count_coarsened_steps(cf, block).total(),
                      2 * cf - 1 + levels);
        }
    }

    std::printf("divergence_analysis_test: %s\n", failures ? "FAILED" : "all book numbers match");
    return failures ? 1 : 0;
}
