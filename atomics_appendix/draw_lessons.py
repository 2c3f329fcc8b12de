#!/usr/bin/env python3
"""Draws the appendix's lesson pictures, each from what it depicts (no measurement):

    python3 atomics_appendix/draw_lessons.py --out atomics_appendix

  hash_intro.png         A.2.1 (the book's Figs A.1-A.3): a hash function sends each word to a
                         bucket by its first letter; two words of one bucket (avocado, aardvark)
                         collide and are chained in a list, the later one pushed at its head as
                         the programs do (the book's Fig A.3 appends it); a poor hash crowds one
                         bucket.
  lost_push.png          A.2.3 (Figs A.4, A.5): two threads push onto one bucket without a lock;
                         both link to the old head, the second store wins, the first entry floats.
  critical_section.png   A0_lock_litmus: two holders of one lock on two SMs, after a planted racy
                         read (orange) left c in SM 1's L1. The relaxed lock lets the second read
                         that stale copy and lose an increment; with acquire/release it reads the
                         first's write.
  thread_scheduling.png  independent thread scheduling: one warp whose lanes take one lock, before
                         sm_70 (one program counter: the spinning lanes run, the holder never
                         unlocks) and since (each lane its own: the holder runs on and unlocks).

Needs matplotlib.
"""
import argparse
import os
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
except ImportError:
    sys.exit("draw_lessons.py needs matplotlib (pip install matplotlib)")

BLUE, ORANGE, GREEN, RED, GREY = "#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8c8c8c"


def box(ax, x, y, text, w=1.6, h=0.6, color=BLUE, fill=None, size=9):
    ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.02",
                                fc=fill or "white", ec=color, lw=1.5))
    ax.text(x, y, text, ha="center", va="center", fontsize=size, family="monospace")


def arrow(ax, x0, y0, x1, y1, color="black", style="-|>", ls="-", rad=0.0):
    ax.add_patch(FancyArrowPatch((x0, y0), (x1, y1), arrowstyle=style, mutation_scale=12,
                                 color=color, lw=1.4, ls=ls,
                                 connectionstyle=f"arc3,rad={rad}"))


def canvas(width, height, xlim, ylim):
    fig, ax = plt.subplots(figsize=(width, height))
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.axis("off")
    return fig, ax


def hash_intro(path):
    fig, ax = canvas(8, 4.2, (0, 12), (0, 7))
    buckets = [("A", ["aardvark", "avocado"]), ("B", ["bison"]), ("...", []),
               ("S", ["sand", "salt", "sea", "sky"]), ("...", []), ("X", [])]
    ax.text(0.2, 6.6, "hash(word) = its first letter: 26 buckets, each a list of entries",
            fontsize=10)
    for row, (letter, words) in enumerate(buckets):
        y = 5.7 - row * 0.95
        box(ax, 1.0, y, letter, w=0.8, color=GREY)
        x = 1.4
        for i, word in enumerate(words):
            arrow(ax, x, y, x + 0.55, y)
            box(ax, x + 1.35, y, word, w=1.6, color=ORANGE if letter == "A" else BLUE)
            x += 2.15
        if letter not in ("...",):
            ax.text(x + 0.1, y, "NULL" if words or letter == "X" else "", fontsize=8, va="center",
                    color=GREY)
    ax.text(7.4, 5.3, "avocado, then aardvark: they collide;\naardvark, the later one, is pushed at\n"
            "the head of A's list, as the programs do", fontsize=8.5, color=ORANGE)
    ax.text(4.0, 1.0, "a poor hash: S holds many words, X none; a lookup in S walks a long list",
            fontsize=8.5, color=BLUE)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def lost_push(path):
    # The three steps stacked, so that the picture stays under ~900 px wide.
    fig, ax = canvas(6.4, 7.6, (0, 9.5), (0, 16.2))
    panels = [(10.6, "altitude", "1. both threads read the head, altitude (Fig A.4)"),
              (5.4, "avocado", "2. A stores head = avocado"),
              (0.2, "aardvark", "3. B stores head = aardvark (Fig A.5)")]
    for y0, head_to, title in panels:
        ax.text(0.2, y0 + 5.2, title, fontsize=9.5, va="top")
        x0 = 0.2
        box(ax, x0 + 0.8, y0 + 2.6, "head", w=1.2, color=GREY)
        box(ax, x0 + 4.4, y0 + 2.6, "altitude", w=1.6, color=BLUE)
        box(ax, x0 + 2.6, y0 + 3.8, "avocado", w=1.6, color=ORANGE)
        box(ax, x0 + 2.6, y0 + 1.4, "aardvark", w=1.6, color=GREEN)
        ax.text(x0 + 2.6, y0 + 4.35, "thread A's entry", fontsize=7.5, ha="center", color=ORANGE)
        ax.text(x0 + 2.6, y0 + 0.8, "thread B's entry", fontsize=7.5, ha="center", color=GREEN)
        arrow(ax, x0 + 3.4, y0 + 3.8, x0 + 3.7, y0 + 2.85, color=ORANGE)  # avocado.next
        arrow(ax, x0 + 3.4, y0 + 1.4, x0 + 3.7, y0 + 2.35, color=GREEN)  # aardvark.next
        if head_to == "altitude":
            arrow(ax, x0 + 1.4, y0 + 2.6, x0 + 3.6, y0 + 2.6, color=GREY)
        elif head_to == "avocado":
            arrow(ax, x0 + 1.4, y0 + 2.7, x0 + 1.8, y0 + 3.6, color=GREY)
        else:
            arrow(ax, x0 + 1.4, y0 + 2.5, x0 + 1.8, y0 + 1.6, color=GREY)
    ax.text(5.6, 0.2 + 3.8, "avocado floats outside\nthe table: no list reaches\nit; "
            "A3 --no-lock counts these", fontsize=8.5, color=RED, va="center")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def critical_section(path):
    # At most ~900 px wide (8.1 in at 110 dpi), no text under 9 pt: readable in GitHub's column.
    fig, axes = plt.subplots(2, 1, figsize=(8.1, 8.4))
    rows = [("relaxed lock (atomicCAS, atomicExch): an increment lost", False),
            ("acquire/release lock (lock.cuh): both increments kept", True)]
    for ax, (title, ordered) in zip(axes, rows):
        ax.set_xlim(0, 20)
        ax.set_ylim(-0.7, 5.0)
        ax.axis("off")
        ax.set_title(title, fontsize=11.5, loc="left")
        lanes = {"SM 0\nholder 1": 3.4, "L2": 2.0, "SM 1\nholder 2": 0.6}
        for name, y in lanes.items():
            ax.text(0.0, y, name, fontsize=9.5, va="center", color=GREY)
            ax.plot([1.9, 20], [y, y], color="#dddddd", lw=1, zorder=0)
        acq, rel = ("\nacquire", "\nrelease") if ordered else ("", "")
        # The planted racy read, before the lock: orange in both rows (a race, not a result).
        box(ax, 3.3, 0.6, "racy read:\nc = 5 into L1", w=2.6, h=0.9, color=ORANGE, size=9)
        box(ax, 5.7, 3.4, "lock:\nCAS 0->1" + acq, w=2.1, h=1.1, size=9)
        box(ax, 8.2, 3.4, "c = 5+1", w=1.7, h=0.6, size=9)
        box(ax, 10.7, 3.4, "unlock:\nexch 1->0" + rel, w=2.4, h=1.1, size=9)
        box(ax, 9.2, 2.0, "c = 6", w=1.4, h=0.55, color=GREY, size=9)
        box(ax, 12.3, 2.0, "mutex = 0", w=2.2, h=0.55, color=GREY, size=9)
        arrow(ax, 8.3, 3.1, 9.1, 2.3, color=GREY)
        arrow(ax, 10.9, 2.85, 11.9, 2.3, color=GREY)
        ax.text(4.6, 1.15, "spins on the mutex (in the L2)", fontsize=9, color=GREY)
        box(ax, 14.4, 0.6, "lock:\nCAS 0->1" + acq, w=2.1, h=1.1, size=9)
        if ordered:
            box(ax, 16.9, 0.6, "read c = 6\nfrom L2", w=2.3, h=0.9, color=GREEN, size=9)
            box(ax, 19.0, 0.6, "c = 7", w=1.4, h=0.6, size=9)
            arrow(ax, 9.7, 1.75, 16.5, 1.1, color=GREEN, rad=0.1)
            ax.text(13.6, 2.45, "acquire: L1 copies dropped,\nthe release's writes seen",
                    fontsize=9, color=GREEN)
            ax.text(1.9, 4.55, "release: c = 6 reaches the L2 before the mutex reads 0;\n"
                    "no access moves across lock or unlock (compiler or hardware)",
                    fontsize=9, color=BLUE, va="center")
        else:
            box(ax, 16.9, 0.6, "read c = 5\nL1: stale", w=2.3, h=0.9, color=RED, size=9)
            box(ax, 19.0, 0.6, "c = 6", w=1.4, h=0.6, color=RED, size=9)
            arrow(ax, 3.4, 0.05, 16.3, 0.05, color=RED, ls="--", rad=0.0)
            ax.text(9.8, -0.4, "the same line, kept in SM 1's L1 all along", fontsize=9,
                    color=RED, ha="center")
            ax.text(1.9, 4.55, "relaxed: the CAS does not drop SM 1's L1 copy of c;\n"
                    "holder 2 reads the old 5 and writes 6 over holder 1's increment",
                    fontsize=9, color=RED, va="center")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def thread_scheduling(path):
    # Two panels one above the other: at most ~900 px wide, no text under 9 pt.
    fig, axes = plt.subplots(2, 1, figsize=(8.1, 5.6))
    panels = [("before sm_70: one program counter per warp", False),
              ("since sm_70: one per thread (independent thread scheduling)", True)]
    for ax, (title, its) in zip(axes, panels):
        ax.set_xlim(-0.2, 10)
        ax.set_ylim(-0.3, 3.4)
        ax.axis("off")
        ax.set_title(title, fontsize=11, loc="left")
        ax.text(-0.2, 2.6, "lane 0", fontsize=10, va="center")
        ax.text(-0.2, 1.4, "lanes 1-31", fontsize=10, va="center")
        box(ax, 2.1, 2.6, "CAS: won", w=1.4, h=0.55, color=GREEN, size=9)
        box(ax, 2.1, 1.4, "CAS: lost", w=1.4, h=0.55, color=ORANGE, size=9)
        if not its:
            for k in range(4):
                box(ax, 3.7 + 1.3 * k, 1.4, "spin", w=1.0, h=0.55, color=ORANGE, size=9)
            ax.plot([2.9, 9.8], [2.6, 2.6], color=RED, ls=":", lw=1.5)
            ax.text(3.1, 2.95, "waits where the loop's paths meet again: never runs",
                    fontsize=9, color=RED)
            ax.text(-0.2, 0.3, "the warp runs the spinning lanes' path forever;\nlane 0 never "
                    "reaches unlock(): a deadlock inside one warp", fontsize=9.5, color=RED)
        else:
            box(ax, 3.8, 2.6, "c = c + 1", w=1.5, h=0.55, size=9)
            box(ax, 5.5, 2.6, "unlock", w=1.2, h=0.55, color=GREEN, size=9)
            for x in (3.8, 5.5):
                box(ax, x, 1.4, "spin", w=1.0, h=0.55, color=ORANGE, size=9)
            box(ax, 7.5, 1.4, "CAS: lane 1\nwins, ...", w=1.9, h=0.75, color=GREEN, size=9)
            ax.text(-0.2, 0.3, "the scheduler interleaves the two paths: lane 0 runs on and\n"
                    "unlocks; the lanes take the lock one after another", fontsize=9.5,
                    color=GREEN)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                   help="folder for the four PNGs (made where missing)")
    args = p.parse_args()
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        p.error(f"cannot create the folder '{args.out}': {e.strerror}")
    for name, draw in (("hash_intro", hash_intro), ("lost_push", lost_push),
                       ("critical_section", critical_section),
                       ("thread_scheduling", thread_scheduling)):
        draw(os.path.join(args.out, name + ".png"))
        print(f"wrote {os.path.join(args.out, name + '.png')}")


if __name__ == "__main__":
    main()
