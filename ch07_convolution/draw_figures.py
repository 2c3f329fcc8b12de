#!/usr/bin/env python3
"""Draws the chapter's teaching pictures at the book's sizes, and the roofline of the GPU the
results come from.

    python3 ch07_convolution/draw_figures.py --out-dir ch07_convolution

  conv1d.png       Figs 7.1-7.3: x = [8 2 5 4 1 7 3] and f = [1 3 5 3 1] (r = 2): y[2], y[3] one
                   element further (the sliding window), and y[1] with its ghost cell x[-1] = 0,
                   each y[i] in a row under x, under x[i]
  conv2d.png       Figs 7.4-7.6: a 7 x 7 N with values, P[2][2]'s patch times the 5 x 5 filter
                   and the 25 products that sum to it, P[1][0]'s patch with its 13 ghost cells,
                   and the 16 x 16 image in 4 x 4 blocks, thread (1, 1) of block (1, 1) on P[5][5]
  tile_7_11.png    Fig 7.11: the 16 x 16 toy image, a 4 x 4 output tile and its 8 x 8 input tile
                   (5 x 5 filter): the halo makes the input tile 4 times the output tile
  tile_7_13.png    Fig 7.13: an 8 x 8 block that is its input tile, r = 1: the ring of threads
                   that only load, the 6 x 6 that compute, and the patches of threads (1, 1),
                   (5, 5) and (6, 6) in N_s (the text's "thread (5, 5)" reads as either of the
                   last two: the README's errata)
  memory.png       Figs 7.8 and 7.10: where F_c, N and P live, the caches between DRAM and the SMs,
                   and the path N and F_c each take, with the sizes of the profiled GPU (below)
  roofline.png     the profiled GPU's roofline: the OP/B the book counts for Figs 7.7, 7.9 and 7.12
                   and its 5x5 bound, the OP/B measured for each kernel at 5x5, and the ridge point

The first four need no data. The last two need Nsight Compute's profiles, which exist only for an
H200 run of 2026-11-23 (data/h200_2026-11-23/, --profile), made before the L2-flush fix; its
counts (device attributes, DRAM bytes) do not depend on how runs were timed, but its times do
(the caches were emptied by a memset, which biased them long), so the times come from --bench, a
later run on a GPU of the same name (default data/benchmark.csv: the H200 of 2026-11-26, after the
fix). The script stops if the two env.txt files name different GPUs. The titles name the GPU and
both days. The H100 run of data/h100/ has no profile, and no committed file holds the H100's
device attributes, so memory.png cannot be drawn for it.
Every number comes from a committed file (none needs a GPU to draw):
  - the device's attributes (SMs, registers, shared memory and L2 per SM or device, constant
    memory, DRAM size, memory clock and bus width) from the device__attribute_* columns that
    Nsight Compute wrote into the profile's ncu_5x5_07_09_conv2d_constant_memory.csv;
  - the copy bandwidth and the FP32 FMA peak of the roofline, and each kernel's GFLOP/s at 5x5,
    from --bench (07_99_benchmark --csv);
  - each kernel's DRAM bytes at 5x5 (read + written) from the profile's ncu_5x5_<program>.csv,
    over the 2 * 25 FLOP per pixel the book counts: the measured OP/B;
  - the GPU's name and the runs' dates from the env.txt beside each.
"""
import argparse
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scripts"))
import report  # noqa: E402  (scripts/report.py: the run's description from env.txt)

# The palette of draw_tiles.py, so that a colour means the same in every picture.
DARK, LIGHT, GHOST, HALO, ACCENT, ACCENT2 = ("#4e79a7", "#a0cbe8", "#bab0ac", "#f28e2b",
                                             "#e15759", "#59a14f")


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def cell(ax, x, y, text="", face="white", edge="#555555", dashed=False, size=10, weight=None,
         w=1.0, h=1.0, colour="black"):
    from matplotlib.patches import Rectangle
    ax.add_patch(Rectangle((x, y), w, h, facecolor=face, edgecolor=edge, linewidth=1.0,
                           linestyle="--" if dashed else "-"))
    if text != "":
        ax.text(x + w / 2, y + h / 2, str(text), ha="center", va="center", fontsize=size,
                fontweight=weight, color=colour)


# --- Figs 7.1-7.3 ---------------------------------------------------------------------------

def conv1d(png):
    plt = pyplot()
    from matplotlib.patches import Rectangle
    x = [8, 2, 5, 4, 1, 7, 3]
    f = [1, 3, 5, 3, 1]
    r = 2
    y = [sum(f[j] * (x[i - r + j] if 0 <= i - r + j < len(x) else 0) for j in range(2 * r + 1))
         for i in range(len(x))]
    assert y[2] == 52 and y[3] == 47 and y[1] == 53 and y[0] == 51, y
    cases = [(2, "Fig 7.1: y[2], the inner product of f with x[0..4]"),
             (3, "Fig 7.2: y[3], the same f one element further: x[1..5]"),
             (1, "Fig 7.3: y[1] needs x[−1], outside x: a ghost cell, 0")]
    fig, axes = plt.subplots(len(cases), 1, figsize=(11, 3.9 * len(cases)))
    for ax, (i, title) in zip(axes, cases):
        lo, hi = -r, len(x) - 1 + r
        # x, with the ghost cells on both sides dashed (shown as 0 where the window uses them)
        ax.text(lo - 0.7, 3.5, "x", ha="right", va="center", fontsize=12, style="italic")
        for k in range(lo, hi + 1):
            inside = 0 <= k < len(x)
            used = i - r <= k <= i + r
            cell(ax, k, 3, x[k] if inside else ("0" if used else ""),
                 face=(LIGHT if used else "white") if inside else (GHOST if used else "white"),
                 dashed=not inside)
            ax.text(k + 0.5, 4.25, f"x[{k}]".replace("-", "−"), ha="center", fontsize=8,
                    color="#555555")
        ax.add_patch(Rectangle((i - r, 3), 2 * r + 1, 1, fill=False, edgecolor=DARK,
                               linewidth=2.5))
        # f under the window, then the products
        ax.text(i - r - 0.7, 1.9, "f", ha="right", va="center", fontsize=12, style="italic")
        ax.text(i - r - 0.7, 0.7, "f·x", ha="right", va="center", fontsize=11)
        for j in range(2 * r + 1):
            k = i - r + j
            xv = x[k] if 0 <= k < len(x) else 0
            cell(ax, k, 1.4, f[j], face="#f1f1f1")
            cell(ax, k, 0.2, f[j] * xv, face="white", edge="#999999")
        terms = " + ".join(
            f"{f[j]}·{x[i - r + j] if 0 <= i - r + j < len(x) else 0}" for j in range(2 * r + 1))
        # y, one element per element of x and under it: the products' sum lands under x[i]
        ax.text(lo - 0.7, -1.0, "y", ha="right", va="center", fontsize=12, style="italic")
        for k in range(len(x)):
            cell(ax, k, -1.5, y[k] if k == i else "", face=DARK if k == i else "white",
                 edge=DARK if k == i else "#999999", weight="bold" if k == i else None,
                 colour="white")
            ax.text(k + 0.5, -1.85, f"y[{k}]", ha="center", va="top", fontsize=8,
                    color=DARK if k == i else "#555555")
        ax.annotate("", xy=(i + 0.5, -0.48), xytext=(i + 0.5, 0.18),
                    arrowprops=dict(arrowstyle="->", color=DARK, linewidth=1.5))
        ax.text(i + 0.62, -0.15, "sum", ha="left", va="center", fontsize=9, color=DARK)
        ax.set_title(f"{title}:   y[{i}] = {terms} = {y[i]}", fontsize=11, loc="left")
        ax.set_xlim(lo - 1.6, hi + 1.2)
        ax.set_ylim(-2.4, 4.7)
        ax.set_aspect("equal")
        ax.axis("off")
    fig.suptitle("Figs 7.1–7.3: a 5-element filter (r = 2) slides over x; y[i] lies under x[i]; "
                 "dashed: ghost cells outside x, 0 where used", fontsize=12)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(png, dpi=100)
    print(f"wrote {png}: y = {y}")


# --- Figs 7.4-7.6 ---------------------------------------------------------------------------

def grid_axes(ax, rows, cols, title):
    """Row 0 at the top, column 0 at the left, as the arrays are indexed: [row][column]."""
    ax.set_xlim(cols[0] - 0.2, cols[-1] + 1.2)
    ax.set_ylim(rows[-1] + 1.2, rows[0] - 0.2)
    ax.set_aspect("equal")
    ax.set_xticks([c + 0.5 for c in cols])
    ax.set_xticklabels([str(c).replace("-", "−") for c in cols], fontsize=8)
    ax.set_yticks([r + 0.5 for r in rows])
    ax.set_yticklabels([str(r).replace("-", "−") for r in rows], fontsize=8)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel("column (x)", fontsize=9)
    ax.set_ylabel("row (y)", fontsize=9)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    ax.set_title(title, fontsize=10, pad=10, y=-0.13 if False else None, loc="left")


def conv2d_data():
    r, n = 2, 7  # a 5 x 5 filter on a 7 x 7 N, the book's sizes
    # Small integers, so that every product can be checked by hand (the translation's figures
    # are placeholders, so these need not be the book's values): each row of N is Figs 7.1-7.3's
    # x moved one place further left than the row above, the filter a pyramid around its centre.
    x = [8, 2, 5, 4, 1, 7, 3]
    N = [[x[(col + row) % n] for col in range(n)] for row in range(n)]
    F = [[1 + (r - abs(i - r)) + (r - abs(j - r)) for j in range(2 * r + 1)]
         for i in range(2 * r + 1)]

    def value(row, col):  # N with ghost cells 0
        return N[row][col] if 0 <= row < n and 0 <= col < n else 0

    def products(out_row, out_col):
        return [[F[i][j] * value(out_row - r + i, out_col - r + j) for j in range(2 * r + 1)]
                for i in range(2 * r + 1)]

    p22, p10 = (sum(map(sum, products(2, 2))), sum(map(sum, products(1, 0))))
    assert (p22, p10) == (267, 145), (p22, p10)  # worked by hand, quoted in the README
    return r, n, N, F, value, products, p22, p10


def conv2d(png):
    plt = pyplot()
    from matplotlib.patches import Rectangle, Patch
    r, n, N, F, value, products, p22, p10 = conv2d_data()

    fig = plt.figure(figsize=(17, 13))
    outer = fig.add_gridspec(2, 1, height_ratios=[n + 1, 17])
    top = outer[0].subgridspec(1, 3, width_ratios=[n + 1, 2 * r + 2, 2 * r + 2])
    bottom = outer[1].subgridspec(1, 2, width_ratios=[n + r + 3, 17])
    a, f_ax, p_ax = (fig.add_subplot(top[0, k]) for k in range(3))
    b, c = (fig.add_subplot(bottom[0, k]) for k in range(2))

    def patch_panel(ax, out_row, out_col, title):
        # N, and the ghost cells of the patch where it leaves N
        rows = list(range(min(0, out_row - r), max(n, out_row + r + 1)))
        cols = list(range(min(0, out_col - r), max(n, out_col + r + 1)))
        ghosts = 0
        for yy in rows:
            for xx in cols:
                inside = 0 <= yy < n and 0 <= xx < n
                in_patch = abs(yy - out_row) <= r and abs(xx - out_col) <= r
                if not inside and not in_patch:
                    continue
                centre = (yy, xx) == (out_row, out_col)
                face = DARK if centre else (LIGHT if in_patch and inside else
                                            GHOST if in_patch else "white")
                ghosts += in_patch and not inside
                ax.add_patch(Rectangle((xx, yy), 1, 1, facecolor=face, edgecolor="#777777",
                                       linewidth=0.8, linestyle="-" if inside else "--"))
                ax.text(xx + 0.5, yy + 0.5, str(value(yy, xx)), ha="center", va="center",
                        fontsize=14 if inside else 13, color="white" if centre else
                        ("black" if inside else "#555555"))
        ax.add_patch(Rectangle((0, 0), n, n, fill=False, edgecolor="black", linewidth=1.6))
        ax.add_patch(Rectangle((out_col - r, out_row - r), 2 * r + 1, 2 * r + 1, fill=False,
                               edgecolor=DARK, linewidth=2.5))
        grid_axes(ax, rows, cols, title.format(ghosts=ghosts))
        return ghosts

    def small_array(ax, values, title, face):
        dim = len(values)
        for i in range(dim):
            for j in range(dim):
                cell(ax, j, i, values[i][j], face=face, edge="#777777", size=14)
        grid_axes(ax, list(range(dim)), list(range(dim)), title)
        ax.set_xlabel("fCol", fontsize=9)
        ax.set_ylabel("fRow", fontsize=9)

    patch_panel(a, 2, 2, "Fig 7.4: N (7 × 7); P[2][2]'s patch is rows 0–4, columns 0–4")
    small_array(f_ax, F, "× the filter F (5 × 5),\nelement by element", "#f1f1f1")
    small_array(p_ax, products(2, 2), f"= the 25 products;\ntheir sum is P[2][2] = {p22}",
                "white")
    ghosts = patch_panel(b, 1, 0, "Fig 7.5: P[1][0]'s patch, rows −1–3, columns −2–2:\n"
                                  "{ghosts} ghost cells (grey, 0) and 12 inputs; "
                                  f"P[1][0] = {p10}")
    assert ghosts == 13, ghosts

    # Fig 7.6: a 16 x 16 image in 4 x 4 blocks of 4 x 4 threads
    side, bs, bx, by, tx, ty = 16, 4, 1, 1, 1, 1
    out_col, out_row = bx * bs + tx, by * bs + ty
    assert (out_row, out_col) == (5, 5)
    for yy in range(side):
        for xx in range(side):
            in_block = by * bs <= yy < (by + 1) * bs and bx * bs <= xx < (bx + 1) * bs
            in_patch = abs(yy - out_row) <= r and abs(xx - out_col) <= r
            face = DARK if (yy, xx) == (out_row, out_col) else (
                "#d4e6f4" if in_block else "white")
            c.add_patch(Rectangle((xx, yy), 1, 1, facecolor=face, edgecolor="#cccccc",
                                  linewidth=0.6, hatch="..." if in_patch and face == "white"
                                  else None))
    for k in range(0, side + 1, bs):
        c.plot([0, side], [k, k], color="#666666", linewidth=1.3)
        c.plot([k, k], [0, side], color="#666666", linewidth=1.3)
    c.add_patch(Rectangle((out_col - r, out_row - r), 2 * r + 1, 2 * r + 1, fill=False,
                          edgecolor=HALO, linewidth=2.5, linestyle="--"))
    c.annotate("P[5][5]: thread (1, 1)\nof block (1, 1)", xy=(out_col + 0.8, out_row + 0.5),
               xytext=(10.2, 2.2), fontsize=9, color=DARK, va="center",
               arrowprops=dict(arrowstyle="->", color=DARK),
               bbox=dict(facecolor="white", edgecolor="none", pad=1))
    for k in range(side // bs):
        c.text(k * bs + bs / 2, side + 0.55, f"blockIdx.x = {k}", ha="center", va="top",
               fontsize=7, color="#555555")
    grid_axes(c, list(range(side)), list(range(side)),
              "Fig 7.6: 4×4 blocks of 4×4 threads; thread (1, 1) of block (1, 1)\n"
              "computes P[1·4 + 1][1·4 + 1] = P[5][5] from N's rows and columns 3–7")
    c.set_ylim(side + 1.4, -0.2)
    fig.legend(handles=[Patch(facecolor=DARK, label="the output's own position"),
                        Patch(facecolor=LIGHT, label="inputs of its patch"),
                        Patch(facecolor=GHOST, edgecolor="#777777", linestyle="--",
                              label="ghost cells: outside N, 0"),
                        Patch(facecolor="#d4e6f4", label="block (1, 1): 16 threads, 16 outputs"),
                        Patch(fill=False, edgecolor=HALO, linestyle="--", linewidth=2,
                              label="P[5][5]'s patch (in N, same coordinates)"),
                        Patch(facecolor="white", edgecolor="#999999", hatch="...",
                              label="patch inputs outside the block (its halo, Fig 7.11)")],
               loc="lower center", ncol=3, fontsize=9, frameon=False)
    fig.suptitle("Figs 7.4–7.6: a 5×5 filter (r = 2). Pairs in parentheses are (x, y) = "
                 "(column, row); indices in brackets are [row][column]", fontsize=12)
    fig.tight_layout(rect=(0, 0.08, 1, 0.96))
    fig.savefig(png, dpi=100)
    print(f"wrote {png}: P[2][2] = {p22}, P[1][0] = {p10}")


# --- Fig 7.11 -------------------------------------------------------------------------------

def tile_7_11(png):
    plt = pyplot()
    from matplotlib.patches import Rectangle
    n, out_tile, r = 16, 4, 2
    by, bx = 1, 1  # the block whose tiles are drawn
    in_tile = out_tile + 2 * r
    r0, c0 = by * out_tile, bx * out_tile
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 6.6))
    for ax, name in ((left, "N (input)"), (right, "P (output)")):
        for yy in range(n):
            for xx in range(n):
                in_out = r0 <= yy < r0 + out_tile and c0 <= xx < c0 + out_tile
                in_in = r0 - r <= yy < r0 - r + in_tile and c0 - r <= xx < c0 - r + in_tile
                face = "white"
                if ax is left and in_in:
                    face = DARK if in_out else LIGHT
                if ax is right and in_out:
                    face = DARK
                ax.add_patch(Rectangle((xx, yy), 1, 1, facecolor=face, edgecolor="#cccccc",
                                       linewidth=0.6))
        # the 4 x 4 output tiles of the toy example
        for k in range(0, n + 1, out_tile):
            ax.axhline(k, color="#888888", linewidth=1.2)
            ax.axvline(k, color="#888888", linewidth=1.2)
        ax.set_xlim(-0.2, n + 0.2)
        ax.set_ylim(n + 0.2, -0.2)
        ax.set_aspect("equal")
        ax.set_xticks([k + 0.5 for k in range(0, n, 4)] + [n - 0.5])
        ax.set_xticklabels([str(k) for k in range(0, n, 4)] + [str(n - 1)])
        ax.set_yticks([k + 0.5 for k in range(0, n, 4)] + [n - 0.5])
        ax.set_yticklabels([str(k) for k in range(0, n, 4)] + [str(n - 1)])
        ax.set_title(name, fontsize=12)
    left.add_patch(Rectangle((c0 - r, r0 - r), in_tile, in_tile, fill=False, edgecolor=DARK,
                             linewidth=2.5))
    right.add_patch(Rectangle((c0, r0), out_tile, out_tile, fill=False, edgecolor=DARK,
                              linewidth=2.5))
    left.text(c0 - r + in_tile / 2, r0 - r + in_tile + 0.8,
              f"input tile {in_tile}×{in_tile} = {in_tile ** 2} N elements", ha="center",
              va="top", fontsize=10, color=DARK,
              bbox=dict(facecolor="white", edgecolor="none", pad=2))
    right.text(c0 + out_tile / 2, r0 + out_tile + 0.8,
               f"output tile {out_tile}×{out_tile} = {out_tile ** 2} P elements", ha="center",
               va="top", fontsize=10, color=DARK,
               bbox=dict(facecolor="white", edgecolor="none", pad=2))
    big = 16
    fig.suptitle(f"Fig 7.11: block ({bx}, {by})'s output tile and the input tile it needs, "
                 f"{2 * r + 1}×{2 * r + 1} filter (r = {r}). Light: the halo, r cells wide.\n"
                 f"Input tile / output tile = {in_tile ** 2}/{out_tile ** 2} = "
                 f"{in_tile ** 2 / out_tile ** 2:g}×; with {big}×{big} output tiles, "
                 f"{(big + 2 * r) ** 2}/{big ** 2} = {(big + 2 * r) ** 2 / big ** 2:.2f}× "
                 f"(the book rounds to 1.6)", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    # The equal-aspect panels are placed after tight_layout: a tight box keeps their bottom tick
    # labels in the picture.
    fig.savefig(png, dpi=100, bbox_inches="tight", pad_inches=0.15)
    print(f"wrote {png}")


# --- Fig 7.13 -------------------------------------------------------------------------------

def tile_7_13(png):
    plt = pyplot()
    from matplotlib.patches import Rectangle, ConnectionPatch
    in_tile, r = 8, 1
    out_tile = in_tile - 2 * r
    # (tx, ty) of the threads the text follows: (1, 1), and its "(5, 5), patch at N_s[5][5]",
    # which fits thread (5, 5) (patch at N_s[4][4]) or thread (6, 6) (the tile's last output).
    threads = [((1, 1), ACCENT2), ((5, 5), HALO), ((6, 6), ACCENT)]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 7.4),
                                      gridspec_kw={"width_ratios": [in_tile, out_tile + 1]})
    for ty in range(in_tile):
        for tx in range(in_tile):
            ring = not (r <= tx < in_tile - r and r <= ty < in_tile - r)
            left.add_patch(Rectangle((tx, ty), 1, 1, facecolor=LIGHT if ring else DARK,
                                     edgecolor="white", linewidth=1.2,
                                     hatch="///" if ring else None))
    left.add_patch(Rectangle((r, r), out_tile, out_tile, fill=False, edgecolor="black",
                             linewidth=2.5))
    for (tx, ty), colour in threads:
        tr, tc = ty - r, tx - r  # tileRow, tileCol: the patch's top-left corner in N_s
        left.add_patch(Rectangle((tc + 0.06, tr + 0.06), 2 * r + 1 - 0.12, 2 * r + 1 - 0.12,
                                 fill=False, edgecolor=colour, linewidth=3, linestyle="--"))
        left.plot(tx + 0.5, ty + 0.5, "o", color=colour, markersize=12)
        # Each label sits in its patch's top-left cell, the element N_s[tr][tc] it names, in its
        # patch's colour: N_s[5][5] is also thread (5, 5)'s own cell, and black there would read as
        # a label of that thread's (orange) dot, the text's own slip.
        left.text(tc + 0.08, tr + 0.32, f"N_s[{tr}][{tc}]", fontsize=9, color=colour,
                  fontweight="bold", bbox=dict(facecolor="white", edgecolor="none", pad=1))
    left.set_xlim(0, in_tile)
    left.set_ylim(in_tile, 0)
    left.set_aspect("equal")
    left.set_xticks([k + 0.5 for k in range(in_tile)])
    left.set_xticklabels(range(in_tile))
    left.set_yticks([k + 0.5 for k in range(in_tile)])
    left.set_yticklabels(range(in_tile))
    left.set_xlabel("threadIdx.x (= column of N_s)")
    left.set_ylabel("threadIdx.y (= row of N_s)")
    left.set_title(f"block = input tile N_s, {in_tile}×{in_tile} threads, each loads one element",
                   fontsize=11)
    for ty in range(out_tile):
        for tx in range(out_tile):
            right.add_patch(Rectangle((tx, ty), 1, 1, facecolor="white", edgecolor="#999999"))
    for (tx, ty), colour in threads:
        tr, tc = ty - r, tx - r
        right.add_patch(Rectangle((tc, tr), 1, 1, facecolor=colour, edgecolor="#999999"))
        right.text(tc + 0.5, tr + 0.5, f"({tc}, {tr})", ha="center", va="center", fontsize=9)
        fig.add_artist(ConnectionPatch(xyA=(tx + 0.5, ty + 0.5), coordsA=left.transData,
                                       xyB=(tc, tr + 0.5), coordsB=right.transData,
                                       arrowstyle="->", color=colour, linewidth=1.8))
    right.set_xlim(0, out_tile)
    right.set_ylim(out_tile, 0)
    right.set_aspect("equal")
    right.set_xticks([k + 0.5 for k in range(out_tile)])
    right.set_xticklabels(range(out_tile))
    right.set_yticks([k + 0.5 for k in range(out_tile)])
    right.set_yticklabels(range(out_tile))
    right.set_xlabel("tileCol = threadIdx.x − FILTER_RADIUS")
    right.set_ylabel("tileRow = threadIdx.y − FILTER_RADIUS")
    # Row numbers on the right, so that the arrows entering from the left cross no tick label.
    right.yaxis.tick_right()
    right.yaxis.set_label_position("right")
    right.set_title(f"output tile, {out_tile}×{out_tile}: one thread computes each", fontsize=11)
    from matplotlib.patches import Patch
    handles = [Patch(facecolor=DARK, label=f"active: loads, then computes ({out_tile ** 2})"),
               Patch(facecolor=LIGHT, hatch="///",
                     label=f"outer ring, FILTER_RADIUS = {r} wide: only loads "
                           f"({in_tile ** 2 - out_tile ** 2})"),
               Patch(fill=False, edgecolor=ACCENT2, linestyle="--", linewidth=2,
                     label="thread (1, 1): patch at N_s[0][0], output (0, 0)"),
               Patch(fill=False, edgecolor=HALO, linestyle="--", linewidth=2,
                     label="thread (5, 5): patch at N_s[4][4], output (4, 4)"),
               Patch(fill=False, edgecolor=ACCENT, linestyle="--", linewidth=2,
                     label="thread (6, 6): patch at N_s[5][5], output (5, 5)")]
    fig.legend(handles=handles, loc="lower center", ncol=2, fontsize=10, frameon=False)
    fig.suptitle(f"Fig 7.13: a 3×3 filter (FILTER_RADIUS = {r}), {in_tile}×{in_tile} input tile "
                 f"= {in_tile}×{in_tile} block, {out_tile}×{out_tile} output tile", fontsize=12)
    fig.tight_layout(rect=(0, 0.15, 1, 0.95))
    fig.savefig(png, dpi=100)
    print(f"wrote {png}: {in_tile}x{in_tile} threads, r = {r}: {out_tile ** 2} compute "
          f"({out_tile}x{out_tile}), {in_tile ** 2 - out_tile ** 2} only load")


# --- Figs 7.8 and 7.10 ----------------------------------------------------------------------

def ncu_attributes(path):
    """{'multiprocessor_count': 132, ...}: the device__attribute_* columns of an ncu raw CSV."""
    rows = [line for line in open(path) if not line.startswith("==")]
    header, _units, values = list(csv.reader(rows))[:3]
    attrs = {}
    for name, value in zip(header, values):
        if name.startswith("device__attribute_"):
            attrs[name[len("device__attribute_"):]] = value.replace(",", "")
    return attrs


def benchmark_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def memory(png, data, bench, env):
    plt = pyplot()
    from matplotlib.patches import FancyBboxPatch
    a = ncu_attributes(os.path.join(data, "ncu_5x5_07_09_conv2d_constant_memory.csv"))
    rows = benchmark_rows(bench)
    sms = int(a["multiprocessor_count"])
    regs_kb = int(a["max_registers_per_multiprocessor"]) * 4 // 1024
    shared_kb = int(a["max_shared_memory_per_multiprocessor"]) // 1024
    l2_mb = int(a["l2_cache_size"]) / 2 ** 20
    const_kb = int(a["total_constant_memory"]) // 1024
    dram_gb = int(a["total_memory"]) / 1e9
    mem_khz, bus = int(a["memory_clock_rate"]), int(a["global_memory_bus_width"])
    peak = 2 * mem_khz * 1e3 * bus / 8 / 1e9
    copy = float(rows[0]["copy_gbps"])

    fig, ax = plt.subplots(figsize=(13, 8))

    def box(x, y, w, h, title, lines, face, size=10, container=False):
        ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02,rounding_size=0.12",
                                    facecolor=face, edgecolor="#333333", linewidth=1.2))
        if container:  # the title at the top, the lines under it, left of the arrows' way
            ax.text(x + 1.0, y + h - 0.15, title, ha="left", va="top", fontsize=size + 1,
                    fontweight="bold")
            ax.text(x + 1.0, y + h - 0.5, "\n".join(lines), ha="left", va="top",
                    fontsize=size)
            return
        ax.text(x + w / 2, y + h / 2 + (0.03 if lines else 0), title, ha="center",
                va="bottom" if lines else "center", fontsize=size + 1, fontweight="bold")
        if lines:
            ax.text(x + w / 2, y + h / 2 - 0.03, "\n".join(lines), ha="center", va="top",
                    fontsize=size)

    # DRAM: global memory (N, P) and constant memory (F_c); the host beside it
    box(0.3, 0.2, 9.9, 2.4, f"DRAM (HBM), {dram_gb:.1f} GB",
        [f"peak {peak:.0f} GB/s = 2 × {mem_khz / 1e3:.0f} MHz × {bus} bits / 8 bits per byte",
         f"a copy reaches {copy:.0f} GB/s (07_99: the roofline floor's bandwidth)"], "#eeeeee",
        container=True)
    box(0.6, 0.35, 4.4, 0.95, "global memory", ["N, P and Fig 7.7's F: any kernel reads them"],
        "white", size=9)
    box(5.3, 0.35, 4.6, 0.95, f"constant memory, {const_kb} KiB",
        ["F_c: read-only while a kernel runs"], "white", size=9)
    box(10.7, 0.35, 2.0, 0.95, "host memory", ["F_h"], "white", size=9)
    ax.annotate("", xy=(9.9, 0.83), xytext=(10.7, 0.83),
                arrowprops=dict(arrowstyle="->", color=ACCENT, linewidth=1.8))
    ax.text(10.3, 1.45, "cudaMemcpy-\nToSymbol", ha="center", fontsize=8, color=ACCENT)
    # L2
    box(0.3, 3.1, 12.4, 1.0, f"L2 cache, {l2_mb:.0f} MiB, shared by all {sms} SMs",
        ["every load and store to DRAM passes through it: the halo a neighbour read may still be "
         "there"], "#d9e6f2")
    # SMs: registers above, L1 + shared memory and the constant cache side by side below
    for k, x0 in enumerate((0.3, 4.55, 8.8)):
        label = ["SM 0", "SM 1", f"…  SM {sms - 1}"][k]
        box(x0, 4.6, 3.9, 3.1, label, [], "#f7f7f7", container=True)
        box(x0 + 0.15, 6.6, 3.6, 0.7, f"registers, {regs_kb} KiB", ["Pvalue: each thread's own"],
            "white", size=8)
        box(x0 + 0.15, 4.75, 2.2, 1.7, "L1 + shared memory",
            ["shared (N_s): up to", f"{shared_kb} KiB per SM", "the rest: L1, caches N"], LIGHT,
            size=8)
        box(x0 + 2.45, 4.75, 1.3, 1.7, "constant\ncache", ["F_c: one read", "serves a warp"],
            "#fbe3c9", size=8)
    # Which array takes which path: N (Figs 7.7-7.15) through L2 and L1, F_c through L2 and the
    # constant cache. Every SM has both paths; each is drawn into one SM, so the labels say so.
    for x, colour, text in ((0.95, DARK, "N: global memory → L2 → L1 → registers, in every SM"),
                            (7.6, HALO, "F_c: constant memory → L2 → constant cache, in every SM")):
        for y0, y1 in ((1.3, 3.1), (4.1, 4.75)):  # into the L2, then out of it into the SM
            ax.annotate("", xy=(x, y1), xytext=(x, y0),
                        arrowprops=dict(arrowstyle="-|>", color=colour, linewidth=3))
        ax.text(x + 0.12, 2.85, text, ha="left", va="center", fontsize=9, color=colour,
                fontweight="bold")
    ax.set_xlim(0, 13)
    ax.set_ylim(0, 7.8)
    ax.axis("off")
    ax.set_title("Figs 7.8 and 7.10 on " + (env or "the GPU of the committed data") +
                 ": where the chapter's arrays live, and the path each takes to the SMs\n"
                 "(KiB, MiB: 1024 and 1024² bytes; GB: 10⁹; the L1 and constant-cache sizes are "
                 "not among the device's attributes)", fontsize=11)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    print(f"wrote {png}: {sms} SMs, registers {regs_kb} KiB and shared memory up to {shared_kb} KiB "
          f"per SM, L2 {l2_mb:.0f} MiB, constant memory {const_kb} KiB, DRAM {dram_gb:.1f} GB, "
          f"peak {peak:.0f} GB/s, copy {copy:.0f} GB/s")


# --- the roofline ---------------------------------------------------------------------------

# The kernels of the 5x5 profiles: (program in the file name, benchmark.csv's kernel, the book's
# OP/B where the book counts one).
KERNELS = [("07_07_conv2d_basic", "07_07 basic", 0.25),
           ("07_09_conv2d_constant_memory", "07_09 constant memory", 0.5),
           ("07_12_conv2d_tiled", "07_12 tiled", 9.57),
           ("07_15_conv2d_tiled_cached_halo", "07_15 cached halo", None),
           ("07_ex2_conv2d_output_tiled", "07_ex2 output tiled", None),
           ("07_91_conv2d_register_tiled", "07_91 register tiled", None),
           ("07_92_conv2d_register_cached", "07_92 register cached", None),
           ("07_93_conv2d_strip_float4", "07_93 8 rows/64 regs", None),
           ("07_94_conv2d_strip_fma", "07_94 4x5/72 regs", None)]


def ncu_metric(path, name):
    rows = [line for line in open(path) if not line.startswith("==")]
    header, _units, values = list(csv.reader(rows))[:3]
    return float(values[header.index(name)].replace(",", ""))


def roofline(png, data, bench, env):
    plt = pyplot()
    rows = benchmark_rows(bench)
    at5 = {row["kernel"]: row for row in rows if row["radius"] == "2"}
    first = next(iter(at5.values()))
    copy, peak = float(first["copy_gbps"]), float(first["fp32_peak_gflops"])
    pixels = int(first["width"]) * int(first["height"])
    ridge = peak / copy
    flop = 2 * 25 * pixels  # the book's count: a multiply and an add per filter element

    points = []
    for program, kernel, book in KERNELS:
        path = os.path.join(data, f"ncu_5x5_{program}.csv")
        dram = (ncu_metric(path, "dram__bytes_read.sum") +
                ncu_metric(path, "dram__bytes_write.sum"))
        points.append((kernel, flop / dram, float(at5[kernel]["gflop_per_s"]), book))

    fig, ax = plt.subplots(figsize=(12, 7))
    xs = [0.1 * 1.05 ** k for k in range(200)]
    ax.plot(xs, [min(copy * x, peak) for x in xs], color="black", linewidth=2,
            label=f"roof: min({copy:.0f} GB/s × OP/B, {peak / 1000:.1f} TFLOP/s)")
    ax.axvline(ridge, color="#888888", linestyle=":", linewidth=1.5)
    ax.text(ridge * 1.05, 1200, f"ridge point\n{ridge:.1f} OP/B", fontsize=10, color="#555555")
    # The three kernels the book counts: the square at the book's OP/B and the dot at the measured
    # one share a colour (no arrows between them: they would cross the other points' labels).
    book_colours = {"07_07 basic": ACCENT, "07_09 constant memory": ACCENT2,
                    "07_12 tiled": "#b07aa1", "07_15 cached halo": "#76b7b2",
                    "07_ex2 output tiled": "#9c755f"}
    for kernel, measured, gflops, book in points:
        if book is not None:  # 07_15 and 07_ex2: the book counts no OP/B, so a dot alone
            colour = book_colours[kernel]
            ax.plot(book, copy * book, "s", color=colour, markersize=10, mfc="white", mew=2.5)
            ax.annotate(f"{kernel[:5]}: the book's {book:g} OP/B,\nat most {copy * book:,.0f}"
                        " GFLOP/s", (book, copy * book), textcoords="offset points",
                        xytext=(10, -26) if book < 5 else (-160, 8), fontsize=9, color=colour)
    bound = 12.5
    ax.plot(bound, min(copy * bound, peak), "s", color="#777777", markersize=9, mfc="white",
            mew=2)
    ax.annotate("the book's 5×5 bound, 12.5 OP/B\n(infinitely large tiles)", (bound, copy * bound),
                textcoords="offset points", xytext=(10, -30), fontsize=9, color="#555555")
    # The measured points lie on one vertical line (6.4-6.5 OP/B): each label in a column to the
    # right, at least a factor 1.2 above the one below it, with a leader line to its point.
    label_x, spacing, last = 9.0, 1.2, 0.0
    for kernel, measured, gflops, _ in sorted(points, key=lambda p: p[2]):
        colour = book_colours.get(kernel, DARK)
        if kernel == "07_12 tiled":  # a ring around 07_09's dot, which lies 3% above it
            ax.plot(measured, gflops, "o", color=colour, markersize=14, mfc="white", mew=2.5,
                    zorder=2)
        else:
            ax.plot(measured, gflops, "o", color=colour, markersize=8, zorder=3)
        y = max(gflops, last * spacing)
        last = y
        ax.plot([measured * 1.03, label_x * 0.97], [gflops, y], color=colour, linewidth=0.8)
        ax.text(label_x, y, f"{kernel}: {gflops:,.0f}", ha="left", va="center", fontsize=8.5,
                color=colour)
    # The roof above them: what their measured traffic allows.
    mean = sum(m for _, m, _, _ in points) / len(points)
    ax.plot(mean, copy * mean, "D", color=DARK, markersize=8, mfc="white", mew=2)
    lo, hi = min(m for _, m, _, _ in points), max(m for _, m, _, _ in points)
    ax.annotate(f"the roof at the measured {lo:.2f}–{hi:.2f} OP/B:\n"
                f"{copy * mean / 1000:.1f} TFLOP/s",
                (mean, copy * mean), textcoords="offset points", xytext=(-175, 10), fontsize=9,
                color=DARK)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(0.1, 100)
    ax.set_ylim(200, 1.5 * peak)
    ax.set_xlabel("OP/B: FLOP per byte of DRAM traffic (log)")
    ax.set_ylabel("GFLOP/s (log)")
    ax.grid(True, which="both", alpha=0.25)
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], color="black", linewidth=2, label=ax.get_lines()[0].get_label()),
               Line2D([], [], marker="s", color="#777777", mfc="white", mew=2, linestyle="",
                      label="the book's OP/B (requests counted as DRAM bytes), on the roof"),
               Line2D([], [], marker="o", color="#777777", linestyle="",
                      label="measured at 5×5 (GFLOP/s labelled): DRAM bytes from Nsight "
                            "Compute,\nGFLOP/s from 07_99; a square and a dot of one colour: "
                            "one kernel;\n07_15 and 07_ex2, which the book gives no OP/B: "
                            "a dot alone, in a colour of its own"),
               Line2D([], [], marker="o", color=DARK, linestyle="",
                      label="measured at 5×5: the four kernels beyond the book (07_91-07_94)")]
    ax.legend(handles=handles, loc="lower right", fontsize=9)
    ax.set_title(f"The roofline of {env or 'the GPU of the committed data'}, "
                 f"5×5 filter on {first['width']}×{first['height']}: every kernel moves the "
                 f"same DRAM bytes\nSquares: the book's count, not measured. Dots: measured.",
                 fontsize=11)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    print(f"wrote {png}: ridge {ridge:.2f} OP/B; measured OP/B at 5x5: " +
          ", ".join(f"{k} {m:.2f}" for k, m, _, _ in points))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", required=True, help="write the pictures here")
    parser.add_argument("--profile", default=os.path.join(HERE, "data", "h200_2026-11-23"),
                        help="the run with Nsight Compute's profiles "
                             "(default: data/h200_2026-11-23/)")
    parser.add_argument("--bench", default=os.path.join(HERE, "data", "benchmark.csv"),
                        help="07_99's CSV of the times, its env.txt beside it, on a GPU of the "
                             "profile's name (default: data/benchmark.csv)")
    args = parser.parse_args()
    for path in (os.path.join(args.profile, "env.txt"), args.bench,
                 os.path.join(os.path.dirname(args.bench), "env.txt")):
        if not os.path.isfile(path):
            parser.error(f"{path}: no such file")
    os.makedirs(args.out_dir, exist_ok=True)
    envs = [report.describe_env(os.path.join(folder, "env.txt"))
            for folder in (args.profile, os.path.dirname(args.bench))]
    gpus = [re.sub(r", driver.*", "", e) for e in envs]
    if gpus[0] != gpus[1]:
        parser.error(f"the profile is of {gpus[0]!r}, --bench of {gpus[1]!r}: not one GPU")
    days = [re.search(r"\d{4}-\d{2}-\d{2}", e) for e in envs]
    env = gpus[0]  # the GPU's name and the runs' days: the title's place
    if all(days):
        env += f" (profile {days[0].group(0)}, times {days[1].group(0)})"
    # The worked sums need no matplotlib: printed before it is looked for.
    print("Figs 7.4-7.6: P[2][2] = {6}, P[1][0] = {7}".format(*conv2d_data()))
    try:
        pyplot()
    except ImportError:
        print("matplotlib is not installed: pictures skipped (pip install matplotlib)")
        return
    out = lambda name: os.path.join(args.out_dir, name)  # noqa: E731
    conv1d(out("conv1d.png"))
    conv2d(out("conv2d.png"))
    tile_7_11(out("tile_7_11.png"))
    tile_7_13(out("tile_7_13.png"))
    memory(out("memory.png"), args.profile, args.bench, env)
    roofline(out("roofline.png"), args.profile, args.bench, env)


if __name__ == "__main__":
    main()
