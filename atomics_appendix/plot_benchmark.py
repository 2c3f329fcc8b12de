#!/usr/bin/env python3
"""Turns A99_benchmark's CSV into the chapter's results tables and a plot.

    build/bin/A99_benchmark --csv > atomics_appendix/data/benchmark.csv
    python3 atomics_appendix/plot_benchmark.py atomics_appendix/data/benchmark.csv \
        --env atomics_appendix/data/env.txt --png atomics_appendix/benchmark.png \
        --readme atomics_appendix/README.md --results atomics_appendix/RESULTS.md \
        --before atomics_appendix/data/h200/benchmark.csv \
        --before-env atomics_appendix/data/h200/env.txt

data/ holds the run the README quotes; data/h100/ the H100 run before it and data/h200/ an older
run (an H200, 2026-11-23, an older version of the programs and of the timer's L2 flush), kept as
records. --before names that
older run's CSV: where the first CSV has no cuCollections rows and the older one has, RESULTS.md's
cuco table is written from the older run, with that run's own provenance line between the
cuco-provenance markers (RESULTS.md's text says how the two runs differ). Nothing else is taken
from it.

--readme rewrites the inserts' rates on the two grids between the README's grid-table markers,
its results table (every insert, its rate over `A3 locks` and its section) between the
summary-table markers, and its provenance line between the provenance markers; --results
rewrites RESULTS.md's results table (time and keys per second of every row, the book's times
beside the rows timed as the book timed them) between its results-table markers, its tables of
bytes (GB/s and % of the theoretical peak), of ratios and, where the run has cuCollections' rows,
of the rates against cuco, and its provenance line. --env names the run's env.txt (date,
nvidia-smi and nvcc output, as scripts/gpu_check.sh writes it; the text output of a run that
begins with the `date` command's line does too): the provenance gives the GPU, driver, CUDA
version and date. Rows the run does not have (A6, cuco, the book's scope of A3) are left out.
--check rewrites nothing: it exits 1 where a block of --readme or --results differs from what
the CSV gives. The plot needs matplotlib; without it the plot is skipped with a message and the
tables are still written.
"""
import csv
import os
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scripts"))
import report  # noqa: E402  (scripts/report.py: what every chapter's plot script shares)

# The book's GPU time (a GPU of 2010, 26,214,400 keys), beside the row timed over the same scope: A3's
# kernel alone is not what the book's 375 ms covers (its events enclose allocations and the copy of
# the keys). The book's CPU time, 360 ms, was one first build, which allocates and first touches the
# pool; the `A2 cpu` row is the median of builds that reuse it, so the 360 ms goes in a note under
# the table, pointing to A2's own first build (README, A.2.2), not beside that row; the table is
# RESULTS.md's, so its link goes to the README.
BOOK_MS = {("A3 locks (book's scope)", "insert"): 375.0}
BOOK_CPU_MS = 360.0
WALK = "A4 chains (walk)"
OPEN_TABLES = ["A5 open addressing", "A6 bucketed"]
CUCO = "cuco static_map"


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def find(rows, table, operation, load="-"):
    return next((r for r in rows if r["table"] == table and r["operation"] == operation
                 and r["load"] == load), None)


def rate(rows, table, operation, load="-"):
    """M keys/s from the row's keys and time, unrounded, as A99_benchmark computes its ratios (the
    CSV's mkeys_per_s is rounded), so that a ratio here and in its text output agree."""
    r = find(rows, table, operation, load)
    return int(r["n"]) / float(r["ms"]) / 1000 if r else None


def label(r):
    return r["table"] + ("" if r["load"] == "-" else f" at {r['load']}")


def readme_table(rows):
    n = rows[0]["n"]
    lines = [f"{int(n):,} keys; the chains are walked for a sample (the `keys` column).", "",
             "| table | operation | load | keys | ms | M keys/s | the book (2010) |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        book = BOOK_MS.get((r["table"], r["operation"]))
        lines.append(f"| {r['table']} | {r['operation']} | {r['load']} | {int(r['n']):,} | "
                     f"{float(r['ms']):.3f} | {float(r['mkeys_per_s']):,.1f} | "
                     f"{f'{book:.0f} ms' if book else ''} |")
    if find(rows, "A2 cpu", "insert"):
        # Wrapped at 100 columns, never inside a code span (its spaces held as NUL meanwhile).
        note = (f"The book's CPU time, {BOOK_CPU_MS:.0f} ms on a Core 2 Duo, was one first build, "
                "which allocates and first touches the pool: its partner is A2's first build "
                "([A.2.2](README.md#a22--a2_cpu_hash_table-no-gpu)), not the `A2\0cpu` row, the median of "
                "builds that reuse the pool.")
        lines += [""] + [line.replace("\0", " ") for line in textwrap.wrap(
            note, width=100, break_long_words=False, break_on_hyphens=False)]
    return "\n".join(lines) + "\n"


# The inserts on the two grids: one row a kernel, one column a grid, so that the locks' share and
# the grid's can be read apart (a kernel the run did not time on a grid gets a dash).
GRID_ROWS = [
    ("A3's locks, lane turns", "A3 locks", "A3 locks (full grid)", "-"),
    ("A3's locks, no lane turns", "A3 locks (no lane turns)", None, "-"),
    ("A4's `cas` push, no lock", "A4 lock-free cas (A3's grid)", "A4 lock-free cas", "-"),
    ("A4's `exch` push, no lock", None, "A4 lock-free exch", "-"),
]


def grid_table(rows):
    lines = ["M keys/s of the inserts (higher is faster); a dash: not run on that grid.", "",
             "| kernel | A3's grid, `<<<60, 256>>>` | one thread per key |", "|---|---:|---:|"]
    for name, a3_grid, full_grid, load in GRID_ROWS:
        cells = []
        for table in (a3_grid, full_grid):
            r = find(rows, table, "insert", load) if table else None
            cells.append(f"{float(r['mkeys_per_s']):,.1f}" if r else "–")
        if any(c != "–" for c in cells):
            lines.append(f"| {name} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines) + "\n"


# The README's one table of results: every insert the run timed, one row each, its rate over the
# book's table (`A3 locks`) and the README section that runs it. The lookups are left out: a rate
# of lookups over one of inserts compares two kinds of work.
SECTIONS = {
    "A2 cpu": ("A.2.2", "a22--a2_cpu_hash_table-no-gpu"),
    "A3 locks (book's scope)": ("A.2.5", "a25--the-books-verdict-then-and-now"),
    "A3 locks": ("A.2.4", "a24--a3_gpu_hash_table"),
    "A3 locks (no lane turns)": ("thread scheduling", "beyond-the-book--independent-thread-"
                                 "scheduling-lanes-of-one-warp-that-wait-for-each-other"),
    "A3 locks (bare acquire spin)": ("A.2.4", "a24--a3_gpu_hash_table"),
    "A3 locks (fenced lock)": ("A0", "beyond-the-book--a0_lock_litmus-what-a-lock-that-orders-"
                               "nothing-loses"),
    "A3 locks (full grid)": ("A.2.4", "a24--a3_gpu_hash_table"),
    "A4 lock-free cas (A3's grid)": ("A4", "beyond-the-book--a4_lock_free_hash_table"),
    "A4 lock-free cas": ("A4", "beyond-the-book--a4_lock_free_hash_table"),
    "A4 lock-free exch": ("A4", "beyond-the-book--a4_lock_free_hash_table"),
    "A5 open addressing": ("A5", "beyond-the-book--a5_open_addressing_hash_table"),
    "A6 bucketed": ("A6", "beyond-the-book--a6_bucketed_hash_table"),
}


# What a row of the summary table must say beside its CSV name, lest two rows be misread side by
# side: A2's timed builds reuse the pool, where the book's way (A.2.5) counts its first build.
SUMMARY_NOTES = {"A2 cpu": " (later builds, the pool reused)"}


def summary_table(rows):
    locked = rate(rows, "A3 locks", "insert")
    lines = [f"Inserts of {int(rows[0]['n']):,} keys; ×: the rate over the book's table on its own "
             "grid, `A3 locks` (above 1: faster).", "", "| what | M keys/s | × | section |",
             "|---|---:|---:|---|"]
    for r in rows:
        if r["operation"] != "insert":
            continue
        if r["table"] not in SECTIONS:
            sys.exit(f"{r['table']}: a table with no README section (plot_benchmark.py's SECTIONS)")
        name, anchor = SECTIONS[r["table"]]
        ratio = int(r["n"]) / float(r["ms"]) / 1000 / locked
        lines.append(f"| {label(r)}{SUMMARY_NOTES.get(r['table'], '')} | "
                     f"{float(r['mkeys_per_s']):,.1f} | {ratio:.2f} | "
                     f"[{name}](#{anchor}) |")
    return "\n".join(lines) + "\n"


# A3's launch, <<<60, 256>>>: with the lane turns each of its 480 warps pushes its keys one after
# another, one lane at a time.
A3_WARPS = 60 * 256 // 32


def ratio_lines(rows):
    lines = []
    locked, exch = rate(rows, "A3 locks", "insert"), rate(rows, "A4 lock-free exch", "insert")
    a5 = rate(rows, "A5 open addressing", "insert", "0.5")
    if locked and exch:
        lines.append(f"- inserts, A4 exch / A3 locks: **{exch / locked:.1f}×**"
                     + (f"; A5 at load 0.5 / A3 locks: **{a5 / locked:.1f}×**" if a5 else "")
                     + " (A4 and A5 run one thread per key, A3 15,360 threads: locks and grid "
                     "together)")
    # The locks and the grid apart: the same grid on both sides of each ratio.
    full = rate(rows, "A3 locks (full grid)", "insert")
    if full and exch:
        lines.append(f"- inserts on one grid, one thread per key: A4 exch / A3 locks (full grid): "
                     f"**{exch / full:.1f}×**")
    cas = rate(rows, "A4 lock-free cas", "insert")
    if full and cas:
        lines.append(f"- inserts on one grid, one thread per key: A4 lock-free cas / A3 locks "
                     f"(full grid): **{cas / full:.2f}×**")
    cas_a3_grid = rate(rows, "A4 lock-free cas (A3's grid)", "insert")
    if cas_a3_grid and locked:
        lines.append(f"- inserts on A3's grid, `<<<60, 256>>>`: A4 cas (A3's grid) / A3 locks: "
                     f"**{cas_a3_grid / locked:.2f}×**")
    # The fair partner of the cas push on A3's grid: neither gives the lanes of a warp turns.
    no_turns = rate(rows, "A3 locks (no lane turns)", "insert")
    if cas_a3_grid and no_turns:
        lines.append(f"- inserts on A3's grid, no lane turns on either side: A4 cas (A3's grid) / "
                     f"A3 locks (no lane turns): **{cas_a3_grid / no_turns:.2f}×**")
    # The grid apart: one kernel on both sides.
    if cas_a3_grid and cas:
        lines.append(f"- the `cas` push on A3's grid / on one thread per key: "
                     f"**{cas_a3_grid / cas:.2f}×**")
    if full and locked:
        lines.append(f"- A3's locked kernel on its own grid / on one thread per key (A3 locks / "
                     f"A3 locks (full grid)): **{locked / full:.2f}×**")
    # The lock apart, on A3's kernel and grid: its waiting (acquire and release on both sides),
    # then its spelling (a bare spin on both sides).
    bare = rate(rows, "A3 locks (bare acquire spin)", "insert")
    fenced = rate(rows, "A3 locks (fenced lock)", "insert")
    if bare and locked:
        lines.append(f"- A3 with lock.cuh's lock (test-and-test-and-set, back-off) / with the bare "
                     f"acquire spin: **{locked / bare:.2f}×**")
    if bare and fenced:
        lines.append(f"- A3 with the download's fenced spin / with the bare acquire spin: "
                     f"**{fenced / bare:.2f}×**")
    for table in ("A3 locks", "A3 locks (bare acquire spin)", "A3 locks (fenced lock)"):
        r = find(rows, table, "insert")
        if r:
            per_warp = int(r["n"]) / A3_WARPS
            lines.append(f"- {table}: each of the {A3_WARPS} warps pushes {per_warp:,.0f} keys one "
                         f"after another, so a push, its lock and unlock included, takes a warp "
                         f"**{float(r['ms']) * 1000 / per_warp:.2f} µs**")
    walk = [rate(rows, WALK, op) for op in ("lookup hit", "lookup miss")]
    if all(walk):
        walk_rate = 2 / (1 / walk[0] + 1 / walk[1])  # as many hits as misses
        sample = find(rows, WALK, "lookup hit")["n"]
        lookups = []
        for load in ("0.5", "0.8"):
            hit, miss = (rate(rows, "A5 open addressing", op, load)
                         for op in ("lookup hit", "lookup miss"))
            if hit and miss:
                lookups.append(f"- lookups (as many hits as misses), A5 at load {load} / walking "
                               f"the chains: **{2 / (1 / hit + 1 / miss) / walk_rate:,.0f}×**")
        if lookups:
            lines += lookups + ["", f"The walk is timed on a sample of {int(sample):,} keys, whose "
                                "rate measures latency:", "the lookup ratios most likely overstate "
                                "the gap."]
    # Markdown of 100 columns: a list item's lines go on under its text.
    return [textwrap.fill(line, 100, subsequent_indent="  ", break_on_hyphens=False)
            if line.startswith("- ") else line for line in lines]


def bytes_table(rows, peak):
    pct_head = f"% of {peak} GB/s (theoretical peak)" if peak else "% of theoretical peak"
    lines = [f"| table | operation | load | GB/s | {pct_head} |", "|---|---|---|---|---|"]
    for r in rows:
        if not r.get("gb_per_s"):
            continue
        pct = f"{float(r['pct_of_peak']):.2f}%" if r.get("pct_of_peak") else "– (host)"
        lines.append(f"| {r['table']} | {r['operation']} | {r['load']} | "
                     f"{float(r['gb_per_s']):.1f} | {pct} |")
    return "\n".join(lines) + "\n"


def has_cuco(rows):
    return any(r["table"] == CUCO for r in rows)


def figures_or_env(csv_path, env_path):
    """figures.txt beside the CSV where it exists (its device lines print the peak, which the
    benchmark's lost text output would have), else the env file."""
    figures = os.path.join(os.path.dirname(csv_path), "figures.txt")
    return figures if os.path.exists(figures) else env_path


def cuco_table(rows):
    if not has_cuco(rows):
        return "This run has no cuCollections rows (A99_benchmark built without `-DCUCO_DIR`).\n"
    lines = ["G keys/s, and each table's rate over cuco's (above 1: faster).", "",
             "| load | operation | A5 | A6 | cuco | A5 / cuco | A6 / cuco |",
             "|---|---|---|---|---|---|---|"]
    for load in ("0.5", "0.8"):
        for op, name in (("insert", "insert"), ("lookup hit", "find, hits"),
                         ("lookup miss", "find, misses")):
            a5, a6, cuco = (rate(rows, t, op, load) for t in OPEN_TABLES + [CUCO])
            if not cuco:
                continue
            cells = [f"{x / 1000:.2f}" if x else "–" for x in (a5, a6, cuco)]
            cells += [f"{x / cuco:.2f}" if x else "–" for x in (a5, a6)]
            lines.append(f"| {load} | {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(rows, png, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: plot skipped (pip install matplotlib)")
        return
    colors = {"insert": "tab:blue", "lookup hit": "tab:green", "lookup miss": "tab:orange"}
    # One panel for the inserts and one for the lookups over all keys. The chains' walk is left
    # out: it is timed on a sample and measures latency, comparable with no rate over all keys
    # (the tables and the README give its two rates). Horizontal bars, so that every label reads
    # level.
    panels = [("inserts", [r for r in rows if r["operation"] == "insert"], True),
              ("lookups", [r for r in rows if r["table"] != WALK and r["operation"] != "insert"],
               False)]
    panels = [p for p in panels if p[1]]
    shown = sum(len(p[1]) for p in panels)
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 0.32 * shown + 1.2 * len(panels)),
                             squeeze=False,
                             gridspec_kw={"height_ratios": [len(p[1]) + 1 for p in panels]})
    for ax, (kind, panel, log) in zip(axes[:, 0], panels):
        rates = [float(r["mkeys_per_s"]) for r in panel]
        # The lookups' axis in billions, so that its tick labels stay short.
        unit, values = (("billion", [v / 1000 for v in rates]) if kind == "lookups"
                        else ("million", rates))
        y = range(len(panel))
        bars = ax.barh(y, values, color=[colors[r["operation"]] for r in panel])
        for bar, r in zip(bars, panel):
            if r["table"] == CUCO:
                bar.set_hatch("//")
                bar.set_edgecolor("white")
        ax.set_yticks(list(y))
        ax.set_yticklabels([label(r) if kind == "inserts" else f"{label(r)}, {r['operation']}"
                            for r in panel], fontsize=8)
        ax.invert_yaxis()
        for i, (value, rate) in enumerate(zip(values, rates)):
            text = f" {rate / 1000:.3g} G" if rate >= 1000 else f" {rate:.3g} M"
            ax.text(value, i, text, ha="left", va="center", fontsize=7)
        # The inserts span 57 M to 15 G keys/s: a log axis. The lookups (10 to 40 G) read best
        # from 0, where a log axis would blow small gaps up.
        if log:
            ax.set_xscale("log")
            ax.set_xlim(min(values) / 1.5, max(values) * 4)
            scale = "log scale"
        else:
            ax.set_xlim(0, max(values) * 1.18)
            scale = "linear scale"
        ax.set_xlabel(f"{unit} keys per second ({scale}; longer is faster)", fontsize=8)
        n = int(panel[0]["n"])
        ax.set_title({"inserts": f"inserts of {n:,} keys",
                      "lookups": f"lookups of all {n:,} keys (hits) and as many absent ones "
                                 "(misses)"}[kind], fontsize=9)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colors.values()]
    names = list(colors)
    if has_cuco(rows):
        handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="tab:gray", edgecolor="white",
                                     hatch="//"))
        names.append("hatched: cuCollections static_map")
    fig.legend(handles, names, loc="upper right", fontsize=8, ncol=len(names))
    fig.suptitle(title, fontsize=9, x=0.02, ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main():
    parser = report.parser(__doc__)
    parser.add_argument("--results", help="rewrite the tables of this RESULTS.md")
    parser.add_argument("--before", help="an older run's CSV, for the cuco table where the run "
                        "has no cuco rows")
    parser.add_argument("--before-env", help="the older run's env.txt")
    parser.add_argument("--check", action="store_true",
                        help="rewrite nothing: exit 1 where a block of --readme or --results "
                             "differs from what the CSV gives")
    args = report.parse_args(parser)
    for name, path in (("--before", args.before), ("--before-env", args.before_env)):
        if path and not os.path.isfile(path):
            parser.error(f"{name} {path}: no such file")
    rows = load(args.csv)
    table = readme_table(rows)
    print(table)
    blocks = []  # (document, marker, text)
    if args.readme:
        blocks += [(args.readme, "grid-table", grid_table(rows)),
                   (args.readme, "summary-table", summary_table(rows)),
                   (args.readme, "provenance",
                    report.provenance(args.env, args.csv, args.readme) + "\n")]
    if args.results:
        ratios = "\n".join(ratio_lines(rows)) + "\n"
        peak = report.peak_gbps(rows, args.csv, figures_or_env(args.csv, args.env))
        cuco_rows, cuco_csv, cuco_env = rows, args.csv, args.env
        if args.before and not has_cuco(rows) and has_cuco(load(args.before)):
            cuco_rows, cuco_csv, cuco_env = load(args.before), args.before, args.before_env
        blocks += [(args.results, marker, text) for marker, text in (
            ("results-table", table), ("bytes-table", bytes_table(rows, peak)),
            ("ratios", ratios), ("cuco-table", cuco_table(cuco_rows)),
            ("provenance", report.provenance(args.env, args.csv, args.results) + "\n"),
            ("cuco-provenance", report.provenance(cuco_env, cuco_csv, args.results) + "\n"))]
    if args.check:
        stale = [f"{path}: {marker}" for path, marker, text in blocks
                 if report.read_block(path, marker) != "\n" + text]
        if stale:
            sys.exit("not what the CSV gives (run atomics_appendix/plot_benchmark.py with "
                     "--readme and --results): " + ", ".join(stale))
        return
    for path, marker, text in blocks:
        report.update_readme(path, text, marker)
    if args.png:
        plot(rows, args.png, report.describe_env(args.env) or "A99_benchmark")


if __name__ == "__main__":
    main()
