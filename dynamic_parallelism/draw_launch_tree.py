#!/usr/bin/env python3
"""Draws the launch trees of the nested reductions: 02/03 (a chain of child grids per parent block)
against 04 (one grid per level for all blocks).

    python3 dynamic_parallelism/draw_launch_tree.py --png dynamic_parallelism/launch_tree.png \
        [--grid 4] [--block 8]

The launches are the kernels' own recursion, step for step:
  02, 03 (gpuRecursiveReduce, ...Nosync): a block reducing isize elements, isize > 2, has thread 0
      launch <<<1, isize / 2>>> on its lower half; at isize == 2 it writes g_odata[block] instead
      (nested_reduce_launches() counts the same);
  04 (gpuRecursiveReduce2): the host launches <<<grid, block / 2>>> with iStride = block / 2; while
      iStride > 1, thread 0 of block 0 launches <<<gridDim.x, iStride / 2>>>; at iStride == 1
      each block writes g_odata[block] (nested_reduce2_launches() counts the same).
The script checks its counts against the document's nvprof figures at its size (grid 2048, block
512: 16384 device-side launches for 02 and 03, 8 for 04).
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
                                      gridspec_kw={"width_ratios": [3, 2]})

    def box(ax, x, y, w, text, colour):
        ax.add_patch(FancyBboxPatch((x - w / 2, y - 0.28), w, 0.56, boxstyle="round,pad=0.04",
                                    facecolor=colour, edgecolor="#333333", linewidth=0.8))
        ax.text(x, y, text, ha="center", va="center", fontsize=8)

    def arrow(ax, x0, y0, x1, y1, text=""):
        ax.add_patch(FancyArrowPatch((x0, y0 - 0.32), (x1, y1 + 0.32), arrowstyle="-|>",
                                     mutation_scale=10, color="#555555", linewidth=0.8))
        if text:
            ax.text((x0 + x1) / 2 + 0.08, (y0 + y1) / 2, text, fontsize=7, color="#555555",
                    va="center")

    host, child, last = "#d9d9d9", "#9ecae1", "#fdae6b"

    def row(k):
        """The height of the k-th grid of a chain (0: the host's)."""
        return -0.08 - 1.5 * k

    def grid_box(ax, x0, x1, y, text, colour):
        """A whole grid: a frame around its blocks, its configuration above them."""
        ax.add_patch(FancyBboxPatch((x0, y - 0.42), x1 - x0, 0.9, boxstyle="round,pad=0.02",
                                    facecolor="white", edgecolor=colour, linewidth=1.6))
        ax.text((x0 + x1) / 2, y + 0.36, text, ha="center", va="center", fontsize=8)

    # 02 and 03: the host's grid, then one chain of child grids under each parent block.
    left.set_title(f"02, 03: gpuRecursiveReduce(Nosync), grid {grid} x block {block}\n"
                   f"each parent block's thread 0 starts its own chain: "
                   f"{sum(len(c) for c in chains)} device-side launches", fontsize=10)
    grid_box(left, -0.5, grid - 0.5, 0, f"host: <<<{grid}, {block}>>>, block b reduces "
             f"idata[{block}b .. {block}b+{block - 1}]", "#777777")
    for b, chain in enumerate(chains):
        box(left, b, -0.08, 0.85, f"block {b}: {block} elements", host)
        for k, threads in enumerate(chain):
            end = k == len(chain) - 1
            box(left, b, row(k + 1), 0.85, f"<<<1, {threads}>>>" + (
                f"\n→ g_odata[{b}]" if end else f"\n{threads} elements"), last if end else child)
            arrow(left, b, -0.2 if k == 0 else row(k), b, row(k + 1), "thread 0" if b == 0 else "")
    left.set_xlim(-0.7, grid - 0.3)
    # 04: one grid per level, launched by thread 0 of block 0 for every block.
    right.set_title(f"04: gpuRecursiveReduce2, grid {grid} x block {block // 2}, iDim {block}:\n"
                    f"each block reduces {block} elements, as in 02 and 03, with half the threads;"
                    f"\nblock 0's thread 0 launches each level for all blocks: "
                    f"{len(levels)} device-side launches", fontsize=10)
    configs = [(block // 2, "host")] + [(t, "block 0, thread 0 (tail launch)") for t in levels]
    for k, (threads, who) in enumerate(configs):
        end = k == len(configs) - 1
        y = row(k)
        grid_box(right, -0.5, grid - 0.5, y, f"{'host: ' if k == 0 else ''}<<<{grid}, {threads}>>>,"
                 f" iStride {threads}" + (f", iDim {block}" if k == 0 else "") +
                 (": block b → g_odata[b]" if end else ""), "#777777")
        for b in range(grid):
            box(right, b, y - 0.02, 0.85, f"block {b}", host if k == 0 else last if end else child)
        if k > 0:
            arrow(right, 0, row(k - 1) - 0.2, 0, y + 0.25, who)
    right.set_xlim(-0.7, grid + 0.9)
    for ax in (left, right):
        ax.set_ylim(row(depth - 1) - 0.7, 0.9)
        ax.axis("off")
    fig.text(0.5, 0.02, "At the document's size, grid 2048 × block 512: 2048 chains of 8 launches "
             "= 16384 for 02 and 03, one chain of 8 for 04 (its nvprof counts). 03's --tail form "
             "and 04 put each child in the tail-launch stream: it starts only when the grid that "
             "launched it is complete.", ha="center", fontsize=8, wrap=True)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--png", required=True)
    p.add_argument("--grid", type=int, default=4, help="parent blocks drawn")
    p.add_argument("--block", type=int, default=8, help="elements per parent block, a power of two")
    args = p.parse_args()
    nested, nested2 = check_document_counts()
    print(f"grid 2048 x block 512: {nested} and {nested2} device-side launches, as in the document")
    draw(args.grid, args.block, args.png)


if __name__ == "__main__":
    main()
