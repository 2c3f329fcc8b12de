#!/usr/bin/env python3
"""Draws the launch trees of the nested reductions: 02/03 (a chain of child grids per parent block)
against 04 (one grid per level for all blocks); and, with --hello-png, 01's nested hello world at
the document's size (blocks of 8 threads, 1 parent block and 2); with --sums-png, which element 02
adds to which, level by level, in one block of 8; with --loops-png, the document's first section
(an inner loop run by one thread, or by a child grid: 07).

    python3 dynamic_parallelism/draw_launch_tree.py --png dynamic_parallelism/launch_tree.png \
        --hello-png dynamic_parallelism/hello_tree.png \
        --sums-png dynamic_parallelism/reduce_sums.png --loops-png dynamic_parallelism/loops.png \
        [--grid 4] [--block 8]

The launches are the kernels' own recursion, step for step:
  02, 03 (gpuRecursiveReduce, ...Nosync): a block reducing isize elements, isize > 2, has thread 0
      launch <<<1, isize / 2>>> on its lower half; at isize == 2 it writes g_odata[block] instead
      (nested_reduce_launches() counts the same);
  04 (gpuRecursiveReduce2): the host launches <<<grid, block / 2>>> with iStride = block / 2; while
      iStride > 1, thread 0 of block 0 launches <<<gridDim.x, iStride / 2>>>; at iStride == 1
      each block writes g_odata[block] (nested_reduce2_launches() counts the same).
  01 (nestedHelloWorld): the host launches <<<blocks, 8>>>; thread 0 of a block of n threads, n > 1,
      launches <<<1, n / 2>>> one level deeper (its printed line "nested execution depth").
The script checks its counts against the document's nvprof figures at its size (grid 2048, block
512: 16384 device-side launches for 02 and 03, 8 for 04), and 01's against the program's own check
(1 block: 8, 4, 2, 1 threads and 3 launches; 2 blocks: 16, 8, 4, 2 threads and 6 launches).
"""
import argparse


def nested_reduce_launches(grid, block):
    """Per parent block, the child grids' block sizes, in launch order (02, 03)."""
    chains = []
    for _ in range(grid):
        chain, isize = [], block
        while isize != 2:
            isize >>= 1
            chain.append(isize)
        chains.append(chain)
    return chains


def nested_reduce2_launches(block):
    """The grids' block sizes after the host's, in launch order (04)."""
    levels, stride = [], block // 2
    while stride != 1:
        stride //= 2
        levels.append(stride)
    return levels


def hello_levels(blocks, threads):
    """01: per depth, the grids as (blocks, threads per block); every parent block's thread 0
    launches a one-block child with half the threads."""
    levels, n = [[(blocks, threads)]], threads
    while n > 1:
        n >>= 1
        levels.append([(1, n)] * blocks)
    return levels


def check_hello_counts():
    for blocks, threads, launches in ((1, [8, 4, 2, 1], 3), (2, [16, 8, 4, 2], 6)):
        levels = hello_levels(blocks, 8)
        counted = [sum(b * t for b, t in level) for level in levels]
        made = sum(len(level) for level in levels[1:])
        assert (counted, made) == (threads, launches), (blocks, counted, made)


def draw_hello(png):
    """01 at the document's size: one panel per run (--blocks 1, --blocks 2), a row per depth, each
    grid a frame around its blocks, each thread a square, thread 0's launch an arrow."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, Rectangle

    colours = ["#d9d9d9", "#9ecae1", "#6baed6", "#fdae6b"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), gridspec_kw={"width_ratios": [1, 2]})
    for ax, blocks in zip(axes, (1, 2)):
        levels = hello_levels(blocks, 8)
        launches = sum(len(level) for level in levels[1:])
        ax.set_title(f"01 --blocks {blocks}: {launches} device-side launches", fontsize=10)
        width = 9.5  # one parent block's column: 8 threads and a margin
        step = 2.4  # from one depth's row to the next
        for depth, level in enumerate(levels):
            y = -step * depth
            ax.text(-0.8, y + 0.1, f"Recursion={depth}", ha="right", va="center", fontsize=8)
            if depth == 0:  # the host's grid: `blocks` blocks of 8 threads in one frame
                ax.add_patch(Rectangle((-0.3, y - 0.45), width * blocks - 1.1, 1.1, fill=False,
                                       edgecolor="#777777", linewidth=1.4))
                ax.text(width * blocks - 1.2, y + 0.8, f"host: <<<{blocks}, 8>>>", ha="right",
                        fontsize=8)
                parents = [(b * width, 8) for b in range(blocks)]
            else:  # one child grid of one block under each parent block
                parents = [(b * width, threads) for b, (_, threads) in enumerate(level)]
            for b, (x0, threads) in enumerate(parents):
                if depth > 0:
                    ax.add_patch(Rectangle((x0 - 0.2, y - 0.35), threads + 0.2, 0.9, fill=False,
                                           edgecolor="#777777", linewidth=1.4))
                    ax.text(x0 + threads + 0.3, y + 0.1, f"<<<1, {threads}>>>: block 0",
                            va="center", fontsize=8)
                for t in range(threads):
                    ax.add_patch(Rectangle((x0 + t, y - 0.2), 0.8, 0.6,
                                           facecolor=colours[min(depth, 3)], edgecolor="#333333",
                                           linewidth=0.6))
                    if depth == 0:
                        ax.text(x0 + t + 0.4, y + 0.1, str(t), ha="center", va="center",
                                fontsize=7)
                if depth == 0 and blocks > 1:
                    ax.text(x0 + 3.9, y + 0.8, f"block {b}", ha="center", fontsize=7)
                if depth + 1 < len(levels):
                    ax.add_patch(FancyArrowPatch((x0 + 0.4, y - 0.25), (x0 + 0.4, y - step + 0.6),
                                                 arrowstyle="-|>", mutation_scale=10,
                                                 color="#555555", linewidth=0.8))
                    ax.text(x0 + 0.7, y - step / 2, "thread 0 launches", fontsize=7,
                            color="#555555", va="center")
        ax.set_xlim(-3.4, width * blocks)
        ax.set_ylim(-step * (len(levels) - 1) - 0.8, 1.4)
        ax.set_aspect("equal")
        ax.axis("off")
    fig.text(0.5, 0.02, "Each child is a grid of its own, so its only block is block 0; the launch "
             "returns at once, and here each level printed after the whole level above it.",
             ha="center", fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def halving_steps(values):
    """02's sums for one block, level by level: each grid of isize threads (isize > 2) adds
    idata[t + isize / 2] onto idata[t] for t < isize / 2, and the last, of 2, writes
    idata[0] + idata[1] to g_odata[block]. [(isize, the block's elements after that grid)]."""
    steps, data, isize = [], list(values), len(values)
    while isize > 2:
        half = isize // 2
        for t in range(half):
            data[t] += data[t + half]
        steps.append((isize, list(data)))
        isize = half
    steps.append((2, [data[0] + data[1]]))
    assert steps[-1][1][0] == sum(values), steps
    return steps


def draw_sums(values, png):
    """02's block 0, element by element: the row of its 8 ints, then what each grid of the chain
    adds to which element (the arrows), down to g_odata[0]."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, Rectangle

    steps = halving_steps(values)
    n = len(values)
    fig, ax = plt.subplots(figsize=(13, 1.25 * (len(steps) + 1) + 0.4))
    rows = [("block 0's idata[0 .. 7],\nas the host wrote them", list(values), n, None)]
    grids = ["host's grid, block 0: <<<4, 8>>>"] + [f"child <<<1, {i}>>>" for i, _ in steps[1:]]
    for (isize, data), who in zip(steps, grids):
        half = isize // 2
        text = (f"{who}:\nthread t < {half} adds idata[t + {half}] onto idata[t]" if isize > 2
                else f"{who}:\nthread 0 writes idata[0] + idata[1] to g_odata[0]")
        rows.append((text, data, half if isize > 2 else 1, isize))
    for r, (text, data, live, isize) in enumerate(rows):
        y = -1.25 * r
        ax.text(n + 0.3, y, text, fontsize=9, va="center")
        for i, v in enumerate(data):
            active = i < live
            ax.add_patch(Rectangle((i, y - 0.3), 0.9, 0.6, linewidth=0.8, edgecolor="#333333",
                                   facecolor=("#fdae6b" if isize == 2 else "#9ecae1") if active
                                   and isize else "#f0f0f0" if not active else "#d9d9d9"))
            ax.text(i + 0.45, y, str(v), ha="center", va="center", fontsize=9,
                    color="#000000" if active else "#999999")
        if isize:  # arrows from the row above: element t + half, and t itself, into element t
            half = isize // 2
            for t in range(half):
                for src in (t, t + half):
                    ax.add_patch(FancyArrowPatch((src + 0.45, y + 0.93), (t + 0.45, y + 0.32),
                                                 arrowstyle="-|>", mutation_scale=8,
                                                 color="#555555", linewidth=0.7))
    ax.set_xlim(-0.3, n + 6.2)
    ax.set_ylim(-1.25 * (len(rows) - 1) - 0.5, 1.0)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.text(0.5, 0.02, f"The sum {sum(values)} is built in place in the first elements; grey "
             "ones are no longer read. Every block of 02 does this on its own 512 ints.",
             ha="center", fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def check_document_counts():
    nested = sum(len(c) for c in nested_reduce_launches(2048, 512))
    nested2 = len(nested_reduce2_launches(512))
    assert (nested, nested2) == (16384, 8), (nested, nested2)
    return nested, nested2


def draw(grid, block, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    chains = nested_reduce_launches(grid, block)
    levels = nested_reduce2_launches(block)
    depth = max(len(chains[0]), len(levels)) + 1
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 1.6 * depth + 1.6),
                                      gridspec_kw={"width_ratios": [3, 2.6]})

    def box(ax, x, y, w, text, colour):
        ax.add_patch(FancyBboxPatch((x - w / 2, y - 0.28), w, 0.56, boxstyle="round,pad=0.04",
                                    facecolor=colour, edgecolor="#333333", linewidth=0.8))
        ax.text(x, y, text, ha="center", va="center", fontsize=11)

    def arrow(ax, x0, y0, x1, y1, text=""):
        ax.add_patch(FancyArrowPatch((x0, y0 - 0.32), (x1, y1 + 0.32), arrowstyle="-|>",
                                     mutation_scale=10, color="#555555", linewidth=0.8))
        if text:
            ax.text((x0 + x1) / 2 + 0.08, (y0 + y1) / 2, text, fontsize=10.5, color="#555555",
                    va="center")

    host, child, last = "#d9d9d9", "#9ecae1", "#fdae6b"

    def row(k):
        """The height of the k-th grid of a chain (0: the host's)."""
        return -0.08 - 1.5 * k

    def grid_box(ax, x0, x1, y, text, colour):
        """A whole grid: a frame around its blocks, its configuration above them."""
        ax.add_patch(FancyBboxPatch((x0, y - 0.42), x1 - x0, 1.02, boxstyle="round,pad=0.02",
                                    facecolor="white", edgecolor=colour, linewidth=1.6))
        ax.text((x0 + x1) / 2, y + 0.43, text, ha="center", va="center", fontsize=10.5)

    # 02 and 03: the host's grid, then one chain of child grids under each parent block.
    left.set_title(f"02, 03: gpuRecursiveReduce(Nosync), grid {grid} x block {block}\n"
                   f"each parent block's thread 0 starts its own chain: "
                   f"{sum(len(c) for c in chains)} device-side launches", fontsize=13)
    grid_box(left, -0.5, grid - 0.5, 0, f"host: <<<{grid}, {block}>>>, block b reduces "
             f"idata[{block}b .. {block}b+{block - 1}]", "#777777")
    for b, chain in enumerate(chains):
        box(left, b, -0.08, 0.85, f"block {b}\n{block} elements", host)
        for k, threads in enumerate(chain):
            end = k == len(chain) - 1
            box(left, b, row(k + 1), 0.85, f"<<<1, {threads}>>>" + (
                f"\n→ g_odata[{b}]" if end else f"\n{threads} elements"), last if end else child)
            arrow(left, b, -0.2 if k == 0 else row(k), b, row(k + 1), "thread 0" if b == 0 else "")
    left.set_xlim(-0.7, grid - 0.3)
    # 04: one grid per level, launched by thread 0 of block 0 for every block.
    right.set_title(f"04: gpuRecursiveReduce2, grid {grid}, --block {block}\n"
                    f"each block reduces {block} elements, as in 02 and 03,\n"
                    f"with half the threads ({block // 2});\nblock 0's thread 0 launches each "
                    f"level for all blocks:\n{len(levels)} device-side launches", fontsize=13)
    configs = [(block // 2, "host")] + [(t, "block 0, thread 0 (tail launch)") for t in levels]
    for k, (threads, who) in enumerate(configs):
        end = k == len(configs) - 1
        y = row(k)
        grid_box(right, -0.5, grid - 0.5, y, f"{'host: ' if k == 0 else ''}<<<{grid}, {threads}>>>,"
                 f" iStride {threads}" + (f", iDim {block}" if k == 0 else "") +
                 (": block b → g_odata[b]" if end else ""), "#777777")
        for b in range(grid):
            box(right, b, y - 0.02, 0.85, f"block {b}\n{block} elements" if k == 0 else
                f"block {b}", host if k == 0 else last if end else child)
        if k > 0:
            arrow(right, 0, row(k - 1) - 0.2, 0, y + 0.25, who)
    right.set_xlim(-0.7, grid + 0.9)
    for ax in (left, right):
        ax.set_ylim(row(depth - 1) - 0.7, 1.0)
        ax.axis("off")
    fig.text(0.5, 0.02, "At the document's size, grid 2048 × block 512: 2048 chains of 8 launches "
             "= 16384 for 02 and 03,\none chain of 8 for 04 (its nvprof counts). 03's --tail form "
             "and 04 put each child in the tail-launch stream:\nit starts only when the grid that "
             "launched it is complete.", ha="center", fontsize=13)
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def draw_loops(lengths, png):
    """The document's first section (循环的并行化), whose pictures the repost lost: an outer loop
    over s whose inner loop runs lengths[s] times. Left, one thread per inner loop, its iterations
    one after another; right, each parent thread launches a child grid of lengths[s] threads (07)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, Rectangle

    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6))
    titles = ("without dynamic parallelism: one thread per inner loop",
              "with it: a child grid per inner loop")
    for panel, (ax, title) in enumerate(zip(axes, titles)):
        ax.set_title(title, fontsize=10)
        for s, length in enumerate(lengths):
            y = -1.6 * s
            ax.add_patch(Rectangle((0, y - 0.3), 1.9, 0.8, facecolor="#d9d9d9",
                                   edgecolor="#333333", linewidth=0.6))
            ax.text(0.95, y + 0.1, f"thread s={s}", ha="center", va="center", fontsize=7)
            if panel == 0:  # the thread runs its iterations itself, one after another
                for i in range(length):
                    ax.add_patch(Rectangle((2.3 + i, y - 0.2), 0.9, 0.6, facecolor="#9ecae1",
                                           edgecolor="#333333", linewidth=0.6))
                    ax.text(2.75 + i, y + 0.1, str(i), ha="center", va="center", fontsize=7)
                ax.text(2.5 + length, y + 0.1, f"{length} steps", va="center", fontsize=7)
            else:  # the thread launches <<<length threads>>>: the iterations side by side
                ax.add_patch(FancyArrowPatch((1.9, y + 0.1), (2.9, y + 0.1), arrowstyle="-|>",
                                             mutation_scale=10, color="#555555", linewidth=0.8))
                ax.add_patch(Rectangle((3.05, y - 0.65), 0.9 * length + 0.3, 1.5, fill=False,
                                       edgecolor="#777777", linewidth=1.2))
                for i in range(length):
                    ax.add_patch(Rectangle((3.2 + 0.9 * i, y - 0.45), 0.8, 1.1,
                                           facecolor="#fdae6b", edgecolor="#333333",
                                           linewidth=0.6))
                    ax.text(3.6 + 0.9 * i, y + 0.1, str(i), ha="center", va="center", fontsize=7)
                ax.text(3.5 + 0.9 * length, y + 0.1, f"child grid: {length} threads, one step",
                        va="center", fontsize=7)
        ax.set_xlim(-0.2, 14.3)
        ax.set_ylim(-1.6 * (len(lengths) - 1) - 1.0, 1.0)
        ax.axis("off")
    fig.text(0.5, 0.02, "An inner loop whose length depends on the outer loop (lengths drawn: "
             + ", ".join(map(str, lengths)) + "); 07 runs it with a child grid per segment.",
             ha="center", fontsize=8)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--png", required=True)
    p.add_argument("--hello-png", help="also draw 01's launches at the document's size here")
    p.add_argument("--sums-png", help="also draw 02's block 0 element by element here")
    p.add_argument("--loops-png", help="also draw the document's loop section (07) here")
    p.add_argument("--grid", type=int, default=4, help="parent blocks drawn")
    p.add_argument("--block", type=int, default=8, help="elements per parent block, a power of two")
    args = p.parse_args()
    nested, nested2 = check_document_counts()
    print(f"grid 2048 x block 512: {nested} and {nested2} device-side launches, as in the document")
    draw(args.grid, args.block, args.png)
    check_hello_counts()
    if args.hello_png:
        draw_hello(args.hello_png)
    if args.sums_png:
        draw_sums([3, 1, 4, 1, 5, 9, 2, 6], args.sums_png)
    if args.loops_png:
        draw_loops([3, 7, 2, 5], args.loops_png)


if __name__ == "__main__":
    main()
