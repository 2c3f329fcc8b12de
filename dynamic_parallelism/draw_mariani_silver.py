#!/usr/bin/env python3
"""Draws the Mariani-Silver subdivision of 06_mandelbrot_mariani_silver at a size small enough to
see each rectangle: the image's dwells, every rectangle the algorithm visits (filled from its
border, cut into 4 x 4 child rectangles, or computed pixel by pixel), and the tree's shape.

    python3 dynamic_parallelism/draw_mariani_silver.py --png dynamic_parallelism/mariani_silver.png

The algorithm is the program's (mariani_silver.h), in Python, with smaller constants so that the
picture shows each rectangle: a 512 x 512 image cut into 4 x 4 rectangles by the host, parts of
at least 8 pixels, at most 4 levels, max dwell 256 (the program: 1024 x 1024, 16 x 16, 16 pixels,
4 levels, 512). The dwells are computed in double precision: a picture, not a reference. It takes
a minute (every pixel's escape time, in Python).
"""
import argparse
import os

X_MIN, Y_MIN, EXTENT = -1.5, -1.0, 2.0
FILLED, CUT, PER_PIXEL = "filled from its border", "cut: a child grid", "computed per pixel"


def dwell(cx, cy, max_dwell):
    x, y, d = cx, cy, 0
    while d < max_dwell:
        xx, yy = x * x, y * y
        if xx + yy > 4.0:
            break
        x, y = xx - yy + cx, 2 * x * y + cy
        d += 1
    return d


def sub_rect(r, i, j, parts):
    x0, y0, x1, y1 = r
    w, h = x1 - x0, y1 - y0
    return (x0 + w * i // parts, y0 + h * j // parts, x0 + w * (i + 1) // parts,
            y0 + h * (j + 1) // parts)


def border(r):
    x0, y0, x1, y1 = r
    pixels = {(x, y0) for x in range(x0, x1)} | {(x, y1 - 1) for x in range(x0, x1)}
    return pixels | {(x0, y) for y in range(y0, y1)} | {(x1 - 1, y) for y in range(y0, y1)}


def subdivide(args):
    """The image the algorithm makes, every rectangle it visits (rect, depth, outcome) and the
    steps it spends, beside the steps of every pixel's escape time."""
    n, step = args.n, EXTENT / args.n
    escape = [[dwell(X_MIN + x * step, Y_MIN + y * step, args.max_dwell) for x in range(n)]
              for y in range(n)]
    visits = []

    def visit(r, depth):
        x0, y0, x1, y1 = r
        if x1 <= x0 or y1 <= y0:
            return 0
        edge = border(r)
        steps = sum(escape[y][x] for x, y in edge)
        if len({escape[y][x] for x, y in edge}) == 1:
            visits.append((r, depth, FILLED))
            return steps
        if (depth + 1 < args.max_depth and (x1 - x0) // args.subdiv >= args.min_size
                and (y1 - y0) // args.subdiv >= args.min_size):
            visits.append((r, depth, CUT))
            return steps + sum(visit(sub_rect(r, i, j, args.subdiv), depth + 1)
                               for j in range(args.subdiv) for i in range(args.subdiv))
        visits.append((r, depth, PER_PIXEL))
        return steps + sum(escape[y][x] for y in range(y0, y1) for x in range(x0, x1))

    whole = (0, 0, n, n)
    ms_steps = sum(visit(sub_rect(whole, i, j, args.init), 0)
                   for j in range(args.init) for i in range(args.init))
    flat_steps = sum(sum(row) for row in escape)
    return escape, visits, flat_steps, ms_steps


def draw(args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    escape, visits, flat_steps, ms_steps = subdivide(args)
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 6.2),
                                      gridspec_kw={"width_ratios": [1.1, 1]})
    left.imshow(escape, cmap="Greys", origin="lower", interpolation="nearest",
                extent=(0, args.n, 0, args.n))
    colors = {FILLED: "#31a354", CUT: "#3182bd", PER_PIXEL: "#e6550d"}
    for (x0, y0, x1, y1), depth, outcome in visits:
        if outcome == FILLED:
            left.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fc=colors[FILLED], alpha=0.35,
                                     ec=colors[FILLED], lw=0.6))
        elif outcome == PER_PIXEL:
            left.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fc=colors[PER_PIXEL], alpha=0.3,
                                     ec="none"))
        else:
            left.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fc="none", ec=colors[CUT],
                                     lw=2.2 - 0.5 * depth))
    left.set_xlim(0, args.n)
    left.set_ylim(0, args.n)
    left.set_xticks([])
    left.set_yticks([])
    left.set_title(f"{args.n} x {args.n}, {args.init} x {args.init} from the host, max dwell "
                   f"{args.max_dwell} (06: 16 x 16, 512): dark = high dwell", fontsize=10)
    left.legend(handles=[Patch(fc=colors[FILLED], alpha=0.5, label=FILLED),
                         Patch(fc="none", ec=colors[CUT], lw=2, label=CUT),
                         Patch(fc=colors[PER_PIXEL], alpha=0.5, label=PER_PIXEL)],
                loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=3, fontsize=8)

    # The tree's shape: rectangles per depth and outcome, as the program prints it.
    right.axis("off")
    rows = []
    for depth in range(args.max_depth):
        counts = [sum(1 for _, d, o in visits if d == depth and o == outcome)
                  for outcome in (FILLED, CUT, PER_PIXEL)]
        if sum(counts):
            side = max(r[2] - r[0] for r, d, _ in visits if d == depth)
            rows.append([f"{depth}" + (" (host)" if depth == 0 else ""), f"{side}",
                         f"{sum(counts)}"] + [f"{c}" for c in counts])
    table = right.table(cellText=rows, colLabels=["depth", "side (px)", "rectangles", "filled",
                                                   "cut", "per pixel"],
                        loc="upper center", cellLoc="center", bbox=(0, 0.55, 1, 0.4))
    table.auto_set_font_size(False)
    table.set_fontsize(9)
    for col, outcome in zip((3, 4, 5), (FILLED, CUT, PER_PIXEL)):
        table[0, col].set_facecolor(colors[outcome])
        table[0, col].set_alpha(0.5)
    launches = sum(1 for _, _, o in visits if o == CUT)
    right.set_title("the tree: one block of threads per rectangle", fontsize=10)
    lines = [f"{launches} device-side launches, one per cut rectangle, each a grid of "
             f"{args.subdiv} x {args.subdiv} = {args.subdiv * args.subdiv} blocks",
             f"a node is a block (thick); a cut has {args.subdiv * args.subdiv} children, the "
             f"host's grid {args.init * args.init}",
             f"(the document's 'large' is over 100); at most {args.max_depth} levels (shallow)",
             "",
             f"dwell steps at these constants (steps, not time): every pixel's escape time "
             f"{flat_steps:,}",
             f"Mariani-Silver (borders and per-pixel rectangles) {ms_steps:,} "
             f"({100 * ms_steps / flat_steps:.0f}%)"]
    for i, line in enumerate(lines):
        right.text(0.0, 0.45 - i * 0.06, line, fontsize=9, transform=right.transAxes)
    fig.suptitle("Mariani-Silver with dynamic parallelism: a rectangle whose border has one dwell "
                 "is filled, any other is cut", fontsize=11)
    fig.tight_layout()
    fig.savefig(args.png, dpi=100)
    print(f"wrote {args.png}: {launches} launches, {len(visits)} rectangles")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--png", required=True, help="write the picture here")
    parser.add_argument("--n", type=int, default=512, help="pixels a side")
    parser.add_argument("--max-dwell", type=int, default=256)
    parser.add_argument("--init", type=int, default=4, help="the host's grid: init x init")
    parser.add_argument("--subdiv", type=int, default=4, help="a cut: subdiv x subdiv parts")
    parser.add_argument("--min-size", type=int, default=8, help="the smallest part a cut makes")
    parser.add_argument("--max-depth", type=int, default=4, help="levels, the host's grid included")
    args = parser.parse_args()
    folder = os.path.dirname(args.png) or "."
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        parser.error(f"cannot create the folder '{folder}' for {args.png}: {e.strerror}")
    draw(args)


if __name__ == "__main__":
    main()
