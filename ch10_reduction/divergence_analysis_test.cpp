// divergence_analysis_test: the counts of sections 10.4-10.6 and of Fig 10.16 against every number
// the book prints, and the counted values (walking each kernel's loop) against the book's closed
// forms.
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
