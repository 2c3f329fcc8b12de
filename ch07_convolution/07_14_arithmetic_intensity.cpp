// 07_14_arithmetic_intensity: Fig 7.14, the arithmetic-to-global-memory ratio (OP/B) of the
// tiled kernel of Fig 7.12 by input tile and filter size (host only).
//
// An interior block of Fig 7.12 loads IN_TILE_DIM^2 inputs of 4 bytes once each, and its
// OUT_TILE_DIM^2 = (IN_TILE_DIM - 2r)^2 active threads each do one multiply and one add per filter
// element:
//     OP/B = OUT_TILE_DIM^2 * (2r+1)^2 * 2 / (IN_TILE_DIM^2 * 4)
// As the tile grows, OUT_TILE_DIM / IN_TILE_DIM -> 1 and the ratio tends to (2r+1)^2 * 2 / 4, the
// bound of an input loaded exactly once. The text's numbers: 5x5 with 32x32 input tiles 9.57
// (bound 12.5), 9x9 22.78 (bound 40.5), 8x8 input tiles with 5x5 only 3.13; and, for comparison,
// Fig 7.7 at 0.25 OP/B (a 4-byte filter weight and a 4-byte input per 2 operations) and Fig 7.9
// at 0.5 (the weight now from the constant cache). The program prints the whole table and checks
// each of these numbers; a wrong one exits 1. --n adds the OP/B of one more IN_TILE_DIM. There is
// no random input and nothing is timed, so it takes no --seed and no --reps.
//
// Build: cmake --build build --target 07_14_arithmetic_intensity
// Run:   build/bin/07_14_arithmetic_intensity [--n IN_TILE_DIM] [--csv]
#include <cmath>
#include <cstdio>

#include "common.h"

// OP/B of Fig 7.12 for one interior block; 0 when the halo leaves no output tile.
double tiled_op_per_byte(int in_tile_dim, int r) {
    const int out_tile_dim = in_tile_dim - 2 * r;
    if (out_tile_dim <= 0) return 0.0;
    const double ops = double(out_tile_dim) * out_tile_dim * (2 * r + 1) * (2 * r + 1) * 2;
    const double bytes = double(in_tile_dim) * in_tile_dim * 4;
    return ops / bytes;
}

// The limit as IN_TILE_DIM grows without bound.
double tiled_op_per_byte_bound(int r) {
    return (2 * r + 1) * (2 * r + 1) * 2 / 4.0;
}

// Figs 7.7 and 7.9: per filter element, 2 operations on one 4-byte input and (7.7 only) one 4-byte
// weight from global memory.
double basic_op_per_byte(bool filter_in_constant_memory) {
    return 2.0 / (filter_in_constant_memory ? 4.0 : 8.0);
}

// The text rounds half up (3.125 -> 3.13); printf's %.2f would print 3.12.
double two_decimals(double v) {
    return std::floor(v * 100.0 + 0.5) / 100.0;
}

// The text gives its numbers to two decimals: the computed value, rounded to two decimals as the
// table prints it, must be the text's number, compared in whole hundredths. (A test
// |got - text| < 0.005 would pass 3.125 against 3.13 only because 3.13 is not exact in binary:
// the true distance is 0.005.)
bool check(const char* what, double got, double text) {
    const bool ok = std::llround(two_decimals(got) * 100.0) == std::llround(text * 100.0);
    if (!ok)
        std::fprintf(stderr, "FAIL %s: computed %.4f, %.2f to two decimals; the text says %.2f\n",
                     what, got, two_decimals(got), text);
    return ok;
}

int main(int argc, char** argv) {
    common::Options opt;  // opt.n 0: no --n, the table alone
    common::Cli cli("07_14_arithmetic_intensity",
                    "Fig 7.14: OP/B of the tiled kernel by tile and filter size");
    cli.add_n(opt, 1, 1024, "one more IN_TILE_DIM, its OP/B for each filter size", "none");
    cli.add_csv(opt);
    cli.parse_or_exit(argc, argv);
    common::Reporter report(opt.csv);
    std::FILE* out = report.text();

    const int tiles[] = {8, 16, 32, 64};
    if (opt.csv) std::printf("filter,in_tile_dim,out_tile_dim,op_per_byte\n");
    std::fprintf(out, "Fig 7.14: OP/B of Fig 7.12 (IN_TILE_DIM x IN_TILE_DIM blocks)%s\n",
                 opt.csv ? "" : "; 64 needs 4096 threads per block, beyond the limit of 1024");
    std::fprintf(out, "%-8s", "filter");
    for (int t : tiles)
        std::fprintf(out, " %8s", (std::to_string(t) + "x" + std::to_string(t)).c_str());
    std::fprintf(out, "    bound\n");
    for (int r = 1; r <= 4; ++r) {
        const int dim = 2 * r + 1;
        std::fprintf(out, "%-8s", (std::to_string(dim) + "x" + std::to_string(dim)).c_str());
        for (int t : tiles) {
            std::fprintf(out, " %8.2f", two_decimals(tiled_op_per_byte(t, r)));
            if (opt.csv)
                std::printf("%dx%d,%d,%d,%.4f\n", dim, dim, t, std::max(0, t - 2 * r),
                            tiled_op_per_byte(t, r));
        }
        std::fprintf(out, " %8.2f\n", two_decimals(tiled_op_per_byte_bound(r)));
    }
    if (opt.n != 0) {
        std::fprintf(out, "IN_TILE_DIM %lld:", static_cast<long long>(opt.n));
        for (int r = 1; r <= 4; ++r)
            std::fprintf(out, " r=%d %.2f", r, two_decimals(tiled_op_per_byte(int(opt.n), r)));
        std::fprintf(out, "\n");
    }
    std::fprintf(out,
                 "Fig 7.7 (filter in global memory) %.2f OP/B, Fig 7.9 (constant memory) %.2f\n",
                 basic_op_per_byte(false), basic_op_per_byte(true));

    bool ok = true;
    ok &= check("5x5, 32x32 tiles", tiled_op_per_byte(32, 2), 9.57);
    ok &= check("5x5 bound", tiled_op_per_byte_bound(2), 12.5);
    ok &= check("9x9, 32x32 tiles", tiled_op_per_byte(32, 4), 22.78);
    ok &= check("9x9 bound", tiled_op_per_byte_bound(4), 40.5);
    ok &= check("5x5, 8x8 tiles", tiled_op_per_byte(8, 2), 3.13);
    ok &= check("Fig 7.7", basic_op_per_byte(false), 0.25);
    ok &= check("Fig 7.9", basic_op_per_byte(true), 0.5);
    if (!ok) return common::kExitWrong;
    std::fprintf(
        out, "verified: every OP/B the text gives (9.57, 12.5, 22.78, 40.5, 3.13, 0.25, 0.5)\n");
    return common::kExitOk;
}
