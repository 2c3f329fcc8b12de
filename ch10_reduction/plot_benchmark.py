#!/usr/bin/env python3
"""Turns 10_99_benchmark's CSV into the chapter's results table, its spreads and a plot.

    build/bin/10_99_benchmark --csv > ch10_reduction/data/benchmark.csv
    python3 ch10_reduction/plot_benchmark.py ch10_reduction/data/benchmark.csv \
        --env ch10_reduction/data/env.txt --png ch10_reduction/benchmark.png \
        --readme ch10_reduction/README.md --results ch10_reduction/RESULTS.md \
        --second ch10_reduction/data/h100/benchmark.csv \
        --second-env ch10_reduction/data/h100/env.txt

The CSV is the run the README quotes (data/: the H200 run of 2026-11-26), --second a second GPU's
run of the same code, timed the same way (data/h100/: the H100 run of 2026-11-25), each with the
env.txt of its run (date, nvidia-smi and nvcc output, as scripts/gpu_check.sh writes it);
--second-note, if given, is added to the second run's provenance line (what a reader must know
about how that run was measured).
--readme rewrites, in the README: the results table between its results-table markers (% of the
read ceiling of every kernel at every size, the two runs' columns side by side, each size's first
run first), one provenance line per run between the provenance markers, and every number
written inline between <!--ceiling KERNEL[ @2^K]-->...<!--/--> (that kernel's % of the read ceiling
at the largest size or at 2^K), <!--ms KERNEL[ @2^K]-->...<!--/--> (its median time, "2.35 ms"),
<!--us KERNEL[ @2^K]-->...<!--/--> (the same in microseconds to four digits, "2353 µs", "234.0 µs",
so that a reader can divide two of them and find the share) or
<!--ratio KERNEL A / KERNEL B[ @2^K]-->...<!--/--> (A's speed over B's), from the first run; a
marker written <!--ceiling2 ...-->, <!--ms2 ...-->, <!--us2 ...--> or <!--ratio2 ...--> takes its
number from the second run. --results rewrites RESULTS.md's spread tables (median, fastest and slowest run,
GB/s and speed against CUB at every size), one per run, with one provenance line per run, and its
inline numbers, marked as the README's are. The plot (the first run: each kernel's %
of the read ceiling, and the COARSE_FACTOR sweep) needs matplotlib; without it the plot is skipped
with a message and the tables are still written.
"""
import csv
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scripts"))
import report  # noqa: E402  (scripts/report.py: what every chapter's plot script shares)

# The rows in the chapter's order: the figures, the COARSE_FACTOR sweep of Fig 10.15 (8 is the
# programs' default), the programs beyond the book, and CUB, which the ratios refer to.
ORDER = ["read ceiling", "10_06 per slice", "10_09 per slice", "10_11 per slice",
         "10_13_segmented_sum"] + [f"10_15 COARSE_FACTOR={f}" for f in (1, 2, 4, 8, 16, 32, 64)] + [
         "10_91_warp_shuffle_sum", "10_92_vectorized_sum", "10_94_deterministic_sum",
         "10_93_cub_sum"]
# The bars of the plot: the progression, one COARSE_FACTOR (the sweep has its own panel); the read
# ceiling, 100% by definition, is the line they are measured against.
BARS = ["10_06 per slice", "10_09 per slice", "10_11 per slice",
        "10_13_segmented_sum", "10_15 COARSE_FACTOR=8", "10_91_warp_shuffle_sum",
        "10_92_vectorized_sum", "10_94_deterministic_sum", "10_93_cub_sum"]

# 10_99 named the single-block figures' rows "per segment" until they became "per slice" (the
# book's segment is also its 128-byte unit of memory); a CSV written before then is read with the
# new names.
OLD_NAMES = {f"10_{fig} per segment": f"10_{fig} per slice" for fig in ("06", "09", "11")}


def load(path):
    rows = {}  # (kernel, n) -> row
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            row["kernel"] = OLD_NAMES.get(row["kernel"], row["kernel"])
            rows[(row["kernel"], int(row["n"]))] = row
    sizes = sorted({n for _, n in rows})
    kernels = [k for k in ORDER if any((k, n) in rows for n in sizes)]
    kernels += sorted({k for k, _ in rows} - set(kernels))
    return rows, sizes, kernels


def size_label(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def readme_table(runs, labels):
    """% of the read ceiling of every kernel at every size, `runs` as load() returns them, side by
    side: one column per size and run, each size's runs together; the headers name each GPU."""
    sizes = sorted({n for run in runs for n in run[1]})
    kernels = list(runs[0][2]) + [k for run in runs[1:] for k in run[2] if k not in runs[0][2]]
    columns = [(n, run, label) for n in sizes for run, label in zip(runs, labels)]
    head = "| kernel | " + " | ".join(f"{label}: {size_label(n)}" for n, _, label in columns) + " |"
    lines = [head, "|---" * (1 + len(columns)) + "|"]
    for k in kernels:
        cells = [f"{float(run[0][(k, n)]['pct_of_read_ceiling']):.1f}%" if (k, n) in run[0]
                 else "–" for n, run, _ in columns]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


INLINE = re.compile(r"<!--(ceiling|ms|us|ratio)(2?) ([^@>]+?)(?: @2\^(\d+))?-->.*?<!--/-->")


def inline_numbers(text, runs, path):
    """Rewrites every inline number of the README: a marker's number from the first run's rows, or
    from the second's where the marker's kind ends in 2."""
    def value(match):
        kind, second, what, power = match.groups()
        if second and len(runs) < 2:
            sys.exit(f"{path}: {match.group(0)!r}: no second run (--second)")
        rows, sizes = runs[1 if second else 0][:2]
        n = (1 << int(power)) if power else sizes[-1]
        names = [w.strip() for w in what.split(" / ")] if kind == "ratio" else [what.strip()]
        missing = [k for k in names if (k, n) not in rows]
        if missing:
            sys.exit(f"{path}: {match.group(0)!r}: no row for {missing[0]} at n = {n}")
        if kind == "ceiling":
            number = f"{float(rows[(names[0], n)]['pct_of_read_ceiling']):.1f}%"
        elif kind == "ms":
            number = f"{float(rows[(names[0], n)]['ms']):.2f} ms"
        elif kind == "us":
            us = 1000 * float(rows[(names[0], n)]["ms"])
            number = f"{us:.{max(0, 4 - len(str(int(us))))}f} µs"
        else:
            a, b = (float(rows[(k, n)]["gb_per_s"]) for k in names)
            number = f"{a / b:.1f}×"
        head = match.group(0)[:match.group(0).index("-->") + 3]
        return f"{head}{number}<!--/-->"
    return INLINE.sub(value, text)


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


def pct(rows, k, n):
    return float(rows[(k, n)]["pct_of_read_ceiling"])


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
    # One colour per size, none of the colours the chapter's pictures give a meaning to.
    palette = ["#1b9e77", "#7570b3", "#e7298a", "#8c564b", "#666666"]
    colours = {n: palette[j % len(palette)] for j, n in enumerate(sizes)}
    for j, n in enumerate(sizes):
        bars.bar([i + j * width for i in range(len(kernels))],
                 [pct(rows, k, n) if (k, n) in rows else 0 for k in kernels], width,
                 color=colours[n], label=f"n = {size_label(n)}")
    bars.axhline(100, color="black", linewidth=0.8)
    # The label on the left, above the slowest kernels: the fastest can pass the line (the read
    # ceiling is a kernel timed like the others, not a bound the hardware sets).
    bars.text(-0.4, 101, "read ceiling (measured in the same run)", ha="left", va="bottom",
              fontsize=8)
    bars.set_xticks([i + width * (len(sizes) - 1) / 2 for i in range(len(kernels))])
    bars.set_xticklabels(kernels, rotation=30, ha="right", fontsize=8)
    bars.set_ylabel("% of the read ceiling")
    bars.set_title("Chapter 10 kernels")
    # Headroom above the ceiling, so that the legend, in one row at the top, covers no bar.
    bars.set_ylim(0, 122)
    bars.legend(loc="upper center", ncol=len(sizes))
    factors = sorted({int(k.split("=")[1]) for k, _ in rows if k.startswith("10_15 ")})
    for n in sizes:
        sweep.plot(factors, [pct(rows, f"10_15 COARSE_FACTOR={f}", n) for f in factors],
                   marker="o", color=colours[n], label=f"Fig 10.15, n = {size_label(n)}")
        sweep.axhline(pct(rows, "10_93_cub_sum", n), linestyle=":", color=colours[n])
    sweep.set_xscale("log", base=2)
    sweep.set_xticks(factors, [str(f) for f in factors])
    sweep.set_xlabel("COARSE_FACTOR")
    sweep.set_ylabel("% of the read ceiling")
    sweep.set_ylim(0, 115)
    sweep.set_title("Coarsening sweep (dotted: CUB at the same size)")
    sweep.legend(fontsize=8, loc="lower left")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def provenance_lines(args, doc, labels):
    """One line per run, '<GPU>: Measured on ...; data: [...].', the second run's with its note."""
    lines = [f"{labels[0]}: " + report.provenance(args.env, args.csv, doc)]
    if args.second:
        line = f"{labels[1]}: " + report.provenance(args.second_env, args.second, doc)
        if args.second_note:
            line = line[:-1] + f"; {args.second_note}."
        lines.append(line)
    return "\n\n".join(lines) + "\n"


def main():
    parser = report.parser(__doc__)
    parser.add_argument("--results", help="rewrite the spread tables of this RESULTS.md")
    parser.add_argument("--second", help="the second GPU's benchmark CSV")
    parser.add_argument("--second-env", help="the second GPU's env.txt")
    parser.add_argument("--second-note", help="how the second run was measured, for its provenance")
    args = report.parse_args(parser)
    for name, path in (("--second", args.second), ("--second-env", args.second_env)):
        if path and not os.path.isfile(path):
            parser.error(f"{name} {path}: no such file")
    first = load(args.csv)
    second = load(args.second) if args.second else None
    labels = [gpu_label(args.env, "first GPU"), gpu_label(args.second_env, "second GPU")]
    runs = [first] + ([second] if second else [])
    table = readme_table(runs, labels[:len(runs)])
    print(table)
    if args.readme:
        report.update_readme(args.readme, table, "results-table")
        report.update_readme(args.readme, provenance_lines(args, args.readme, labels), "provenance")
        # The numbers first, then the file: a marker without its row stops the script before the
        # README is opened for writing (which would empty it).
        text = inline_numbers(open(args.readme).read(), runs, args.readme)
        open(args.readme, "w").write(text)
    if args.results:
        for marker, run in (("spread-table", first), ("spread-table-second", second)):
            report.update_readme(args.results,
                                 spread_table(*run) if run else "No run committed yet.\n", marker)
        report.update_readme(args.results, provenance_lines(args, args.results, labels),
                             "provenance")
        text = inline_numbers(open(args.results).read(), runs, args.results)
        open(args.results, "w").write(text)
    if args.png:
        env = report.describe_env(args.env)
        plot(first[0], first[1], args.png, env or "10_99_benchmark")


def gpu_label(env, default):
    """'H200' from the env.txt's 'NVIDIA H200 ...' line, or the default."""
    found = re.search(r"NVIDIA ([A-Za-z0-9]+)", open(env).read()) if env else None
    return found.group(1) if found else default


if __name__ == "__main__":
    main()
