#!/usr/bin/env python3
"""Draws what happens, and when, when a kernel launches a kernel under today's device runtime
(CDP2): the launch only enqueues the child, the parent runs on, the child starts whenever the
device schedules it, it sees what was written before the launch, and what it writes is seen by a
tail-launched grid and by the host.

    python3 dynamic_parallelism/draw_timeline.py --png dynamic_parallelism/timeline.png

The events are those of the programming guide's rules (CUDA Dynamic Parallelism, and the device
runtime's streams), not a measurement: the gaps between them are not to scale.
"""
import argparse
import os
import textwrap


def draw(png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, Rectangle

    fig, ax = plt.subplots(figsize=(12.5, 8.2))
    ax.set_xlim(0, 100)
    ax.set_ylim(-5.0, 10.6)
    ax.axis("off")

    lanes = {  # y of each lane's centre
        "host": 9.3,
        "thread 0": 7.6,
        "threads 1..": 6.4,
        "child": 4.4,
        "tail": 2.4,
    }
    labels = {
        "host": "host",
        "thread 0": "parent grid,\nthread 0",
        "threads 1..": "parent grid,\nother threads",
        "child": "child grid",
        "tail": "tail-launched\ngrid",
    }
    for name, y in lanes.items():
        ax.text(0.5, y, labels[name], va="center", ha="left", fontsize=11, fontweight="bold")
        ax.plot([11, 99], [y, y], color="0.85", lw=0.8, zorder=0)

    def bar(lane, x0, x1, color, text=""):
        y = lanes[lane]
        ax.add_patch(Rectangle((x0, y - 0.35), x1 - x0, 0.7, color=color, ec="black", lw=0.6))
        if text:
            ax.text((x0 + x1) / 2, y, text, va="center", ha="center", fontsize=10)

    def arrow(x0, y0, x1, y1, color="black", style="-|>", ls="-"):
        ax.add_patch(FancyArrowPatch((x0, y0), (x1, y1), arrowstyle=style, mutation_scale=12,
                                     color=color, lw=1.2, ls=ls))

    def event(n, x, y, dx=0.0, dy=0.62):
        ax.text(x + dx, y + dy, str(n), ha="center", va="center", fontsize=8, color="white",
                bbox=dict(boxstyle="circle,pad=0.18", fc="black", ec="black"))

    # Host: launches the parent, then waits (cudaDeviceSynchronize) and reads.
    bar("host", 12, 18, "#dddddd", "launch")
    bar("host", 88, 98, "#dddddd", "sync, read")
    arrow(17, lanes["host"] - 0.4, 19, lanes["thread 0"] + 0.4)
    # Parent grid: every thread writes, a barrier, thread 0 launches, every thread runs on, exits.
    bar("thread 0", 19, 27, "#9ecae1", "write A")
    bar("threads 1..", 19, 27, "#9ecae1", "write B")
    ax.plot([28, 28], [lanes["threads 1.."] - 0.5, lanes["thread 0"] + 0.5], color="black", lw=2)
    ax.text(28, lanes["thread 0"] + 0.75, "__syncthreads()", ha="center", fontsize=10)
    bar("thread 0", 29, 38, "#fdae6b", "")
    ax.text(33.5, lanes["thread 0"], "child<<<...>>>\ntail<<<...>>>", ha="center", va="center",
            fontsize=8.5)
    bar("thread 0", 38, 50, "#9ecae1", "runs on: write C")
    bar("threads 1..", 29, 53, "#9ecae1", "run on: write D")
    ax.text(50.5, lanes["thread 0"], "exit", va="center", fontsize=10)
    ax.text(53.5, lanes["threads 1.."], "exit", va="center", fontsize=10)
    event(1, 33.5, lanes["thread 0"])
    # The launch takes a slot of the device runtime's pending pool, held until the child and its
    # own children complete, not until the parent does.
    arrow(33.5, lanes["thread 0"] - 0.4, 38, 5.65, color="#d95f0e")
    ax.add_patch(Rectangle((38, 5.1), 32, 0.55, fc="#fff5eb", ec="#d95f0e", lw=0.8, ls="--"))
    ax.text(54, 5.37, "a pool slot, held until the child (and its children) complete",
            ha="center", va="center", fontsize=8.5, color="#a63603")
    event(2, 36.6, 5.37, dy=0)
    arrow(45.5, 5.1, 46, lanes["child"] + 0.4, color="#d95f0e")
    # The child starts whenever it is scheduled: before, during or after the parent's threads.
    bar("child", 46, 70, "#a1d99b", "child runs: reads A, B; writes E")
    event(3, 46, lanes["child"], dy=0.62)
    ax.annotate("", xy=(34, lanes["child"] - 0.6), xytext=(62, lanes["child"] - 0.6),
                arrowprops=dict(arrowstyle="<->", color="0.4", lw=0.8))
    ax.text(48, lanes["child"] - 0.85, "(3) may come anywhere after (1), even after the parent's "
            "threads exit", ha="center", va="top", fontsize=10, color="0.3")
    # The parent grid is complete only when the child is.
    ax.plot([70, 70], [lanes["tail"] - 0.5, lanes["thread 0"] + 0.5], color="#756bb1", lw=1.2,
            ls=":")
    event(4, 70, lanes["thread 0"] + 0.2, dy=0.6)
    ax.text(71, lanes["thread 0"] + 0.95, "parent grid complete\n(its children are)",
            fontsize=10, color="#54278f", va="center")
    # The grid thread 0 launched into cudaStreamTailLaunch starts only then.
    ax.text(13, lanes["tail"], "tail<<<..., cudaStreamTailLaunch>>>, launched at (1), waits "
            "for (4)", va="center", fontsize=10, color="#54278f")
    arrow(62, lanes["tail"], 70.6, lanes["tail"], color="#756bb1", ls="--")
    bar("tail", 71, 86, "#dadaeb", "tail grid: reads E")
    event(5, 71, lanes["tail"], dy=0.62)
    arrow(86, lanes["tail"] + 0.4, 88, lanes["host"] - 0.4)
    event(6, 88, lanes["host"], dy=-0.62)

    # What the child is guaranteed to see, and what not.
    notes = [
        "(1) the launch only enqueues the child: thread 0 runs on at once (nothing in CDP2 waits "
        "for a child)",
        "(2) until it completes, the child holds one slot of cudaLimitDevRuntimePendingLaunchCount "
        "(2048 by default); no slot: the launch fails, and only thread 0 hears of it",
        "(3) the child sees A (thread 0's writes before the launch) and B (the block's, ordered "
        "before the launch by the barrier); C and D, written after (1), it may or may not see",
        "(4) the parent grid is complete only when all its children are; nothing in the parent "
        "can wait for that, or read E",
        "(5) a tail-launched grid starts after (4): it sees E (the continuation of 03, 04, 07)",
        "(6) the host's synchronisation waits for the whole tree: it sees everything",
    ]
    # At 12 points a note of more than 115 characters takes two lines.
    y = 0.95
    for note in notes:
        lines = textwrap.wrap(note, 115, subsequent_indent="     ")
        for line in lines:
            ax.text(1, y, line, fontsize=12, va="center", ha="left")
            y -= 0.5
        y -= 0.12
    ax.set_title("A device-side launch under CUDA 12+ (CDP2): order of events, not to scale",
                 fontsize=14)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--png", required=True, help="write the picture here")
    args = parser.parse_args()
    folder = os.path.dirname(args.png) or "."
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        parser.error(f"cannot create the folder '{folder}' for {args.png}: {e.strerror}")
    draw(args.png)


if __name__ == "__main__":
    main()
