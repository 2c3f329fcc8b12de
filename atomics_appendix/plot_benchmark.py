#!/usr/bin/env python3
"""Turns A99_benchmark's CSV into the chapter README's results table and a plot.

    build/bin/A99_benchmark --csv > results.csv
    python3 atomics_appendix/plot_benchmark.py results.csv --png atomics_appendix/benchmark_h200.png \
        --readme atomics_appendix/README.md --env env.txt

--readme rewrites the table between the README's benchmark markers; --env names a file holding the
run's date, `nvidia-smi --query-gpu=name,driver_version --format=csv` and `nvcc --version` output.
Without matplotlib the plot is skipped with a message and the table is still written.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scripts"))
import report  # noqa: E402  (scripts/report.py: what every chapter's plot script shares)


BOOK_MS = {"A2 cpu": 360.0, "A3 locks": 375.0}  # Core 2 Duo and a 2010 GPU, 26,214,400 keys


def load(path):
    with open(path, newline="") as f:
        return [row for row in csv.DictReader(f)]


def rate(rows, table, operation, load="-"):
    for r in rows:
        if r["table"] == table and r["operation"] == operation and r["load"] == load:
            return float(r["mkeys_per_s"])
    return None


def walk_keys(rows):
    return next(r["n"] for r in rows if r["table"] == "A4 chains (walk)")


def table(rows, env):
    n = rows[0]["n"]
    # CSVs written before A99 printed GB/s and % of peak have neither column; their table is
    # written as it was. An empty cell is a row with no meaningful byte count (the walks) or no
    # peak (the CPU).
    bandwidth = "gb_per_s" in rows[0]
    extra_head, extra_rule = (" GB/s | % of peak |", "---|---|") if bandwidth else ("", "")
    lines = [f"Measured {env}, {n} keys." if env else f"{n} keys.", "",
             f"| table | operation | load | keys | ms | M keys/s |{extra_head} book (2010) |",
             f"|---|---|---|---|---|---|{extra_rule}---|"]
    for r in rows:
        book = ""
        if r["operation"] == "insert" and r["table"] in BOOK_MS:
            book = f"{BOOK_MS[r['table']]:.0f} ms"
        extra = ""
        if bandwidth:
            gbps = f"{float(r['gb_per_s']):.1f}" if r["gb_per_s"] else "-"
            pct = f"{float(r['pct_of_peak']):.1f}%" if r["pct_of_peak"] else "-"
            extra = f" {gbps} | {pct} |"
        lines.append(f"| {r['table']} | {r['operation']} | {r['load']} | {r['n']} | "
                     f"{float(r['ms']):.3f} | {float(r['mkeys_per_s']):.1f} |{extra} {book} |")
    locked, exch = rate(rows, "A3 locks", "insert"), rate(rows, "A4 lock-free exch", "insert")
    walk = [rate(rows, "A4 chains (walk)", op) for op in ("lookup hit", "lookup miss")]
    lines.append("")
    if locked and exch:
        lines.append(f"- A4 exch inserts / A3 inserts: **{exch / locked:.1f}×** (target ≥ 10×)")
    if all(walk):
        walk_rate = 2 / (1 / walk[0] + 1 / walk[1])  # as many hits as misses
        for load in ("0.5", "0.8"):
            hit, miss = rate(rows, "A5 open addressing", "lookup hit", load), \
                rate(rows, "A5 open addressing", "lookup miss", load)
            if hit and miss:
                open_rate = 2 / (1 / hit + 1 / miss)
                lines.append(f"- A5 lookups at load {load} (half hits, half misses) / walking A4's "
                             f"chains: **{open_rate / walk_rate:.0f}×** (target ≥ 100×; the walk "
                             f"is a latency-bound sample of {walk_keys(rows)} keys, so the ratio "
                             f"most likely overstates the gap)")
    for load in ("0.5", "0.8"):
        for table_name in ("A5 open addressing", "A6 bucketed"):
            ratios = []
            for op, label in (("insert", "insert"), ("lookup hit", "find hits"),
                              ("lookup miss", "find misses")):
                mine, cuco = rate(rows, table_name, op, load), rate(rows, "cuco static_map", op, load)
                if mine and cuco:
                    ratios.append(f"{label} **{mine / cuco:.2f}×**")
            if ratios:
                lines.append(f"- {table_name} / cuco static_map at load {load} (rates, above 1: "
                             f"faster): " + ", ".join(ratios))
    return "\n".join(lines).strip() + "\n"


def plot(rows, png, env):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: plot skipped (pip install matplotlib)")
        return
    labels = [r["table"] + ("" if r["load"] == "-" else f" @{r['load']}") + "\n" + r["operation"]
              for r in rows]
    values = [float(r["mkeys_per_s"]) for r in rows]
    colors = ["tab:blue" if r["operation"] == "insert" else
              "tab:green" if r["operation"] == "lookup hit" else "tab:orange" for r in rows]
    fig, ax = plt.subplots(figsize=(13, 5.5))
    ax.bar(range(len(rows)), values, color=colors)
    ax.set_yscale("log")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, rotation=40, ha="right", fontsize=7)
    ax.set_ylabel("million keys per second (log scale)")
    for i, value in enumerate(values):
        ax.text(i, value, f"{value:.3g}", ha="center", va="bottom", fontsize=7)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in ("tab:blue", "tab:green", "tab:orange")]
    ax.legend(handles, ["insert", "lookup hit", "lookup miss"], loc="upper left")
    ax.set_title(f"A99_benchmark, {rows[0]['n']} keys" + (f" ({env})" if env else ""), fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main():
    parser = report.parser(__doc__)
    args = report.parse_args(parser)
    rows = load(args.csv)
    env = report.describe_env(args.env)
    text = table(rows, env)
    print(text)
    if args.readme:
        report.update_readme(args.readme, text)
    if args.png:
        plot(rows, args.png, env)


if __name__ == "__main__":
    main()
