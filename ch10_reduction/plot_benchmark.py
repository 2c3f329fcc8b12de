#!/usr/bin/env python3
"""Turns 10_99_benchmark's CSV into the chapter README's results table and a plot.

    build/bin/10_99_benchmark --csv > results.csv
    python3 ch10_reduction/plot_benchmark.py results.csv --png ch10_reduction/benchmark_h200.png \
        --readme ch10_reduction/README.md --env env.txt

--readme rewrites the table between the README's benchmark markers; --env names a file holding
the run's date, `nvidia-smi --query-gpu=name,driver_version,... --format=csv` and `nvcc --version`
output (scripts/gpu_check.sh writes it). The plot needs matplotlib; without it the plot is skipped
with a message and the table is still written.
"""
import csv
import os
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scripts"))
import report  # noqa: E402  (scripts/report.py: what every chapter's plot script shares)


# The progression shown in the table and the bar chart; the COARSE_FACTOR sweep gets its own panel.
PROGRESSION = [
    "read ceiling", "10_06 per segment", "10_09 per segment", "10_11 per segment",
    "10_13_segmented_sum", "10_15 COARSE_FACTOR=8", "10_91_warp_shuffle_sum",
    "10_92_vectorized_sum", "10_94_deterministic_sum", "10_93_cub_sum",
]


def load(path):
    rows = OrderedDict()  # (kernel, n) -> row
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            rows[(row["kernel"], int(row["n"]))] = row
    sizes = sorted({n for _, n in rows})
    return rows, sizes


def size_label(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def table(rows, sizes, env):
    kernels = [k for k in PROGRESSION if any((k, n) in rows for n in sizes)]
    kernels += sorted({k for k, _ in rows if k.startswith("10_15 ") and k not in kernels},
                      key=lambda k: int(k.split("=")[1]))
    head = "| kernel | " + " | ".join(f"{size_label(n)}: ms [min–max] · GB/s · ×CUB" for n in sizes)
    head += f" | {size_label(sizes[-1])}: % of read ceiling |"
    lines = [f"Measured {env}." if env else "", "", head,
             "|---" * (len(sizes) + 2) + "|"]
    for k in kernels:
        cells = []
        for n in sizes:
            r = rows.get((k, n))
            spread = f" [{float(r['ms_min']):.4f}–{float(r['ms_max']):.4f}]" if r and "ms_min" in r else ""
            cells.append("–" if r is None else
                         f"{float(r['ms']):.4f}{spread} · {float(r['gb_per_s']):.0f} · {float(r['speed_vs_cub']):.3f}")
        last = rows.get((k, sizes[-1]))
        cells.append("–" if last is None else f"{float(last['pct_of_read_ceiling']):.1f}%")
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(lines).strip() + "\n"


def plot(rows, sizes, png, env):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: plot skipped (pip install matplotlib)")
        return
    fig, (bars, sweep) = plt.subplots(1, 2, figsize=(15, 5.5), gridspec_kw={"width_ratios": [3, 2]})
    kernels = [k for k in PROGRESSION if any((k, n) in rows for n in sizes)]
    width = 0.8 / len(sizes)
    for j, n in enumerate(sizes):
        values = [float(rows[(k, n)]["gb_per_s"]) if (k, n) in rows else 0 for k in kernels]
        bars.bar([i + j * width for i in range(len(kernels))], values, width, label=f"n = {size_label(n)}")
    bars.set_xticks([i + width * (len(sizes) - 1) / 2 for i in range(len(kernels))])
    bars.set_xticklabels(kernels, rotation=30, ha="right", fontsize=8)
    bars.set_ylabel("GB/s (4 bytes per input, read once)")
    bars.set_title("Chapter 10 kernels")
    bars.legend()
    factors = sorted({int(k.split("=")[1]) for k, _ in rows if k.startswith("10_15 ")})
    for n in sizes:
        sweep.plot(factors, [float(rows[(f"10_15 COARSE_FACTOR={f}", n)]["gb_per_s"]) for f in factors],
                   marker="o", label=f"Fig 10.15, n = {size_label(n)}")
        sweep.axhline(float(rows[("10_93_cub_sum", n)]["gb_per_s"]), linestyle=":", color="gray")
    sweep.set_xscale("log", base=2)
    sweep.set_xticks(factors, [str(f) for f in factors])
    sweep.set_xlabel("COARSE_FACTOR")
    sweep.set_ylabel("GB/s")
    sweep.set_title("Coarsening sweep (dotted: CUB at each size)")
    sweep.legend(fontsize=8)
    fig.suptitle(env or "10_99_benchmark")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main():
    parser = report.parser(__doc__)
    args = report.parse_args(parser)
    rows, sizes = load(args.csv)
    env = report.describe_env(args.env)
    text = table(rows, sizes, env)
    print(text)
    if args.readme:
        report.update_readme(args.readme, text)
    if args.png:
        plot(rows, sizes, args.png, env)


if __name__ == "__main__":
    main()
