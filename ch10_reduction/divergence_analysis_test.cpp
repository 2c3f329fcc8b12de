// divergence_analysis_test: the counts of sections 10.5-10.7 against every number the book prints,
// and the counted values (walking each kernel's loop) against the book's closed forms.
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
    std::printf("divergence_analysis_test: %s\n", failures ? "FAILED" : "all book numbers match");
    return failures ? 1 : 0;
}
