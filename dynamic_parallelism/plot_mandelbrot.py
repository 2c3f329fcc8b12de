#!/usr/bin/env python3
"""Turns 06_mandelbrot_mariani_silver's CSV into the chapter README's table and a plot of the time
of each form against the image's size: the flat kernel, and Mariani–Silver driven from the host
and with dynamic parallelism (the same algorithm: their ratio is what dynamic parallelism itself
costs or saves), and the tail-launched levels where the CSV has that form. The CSV is a --sweep's
(one row per size) or the GPU check's, several runs of each size appended (--n N --csv, each in a
process of its own): then each time is the middle run's.

    build/bin/06_mandelbrot_mariani_silver --sweep --csv > dynamic_parallelism/data/mandelbrot.csv
    python3 dynamic_parallelism/plot_mandelbrot.py dynamic_parallelism/data/mandelbrot.csv \\
        --env dynamic_parallelism/data/env.txt --png dynamic_parallelism/mandelbrot.png

--readme RESULTS.md rewrites the table between its mandelbrot-table markers; readme_numbers.py
writes the same table there, and the plot into the README. The plot needs matplotlib; without it the plot is
skipped with a message and the table is still written.
"""
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scripts"))
import report  # noqa: E402  (scripts/report.py: what every chapter's plot script shares)


FORMS = ("flat", "mariani_silver", "host_driven", "tail_levels")


def load(path):
    """The CSV's rows, one per image size, smallest first. Where it holds several runs of a size
    (the GPU check runs each size three times, each in its own process), each form's time is the
    middle of those runs' medians, and `runs` says how many there were; the tree and the counts
    are the same in every run (they are checked against the CPU)."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    by_size = {}
    for r in rows:
        by_size.setdefault(int(r["n"]), []).append(r)
    merged = []
    for n in sorted(by_size):
        runs = by_size[n]
        row = dict(runs[0], runs=str(len(runs)))
        for form in FORMS:
            column = f"{form}_ms"
            if row.get(column):
                row[column] = f"{statistics.median(float(r[column]) for r in runs):.6f}"
        merged.append(row)
    return merged


def table(rows):
    """The README's table; with the tail-launched levels' column where the CSV has that form, and
    a line saying how many runs each time is the middle of where there were several."""
    tail = all(r.get("tail_levels_ms") for r in rows)
    lines = ["| image | flat: ms | Mariani–Silver, host-driven: ms | Mariani–Silver, dynamic "
             "parallelism: ms | dynamic parallelism ÷ host-driven | dynamic parallelism ÷ flat "
             + ("| Mariani–Silver, tail-launched levels: ms | tail-launched levels ÷ "
                "host-driven " if tail else "")
             + "| launches: from the device, from the host | pixels filled from a border | dwell "
             "steps, Mariani–Silver ÷ flat | filled pixels off their escape time |",
             "|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if tail else "")]
    for r in rows:
        flat, host = float(r["flat_ms"]), float(r["host_driven_ms"])
        dp = float(r["mariani_silver_ms"])
        filled = 100 * int(r["filled_pixels"]) / int(r["pixels"])
        steps = int(r["mariani_silver_steps"]) / max(1, int(r["flat_steps"]))
        levels = (f"{float(r['tail_levels_ms']):.4f} | "
                  f"{float(r['tail_levels_ms']) / host:.2f} | " if tail else "")
        lines.append(f"| {r['n']} × {r['n']} | {flat:.4f} | {host:.4f} | {dp:.4f} | "
                     f"{dp / host:.2f} | {dp / flat:.2f} | {levels}{r['launches']}, "
                     f"{r['host_levels']} | {filled:.0f}% | {steps:.2f} | "
                     f"{r['fill_mismatches']} |")
    text = "\n".join(lines) + "\n"
    runs = {r.get("runs", "1") for r in rows}
    if runs != {"1"}:
        text += (f"\nEach time is the middle of {' or '.join(sorted(runs))} runs of its size, each "
                 f"in a process of its own.\n")
    return text


def plot(rows, png, env):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: plot skipped (pip install matplotlib)")
        return
    sides = [int(r["n"]) for r in rows]
    flat = [float(r["flat_ms"]) for r in rows]
    host = [float(r["host_driven_ms"]) for r in rows]
    dp = [float(r["mariani_silver_ms"]) for r in rows]
    fig, ax = plt.subplots(figsize=(8.5, 5))
    ax.plot(sides, flat, "o-", label="flat: one thread per pixel")
    ax.plot(sides, host, "^-", label="Mariani–Silver, host-driven: a launch per level")
    ax.plot(sides, dp, "s-", label="Mariani–Silver, dynamic parallelism")
    if all(r.get("tail_levels_ms") for r in rows):
        ax.plot(sides, [float(r["tail_levels_ms"]) for r in rows], "v--",
                label="Mariani–Silver, tail-launched levels")
    for s, h, d, r in zip(sides, host, dp, rows):
        ax.annotate(f"{d / h:.2f}× host-driven\n{r['launches']} launches", (s, d),
                    textcoords="offset points", xytext=(0, -26 if d < h else 8), ha="center",
                    fontsize=7)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(sides)
    ax.set_xticklabels([f"{s}²" for s in sides])
    ax.set_xlabel(f"image (pixels), max dwell {rows[0]['max_dwell']}")
    ax.set_ylabel("ms (median, log scale)")
    ax.set_title("The Mandelbrot set by image size: dynamic parallelism against\nthe same "
                 "algorithm driven from the host, and the flat kernel", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.suptitle(env or "06_mandelbrot_mariani_silver --sweep", fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main():
    parser = report.parser(__doc__)
    args = report.parse_args(parser)
    rows = load(args.csv)
    text = table(rows)
    print(text)
    if args.readme:
        report.update_readme(args.readme, text, "mandelbrot-table")
    if args.png:
        plot(rows, args.png, report.describe_env(args.env))


if __name__ == "__main__":
    main()
