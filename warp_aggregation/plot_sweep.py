#!/usr/bin/env python3
"""Turns 03_reduction_by_key_benchmark's sweep (--order sweep: 1 to 32 distinct keys in every warp,
in runs and scattered over the lanes, always into the same bins) into the README's table and a plot
of time against distinct keys per warp.

    build/bin/03_reduction_by_key_benchmark --order sweep --precision double --csv \\
        > warp_aggregation/data/sweep.csv
    python3 warp_aggregation/plot_sweep.py warp_aggregation/data/sweep.csv \\
        --env warp_aggregation/data/env.txt --png warp_aggregation/sweep.png \\
        --readme warp_aggregation/README.md

The CSV is the benchmark's (see plot_benchmark.py); its order column reads "<d> keys/warp in runs"
or "<d> keys/warp scattered" (an older run's "<d> keys/warp" is the first). It prints, for each
arrangement and a few values of d, each variant's median time and its speed-up over plain atomicAdd,
with the run's provenance and the bins (the CSV's bins column: the same at every d, or d by d in a
sweep made before the bins were fixed), and, per warp variant, the smallest d from which it is
slower than atomicAdd at every d after (RESULTS.md's table, which readme_numbers.py --results
writes). --readme rewrites the README's sweep-table block with the keys in runs alone and one
sentence pointing to RESULTS.md. A point whose slowest run took more than TAIL times its median (a
sample disturbed while it ran) is marked in the table and the plot, left out of that verdict and
named beside it: no rerun can replace it here. The plot needs matplotlib; without it the plot is
skipped with a message and the table is still written.
"""
import csv
import math
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scripts"))
import report  # noqa: E402  (scripts/report.py: what every chapter's plot script shares)

# The variants the lesson compares, in the plot's order, with their colours; labeled_partition,
# which the README compares with match_any, in another hue and with triangles.
SHOWN = {"atomicAdd": "#1f4e79", "warp get_peers": "#2e7d32", "warp match_any": "#6a1b9a",
         "cg labeled_partition": "#ef6c00", "warp segmented scan 4/lane": "#c62828",
         "CUB sort + ReduceByKey": "#9e9e9e",
         "get_peers search only": "#81c784"}
# The figure's lines: the table's, less CUB's (no question uses it), with `match_any search only`
# (the search the README times) in place of get_peers': drawn in the time panels only, since a
# kernel that adds nothing has no speed-up over atomicAdd, and in the first arrangement's alone,
# since the search takes the same time, within 1%, wherever a warp's keys sit (sweep.csv).
PLOTTED = {**{v: c for v, c in SHOWN.items()
              if not v.startswith("CUB") and "search only" not in v},
           "match_any search only": "#ba68c8"}
SEARCH_ONLY = "search only"
WARP_VARIANTS = ["warp get_peers", "warp match_any", "cg labeled_partition",
                 "warp segmented scan 4/lane"]
TABLE_D = [1, 2, 4, 8, 16, 32]
# A point whose slowest run took more than TAIL times its median was disturbed while it ran: its
# median is doubtful, and no verdict rests on it.
TAIL = 1.5
DOUBTFUL = "†"
# The two arrangements of the d keys of a warp: as the program names them, and as the README does.
ARRANGEMENTS = {"in runs": "in runs (increasing in each warp)",
                "scattered": "scattered over the lanes"}


def load(path):
    """{precision: {arrangement: {variant: {d: row}}}}."""
    data = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            found = re.match(r"(\d+) keys/warp(?: (in runs|scattered))?$", row["order"])
            if found:
                d, arrangement = int(found.group(1)), found.group(2) or "in runs"
                (data.setdefault(row["precision"], {}).setdefault(arrangement, {})
                 .setdefault(row["variant"], {}))[d] = row
    if not data:
        sys.exit(f"{path}: no rows of the sweep (order '<d> keys/warp ...')")
    return data


def speedup(rows, variant, d):
    """atomicAdd's median over the variant's at d, or None."""
    base, row = rows.get("atomicAdd", {}).get(d), rows.get(variant, {}).get(d)
    return float(base["ms"]) / float(row["ms"]) if base and row else None


def doubtful(row):
    """Whether a row's slowest run took more than TAIL times its median."""
    return bool(row and row.get("ms_max")) and float(row["ms_max"]) > TAIL * float(row["ms"])


def doubtful_ds(rows, variant):
    """The d at which the variant's row or atomicAdd's is doubtful."""
    return [d for d in sorted(rows.get(variant, {}))
            if doubtful(rows[variant][d]) or doubtful(rows.get("atomicAdd", {}).get(d))]


def slower_from(rows, variant):
    """The smallest d from which the variant is slower than atomicAdd at every d measured after
    it, doubtful points left out, or None."""
    ds = [d for d in sorted(rows.get(variant, {})) if d not in doubtful_ds(rows, variant)
          and speedup(rows, variant, d)]
    found = None
    for d in reversed(ds):
        if speedup(rows, variant, d) >= 1.0:
            break
        found = d
    return found


def doubtful_text(rows, variant):
    """'*d* = 20: its runs took 0.0947 to 0.2230 ms (median 0.1004; `atomicAdd` 0.0733)', one
    clause per doubtful point, or ''."""
    parts = []
    for d in doubtful_ds(rows, variant):
        row, base = rows[variant][d], rows.get("atomicAdd", {}).get(d)
        parts.append(f"*d* = {d}: its runs took {float(row['ms_min']):.4f} to "
                     f"{float(row['ms_max']):.4f} ms (median {float(row['ms']):.4f}"
                     + (f"; `atomicAdd` {float(base['ms']):.4f}" if base else "") + ")")
    return "; ".join(parts)


def verdict(rows, variant):
    """The bullet's text: where the variant stops beating atomicAdd, and the points left out."""
    d = slower_from(rows, variant)
    left_out = doubtful_text(rows, variant)
    never = all((speedup(rows, variant, e) or 1.0) >= 1.0 for e in rows.get(variant, {})
                if e not in doubtful_ds(rows, variant))
    but = " and ".join(str(e) for e in doubtful_ds(rows, variant))
    text = (f"slower than `atomicAdd` from *d* = {d} on" if d else
            "faster than `atomicAdd` at every *d*" + (f" but {but}" if left_out else "")
            if never else "not slower than `atomicAdd` from any *d* on")
    return text + (f"; left out ({DOUBTFUL}), {left_out}" if left_out else "")


def bins_text(rows, ds):
    """How many bins the keys fill: the same at every d (the sweep since it holds the bins fixed),
    or d by d (an older sweep's, whose bins grew with d)."""
    bins = {d: int(r[d]["bins"]) for r in rows.values() for d in ds if d in r and r[d].get("bins")}
    if len(set(bins.values())) == 1:
        return f"the same {next(iter(bins.values())):,} bins at every *d*"
    return "bins by *d*: " + ", ".join(f"{bins[d]:,} at {d}" for d in sorted(bins))


def table(data, provenance, brief=False):
    """Every arrangement's table, its disturbed points and its verdicts (RESULTS.md); brief: the
    first arrangement's table alone, a disturbed point named in one sentence (the README)."""
    lines = [provenance, ""]
    for precision, arrangements in data.items():
        for arrangement, rows in list(arrangements.items())[:1 if brief else None]:
            ds = [d for d in TABLE_D if any(d in r for r in rows.values())]
            every = sorted({d for r in rows.values() for d in r})
            shown = (f" (the table shows {len(ds)} of the {len(every)} *d* measured; all are in "
                     f"`sweep.csv` and the figure)" if len(ds) < len(every) else "")
            heading = (f"**{precision}, the keys {ARRANGEMENTS.get(arrangement, arrangement)}**: "
                       "median ms · speed-up over `atomicAdd` (above 1: faster), by distinct keys "
                       "per warp" + shown + "; " + bins_text(rows, ds))
            lines += [textwrap.fill(heading, width=100, break_long_words=False,
                                    break_on_hyphens=False), "",
                      "| variant | " + " | ".join(map(str, ds)) + " |",
                      "|---" * (len(ds) + 1) + "|"]
            for v in SHOWN:
                if v not in rows:
                    continue
                cells = []
                for d in ds:
                    row, s = rows[v].get(d), speedup(rows, v, d)
                    mark = DOUBTFUL if doubtful(row) else ""
                    cells.append("–" if row is None else f"{float(row['ms']):.4f}{mark} · {s:.2f}×"
                                 if s else f"{float(row['ms']):.4f}{mark}")
                lines.append(f"| {v} | " + " | ".join(cells) + " |")
            lines.append("")
            disturbed = any(doubtful(r) for v in SHOWN for r in rows.get(v, {}).values())
            if brief:
                lines += [textwrap.fill(
                    (f"{DOUBTFUL} a sample disturbed while it ran (its slowest run took more than "
                     f"{TAIL:g} times its median). " if disturbed else "")
                    + "[RESULTS.md](RESULTS.md#the-sweep-in-full) has the keys scattered over the "
                    "lanes, every variant's crossover and the disturbed points.",
                    width=100, break_long_words=False, break_on_hyphens=False), ""]
                continue
            if disturbed:
                lines += [textwrap.fill(
                    f"{DOUBTFUL} the slowest of the point's runs took more than {TAIL:g} times its "
                    "median: a sample disturbed while it ran, whose median is doubtful (not "
                    "rerun); the verdicts below leave it out and name it.",
                    width=100, break_long_words=False, break_on_hyphens=False), ""]
            for v in WARP_VARIANTS:
                if v not in rows:
                    continue
                lines.append(textwrap.fill(f"- {v}: {verdict(rows, v)}", width=100,
                                           subsequent_indent="  ", break_long_words=False,
                                           break_on_hyphens=False))
            lines.append("")
    return "\n".join(lines)


def plot(data, png, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        print("matplotlib is not installed: plot skipped (pip install matplotlib)")
        return
    panels = [(p, a) for p, arrangements in data.items() for a in arrangements]
    # At a README column's width (about 950 px at 100 dpi), whatever the number of panels.
    fig, axes = plt.subplots(2, len(panels), figsize=(9.5, 9.5), squeeze=False,
                             sharex=True, sharey="row")
    for col, (precision, arrangement) in enumerate(panels):
        rows = data[precision][arrangement]
        top, bottom = axes[0][col], axes[1][col]
        for v, color in PLOTTED.items():
            if v not in rows or (SEARCH_ONLY in v and col > 0):
                continue
            ds = sorted(rows[v])
            style = "--" if "search only" in v or v.startswith("CUB") else "-"
            marker = "^" if v == "cg labeled_partition" else "."
            top.plot(ds, [float(rows[v][d]["ms"]) for d in ds], style, marker=marker, color=color,
                     label=v)
            for d in ds:
                if doubtful(rows[v][d]):  # ringed: a disturbed sample
                    top.plot([d], [float(rows[v][d]["ms"])], "o", mfc="none", ms=11, color=color)
                    if v != "atomicAdd" and SEARCH_ONLY not in v and speedup(rows, v, d):
                        bottom.plot([d], [speedup(rows, v, d)], "o", mfc="none", ms=11,
                                    color=color)
            if v != "atomicAdd" and SEARCH_ONLY not in v:
                pairs = [(d, speedup(rows, v, d)) for d in ds if speedup(rows, v, d)]
                bottom.plot([d for d, _ in pairs], [s for _, s in pairs], style, marker=marker,
                            color=color, label=v)
        bottom.axhline(1.0, color=SHOWN["atomicAdd"], lw=1)
        for ax in (top, bottom):
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
            # Minor labels at 2, 3 and 5 times a power of ten only: all nine crowd the axis.
            ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(
                lambda y, _: f"{y:g}" if round(y / 10 ** math.floor(math.log10(y) + 1e-9), 6)
                in (2, 3, 5) else ""))
            ax.tick_params(axis="y", which="minor", labelsize=8)
            ax.set_xticks([1, 4, 8, 12, 16, 20, 24, 28, 32])
            ax.grid(alpha=0.3)
        if col == 0:
            top.set_ylabel("ms (median; log scale; lower is faster)")
            bottom.set_ylabel("speed-up over atomicAdd\n(above 1: faster; log scale)")
        bottom.set_xlabel("distinct keys per warp = get_peers rounds\n"
                          "= atomics per warp (match_any, get_peers, cg)")
        first = next(iter(next(iter(rows.values())).values()))
        top.set_title(f"{precision}, {int(first['n']):,} values:\nthe keys of a warp "
                      f"{ARRANGEMENTS.get(arrangement, arrangement)}", fontsize=10)
    # Below the panels, not inside one: every panel's curves span its whole height somewhere.
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=9, frameon=False)
    if any(doubtful(r) for p, a in panels for v in PLOTTED
           for r in data[p][a].get(v, {}).values()):
        title += (f"\nringed: a point whose slowest run took more than {TAIL:g} times its median "
                  "(a disturbed sample)")
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(png, dpi=100)
    print(f"wrote {png}")


def main():
    args = report.parse_args(report.parser(__doc__))
    data = load(args.csv)
    from readme_numbers import provenance  # with the commit of sources.txt beside the CSV
    text = table(data, provenance(args.env, args.csv, args.readme or args.csv),
                 brief=bool(args.readme))
    print(text)
    if args.readme:
        report.update_readme(args.readme, text, "sweep-table")
    if args.png:
        plot(data, args.png, report.describe_env(args.env) or "03_reduction_by_key_benchmark "
             "--order sweep")


if __name__ == "__main__":
    main()
