#!/usr/bin/env python3
"""Draws the active threads of Figs 10.6 and 10.9, step by step and warp by warp.

    python3 ch10_reduction/draw_active_threads.py --kernel 10_06 \
        --png ch10_reduction/active_threads_10_06.png [--n 256] [--bin build/bin]

--kernel 10_06 or 10_09 draws that kernel alone (the README shows each under its own figure);
without it the two are drawn side by side.

One row per iteration of each kernel's loop, labelled "step k (stride s)" with step 1 first, as
the programs count; one square per thread of the block, the warps side by side. The index
arithmetic is the kernels' and divergence_analysis.h's, line for line:
  Fig 10.6 (count_simple_sum):     stride = 1, 2, 4, ... <= blockDim.x;
                                   active: t % stride == 0 && 2t + stride < n
  Fig 10.9 (count_convergent_sum): stride = blockDim.x, ..., 2, 1;
                                   active: t < stride && t + stride < n
with blockDim.x = single_block_threads(n), the smallest power of two >= n/2. A warp with at least
one active thread occupies all 32 lanes (the book's execution resources consumed). With --bin, the
script runs the two programs (they print their counts before they look for a GPU) and stops if
their counts differ from the ones drawn. The colours are the chapter's (draw_figures.py): blue, a
thread that adds; orange, an idle lane of a busy warp (consumed, does nothing); light grey, a warp
with no active thread (consumes nothing).
"""
import argparse
import os
import re
import subprocess

from draw_figures import ADDS, IDLE_LANE, NO_WORK

WARP = 32


def single_block_threads(n):
    threads = 1
    while 2 * threads < n:
        threads *= 2
    return threads


def simple_steps(n):
    threads = single_block_threads(n)
    stride = 1
    while stride <= threads:
        yield stride, [t % stride == 0 and 2 * t + stride < n for t in range(threads)]
        stride *= 2


def convergent_steps(n):
    threads = single_block_threads(n)
    stride = threads
    while stride >= 1:
        yield stride, [t < stride and t + stride < n for t in range(threads)]
        stride //= 2


def counts(steps):
    """(additions, lanes consumed): the book's execution-resource efficiency, counted."""
    committed = consumed = 0
    for _, active in steps:
        committed += sum(active)
        consumed += WARP * sum(any(active[w:w + WARP]) for w in range(0, len(active), WARP))
    return committed, consumed


def check_against_programs(bin_dir, n):
    for program, steps in (("10_06_simple_sum", simple_steps), ("10_09_convergent_sum",
                                                                convergent_steps)):
        out = subprocess.run([f"{bin_dir}/{program}", "--n", str(n)], capture_output=True,
                             text=True).stdout
        printed = re.search(r"execution-resource efficiency (\d+)/(\d+)", out)
        drawn = counts(steps(n))
        if not printed or tuple(map(int, printed.groups())) != drawn:
            raise SystemExit(f"{program} --n {n} prints {printed and printed.group(0)!r}, "
                             f"the drawing counts {drawn[0]}/{drawn[1]}")
        print(f"{program} --n {n}: {drawn[0]}/{drawn[1]}, as drawn")


PANELS = {"10_06": ("Fig 10.6: thread t owns input[2t], stride doubles", simple_steps),
          "10_09": ("Fig 10.9: thread t owns input[t], stride halves", convergent_steps)}


def draw(n, png, kernels):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    threads = single_block_threads(n)
    warps = (threads + WARP - 1) // WARP
    panels = [(PANELS[k][0], list(PANELS[k][1](n))) for k in kernels]
    rows = max(len(steps) for _, steps in panels)
    gap = 3  # columns between warps
    width = threads + gap * (warps - 1)
    colours = {"active": ADDS, "idle lane": IDLE_LANE, "warp idle": NO_WORK}
    alone = len(panels) == 1
    fig, axes = plt.subplots(1, len(panels), figsize=(7.5 * len(panels), 0.42 * rows + 2.4),
                             squeeze=False)
    axes = axes[0]
    for ax, (title, steps) in zip(axes, panels):
        for row, (stride, active) in enumerate(steps):
            busy_warps = 0
            for w in range(warps):
                lanes = active[w * WARP:(w + 1) * WARP]
                busy = any(lanes)
                busy_warps += busy
                for lane, on in enumerate(lanes):
                    colour = colours["active" if on else "idle lane" if busy else "warp idle"]
                    x = w * (WARP + gap) + lane
                    ax.add_patch(Rectangle((x, -row - 1), 1, 0.8, facecolor=colour, linewidth=0))
            ax.text(-2, -row - 0.6, f"step {row + 1} (stride {stride})", ha="right", va="center",
                    fontsize=8)
            warp_count = f"{busy_warps} warp{'s' if busy_warps != 1 else ''}"
            adds = f"{sum(active)} add{'s' if sum(active) != 1 else ''}"
            ax.text(width + 2, -row - 0.6, f"{adds}, {warp_count} busy",
                    ha="left", va="center", fontsize=8)
        for w in range(warps):
            ax.text(w * (WARP + gap) + WARP / 2, 0.3, f"warp {w}", ha="center", fontsize=8)
        committed, consumed = counts(steps)
        ax.set_title(f"{title}\n{committed} additions / {consumed} lanes consumed = "
                     f"{100 * committed / consumed:.1f}% of the lanes do work", fontsize=10)
        ax.set_xlim(-30, width + 26)
        ax.set_ylim(-rows - 0.5, 1.2)
        ax.axis("off")
    fig.legend(handles=[Patch(color=c, label=l) for l, c in
                        (("active thread: adds", colours["active"]),
                         ("idle lane of a busy warp: consumed, does nothing",
                          colours["idle lane"]),
                         ("warp with no active thread: consumes nothing", colours["warp idle"]))],
               loc="lower center", ncol=1 if alone else 3, fontsize=9, frameon=False)
    what = f"Fig 10.{int(kernels[0][3:])}'s kernel" if alone else "the single-block kernels"
    fig.suptitle(f"Active threads of {what}, N = {n} ({threads} threads, {warps} warps), "
                 "one row per step", fontsize=11)
    fig.tight_layout(rect=(0, 0.12 if alone else 0.06, 1, 1))
    if os.path.dirname(png):
        os.makedirs(os.path.dirname(png), exist_ok=True)
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--png", required=True)
    p.add_argument("--n", type=int, default=256, help="elements (the book's example: 256)")
    p.add_argument("--kernel", choices=sorted(PANELS), help="draw this kernel alone")
    p.add_argument("--bin", help="folder of the built programs, to check the counts against")
    args = p.parse_args()
    if args.bin:
        check_against_programs(args.bin, args.n)
    # The counts need no matplotlib: checked before it is looked for.
    try:
        import matplotlib  # noqa: F401  (only asked whether it is there)
    except ImportError:
        print("matplotlib is not installed: picture skipped (pip install matplotlib)")
        return
    draw(args.n, args.png, [args.kernel] if args.kernel else sorted(PANELS))


if __name__ == "__main__":
    main()
