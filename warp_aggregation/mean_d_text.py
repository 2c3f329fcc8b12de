#!/usr/bin/env python3
"""Compiles, without a GPU, the host function `mean_d` that RESULTS.md prints ("Measuring d on the
host": the mean distinct bins per warp that copied_kernel sees, from `bin_of`, for any `dim3`
block and extent) and checks what it returns against this script's own count, made as the text
before the function says: number a block's threads t = (z * block.y + y) * block.x + x, warp w
holds threads 32w to 32w + 31, count the distinct bins among each warp's elements inside the
extent, average over the warps that hold any.

    python3 warp_aggregation/mean_d_text.py --cxx c++ --cuda-include DIR [--results RESULTS.md]
        [--work DIR]

The cases: the three the text gives (bins i / 8 over 64 elements: 4; bins by row of a 16 x 16
extent: 2 with 16 x 8 blocks, 4 with 8 x 8 blocks), then extents and blocks that leave partial
warps, partial blocks and a third dimension, with seeded random bins. The block is the one ```cpp
block of RESULTS.md that defines `double mean_d(`, compiled as printed with the headers the text
names (<cstddef>, <set>, <vector>) and CUDA's `dim3` (vector_types.h, host C++). Exit 0 when every
case agrees, 1 on a difference or a build failure, 2 on a bad flag.
"""
import argparse
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFINITION = "double mean_d("


def printed_block(text):
    """The one ```cpp block that defines mean_d."""
    blocks = [m.group(1) for m in re.finditer(r"^```cpp\n(.*?)^```$", text, re.M | re.S)
              if DEFINITION in m.group(1)]
    if len(blocks) != 1:
        sys.exit(f"mean_d_text: {len(blocks)} ```cpp blocks define `{DEFINITION}`; want one")
    return blocks[0]


def expected(bins, extent, block):
    """The mean distinct bins per warp, counted as the text says."""
    grid = [(e + b - 1) // b for e, b in zip(extent, block)]
    threads = block[0] * block[1] * block[2]
    warps = total = 0
    for bz in range(grid[2]):
        for by in range(grid[1]):
            for bx in range(grid[0]):
                for w in range(0, threads, 32):
                    seen = set()
                    for t in range(w, min(w + 32, threads)):
                        x = bx * block[0] + t % block[0]
                        y = by * block[1] + (t // block[0]) % block[1]
                        z = bz * block[2] + t // (block[0] * block[1])
                        if x < extent[0] and y < extent[1] and z < extent[2]:
                            seen.add(bins[(z * extent[1] + y) * extent[0] + x])
                    if seen:
                        warps += 1
                        total += len(seen)
    return total / warps if warps else 0.0


def cases():
    """(name, bins, extent, block, the text's value or None)."""
    yield "bins i / 8, 64 elements, block 32", [i // 8 for i in range(64)], (64, 1, 1), (32, 1, 1), 4
    rows = [i // 16 for i in range(256)]
    yield "rows of 16 x 16, block 16 x 8", rows, (16, 16, 1), (16, 8, 1), 2
    yield "rows of 16 x 16, block 8 x 8", rows, (16, 16, 1), (8, 8, 1), 4
    rng = random.Random(29)
    for extent, block, span in [((1001, 1, 1), (48, 1, 1), 7), ((19, 9, 5), (5, 7, 1), 40),
                                ((7, 6, 5), (3, 5, 2), 3), ((33, 17, 1), (16, 8, 1), 1000),
                                ((50, 3, 3), (1000, 1, 1), 12)]:
        n = extent[0] * extent[1] * extent[2]
        bins = [rng.randrange(span) for _ in range(n)]
        yield f"extent {extent}, block {block}, {span} bins", bins, extent, block, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--cuda-include", required=True, action="append")
    parser.add_argument("--results", default=os.path.join(HERE, "RESULTS.md"))
    parser.add_argument("--work", default=os.path.join(os.getcwd(), "mean_d_text"))
    args = parser.parse_args()

    with open(args.results, encoding="utf-8") as f:
        block = printed_block(f.read())
    os.makedirs(args.work, exist_ok=True)
    listed = list(cases())
    calls = []
    for i, (_, bins, extent, blk, _) in enumerate(listed):
        values = ", ".join(map(str, bins))
        calls.append(f"    {{ const std::vector<int> bins{{{values}}};\n"
                     f"      std::printf(\"%d %.17g\\n\", {i}, mean_d(bins, dim3({extent[0]}, "
                     f"{extent[1]}, {extent[2]}), dim3({blk[0]}, {blk[1]}, {blk[2]}))); }}\n")
    source = os.path.join(args.work, "mean_d_text.cpp")
    with open(source, "w", encoding="utf-8") as f:
        f.write("#include <cstddef>\n#include <cstdio>\n#include <set>\n#include <vector>\n"
                "#include <vector_types.h>\n\n" + block + "\nint main() {\n" + "".join(calls) +
                "    return 0;\n}\n")
    program = os.path.join(args.work, "mean_d_text")
    includes = [f"-I{d}" for d in args.cuda_include]
    build = subprocess.run([args.cxx, "-std=c++17", "-O1", *includes, "-o", program, source],
                           capture_output=True, text=True)
    if build.returncode != 0:
        print(f"mean_d_text: RESULTS.md's mean_d does not compile:\n{build.stdout}{build.stderr}")
        return 1
    run = subprocess.run([program], capture_output=True, text=True, check=True)
    got = {int(i): float(v) for i, v in (line.split() for line in run.stdout.splitlines())}
    failed = 0
    for i, (name, bins, extent, blk, stated) in enumerate(listed):
        want = expected(bins, extent, blk)
        ok = abs(got[i] - want) <= 1e-12 * max(1.0, want) and (stated is None or want == stated)
        print(f"{'ok  ' if ok else 'FAIL'} {name}: mean_d {got[i]:.6g}, counted {want:.6g}"
              + (f", the text says {stated}" if stated is not None else ""), flush=True)
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
