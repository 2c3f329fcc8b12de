#!/usr/bin/env python3
"""Draws the chapter's three tile organisations: which input cells each block loads, how, and which
of its threads compute.

    python3 ch07_convolution/draw_tiles.py --png ch07_convolution/tiles.png [--radius 2]

One panel per program, each for block (0, 0) at the image's top-left corner, so that its halo holds
ghost cells (outside the image, top and left) as well as the neighbouring tiles' cells (right and
bottom). The tile sizes are read from the programs (IN_TILE_DIM in 07_12, EX2_OUT_TILE_DIM in
07_ex2, TILE_DIM in 07_15) and the index arithmetic is theirs, line for line:
  Fig 7.12 (07_12): thread (tx, ty) loads N[row][col], row = by*OUT_TILE_DIM + ty - r (col alike),
                    or stores 0 for a ghost cell; it computes P[row][col] if tileRow = ty - r and
                    tileCol = tx - r are in [0, OUT_TILE_DIM), with OUT_TILE_DIM = IN_TILE_DIM - 2r;
  07_ex2:           thread (tx, ty) loads the input tile's (i, j) for i = ty, ty + 32, ... and
                    j = tx, tx + 32, ... below IN_TILE = OUT_TILE_DIM + 2r (a ghost cell as 0), then
                    every thread computes P[by*OUT_TILE_DIM + ty][bx*OUT_TILE_DIM + tx];
  Fig 7.15 (07_15): thread (tx, ty) loads its own N[row][col] into N_s and computes P[row][col]; in
                    its loop, a window cell outside the tile (tileRow, tileCol outside
                    [0, TILE_DIM)) is read from global memory (L1/L2) or, outside the image,
                    skipped.
It prints the counts each panel shows (threads that compute, that only load, loads per thread) and
Fig 7.12's OP/B, which 07_14_arithmetic_intensity prints too.
"""
import argparse
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))

# How an input cell reaches the computation (the colours), and the threads that compute (outlined).
SHARED, SHARED_LATER, GHOST_STORED, GHOST_SKIPPED, CACHED, NONE = range(6)
COLOURS = {SHARED: "#4e79a7", SHARED_LATER: "#a0cbe8", GHOST_STORED: "#bab0ac",
           GHOST_SKIPPED: "#ffffff", CACHED: "#f28e2b", NONE: "#ffffff"}
LABELS = {SHARED: "loaded into N_s (its thread's first load)",
          SHARED_LATER: "loaded into N_s by a thread's 2nd-4th load",
          GHOST_STORED: "ghost cell: 0 stored in N_s",
          GHOST_SKIPPED: "ghost cell: skipped in the loop",
          CACHED: "halo: read from global memory (L1/L2) in the loop"}


def constant(program, name):
    text = open(os.path.join(HERE, program)).read()
    return int(re.search(rf"constexpr int {name} = (\d+);", text).group(1))


def fig_7_12(r, width, height):
    """{(y, x): category} over the image cells block (0, 0) touches, and {(y, x): computes}."""
    in_tile = constant("07_12_conv2d_tiled.cu", "IN_TILE_DIM")
    out_tile = in_tile - 2 * r
    cells, computes = {}, {}
    for ty in range(in_tile):
        for tx in range(in_tile):
            row, col = 0 * out_tile + ty - r, 0 * out_tile + tx - r
            inside = 0 <= row < height and 0 <= col < width
            cells[(row, col)] = SHARED if inside else GHOST_STORED
            tile_row, tile_col = ty - r, tx - r
            computes[(row, col)] = (inside and 0 <= tile_row < out_tile and
                                    0 <= tile_col < out_tile)
    return cells, computes, in_tile, out_tile


def ex2(r, width, height):
    out_tile = constant("07_ex2_conv2d_output_tiled.cu", "EX2_OUT_TILE_DIM")
    in_tile = out_tile + 2 * r
    cells, computes, loads = {}, {}, {}
    for ty in range(out_tile):
        for tx in range(out_tile):
            first = True
            for i in range(ty, in_tile, out_tile):
                for j in range(tx, in_tile, out_tile):
                    row, col = 0 * out_tile - r + i, 0 * out_tile - r + j
                    inside = 0 <= row < height and 0 <= col < width
                    cells[(row, col)] = (GHOST_STORED if not inside else
                                         SHARED if first else SHARED_LATER)
                    loads[(ty, tx)] = loads.get((ty, tx), 0) + 1
                    first = False
            row, col = 0 * out_tile + ty, 0 * out_tile + tx
            computes[(row, col)] = row < height and col < width
    return cells, computes, in_tile, out_tile, loads


def fig_7_15(r, width, height):
    tile = constant("07_15_conv2d_tiled_cached_halo.cu", "TILE_DIM")
    cells, computes = {}, {}
    for ty in range(tile):
        for tx in range(tile):
            row, col = 0 * tile + ty, 0 * tile + tx
            cells[(row, col)] = SHARED
            computes[(row, col)] = row < height and col < width
            for f_row in range(2 * r + 1):
                for f_col in range(2 * r + 1):
                    tile_row, tile_col = ty - r + f_row, tx - r + f_col
                    if 0 <= tile_row < tile and 0 <= tile_col < tile:
                        continue
                    in_row, in_col = row - r + f_row, col - r + f_col
                    inside = 0 <= in_row < height and 0 <= in_col < width
                    cells[(in_row, in_col)] = CACHED if inside else GHOST_SKIPPED
    return cells, computes, tile


def draw(panels, r, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    lo = -r
    hi = max(max(max(y, x) for y, x in cells) for _, cells, _ in panels)
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 7.8))
    for ax, (title, cells, computes) in zip(axes, panels):
        for (y, x), kind in cells.items():
            ax.add_patch(Rectangle((x, y), 1, 1, facecolor=COLOURS[kind], edgecolor="white",
                                   linewidth=0.3, hatch="xx" if kind == GHOST_SKIPPED else None))
            if kind == GHOST_SKIPPED:
                ax.patches[-1].set_edgecolor("#bab0ac")
        # Threads of the block that idle while the others compute (Fig 7.12's outer ring).
        for (y, x), c in computes.items():
            if not c and (y, x) in cells and cells[(y, x)] in (SHARED, GHOST_STORED):
                ax.add_patch(Rectangle((x, y), 1, 1, fill=False, hatch="///", edgecolor="black",
                                       linewidth=0))
        ys = [y for (y, x), c in computes.items() if c]
        xs = [x for (y, x), c in computes.items() if c]
        ax.add_patch(Rectangle((min(xs), min(ys)), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1,
                               fill=False, edgecolor="black", linewidth=2.2))
        ax.axhline(0, color="#e15759", linewidth=1.5)
        ax.axvline(0, color="#e15759", linewidth=1.5)
        ax.set_xlim(lo - 0.5, hi + 1.5)
        ax.set_ylim(hi + 1.5, lo - 0.5)
        ax.set_aspect("equal")
        # Ticks at cell centres: the first cell drawn, the image's first row and column, the output
        # tile's last cell and the last cell the block reads.
        ticks = sorted({lo, 0, max(xs), max(max(y, x) for y, x in cells)})
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_ticks([t + 0.5 for t in ticks])
            axis.set_ticklabels([str(t).replace("-", "−") for t in ticks], fontsize=8)
        ax.set_xlabel("image column")
        ax.set_ylabel("image row")
        ax.set_title(title, fontsize=10)
    handles = [Patch(facecolor=COLOURS[k], edgecolor="#bab0ac", hatch="xx" if k == GHOST_SKIPPED
                     else None, label=LABELS[k]) for k in LABELS]
    handles += [Patch(fill=False, hatch="///", edgecolor="black", label="its thread only loads: "
                      "idle while the others compute"),
                Patch(fill=False, edgecolor="black", linewidth=2.2,
                      label="output tile: one thread computes each"),
                Patch(facecolor="#e15759",
                      label="the image's top and left edges (row 0, column 0)")]
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=9, frameon=False)
    fig.suptitle(f"Block (0, 0) of each tile organisation at the image's top-left corner, "
                 f"{2 * r + 1}×{2 * r + 1} filter (r = {r})", fontsize=12)
    fig.tight_layout(rect=(0, 0.13, 1, 0.96))
    fig.savefig(png, dpi=100)
    print(f"wrote {png}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--png", help="write the picture here (needs matplotlib)")
    parser.add_argument("--radius", type=int, default=2, choices=range(1, 5),
                        help="filter radius r (default 2, as the programs')")
    args = parser.parse_args()
    r, width, height = args.radius, 1000, 1000  # an image larger than any block's footprint

    cells, computes, in_tile, out_tile = fig_7_12(r, width, height)
    n_compute = sum(computes.values())
    idle = in_tile * in_tile - n_compute
    op_b = out_tile ** 2 * (2 * r + 1) ** 2 * 2 / (in_tile ** 2 * 4)
    print(f"Fig 7.12: {in_tile}x{in_tile} threads load the input tile, {n_compute} compute "
          f"({out_tile}x{out_tile}), {idle} only load ({100 * idle / in_tile ** 2:.0f}%); "
          f"{op_b:.2f} OP/B for an interior block")
    panels = [(f"Fig 7.12 (07_12): block = input tile, {in_tile}×{in_tile} threads\n"
               f"{n_compute} compute, {idle} only load ({100 * idle / in_tile ** 2:.0f}%)",
               cells, computes)]

    cells, computes, in_tile, out_tile, loads = ex2(r, width, height)
    extra = sum(n - 1 for n in loads.values())
    busy = sum(1 for n in loads.values() if n > 1)
    print(f"07_ex2: {out_tile}x{out_tile} threads load the {in_tile}x{in_tile} input tile "
          f"({in_tile * in_tile} cells): {out_tile * out_tile} first loads, then {extra} more by "
          f"{busy} threads; all {out_tile * out_tile} compute")
    panels.append((f"07_ex2: block = output tile, {out_tile}×{out_tile} threads\n"
                   f"{in_tile}×{in_tile} input tile: {extra} more loads by {busy} threads; "
                   f"all compute", cells, computes))

    cells, computes, tile = fig_7_15(r, width, height)
    cached = sum(1 for k in cells.values() if k == CACHED)
    ghosts = sum(1 for k in cells.values() if k == GHOST_SKIPPED)
    print(f"Fig 7.15: {tile}x{tile} threads load their own cell and all compute; of the "
          f"{cached + ghosts} halo cells around block (0, 0)'s tile, {ghosts} are ghost cells "
          f"(skipped) and {cached} come from global memory (L1/L2)")
    panels.append((f"Fig 7.15 (07_15): block = tile, {tile}×{tile} threads, all compute\n"
                   f"halo {cached + ghosts}: {cached} from the caches, {ghosts} ghost cells skipped",
                   cells, computes))

    if args.png:
        try:
            draw(panels, r, args.png)
        except ImportError:
            print("matplotlib is not installed: picture skipped (pip install matplotlib)")


if __name__ == "__main__":
    main()
