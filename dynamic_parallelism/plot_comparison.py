#!/usr/bin/env python3
"""Turns 05_reduction_comparison's CSV into the chapter README's results table and a plot.

    build/bin/05_reduction_comparison --csv > dynamic_parallelism/data/comparison.csv
    build/bin/05_reduction_comparison_no_rdc --csv > dynamic_parallelism/data/comparison_no_rdc.csv
    python3 dynamic_parallelism/plot_comparison.py dynamic_parallelism/data/comparison.csv \
        --no-rdc dynamic_parallelism/data/comparison_no_rdc.csv \
        --env dynamic_parallelism/data/env.txt --readme dynamic_parallelism/README.md
    build/bin/05_reduction_comparison > dynamic_parallelism/data/comparison.txt
    python3 dynamic_parallelism/plot_comparison.py dynamic_parallelism/data/comparison.csv \
        --printed dynamic_parallelism/data/comparison.txt \
        --env dynamic_parallelism/data/env.txt --png dynamic_parallelism/comparison.png

--no-rdc adds the rows of the build without relocatable device code (reduceNeighbored and CUB)
to the table. --printed plots the run whose table 05 printed (the README shows that table) in
place of the CSV's rows. --readme rewrites the table between the README's results-table markers
and the provenance line between its provenance markers; --env names the run's env.txt (date, nvidia-smi
and nvcc output, as scripts/gpu_check.sh writes it): the provenance gives the GPU, driver, CUDA
version and date. The table gives the pending-launch limit the rows ran at, on which the nested
rows' times depend. The document's K40c column is its printed kernels on its machine, so the
last column is a ratio of two programs on two machines, not a speed-up of one kernel. The plot
needs matplotlib; without it the plot is skipped with a message and the table is still written.
"""
import csv
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scripts"))
import report  # noqa: E402  (scripts/report.py: what every chapter's plot script shares)


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# A row of the table 05 prints: name, ms, fastest, slowest, GB/s, %peak, device launches, pending
# limit, then after "|" the K40c's ms and launches where the document has them.
PRINTED_ROW = re.compile(r"^(\S.*?)\s{2,}([\d.]+)\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s+\S+\s+(\d+)\s+(\S+)"
                         r"\s*(?:\|\s*([\d.]+))?")


def load_printed(path):
    """The rows of the table in 05's printed output, as load() gives the CSV's (the keys plot()
    reads)."""
    with open(path) as f:
        text = f.read()
    shape = re.search(r"array (\d+) grid (\d+) block (\d+)", text)
    if not shape:
        sys.exit(f"{path}: no 'array N grid G block B' line: not 05's printed output")
    rows = []
    for line in text.split("\n"):
        m = PRINTED_ROW.match(line)
        if m and not line.startswith(("$", "device ", "array ", "cpu_sum")):
            rows.append({"variant": m.group(1), "ms": m.group(2), "gb_per_s": m.group(3),
                         "device_launches": m.group(4),
                         "pending_limit": "" if m.group(5) == "-" else m.group(5),
                         "k40_ms": m.group(6) or "", "n": shape.group(1),
                         "grid": shape.group(2), "block": shape.group(3)})
    if not rows:
        sys.exit(f"{path}: no rows of 05's table")
    return rows


def merge(rows, no_rdc_rows):
    """Each row of the build without -rdc ("gpu Neighbored, no -rdc") right after the same kernel's
    row of the relocatable build, or at the end where there is none."""
    merged = list(rows)
    for extra in no_rdc_rows:
        base = extra["variant"].removesuffix(", no -rdc")
        at = next((i + 1 for i, r in enumerate(merged) if r["variant"] == base), len(merged))
        merged.insert(at, extra)
    return merged


def table(rows):
    """05's table for the README: every row at one pending-launch limit (its text says which), and
    the document's launch counts equal to the ones counted here (RESULTS.md has both)."""
    lines = ["| variant | ms | GB/s | device-side launches | document, K40c: ms "
             "| K40c ms ÷ ms here (other kernels, other machine) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        ms = float(r["ms"])
        k40 = f"{float(r['k40_ms']):.3f}" if r["k40_ms"] else "–"
        ratio = f"{float(r['k40_ms']) / ms:.1f}" if r["k40_ms"] else "–"
        lines.append(f"| {r['variant']} | {ms:.4f} | {float(r['gb_per_s']):.3g} | "
                     f"{r['device_launches']} | {k40} | {ratio} |")
    return "\n".join(lines) + "\n"


def plot(rows, png, env):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: plot skipped (pip install matplotlib)")
        return
    # A nested row's launch count goes under its name, so that the axis ends a decade past the
    # longest bar instead of leaving room for a label right of it.
    names = []
    for r in rows:
        launches = int(r["device_launches"])
        limit = f", limit {r['pending_limit']}" if r.get("pending_limit") else ""
        names.append(r["variant"] + (f"\n{launches} device launches{limit}" if launches else ""))
    here = [float(r["ms"]) for r in rows]
    k40 = [float(r["k40_ms"]) if r["k40_ms"] else 0 for r in rows]
    fig, ax = plt.subplots(figsize=(10, 6))
    y = range(len(rows))
    ax.barh([i + 0.2 for i in y], here, 0.4, label=env.split(",")[0] if env else "this GPU")
    ax.barh([i - 0.2 for i in y], k40, 0.4, label="Tesla K40c (the document)", color="gray")
    ax.set_yticks(list(y))
    ax.set_yticklabels(names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlim(right=max(here + k40) * 4)
    r0 = rows[0]
    ax.set_xlabel(f"ms (log scale), {r0['n']} ints, grid {r0['grid']} × block {r0['block']}")
    ax.set_title("Nested reduction: the document's table on this GPU")
    ax.legend(loc="lower right", fontsize=8)
    fig.suptitle(env or "05_reduction_comparison", fontsize=9)
    # The two bars of a nested row are not the same code: the document timed its printed kernels,
    # 05 times the corrected ones (its header lists them).
    fig.text(0.01, 0.01, "This GPU's bars are the corrected kernels: gpu nested without the "
             "device-side cudaDeviceSynchronize(), gpu nestedNosync the same kernel\n(its barrier "
             "before the launch put back), gpu nested2 with the tail launch. The K40c's bars are "
             "the document's printed kernels.", fontsize=8, ha="left", va="bottom")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main():
    parser = report.parser(__doc__)
    parser.add_argument("--no-rdc", help="05_reduction_comparison_no_rdc's CSV: its rows are added")
    parser.add_argument("--printed", help="05's printed output: the plot shows its table's rows")
    args = report.parse_args(parser)
    if args.no_rdc and not os.path.isfile(args.no_rdc):
        parser.error(f"--no-rdc {args.no_rdc}: no such file")
    rows = merge(load(args.csv), load(args.no_rdc) if args.no_rdc else [])
    env = report.describe_env(args.env)
    text = table(rows)
    print(text)
    if args.readme:
        report.update_readme(args.readme, text, "results-table")
        report.update_provenance(args.readme, args.env, args.csv)
    if args.printed and not os.path.isfile(args.printed):
        parser.error(f"--printed {args.printed}: no such file")
    if args.png:
        plot(load_printed(args.printed) if args.printed else rows, args.png, env)


if __name__ == "__main__":
    main()
