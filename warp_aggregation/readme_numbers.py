#!/usr/bin/env python3
"""Writes every measured sentence, output excerpt and small table of the chapter README from the
files in data/, so that the README quotes the committed measurements and nothing else.

    python3 warp_aggregation/readme_numbers.py --readme warp_aggregation/README.md

Each block stands between <!-- <name>:begin --> and <!-- <name>:end --> in the README. Without
--readme the blocks are printed. A block whose data is missing says so instead of a number.
The files (a GPU run writes them; the commands are in RESULTS.md):
  traces.txt        01 and 02 --n 64 --trace
  get_peers.csv     01 --csv at its default size
  benchmark.csv     03 --csv (benchmark_log.txt: what it printed besides)
  sweep.csv         03 --order sweep --precision double --csv
  filter.csv        04 --csv (filter_log.txt: what it printed besides)
The results table itself, the plots and RESULTS.md's tables come from plot_benchmark.py and
plot_sweep.py.
"""
import argparse
import csv
import os
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scripts"))
sys.path.insert(0, HERE)
import report  # noqa: E402  (scripts/report.py)
import plot_sweep  # noqa: E402

DATA = os.path.join(HERE, "data")


def path(name):
    return os.path.join(DATA, name)


def missing(what, name):
    return f"*No measurement of {what} is committed yet (it goes to `data/{name}`).*\n"


def link(name):
    return f"[`data/{name}`](data/{name})"


def load(name):
    """The rows of a data CSV, or None where it is missing."""
    if not os.path.exists(path(name)):
        return None
    with open(path(name), newline="") as f:
        return list(csv.DictReader(f))


def ms(rows, **match):
    """The median ms of the one row whose fields match, or None."""
    for row in rows or []:
        if all(row.get(k) == v for k, v in match.items()):
            return float(row["ms"])
    return None


def bench(precision, order, variant):
    return ms(load("benchmark.csv"), precision=precision, order=order, variant=variant)


def times(a, b):
    """a / b as the README writes a ratio."""
    return f"{a / b:.2f}"


def sentence(text):
    """A paragraph at the README's 100 columns."""
    return textwrap.fill(text, width=100, break_long_words=False, break_on_hyphens=False) + "\n"


# ---------------------------------------------------------------------------------------------
# Excerpts of what the programs print.

def trace_blocks():
    """{program: [(header line, [lines])]}: each pattern's trace in traces.txt."""
    blocks, program, current = {}, None, None
    for line in open(path("traces.txt")).read().splitlines():
        if line.startswith("$ "):
            program = line.split()[1].split("/")[-1]
            blocks[program] = []
        elif "round by round, first warp of" in line:
            current = (line, [])
            blocks[program].append(current)
        elif current and line.startswith("  "):
            current[1].append(line)
        else:
            current = None
    return blocks


def prints_01():
    if not os.path.exists(path("traces.txt")):
        return missing("01's trace", "traces.txt")
    for header, lines in trace_blocks()["01_get_peers"]:
        if "'random'" in header:
            return "\n".join(["```", "$ build/bin/01_get_peers --n 64 --trace", "...", header]
                             + lines + ["```", ""])
    return missing("01's trace of the random keys", "traces.txt")


def prints_02():
    """02's trace of the random warp, trimmed to the lanes still holding a partial sum after round
    0 (an even rel_pos), a dot where a lane no longer holds one (whatever the file's format)."""
    if not os.path.exists(path("traces.txt")):
        return missing("02's trace", "traces.txt")
    for header, lines in trace_blocks()["02_reduce_peers"]:
        if "'random'" not in header:
            continue
        out = ["```", "$ build/bin/02_reduce_peers --n 64 --trace", "...", header, lines[0]]
        for line in lines[1:]:
            fields = line.split()
            rel_pos, rounds = int(fields[2]), fields[4:-1]
            if fields[-1] == "first":
                rounds = fields[4:-3]
            if rel_pos % 2:
                continue
            cells = [x if rel_pos % (2 << r) == 0 else "." for r, x in enumerate(rounds)]
            result = line.split()[4 + len(rounds)]
            text = f"  {fields[0]:>4} {fields[1]:>4} {fields[2]:>8} {fields[3]:>6}"
            text += "".join(f"  {c:>7}" for c in cells) + f"  {result:>6}"
            out.append(text + ("  <- first" if rel_pos == 0 else ""))
        return "\n".join(out + ["```", ""])
    return missing("02's trace of the random keys", "traces.txt")


def prints_03():
    if not os.path.exists(path("benchmark_log.txt")):
        return missing("03's text output", "benchmark_log.txt")
    lines = [line for line in open(path("benchmark_log.txt")).read().splitlines()
             if not line.endswith(": checking, then timing, every variant")]
    return "\n".join(["```", "$ build/bin/03_reduction_by_key_benchmark --csv > benchmark.csv"]
                     + lines + ["```", ""])


def prints_04():
    """04's result lines at 50% kept, as it prints them (from its CSV)."""
    rows = [r for r in load("filter.csv") or [] if r["variant"].endswith("/50%")]
    if not rows:
        return missing("04 at its default size", "filter.csv")
    peak = report.peak_gbps(rows, path("filter.csv"), path("env.txt"))
    out = ["```", "$ build/bin/04_warp_aggregated_increment", "..."]
    for r in rows:
        name = f"{r['program']} {r['variant']}"
        line = (f"{name:<40} n={r['n']:<11} {float(r['ms']):10.4f} ms "
                f"{float(r['gb_per_s']):9.1f} GB/s")
        if peak:
            line += f"  {float(r['pct_of_peak']):5.1f}% of peak {peak} GB/s"
        out.append(line)
    return "\n".join(out + ["...", "```", ""])


# ---------------------------------------------------------------------------------------------
# One number per section: a ratio of two medians, both named.

def number_01():
    rows = load("get_peers.csv")
    loop = ms(rows, variant="get_peers/all distinct")
    match = ms(rows, variant="__match_any_sync/all distinct")
    if loop is None or match is None:
        return missing("01 at its default size", "get_peers.csv")
    return sentence(
        f"**One number:** with 32 distinct keys in every warp (the 'all distinct' pattern, "
        f"10^6 keys), the blog's loop takes **{times(loop, match)} times** as long as "
        f"`__match_any_sync`: {loop:.4f} ms over {match:.4f} ms ({link('get_peers.csv')}).\n")


def number_02():
    given = bench("double", "sorted", "reduce_peers masks given")
    atomic = bench("double", "sorted", "atomicAdd")
    if given is None or atomic is None:
        return missing("the reduction from given masks", "benchmark.csv")
    return sentence(
        f"**One number:** the reduction alone, from masks found beforehand (what the blog's "
        f"figure timed: 03's row \"reduce_peers masks given\"), is **{times(atomic, given)} "
        f"times as fast** as plain `atomicAdd` on sorted keys in double: {atomic:.4f} ms over "
        f"{given:.4f} ms ({link('benchmark.csv')}).\n")


def number_03():
    match = bench("double", "sorted", "warp match_any")
    atomic = bench("double", "sorted", "atomicAdd")
    if match is None or atomic is None:
        return missing("03", "benchmark.csv")
    return sentence(
        f"**One number:** on sorted keys in double, the blog's aggregation with today's peer "
        f"search (`__match_any_sync` + `reduce_peers` + one `atomicAdd` per group) is "
        f"**{times(atomic, match)} times as fast** as a native `atomicAdd(double)` per value: "
        f"{atomic:.4f} ms over {match:.4f} ms ({link('benchmark.csv')}).\n")


def number_cg():
    cg = bench("double", "sorted", "cg labeled_partition")
    match = bench("double", "sorted", "warp match_any")
    if cg is None or match is None:
        return missing("`cg labeled_partition`", "benchmark.csv")
    return sentence(
        f"**One number:** on sorted keys in double the two calls take **{times(cg, match)} "
        f"times** the time of the hand-written `match_peers` + `reduce_peers<false>`: "
        f"{cg:.4f} ms over {match:.4f} ms ({link('benchmark.csv')}).\n")


def number_scan():
    scan = bench("double", "sorted", "warp segmented scan 4/lane")
    cub = bench("double", "sorted", "CUB ReduceByKey")
    if scan is None or cub is None:
        return missing("the segmented scan", "benchmark.csv")
    return sentence(
        f"**One number:** on sorted keys in double, 4 values a lane, it is **{times(cub, scan)} "
        f"times as fast** as CUB's `ReduceByKey` on the same keys: {cub:.4f} ms over "
        f"{scan:.4f} ms ({link('benchmark.csv')}).\n")


def number_library():
    sort = bench("double", "random", "CUB sort + ReduceByKey")
    atomic = bench("double", "random", "atomicAdd")
    if sort is None or atomic is None:
        return missing("`CUB sort + ReduceByKey`", "benchmark.csv")
    return sentence(
        f"**One number:** on random keys in double, sorting and then `ReduceByKey` takes "
        f"**{times(sort, atomic)} times** as long as a plain `atomicAdd` per value: "
        f"{sort:.4f} ms over {atomic:.4f} ms ({link('benchmark.csv')}); what it buys is the "
        "same bits at every run.\n")


def number_04():
    rows = load("filter.csv")
    plain = ms(rows, variant="plain atomicAdd/50%")
    block = ms(rows, variant="block-aggregated/50%")
    if plain is None or block is None:
        return missing("04 at its default size", "filter.csv")
    return sentence(
        f"**One number:** keeping half of 2^24 ints, one atomic per block of 256 is "
        f"**{times(plain, block)} times as fast** as one `atomicAdd` per element: {plain:.4f} "
        f"ms over {block:.4f} ms ({link('filter.csv')}); the warp-aggregated and "
        "`coalesced_threads` kernels take the plain kernel's time.\n")


def number_04_cub():
    rows = load("filter.csv")
    cub = ms(rows, variant="CUB DeviceSelect::If/50%")
    block = ms(rows, variant="block-aggregated/50%")
    if cub is None or block is None:
        return missing("`CUB DeviceSelect::If`", "filter.csv")
    return sentence(
        f"**One number:** keeping half of 2^24 ints, `cub::DeviceSelect::If` takes "
        f"**{times(cub, block)} times** the time of the block-aggregated kernel: {cub:.4f} ms "
        f"over {block:.4f} ms ({link('filter.csv')}).\n")


# ---------------------------------------------------------------------------------------------
# The blog's conclusions, each beside one measurement.

def blog_table():
    rows = load("benchmark.csv")
    if rows is None:
        return missing("03", "benchmark.csv")

    def speedup(precision, order, variant, base="atomicAdd"):
        a, b = bench(precision, order, base), bench(precision, order, variant)
        return None if a is None or b is None else a / b

    def cell(value, what):
        return "–" if value is None else f"{what}: {value:.2f}× as fast"

    search = bench("double", "sorted", "get_peers search only")
    whole = bench("double", "sorted", "warp get_peers")
    share = None if search is None or whole is None else 100 * search / whole
    lines = [
        "| the blog says | on the H200 | the number |", "|---|---|---|",
        "| warp aggregation speeds up sorted keys in double (against its baseline, the "
        "`atomicCAS` loop) | still true | "
        + cell(speedup("double", "sorted", "warp get_peers", "atomicCAS loop"),
               "`get_peers` aggregation over the `atomicCAS` loop") + " |",
        "| (today's baseline is a native `atomicAdd(double)`, since Pascal) | the blog's "
        "`get_peers` gains nothing | "
        + cell(speedup("double", "sorted", "warp get_peers"),
               "`get_peers` aggregation over `atomicAdd`") + " |",
        "| | with `__match_any_sync` it gains | "
        + cell(speedup("double", "sorted", "warp match_any"),
               "`match_any` aggregation over `atomicAdd`") + " |",
        "| in float, plain atomics are never significantly slower | true of the blog's loop, "
        "not of `__match_any_sync` | "
        + cell(speedup("float", "sorted", "warp match_any"),
               "`match_any` aggregation over `atomicAdd`, float") + " |",
        "| not for you if the keys are random | still true | "
        + cell(speedup("double", "random", "warp match_any"),
               "`match_any` aggregation over `atomicAdd`, random keys") + " |",
        "| the peer search costs \"an insignificant few percent\" to a reduction step | it "
        "decides the outcome | "
        + ("–" if share is None else f"{share:.0f}% of `get_peers` aggregation's time is its "
           "search") + " |",
        "| shared-memory binning (\"hashing ... per block\") is the alternative | it loses to "
        "native atomics | "
        + cell(speedup("double", "sorted", "shared-memory hashing"),
               "hashing over `atomicAdd`") + " |",
    ]
    return "\n".join(lines) + "\n\n" + sentence(
        f"Sorted keys in double unless the row says otherwise; {link('benchmark.csv')}.")


def sweep_table():
    if not os.path.exists(path("sweep.csv")):
        return missing("the sweep", "sweep.csv")
    return plot_sweep.table(plot_sweep.load(path("sweep.csv")),
                            report.provenance(path("env.txt"), path("sweep.csv"),
                                              os.path.join(HERE, "README.md")))


BLOCKS = {"prints-01": prints_01, "number-01": number_01, "prints-02": prints_02,
          "number-02": number_02, "prints-03": prints_03, "number-03": number_03,
          "number-cg": number_cg, "sweep-table": sweep_table, "number-scan": number_scan,
          "number-library": number_library, "prints-04": prints_04, "number-04": number_04,
          "number-04-cub": number_04_cub, "blog-table": blog_table}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readme", help="rewrite the blocks of this README")
    args = parser.parse_args()
    if args.readme and not os.access(args.readme, os.W_OK):
        parser.error(f"--readme {args.readme}: not a file that can be rewritten")
    for name, make in BLOCKS.items():
        text = make()
        if args.readme:
            report.update_readme(args.readme, text, name)
        else:
            print(f"<!-- {name} -->\n{text}")


if __name__ == "__main__":
    main()
