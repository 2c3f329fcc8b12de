#!/usr/bin/env python3
"""Turns 10_99_benchmark's CSV into the chapter's results table, its spreads and a plot.

    build/bin/10_99_benchmark --csv > ch10_reduction/data/benchmark.csv
    python3 ch10_reduction/plot_benchmark.py ch10_reduction/data/benchmark.csv \
        --env ch10_reduction/data/env.txt --png ch10_reduction/benchmark.png \
        --readme ch10_reduction/README.md --results ch10_reduction/RESULTS.md

--readme rewrites the README's results table (GB/s per size, % of the read ceiling and speed
against CUB at the largest size) between its results-table markers, and its provenance line
between the provenance markers; --results rewrites the full table (median, fastest and slowest
run, GB/s and speed against CUB at every size) between RESULTS.md's spread-table markers and its
provenance line. --env names the run's env.txt (date, nvidia-smi and nvcc output, as
scripts/gpu_check.sh writes it): the provenance gives the GPU, driver, CUDA version and date. The
plot needs matplotlib; without it the plot is skipped with a message and the tables are still
written.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scripts"))
import report  # noqa: E402  (scripts/report.py: what every chapter's plot script shares)

# The rows in the chapter's order: the figures, the COARSE_FACTOR sweep of Fig 10.15 (8 is the
# programs' default), the programs beyond the book, and CUB, which the ratios refer to.
ORDER = ["read ceiling", "10_06 per segment", "10_09 per segment", "10_11 per segment",
         "10_13_segmented_sum"] + [f"10_15 COARSE_FACTOR={f}" for f in (1, 2, 4, 8, 16, 32, 64)] + [
         "10_91_warp_shuffle_sum", "10_92_vectorized_sum", "10_94_deterministic_sum",
         "10_93_cub_sum"]
# The bars of the plot: the progression, one COARSE_FACTOR (the sweep has its own panel).
BARS = ["read ceiling", "10_06 per segment", "10_09 per segment", "10_11 per segment",
        "10_13_segmented_sum", "10_15 COARSE_FACTOR=8", "10_91_warp_shuffle_sum",
        "10_92_vectorized_sum", "10_94_deterministic_sum", "10_93_cub_sum"]


def load(path):
    rows = {}  # (kernel, n) -> row
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            rows[(row["kernel"], int(row["n"]))] = row
    sizes = sorted({n for _, n in rows})
    kernels = [k for k in ORDER if any((k, n) in rows for n in sizes)]
    kernels += sorted({k for k, _ in rows} - set(kernels))
    return rows, sizes, kernels


def size_label(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def readme_table(rows, sizes, kernels):
    last = sizes[-1]
    head = ("| kernel | " + " | ".join(f"GB/s at {size_label(n)}" for n in sizes) +
            f" | % of read ceiling at {size_label(last)} | × CUB at {size_label(last)} |")
    lines = [head, "|---" * (len(sizes) + 3) + "|"]
    for k in kernels:
        cells = [f"{float(rows[(k, n)]['gb_per_s']):.0f}" if (k, n) in rows else "–" for n in sizes]
        r = rows.get((k, last))
        cells.append(f"{float(r['pct_of_read_ceiling']):.1f}%" if r else "–")
        cells.append(f"{float(r['speed_vs_cub']):.2f}" if r else "–")
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def spread_table(rows, sizes, kernels):
    head = "| kernel | " + " | ".join(
        f"{size_label(n)}: ms median [fastest–slowest] · GB/s · × CUB" for n in sizes) + " |"
    lines = [head, "|---" * (len(sizes) + 1) + "|"]
    for k in kernels:
        cells = []
        for n in sizes:
            r = rows.get((k, n))
            cells.append("–" if r is None else
                         f"{float(r['ms']):.4f} [{float(r['ms_min']):.4f}–{float(r['ms_max']):.4f}]"
                         f" · {float(r['gb_per_s']):.0f} · {float(r['speed_vs_cub']):.3f}")
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(rows, sizes, png, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: plot skipped (pip install matplotlib)")
        return
    fig, (bars, sweep) = plt.subplots(1, 2, figsize=(15, 5.5), gridspec_kw={"width_ratios": [3, 2]})
    kernels = [k for k in BARS if any((k, n) in rows for n in sizes)]
    width = 0.8 / len(sizes)
    for j, n in enumerate(sizes):
        values = [float(rows[(k, n)]["gb_per_s"]) if (k, n) in rows else 0 for k in kernels]
        bars.bar([i + j * width for i in range(len(kernels))], values, width,
                 label=f"n = {size_label(n)}")
    bars.set_xticks([i + width * (len(sizes) - 1) / 2 for i in range(len(kernels))])
    bars.set_xticklabels(kernels, rotation=30, ha="right", fontsize=8)
    bars.set_ylabel("GB/s (4 bytes per input, read once)")
    bars.set_title("Chapter 10 kernels")
    # Headroom above the tallest bar, so that the legend, in one row at the top, covers no bar.
    tallest = max(float(rows[(k, n)]["gb_per_s"]) for k in kernels for n in sizes if (k, n) in rows)
    bars.set_ylim(0, tallest * 1.18)
    bars.legend(loc="upper center", ncol=len(sizes))
    factors = sorted({int(k.split("=")[1]) for k, _ in rows if k.startswith("10_15 ")})
    for n in sizes:
        sweep.plot(factors, [float(rows[(f"10_15 COARSE_FACTOR={f}", n)]["gb_per_s"])
                             for f in factors], marker="o", label=f"Fig 10.15, n = {size_label(n)}")
        sweep.axhline(float(rows[("10_93_cub_sum", n)]["gb_per_s"]), linestyle=":", color="gray")
    sweep.set_xscale("log", base=2)
    sweep.set_xticks(factors, [str(f) for f in factors])
    sweep.set_xlabel("COARSE_FACTOR")
    sweep.set_ylabel("GB/s")
    sweep.set_title("Coarsening sweep (dotted: CUB at each size)")
    sweep.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main():
    parser = report.parser(__doc__)
    parser.add_argument("--results", help="rewrite the spread table of this RESULTS.md")
    args = report.parse_args(parser)
    rows, sizes, kernels = load(args.csv)
    table = readme_table(rows, sizes, kernels)
    print(table)
    for doc, marker, text in ((args.readme, "results-table", table),
                              (args.results, "spread-table", spread_table(rows, sizes, kernels))):
        if doc:
            report.update_readme(doc, text, marker)
            report.update_provenance(doc, args.env, args.csv)
    if args.png:
        env = report.describe_env(args.env)
        plot(rows, sizes, args.png, env or "10_99_benchmark")


if __name__ == "__main__":
    main()
