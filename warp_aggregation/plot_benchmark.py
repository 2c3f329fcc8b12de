#!/usr/bin/env python3
"""Turns 03_reduction_by_key_benchmark's CSV into the chapter README's results tables and a plot.

    build/bin/03_reduction_by_key_benchmark --csv > results.csv
    python3 warp_aggregation/plot_benchmark.py results.csv --png warp_aggregation/benchmark_h200.png \
        --readme warp_aggregation/README.md --env env.txt

--readme rewrites the tables between the README's benchmark markers; --env names a file holding the
run's date, `nvidia-smi --query-gpu=name,driver_version,... --format=csv` and `nvcc --version`
output (scripts/gpu_check.sh writes it). The plot needs matplotlib; without it the plot is skipped
with a message and the tables are still written.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scripts"))
import report  # noqa: E402  (scripts/report.py: what every chapter's plot script shares)


ORDERS = ["sorted", "partially sorted", "random"]
PRECISIONS = ["float", "double"]
WARP_VARIANTS = ["warp get_peers", "warp get_peers + CAS", "warp match_any"]


def load(path):
    rows = {}
    variants = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            rows[(row["precision"], row["order"], row["variant"])] = row
            if row["variant"] not in variants:
                variants.append(row["variant"])
    return rows, variants


def best_warp(rows, precision, order):
    found = [rows[(precision, order, v)] for v in WARP_VARIANTS if (precision, order, v) in rows]
    return min(found, key=lambda r: float(r["ms"])) if found else None


def tables(rows, variants, env):
    n = next(iter(rows.values()))["n"]
    lines = [f"Measured {env}." if env else "",
             f"n = {n} values; each cell: median ms · speed-up over native atomicAdd "
             "(above 1: faster) · over the atomicCAS loop.", ""]
    for precision in PRECISIONS:
        if not any(p == precision for p, _, _ in rows):
            continue
        lines.append(f"**{precision}**")
        lines.append("")
        lines.append("| variant | " + " | ".join(ORDERS) + " |")
        lines.append("|---" * (len(ORDERS) + 1) + "|")
        for v in variants:
            cells = []
            for o in ORDERS:
                r = rows.get((precision, o, v))
                cells.append("–" if r is None else
                             f"{float(r['ms']):.4f} · {float(r['vs_atomicadd']):.2f}× · "
                             f"{float(r['vs_cas']):.2f}×")
            lines.append(f"| {v} | " + " | ".join(cells) + " |")
        lines.append("")
    lines.append("Best warp variant (peer search and atomics included):")
    lines.append("")
    lines.append("| type | order | variant | ms | × atomicAdd | × atomicCAS loop | "
                 "× CUB ReduceByKey (sorted) |")
    lines.append("|---|---|---|---|---|---|---|")
    for precision in PRECISIONS:
        for o in ORDERS:
            r = best_warp(rows, precision, o)
            if r is None:
                continue
            cub = float(r["vs_cub_sorted"])
            cub_cell = f"{cub:.2f}" if cub > 0 and o == "sorted" else "–"
            lines.append(f"| {precision} | {o} | {r['variant']} | {float(r['ms']):.4f} | "
                         f"{float(r['vs_atomicadd']):.2f} | {float(r['vs_cas']):.2f} | "
                         f"{cub_cell} |")
    return "\n".join(lines).strip() + "\n"


def plot(rows, variants, png, env):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: plot skipped (pip install matplotlib)")
        return
    fig, axes = plt.subplots(1, 2, figsize=(15, 6.5), sharey=True)
    width = 0.8 / len(variants)
    for ax, precision in zip(axes, PRECISIONS):
        for j, v in enumerate(variants):
            values = [float(rows[(precision, o, v)]["ms"]) if (precision, o, v) in rows else 0
                      for o in ORDERS]
            ax.bar([i + j * width for i in range(len(ORDERS))], values, width, label=v)
        ax.set_xticks([i + width * (len(variants) - 1) / 2 for i in range(len(ORDERS))])
        ax.set_xticklabels(ORDERS)
        ax.set_yscale("log")
        ax.set_title(f"{precision}: 10^7 values into 10^6 bins")
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[0].set_ylabel("ms (median, log scale; lower is faster)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=8, frameon=False)
    fig.suptitle(env or "03_reduction_by_key_benchmark")
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main():
    parser = report.parser(__doc__)
    args = parser.parse_args()
    rows, variants = load(args.csv)
    env = report.describe_env(args.env)
    text = tables(rows, variants, env)
    print(text)
    if args.readme:
        report.update_readme(args.readme, text)
    if args.png:
        plot(rows, variants, args.png, env)


if __name__ == "__main__":
    main()
