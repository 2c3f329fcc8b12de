#!/usr/bin/env python3
"""Turns 03_reduction_by_key_benchmark's CSV into the chapter README's results tables and a plot.

    build/bin/03_reduction_by_key_benchmark --csv > results.csv
    python3 warp_aggregation/plot_benchmark.py results.csv --png warp_aggregation/benchmark_h200.png \
        --readme warp_aggregation/README.md --env env.txt

--readme rewrites the tables between the README's benchmark markers; --env names a file holding the
run's date, `nvidia-smi --query-gpu=name,driver_version,... --format=csv` and `nvcc --version`
output (scripts/gpu_check.sh writes it). The plot needs matplotlib; without it the plot is skipped
with a message and the tables are still written. The CSV's columns: precision, order, variant, n,
ms (median), gb_per_s and pct_of_peak (the fewest bytes that variant must move, `bytes`, over the
median), vs_atomicadd, vs_cas, vs_cub_sorted (speed-ups; empty without a baseline, and
vs_cub_sorted for sorted rows only), ms_min, ms_max (the fastest and slowest run), bins, bytes. A
CSV from before ms_min, bins and bytes were added still works: without the spread.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scripts"))
import report  # noqa: E402  (scripts/report.py: what every chapter's plot script shares)


ORDERS = ["sorted", "partially sorted", "random"]
PRECISIONS = ["float", "double"]
WARP_VARIANTS = ["warp get_peers", "warp get_peers + CAS", "warp match_any",
                 "warp segmented scan 4/lane", "warp segmented scan 8/lane"]


def load(path):
    rows = {}
    variants = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            rows[(row["precision"], row["order"], row["variant"])] = row
            if row["variant"] not in variants:
                variants.append(row["variant"])
    return rows, variants


def ratio(row, key):
    """A speed-up from the CSV, or None where it has no baseline (an empty field; older CSVs
    wrote 0)."""
    value = row.get(key, "")
    return float(value) if value not in ("", None) and float(value) > 0 else None


def fmt_ratio(row, key, suffix=""):
    r = ratio(row, key)
    return "–" if r is None else f"{r:.2f}{suffix}"


def ms_cell(row):
    """The median ms, with the fastest and slowest run when the CSV has them."""
    cell = f"{float(row['ms']):.4f}"
    if row.get("ms_min") and row.get("ms_max"):
        cell += f" [{float(row['ms_min']):.4f}–{float(row['ms_max']):.4f}]"
    return cell


def count_label(x):
    """10000000 -> 10^7; other counts as they are."""
    x = int(x)
    k = len(str(x)) - 1
    return f"10^{k}" if x == 10 ** k else str(x)


def best_warp(rows, precision, order):
    found = [rows[(precision, order, v)] for v in WARP_VARIANTS if (precision, order, v) in rows]
    return min(found, key=lambda r: float(r["ms"])) if found else None


def tables(rows, variants, env):
    first = next(iter(rows.values()))
    spread = "ms_min" in first
    bins = f" summed into {first['bins']} bins" if first.get("bins") else ""
    lines = [f"Measured {env}." if env else "",
             f"n = {first['n']} values{bins}; each cell: median ms"
             + (" [fastest–slowest of the runs]" if spread else "")
             + " · speed-up over native atomicAdd (above 1: faster) · over the atomicCAS loop.",
             ""]
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
                             f"{ms_cell(r)} · {fmt_ratio(r, 'vs_atomicadd', '×')} · "
                             f"{fmt_ratio(r, 'vs_cas', '×')}")
            lines.append(f"| {v} | " + " | ".join(cells) + " |")
        lines.append("")
    lines.append("Best warp variant (peer search and atomics included):")
    lines.append("")
    lines.append("| type | order | variant | ms | % of peak | × atomicAdd | × atomicCAS loop | "
                 "× CUB ReduceByKey (sorted) |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for precision in PRECISIONS:
        for o in ORDERS:
            r = best_warp(rows, precision, o)
            if r is None:
                continue
            cub_cell = fmt_ratio(r, "vs_cub_sorted") if o == "sorted" else "–"
            lines.append(f"| {precision} | {o} | {r['variant']} | {ms_cell(r)} | "
                         f"{float(r['pct_of_peak']):.1f} | {fmt_ratio(r, 'vs_atomicadd')} | "
                         f"{fmt_ratio(r, 'vs_cas')} | {cub_cell} |")
    return "\n".join(lines).strip() + "\n"


def plot(rows, variants, png, env):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: plot skipped (pip install matplotlib)")
        return
    first = next(iter(rows.values()))
    what = f"{count_label(first['n'])} values"
    if first.get("bins"):
        what += f" into {count_label(first['bins'])} bins"
    fig, axes = plt.subplots(1, 2, figsize=(15, 6.5), sharey=True)
    width = 0.8 / len(variants)
    for ax, precision in zip(axes, PRECISIONS):
        for j, v in enumerate(variants):
            found = [rows.get((precision, o, v)) for o in ORDERS]
            values = [float(r["ms"]) if r else 0 for r in found]
            # The bar is the median; the whisker runs from the fastest to the slowest run.
            err = None
            if all(r is None or r.get("ms_min") for r in found):
                err = [[float(r["ms"]) - float(r["ms_min"]) if r else 0 for r in found],
                       [float(r["ms_max"]) - float(r["ms"]) if r else 0 for r in found]]
            ax.bar([i + j * width for i in range(len(ORDERS))], values, width, label=v,
                   yerr=err, error_kw={"elinewidth": 0.8, "capsize": 1.5})
        ax.set_xticks([i + width * (len(variants) - 1) / 2 for i in range(len(ORDERS))])
        ax.set_xticklabels(ORDERS)
        ax.set_yscale("log")
        ax.set_title(f"{precision}: {what}")
        ax.grid(axis="y", which="both", alpha=0.3)
    whiskers = ", whiskers fastest to slowest" if "ms_min" in first else ""
    axes[0].set_ylabel(f"ms (median{whiskers}; log scale; lower is faster)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=8, frameon=False)
    fig.suptitle(env or "03_reduction_by_key_benchmark")
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main():
    parser = report.parser(__doc__)
    args = report.parse_args(parser)
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
