#!/usr/bin/env python3
"""Turns 03_reduction_by_key_benchmark's CSV (and its Nsight Compute export) into the chapter's
results tables and two plots: every variant's time, and the blog's comparison as speed-ups
(--png benchmark.png also writes benchmark_speedup.png beside it).

    build/bin/03_reduction_by_key_benchmark --csv > warp_aggregation/data/benchmark.csv
    python3 warp_aggregation/plot_benchmark.py warp_aggregation/data/benchmark.csv \
        --env warp_aggregation/data/env.txt --png warp_aggregation/benchmark.png \
        --results warp_aggregation/RESULTS.md \
        --ncu warp_aggregation/data/h200/ncu_sorted_double.csv

--results rewrites RESULTS.md's spread table (both types: every cell's median, fastest and slowest
run, and the speed-ups), its table of the fastest warp variant of each order, and its provenance
line, and with --ncu (ncu --csv --page raw of
`03_reduction_by_key_benchmark --order sorted --precision double --reps 1`, as
scripts/gpu_check.sh runs it) its two Nsight Compute tables. The only export committed is the
H200's of 2026-11-23, data/h200/ncu_sorted_double.csv (an earlier build, before the L2 flush became
a read); RESULTS.md says so beside the tables, and a new export goes to data/. --env names the
run's env.txt (date, nvidia-smi and nvcc output, as scripts/gpu_check.sh writes it; the text output
of a run that begins with the `date` command's line does too). The plot needs matplotlib; without
it the plot is skipped with a message and the tables are still written.

The CSV's columns: precision, order, variant, n, ms (median), gb_per_s and pct_of_peak (the
fewest bytes that variant must move, `bytes`, over the median; % of the device's theoretical peak,
2 x memory clock x bus width), vs_atomicadd, vs_cas, vs_cub_sorted (speed-ups; empty without a
baseline, and vs_cub_sorted for sorted rows only; the tables here divide the medians themselves,
so that a ratio is rounded once), ms_min, ms_max (the fastest and slowest run), bins, bytes, and
keys_per_warp (the order's distinct keys per warp, on average; absent in older runs).
"""
import csv
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scripts"))
import report  # noqa: E402  (scripts/report.py: what every chapter's plot script shares)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from readme_numbers import provenance  # noqa: E402  (with the commit of data/sources.txt)


ORDERS = ["sorted", "partially sorted", "random"]
PRECISIONS = ["float", "double"]
WARP_VARIANTS = ["warp get_peers", "warp get_peers + CAS", "warp match_any",
                 "cg labeled_partition", "warp segmented scan 4/lane",
                 "warp segmented scan 8/lane"]


def load(path):
    rows = {}
    variants = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            rows[(row["precision"], row["order"], row["variant"])] = row
            if row["variant"] not in variants:
                variants.append(row["variant"])
    return rows, variants


BASELINES = {"vs_atomicadd": "atomicAdd", "vs_cas": "atomicCAS loop",
             "vs_cub_sorted": "CUB ReduceByKey"}


def ratio(rows, row, key):
    """The speed-up of `row` over the baseline that the CSV's column `key` names: the baseline's
    median over the row's, both as the CSV holds them, or None where the run has no baseline row.
    Computed here from the medians, not read from the column, so that every ratio the README and
    RESULTS.md print is rounded once (a column's 0.9950 would round to 0.99 where the medians'
    0.995001 rounds to 1.00, as the program's own summary prints it)."""
    base = rows.get((row["precision"], row["order"], BASELINES[key]))
    return float(base["ms"]) / float(row["ms"]) if base else None


def fmt_ratio(rows, row, key, suffix=""):
    r = ratio(rows, row, key)
    return "–" if r is None else f"{r:.2f}{suffix}"


def count_label(x):
    """10000000 -> 10^7; other counts as they are."""
    x = int(x)
    k = len(str(x)) - 1
    return f"10^{k}" if x == 10 ** k else f"{x:,}"


def best_warp(rows, precision, order):
    found = [rows[(precision, order, v)] for v in WARP_VARIANTS if (precision, order, v) in rows]
    return min(found, key=lambda r: float(r["ms"])) if found else None


def variant_grid(rows, variants, cell):
    """Per precision measured, a table of variant by key order: cell(row) for each measurement,
    "–" where there is none."""
    lines = []
    for precision in PRECISIONS:
        if not any(p == precision for p, _, _ in rows):
            continue
        lines += [f"**{precision}**", "", "| variant | " + " | ".join(ORDERS) + " |",
                  "|---" * (len(ORDERS) + 1) + "|"]
        for v in variants:
            cells = [cell(rows[precision, o, v]) if (precision, o, v) in rows else "–"
                     for o in ORDERS]
            lines.append(f"| {v} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def best_table(rows, peak):
    """RESULTS.md: the fastest warp variant of each order and type, with its share of the peak."""
    lines = ["The fastest warp variant of each order (its peer search and atomics included); the "
             "bytes it must", f"move at least, as a share of the {peak} GB/s theoretical peak:", "",
             f"| type | order | variant | ms | % of {peak} GB/s | × atomicAdd | × atomicCAS loop "
             "| × CUB ReduceByKey |", "|---|---|---|---|---|---|---|---|"]
    for precision in PRECISIONS:
        for o in ORDERS:
            r = best_warp(rows, precision, o)
            if r is None:
                continue
            cub_cell = fmt_ratio(rows, r, "vs_cub_sorted") if o == "sorted" else "–"
            lines.append(f"| {precision} | {o} | {r['variant']} | {float(r['ms']):.4f} | "
                         f"{float(r['pct_of_peak']):.1f} | {fmt_ratio(rows, r, 'vs_atomicadd')} | "
                         f"{fmt_ratio(rows, r, 'vs_cas')} | {cub_cell} |")
    return "\n".join(lines) + "\n"


def spread_table(rows, variants, peak):
    lines = ["Each cell: median ms [fastest–slowest run] · GB/s (the fewest bytes the variant must "
             "move) ·", f"% of the {peak} GB/s theoretical peak · × atomicAdd · × atomicCAS loop.",
             ""]
    lines += variant_grid(rows, variants,
                          lambda r: f"{float(r['ms']):.4f} [{float(r['ms_min']):.4f}–"
                                    f"{float(r['ms_max']):.4f}] · {float(r['gb_per_s']):.0f} · "
                                    f"{float(r['pct_of_peak']):.1f}% · "
                                    f"{fmt_ratio(rows, r, 'vs_atomicadd', '×')} · "
                                    f"{fmt_ratio(rows, r, 'vs_cas', '×')}")
    return "\n".join(lines).strip() + "\n"


# ---------------------------------------------------------------------------------------------
# Nsight Compute: `ncu --csv --page raw` of the benchmark on sorted keys in double, --reps 1. Every
# variant's kernel runs 4 times (the checked launch, 2 warm-ups, the timed one), in the benchmark's
# order; a variant is a run of launches of one kernel, and the table shows its last launch.

def template_args(name):
    """The template arguments of a demangled kernel name: 'void warp_kernel<1, 0, double>(...)' ->
    ['1', '0', 'double']."""
    found = re.match(r"void \w+<([^<>]*)>", name)
    return [a.strip() for a in found.group(1).split(",")] if found else []


def kernel_variant(name, seen):
    """The benchmark's variant of a profiled kernel. warp_kernel runs twice per search: first
    aggregating, then (given masks) searching alone. ncu names an enum template argument by its
    value (per_value_kernel<1, double>: Atomic::kCas; warp_kernel<1, 0, double>: Search::kMatchAny,
    Atomic::kNative), or as '(Atomic)1' or 'Atomic::kCas' in other demanglers' spelling. An export
    made before masks_given_kernel took its Atomic (masks_given_kernel<double>) names the native
    one."""
    args = template_args(name)

    def is_one(i, enum, one):
        return len(args) > i and args[i] in ("1", f"({enum})1", f"{enum}::{one}")

    if name.startswith("void per_value_kernel<"):
        return "atomicCAS loop" if is_one(0, "Atomic", "kCas") else "atomicAdd"
    if name.startswith("void warp_kernel<"):
        cas = is_one(1, "Atomic", "kCas")
        match_any = is_one(0, "Search", "kMatchAny")
        search = "match_any" if match_any else "get_peers"
        if cas:
            return "warp get_peers + CAS"
        return f"{search} search only" if seen.get(name, 0) else f"warp {search}"
    if name.startswith("void masks_given_kernel<"):
        return "reduce_peers masks given" + (" + CAS" if is_one(0, "Atomic", "kCas") else "")
    found = re.match(r"void segmented_scan_kernel<(\d+),", name)
    if found:
        return f"warp segmented scan {found.group(1)}/lane"
    if "DeviceReduceByKeyKernel" in name:
        return "CUB ReduceByKey"
    return name


def load_ncu(path):
    """[(variant, {metric: value})], the last launch of each variant, in the benchmark's order."""
    with open(path, newline="") as f:
        lines = [line for line in f if not line.startswith("==")]
    table = list(csv.reader(lines))
    header, launches = table[0], table[2:]  # the second row holds the units
    runs, seen = [], {}
    for launch in launches:
        values = dict(zip(header, launch))
        name = values["Kernel Name"]
        if runs and runs[-1][0] == name:
            runs[-1][1] = values
        else:
            runs.append([name, values])
            seen_before = dict(seen)
            seen[name] = seen.get(name, 0) + 1
            runs[-1].append(kernel_variant(name, seen_before))
    return [(variant, values) for _, values, variant in runs]


def metric(values, name, fmt="{:.1f}", scale=1.0):
    raw = values.get(name, "").replace(",", "")
    if raw in ("", "n/a"):
        return "–"
    return fmt.format(float(raw) * scale)


def ncu_tables(path):
    kernels = load_ncu(path)
    lines = ["| variant | duration µs | L2 throughput % | DRAM throughput % | DRAM read MB | "
             "DRAM written MB | issue slots busy % | ALU pipe % | warps active % |",
             "|---|---|---|---|---|---|---|---|---|"]
    for variant, v in kernels:
        lines.append(
            f"| {variant} | {metric(v, 'gpu__time_duration.sum', scale=1e-3)} | "
            f"{metric(v, 'lts__throughput.avg.pct_of_peak_sustained_elapsed')} | "
            f"{metric(v, 'dram__throughput.avg.pct_of_peak_sustained_elapsed')} | "
            f"{metric(v, 'dram__bytes_read.sum', scale=1e-6)} | "
            f"{metric(v, 'dram__bytes_write.sum', scale=1e-6)} | "
            f"{metric(v, 'sm__inst_issued.avg.pct_of_peak_sustained_active')} | "
            f"{metric(v, 'sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active')} | "
            f"{metric(v, 'sm__warps_active.avg.pct_of_peak_sustained_active')} |")
    stalls = ["long_scoreboard", "short_scoreboard", "wait", "math_pipe_throttle", "mio_throttle",
              "lg_throttle"]
    lines += ["", "| variant | eligible warps per cycle | cycles per instruction | "
              + " | ".join(s.replace("_", " ") for s in stalls) + " |",
              "|---" * (len(stalls) + 3) + "|"]
    for variant, v in kernels:
        cells = [metric(v, f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio")
                 for s in stalls]
        eligible = metric(v, "smsp__warps_eligible.avg.per_cycle_active", "{:.2f}")
        cycles = metric(v, "smsp__average_warp_latency_per_inst_issued.ratio")
        lines.append(f"| {variant} | {eligible} | {cycles} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(rows, variants, png, title):
    """A dot per variant and order (the median, a bar from the fastest to the slowest run) on a
    logarithmic time axis: dots, not bars, since a bar's length on a log axis means nothing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("matplotlib is not installed: plot skipped (pip install matplotlib)")
        return
    first = next(iter(rows.values()))
    what = f"{count_label(first['n'])} values into {count_label(first['bins'])} bins"
    markers = {"sorted": "o", "partially sorted": "s", "random": "^"}
    shades = {"sorted": "#1b5e20", "partially sorted": "#1565c0", "random": "#c62828"}
    # One panel above the other, at a README column's width (about 950 px at 100 dpi).
    fig, axes = plt.subplots(2, 1, figsize=(9.5, 0.56 * len(variants) + 3.0), sharex=True)
    for ax, precision in zip(axes, PRECISIONS):
        for j, order in enumerate(ORDERS):
            found = [(i, rows.get((precision, order, v))) for i, v in enumerate(variants)]
            found = [(i, r) for i, r in found if r]
            y = [i + (j - 1) * 0.22 for i, _ in found]
            ms = [float(r["ms"]) for _, r in found]
            err = [[m - float(r["ms_min"]) for m, (_, r) in zip(ms, found)],
                   [float(r["ms_max"]) - m for m, (_, r) in zip(ms, found)]]
            ax.errorbar(ms, y, xerr=err, fmt=markers[order], color=shades[order], ms=5,
                        elinewidth=0.8, capsize=1.5, label=order)
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(
            lambda x, _: f"{x:g}" if f"{x:.0e}"[0] in "235" else ""))
        ax.tick_params(axis="x", which="minor", labelsize=7)
        ax.tick_params(axis="x", which="both", labelbottom=True)  # both panels: sharex hides it
        ax.set_title(f"{precision}: {what}")
        ax.grid(axis="x", which="both", alpha=0.3)
        for i in range(len(variants)):
            ax.axhline(i + 0.5, color="#dddddd", lw=0.6)
        ax.set_yticks(range(len(variants)))
        ax.set_yticklabels(variants)
        ax.invert_yaxis()  # the first variant on top
    axes[-1].set_xlabel("ms (median, bar from the fastest to the slowest run; log scale; left is "
                        "faster)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, title="key order", loc="lower center", ncol=3, fontsize=9,
               frameon=False)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(png, dpi=100)
    print(f"wrote {png}")


# The blog's Figure 1, rebuilt: its baseline (the atomicCAS loop, Kepler's and Maxwell's only
# double add), its alternative (hashing), its own bar (its warp reduction from stored masks, adding
# with the loop: masks given + CAS), the same with the search included (get_peers + CAS) and with
# native atomics (masks given), and today's two: aggregation with __match_any_sync (the README's
# headline) and native atomicAdd. A run without a variant's rows (masks given + CAS before 03 timed
# it) leaves its bar out.
BLOG_VARIANTS = ["atomicCAS loop", "shared-memory hashing", "reduce_peers masks given + CAS",
                 "warp get_peers + CAS", "reduce_peers masks given", "warp match_any", "atomicAdd"]
# The words after a bar's name (the name itself is the printed row's): the blog's three bars, on a
# shaded band, and today's two.
BLOG_LABELS = {"atomicAdd": " (today)", "warp match_any": " (today)",
               "atomicCAS loop": "\n(the blog's baseline)",
               "shared-memory hashing": "\n(the blog's alternative)",
               "reduce_peers masks given + CAS": "\n(the blog's own bar)"}
BLOG_OWN = ["atomicCAS loop", "shared-memory hashing", "reduce_peers masks given + CAS"]
BLOG_ORDERS = ["sorted", "partially sorted"]


def speedup_png(png):
    """benchmark.png -> benchmark_speedup.png, beside it."""
    root, ext = os.path.splitext(png)
    return f"{root}_speedup{ext or '.png'}"


def speedup_bars(rows):
    """The bars of the blog's comparison: (the variants shown, in BLOG_VARIANTS' order, and
    [(variant, order, speed-up over the atomicCAS loop)]), double, for every variant and order the
    run has with its loop's row; a variant without any such row is not shown."""
    bars = []
    for variant in BLOG_VARIANTS:
        for order in BLOG_ORDERS:
            cas, r = (rows.get(("double", order, v)) for v in ("atomicCAS loop", variant))
            if cas and r:
                bars.append((variant, order, float(cas["ms"]) / float(r["ms"])))
    shown = [v for v in BLOG_VARIANTS if any(b[0] == v for b in bars)]
    return shown, bars


def plot_speedup(rows, png, title):
    """The blog's comparison alone: speed-up over the atomicCAS loop, double, sorted and partially
    sorted keys, one bar per variant (a linear axis, so a bar's length is the speed-up)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: plot skipped (pip install matplotlib)")
        return
    shades = {"sorted": "#1b5e20", "partially sorted": "#1565c0"}
    shown, bars = speedup_bars(rows)
    fig, ax = plt.subplots(figsize=(9.5, 1.0 + 0.55 * max(len(shown), 1)))
    for v in BLOG_OWN:  # the blog's own three bars, on a grey band
        if v in shown:
            i = shown.index(v)
            ax.axhspan(i - 0.5, i + 0.5, color="#e6e6e6", zorder=0,
                       label="the blog's three bars" if v == next(b for b in BLOG_OWN
                                                              if b in shown) else None)
    top, labelled = 0.0, set()
    for variant, order, x in bars:
        top = max(top, x)
        y = shown.index(variant) + (BLOG_ORDERS.index(order) - 0.5) * 0.38
        ax.barh(y, x, height=0.36, color=shades[order],
                label=None if order in labelled else order)
        labelled.add(order)
        ax.text(x, y, f" {x:.2f}×", va="center", fontsize=8)
    ax.axvline(1.0, color="#555555", lw=0.8)
    ax.set_xlim(0, top * 1.15 if top else 1)  # the longest bar's label; the legend, top right
    ax.set_yticks(range(len(shown)))
    ax.set_yticklabels([v + BLOG_LABELS.get(v, "") for v in shown])
    ax.invert_yaxis()
    ax.set_xlabel("speed-up over the atomicCAS loop, double (median over median; right is faster)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=9, loc="upper right", facecolor="white", framealpha=1,
              edgecolor="0.8")  # beside the short top bars; white, for the grey swatch
    count = {5: "Five", 6: "Six", 7: "Seven"}.get(len(shown), str(len(shown)))
    ax.set_title(f"{count} kernels' speed-up over the atomicCAS loop, double (the "
                 f"blog's Figure 1 rebuilt)\n{title}", fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    print(f"wrote {png}")


def main():
    parser = report.parser(__doc__)
    parser.add_argument("--results", help="rewrite the spread table of this RESULTS.md")
    parser.add_argument("--ncu", help="with --results: the Nsight Compute export for its tables")
    args = report.parse_args(parser)
    rows, variants = load(args.csv)
    peak = report.peak_gbps(rows.values(), args.csv, args.env)
    if args.readme:
        # The README's numbers are readme_numbers.py's; its every variant's times, this script's
        # table, stand in RESULTS.md's spread table.
        parser.error("--readme: the README holds no block of this script's (its table of every "
                     "variant is RESULTS.md's spread table: --results)")
    if args.results:
        report.update_readme(args.results, spread_table(rows, variants, peak), "spread-table")
        report.update_readme(args.results, best_table(rows, peak), "best-table")
        report.update_readme(args.results, provenance(args.env, args.csv, args.results) + "\n",
                             "provenance")
        if args.ncu:
            report.update_readme(args.results, ncu_tables(args.ncu), "ncu-tables")
    if args.png:
        title = report.describe_env(args.env) or "03_reduction_by_key_benchmark"
        plot(rows, variants, args.png, title)
        plot_speedup(rows, speedup_png(args.png), title)


if __name__ == "__main__":
    main()
