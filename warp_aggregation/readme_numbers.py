#!/usr/bin/env python3
"""Writes every measured sentence, output excerpt and small table of the chapter README from the
files in data/, so that the README quotes the committed measurements and nothing else.

    python3 warp_aggregation/readme_numbers.py --readme warp_aggregation/README.md

Each block stands between <!-- <name>:begin --> and <!-- <name>:end --> in the README. Without
--readme the blocks are printed; --data reads another folder than data/ (the tests give it one).
A block whose data is missing says so instead of a number ("not yet measured" in a table cell).
The files (a GPU run writes them; the commands are in RESULTS.md):
  traces.txt            01 and 02 --n 64 --trace
  get_peers.csv         01 --csv at its default size
  benchmark.csv         03 --csv (benchmark_log.txt: what it printed besides)
  scan.txt              03 --order sorted --precision double, as it prints it
  sweep.csv             03 --order sweep --precision double --csv (and ../sweep.png, its plot)
  determinism.csv       03 --determinism 20 --csv
  determinism_4096.csv  03 --determinism 20 --order sorted --per-cell 4096 --precision double --csv
  filter.csv            04 --csv; filter.txt: 04 as it prints it
The results table itself, the plots and RESULTS.md's tables come from plot_benchmark.py and
plot_sweep.py. Every ratio here is one median over another, rounded once, where it is printed.
"""
import argparse
import csv
import os
import re
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scripts"))
sys.path.insert(0, HERE)
import report  # noqa: E402  (scripts/report.py)
import plot_sweep  # noqa: E402

DATA = os.path.join(HERE, "data")
NOT_YET = "(not yet measured)"
# 01's and 02's pattern of keys drawn from 8 values, and its name in traces made before it had one.
EIGHT_KEYS = ("'8 keys'", "'random'")


def path(name):
    return os.path.join(DATA, name)


def have(name):
    return os.path.exists(path(name))


def missing(what, name):
    return sentence(f"*No measurement of {what} is committed yet (it goes to `data/{name}`).*")


def link(name):
    return f"[`data/{name}`](data/{name})"


def load(name):
    """The rows of a data CSV, or None where it is missing."""
    if not have(name):
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


def ratio(a, b):
    """a / b, or None where either is missing."""
    return None if a is None or b is None else a / b


def times(a, b):
    """a / b as the README writes a ratio: the one rounding."""
    return f"{a / b:.2f}"


def sentence(text):
    """A paragraph at the README's 100 columns."""
    return textwrap.fill(text, width=100, break_long_words=False, break_on_hyphens=False) + "\n"


def recorded(name):
    """The command and output lines of a file that scripts/gpu_check.sh's `record` wrote ("$ "
    and the command, the output, "[exit N]"), or None."""
    if not have(name):
        return None
    lines = open(path(name)).read().splitlines()
    command = lines[0][2:] if lines and lines[0].startswith("$ ") else None
    return command, [line for line in lines[1:] if not line.startswith("[exit ")]


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


def eight_keys_trace(program):
    """(header, lines) of the program's trace of the keys drawn from 8 values, or None."""
    for header, lines in trace_blocks().get(program, []):
        if any(name in header for name in EIGHT_KEYS):
            return header, lines
    return None


def prints_01():
    found = have("traces.txt") and eight_keys_trace("01_get_peers")
    if not found:
        return missing("01's trace", "traces.txt")
    header, lines = found
    return "\n".join(["```", "$ build/bin/01_get_peers --n 64 --trace", "...", header]
                     + lines + ["```", ""])


def prints_02():
    """02's trace of the 8-keys warp, trimmed to the lanes still holding a partial sum after round
    0 (an even rel_pos), a dot where a lane no longer holds one (whatever the file's format); the
    block says what it leaves out."""
    found = have("traces.txt") and eight_keys_trace("02_reduce_peers")
    if not found:
        return missing("02's trace", "traces.txt")
    header, lines = found
    rows, left_out = [lines[0]], 0
    for line in lines[1:]:
        fields = line.split()
        rel_pos, rounds = int(fields[2]), fields[4:-1]
        if fields[-1] == "first":
            rounds = fields[4:-3]
        if rel_pos % 2:
            left_out += 1
            continue
        cells = [x if rel_pos % (2 << r) == 0 else "." for r, x in enumerate(rounds)]
        result = fields[4 + len(rounds)]
        text = f"  {fields[0]:>4} {fields[1]:>4} {fields[2]:>8} {fields[3]:>6}"
        text += "".join(f"  {c:>7}" for c in cells) + f"  {result:>6}"
        rows.append(text + ("  <- first" if rel_pos == 0 else ""))
    note = (f"... (an excerpt: this warp's {left_out} lanes with an odd rel_pos, reduced away in "
            "round 0, left out)")
    return "\n".join(["```", "$ build/bin/02_reduce_peers --n 64 --trace", note, header] + rows
                     + ["```", ""])


def prints_03():
    if not have("benchmark_log.txt"):
        return missing("03's text output", "benchmark_log.txt")
    lines = open(path("benchmark_log.txt")).read().splitlines()
    return "\n".join(["```", "$ build/bin/03_reduction_by_key_benchmark --csv > benchmark.csv"]
                     + lines + ["```", ""])


# 03's text rows on sorted keys in double that the segmented scan's section shows.
SCAN_ROWS = ["atomicAdd", "warp match_any", "warp segmented scan 4/lane",
             "warp segmented scan 8/lane", "CUB ReduceByKey"]
ROW = re.compile(r"^(float|double)\s+(sorted)\s+(.+?)\s+(\d+\.\d+)\s+\d+\.\d+ \.\.")


def scan_rows():
    """{variant: (ms, line)} of scan.txt's rows, or None where it is missing."""
    found = recorded("scan.txt")
    if not found:
        return None
    rows = {}
    for line in found[1]:
        m = ROW.match(line)
        if m:
            rows[m.group(3)] = (float(m.group(4)), line)
    return rows


def prints_scan():
    found, rows = recorded("scan.txt"), scan_rows()
    if not found or not rows:
        return missing("03's text output on sorted keys in double", "scan.txt")
    command, lines = found
    header = [line for line in lines if line.startswith("type ")]
    order = [line for line in lines if line.startswith("sorted: ")]
    out = ["```", "$ " + command, "..."] + order + header
    out += [rows[v][1] for v in SCAN_ROWS if v in rows]
    return "\n".join(out + ["...", "```", ""])


def prints_04():
    """04's result lines at 50% kept: as it printed them (filter.txt), else rebuilt from its CSV
    in the same format, and the block says so."""
    found = recorded("filter.txt")
    if found:
        command, lines = found
        kept = [line for line in lines if "/50% " in line]
        if kept:
            return "\n".join(["```", "$ " + command, "..."] + kept + ["...", "```", ""])
    rows = [r for r in load("filter.csv") or [] if r["variant"].endswith("/50%")]
    if not rows:
        return missing("04 at its default size", "filter.csv")
    peak = report.peak_gbps(rows, path("filter.csv"), path("env.txt"))
    out = ["```", "$ build/bin/04_warp_aggregated_increment",
           "... (its lines at 50% kept, rebuilt from data/filter.csv in the program's format)"]
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
        f"figure timed), is **{times(atomic, given)} times as fast** as plain `atomicAdd` on "
        f"sorted keys in double: {atomic:.4f} ms over {given:.4f} ms ({link('benchmark.csv')}). "
        "02 checks and times the search and the reduction together; this row is 03's, \"reduce_"
        "peers masks given\": `build/bin/03_reduction_by_key_benchmark --order sorted "
        "--precision double` prints it.\n")


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


def scan_and_cub():
    """(scan ms, CUB ms, the file they come from): scan.txt's rows, else benchmark.csv's."""
    rows = scan_rows() or {}
    if "warp segmented scan 4/lane" in rows and "CUB ReduceByKey" in rows:
        return rows["warp segmented scan 4/lane"][0], rows["CUB ReduceByKey"][0], "scan.txt"
    return (bench("double", "sorted", "warp segmented scan 4/lane"),
            bench("double", "sorted", "CUB ReduceByKey"), "benchmark.csv")


def number_scan():
    scan, cub, source = scan_and_cub()
    if scan is None or cub is None:
        return missing("the segmented scan", "benchmark.csv")
    return sentence(
        f"**One number:** on sorted keys in double, 4 values a lane, it is **{times(cub, scan)} "
        f"times as fast** as CUB's `ReduceByKey` on the same keys: {cub:.4f} ms over "
        f"{scan:.4f} ms ({link(source)}).\n")


def number_library():
    sort = bench("double", "random", "CUB sort + ReduceByKey")
    atomic = bench("double", "random", "atomicAdd")
    if sort is None or atomic is None:
        return missing("`CUB sort + ReduceByKey`", "benchmark.csv")
    return sentence(
        f"**One number:** on random keys in double, sorting and then `ReduceByKey` takes "
        f"**{times(sort, atomic)} times** as long as a plain `atomicAdd` per value: "
        f"{sort:.4f} ms over {atomic:.4f} ms ({link('benchmark.csv')}).\n")


def repeat_cell(row):
    if row is None:
        return "–"
    if row["identical"] == "yes":
        return f"yes ({row['runs']} runs)"
    return (f"**no**: {row['distinct_results']} results in {row['runs']} runs, "
            f"{row['bins_that_differ']} bins differ")


def determinism_table():
    rows = load("determinism.csv")
    if not rows:
        return missing("the determinism check", "determinism.csv")
    orders = [o for o in ("sorted", "partially sorted", "random")
              if any(r["order"] == o for r in rows)]
    lines = ["Identical bits in every run? Values that are multiples of 1/10; each variant run "
             f"{rows[0]['runs']} times on the same input, its bins compared bit for bit with its "
             f"first run's ({link('determinism.csv')}).", ""]
    for precision in ("float", "double"):
        mine = [r for r in rows if r["precision"] == precision]
        if not mine:
            continue
        variants = list(dict.fromkeys(r["variant"] for r in mine))
        lines += [f"**{precision}**", "", "| variant | " + " | ".join(orders) + " |",
                  "|---" * (len(orders) + 1) + "|"]
        for v in variants:
            cells = [repeat_cell(next((r for r in mine if r["variant"] == v and r["order"] == o),
                                      None)) for o in orders]
            lines.append(f"| {v} | " + " | ".join(cells) + " |")
        lines.append("")
    long_runs = [r for r in load("determinism_4096.csv") or []
                 if r["variant"] in ("CUB ReduceByKey", "CUB sort + ReduceByKey")]
    if long_runs:
        text = "; ".join(f"{r['variant']}: {repeat_cell(r).replace('**', '')}"
                         for r in long_runs)
        lines.append(sentence(
            f"With 4096 values per key (sorted keys in double, so that a run of equal keys spans "
            f"several of CUB's tiles), {text} ({link('determinism_4096.csv')})."))
    else:
        lines.append(missing("runs of 4096 equal keys", "determinism_4096.csv"))
    return "\n".join(lines)


def number_04():
    rows = load("filter.csv")
    plain = ms(rows, variant="plain atomicAdd/50%")
    warp = ms(rows, variant="warp-aggregated/50%")
    coalesced = ms(rows, variant="coalesced_threads/50%")
    block = ms(rows, variant="block-aggregated/50%")
    if None in (plain, warp, coalesced, block):
        return missing("04 at its default size", "filter.csv")
    return sentence(
        f"**One number:** keeping half of 2^24 ints, the hand-written warp aggregation takes "
        f"**{times(warp, plain)} times** the time of one plain `atomicAdd` per element: "
        f"{warp:.4f} ms against {plain:.4f} ms (`coalesced_threads`: {coalesced:.4f} ms; "
        f"{link('filter.csv')}). What does pay is one atomic per block of 256, beyond the blog: "
        f"{times(plain, block)} times as fast as the plain kernel ({block:.4f} ms).\n")


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
# The blog's conclusions, each beside one measurement; which technique for which keys.

ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}


def reuse():
    """(search ms, masks-given ms, atomicAdd ms, the fewest uses k at which the stored masks pay)
    on sorted keys in double, or None: k uses cost search + k * given with the masks stored, and
    k * atomicAdd without aggregation."""
    search = bench("double", "sorted", "get_peers search only")
    given = bench("double", "sorted", "reduce_peers masks given")
    atomic = bench("double", "sorted", "atomicAdd")
    if None in (search, given, atomic):
        return None
    k = next((k for k in range(1, 1001) if search + k * given < k * atomic), None)
    return search, given, atomic, k


def blog_table():
    if load("benchmark.csv") is None:
        return missing("03", "benchmark.csv")

    def speedup(precision, order, variant, base="atomicAdd"):
        return ratio(bench(precision, order, base), bench(precision, order, variant))

    def cell(value, what):
        return "–" if value is None else f"{what}: {value:.2f}× as fast"

    search = bench("double", "sorted", "get_peers search only")
    given = bench("double", "sorted", "reduce_peers masks given")
    whole = bench("double", "sorted", "warp get_peers")
    atomic = bench("double", "sorted", "atomicAdd")
    if None in (search, given, whole, atomic):
        search_verdict = search_cell = "–"
    else:
        loop, gain = whole - given, atomic - given
        search_verdict = ("the upper end" if search > given / 3 else "the lower end") + \
            ", for the blog's loop: it costs " + (
                "as much as" if abs(loop - gain) <= 0.25 * abs(gain) else
                "more than" if loop > gain else "less than") + " aggregation gains"
        search_cell = (f"the search alone {search:.4f} ms, the reduction from given masks "
                       f"{given:.4f} ms; inside the kernel the loop costs {whole:.4f} − "
                       f"{given:.4f} = {loop:.4f} ms, {100 * loop / whole:.0f}% of it, where "
                       f"aggregation saves {atomic:.4f} − {given:.4f} = {atomic - given:.4f} ms "
                       "over `atomicAdd`")
    found = reuse()
    if found is None:
        reuse_verdict = reuse_cell = "–"
    else:
        s, g, a, k = found
        reuse_verdict = f"from the {ORDINALS.get(k, f'{k}th')} use" if k else "never here"
        reuse_cell = (f"k uses: {s:.4f} + k × {g:.4f} ms with the masks stored, k × {a:.4f} ms "
                      "with `atomicAdd`: " + (f"less from k = {k} on" if k else "never less"))
    lines = [
        "| the blog says | on the H200 | the number |", "|---|---|---|",
        "| warp aggregation speeds up sorted keys in double (against its baseline, the "
        "`atomicCAS` loop) | still true | "
        + cell(speedup("double", "sorted", "warp get_peers + CAS", "atomicCAS loop"),
               "`get_peers` aggregation with the `atomicCAS` loop, over the loop alone") + " |",
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
        "| the time to find the peers \"varies from an insignificant few percent (…) to about the "
        "same order of magnitude as a reduction step\" | " + search_verdict + " | "
        + search_cell + " |",
        "| with the masks reused \"at least once\", a net gain even so | " + reuse_verdict
        + " | " + reuse_cell + " |",
        "| shared-memory binning (\"hashing ... per block\") is the alternative | it loses to "
        "native atomics | "
        + cell(speedup("double", "sorted", "shared-memory hashing"),
               "hashing over `atomicAdd`") + " |",
    ]
    return "\n".join(lines) + "\n\n" + sentence(
        f"Sorted keys in double unless the row says otherwise; {link('benchmark.csv')}.")


def reuse_masks():
    found = reuse()
    if found is None:
        return missing("the search and the reduction apart", "benchmark.csv")
    s, g, a, k = found
    match = bench("double", "sorted", "warp match_any")
    text = (f"On sorted keys in double ({link('benchmark.csv')}): finding the masks with the "
            f"blog's loop costs {s:.4f} ms (03's \"get_peers search only\", which also writes "
            f"them), a reduction from stored masks {g:.4f} ms, a plain `atomicAdd` pass "
            f"{a:.4f} ms. k passes cost {s:.4f} + k × {g:.4f} ms with the masks stored and "
            f"k × {a:.4f} ms without aggregation: ")
    text += f"the stored masks pay from k = {k} on." if k else "the stored masks never pay."
    if match is not None:
        text += (" With `__match_any_sync` there is nothing to store: a whole pass takes "
                 f"{match:.4f} ms.")
    return sentence(text)


def which_to_use():
    """The advice, each row with the measurement behind it or "(not yet measured)"."""
    scan = ratio(bench("double", "sorted", "atomicAdd"),
                 bench("double", "sorted", "warp segmented scan 4/lane"))
    scan_cub = ratio(bench("double", "sorted", "CUB ReduceByKey"),
                     bench("double", "sorted", "warp segmented scan 4/lane"))
    scan_partial = ratio(bench("double", "partially sorted", "warp match_any"),
                         bench("double", "partially sorted", "warp segmented scan 4/lane"))
    sorted_cell = (NOT_YET if None in (scan, scan_cub, scan_partial) else
                   f"sorted, double: the scan {scan:.2f}× as fast as `atomicAdd`, {scan_cub:.2f}× "
                   f"as fast as CUB; partially sorted: {scan_partial:.2f}× as fast as `match_any` "
                   "aggregation")
    scattered = None
    if have("sweep.csv"):
        for arrangements in plot_sweep.load(path("sweep.csv")).values():
            rows = arrangements.get("scattered")
            if rows and "warp match_any" in rows:
                def verdict(variant):
                    d = plot_sweep.slower_from(rows, variant)
                    return (f"slower than `atomicAdd` from *d* = {d} on" if d else
                            "faster than `atomicAdd` at every *d*")
                scattered = ("scattered sweep, double: `match_any` aggregation "
                             + verdict("warp match_any") + "; `labeled_partition` "
                             + verdict("cg labeled_partition"))
    random_match = ratio(bench("double", "random", "atomicAdd"),
                         bench("double", "random", "warp match_any"))
    random_cell = (NOT_YET if random_match is None else
                   f"random, double: `match_any` aggregation {random_match:.2f}× as fast as "
                   "`atomicAdd`")
    sort = ratio(bench("double", "random", "CUB sort + ReduceByKey"),
                 bench("double", "random", "atomicAdd"))
    repeat = [r for r in load("determinism.csv") or []
              if r["variant"] == "CUB sort + ReduceByKey" and r["order"] == "random"]
    sort_cell = (f"{sort:.2f}× the time of `atomicAdd` (random, double)" if sort else
                 "time " + NOT_YET)
    sort_cell += "; identical bits: " + (
        ", ".join(f"{r['identical']} ({r['precision']})" for r in repeat) if repeat else NOT_YET)
    filter_rows = load("filter.csv")
    block = ratio(ms(filter_rows, variant="plain atomicAdd/50%"),
                  ms(filter_rows, variant="block-aggregated/50%"))
    select = ratio(ms(filter_rows, variant="plain atomicAdd/50%"),
                   ms(filter_rows, variant="CUB DeviceSelect::If/50%"))
    counter_cell = ("per block: " + (f"{block:.2f}× as fast as" if block else NOT_YET)
                    + " the plain kernel; `DeviceSelect::If`: "
                    + (f"{select:.2f}× as fast" if select else NOT_YET))
    peers = load("get_peers.csv")
    loop = ratio(ms(peers, variant="get_peers/all distinct"),
                 ms(peers, variant="__match_any_sync/all distinct"))
    loop_cell = (NOT_YET if loop is None else
                 f"the loop takes {loop:.2f}× `__match_any_sync`'s time at *d* = 32")
    rows = [
        ("sorted, or nearly (each key's values close together)",
         "the warp segmented scan, or CUB's `ReduceByKey` (sorted keys only)",
         "runs need no peer search; the scan is bound by memory, `ReduceByKey` is one call",
         sorted_cell),
        ("few distinct keys per warp, scattered over its lanes",
         "`match_peers` + `reduce_peers`, or `labeled_partition` + `cg::reduce`",
         "*d* atomics a warp instead of 32, wherever the peers sit; the scan sees runs of one",
         scattered or NOT_YET),
        ("random, one pass", "plain `atomicAdd`",
         "nothing to combine: any aggregation only adds its search", random_cell),
        ("random, results reproduced bit for bit", "sort + `ReduceByKey`, while a key's run "
         "stays within two of CUB's tiles",
         "no atomics; for longer runs, [determinism](#the-library-and-determinism)", sort_cell),
        ("one counter (filtering, appending)", "per-block aggregation, or `DeviceSelect::If`",
         "the compiler already aggregates per warp; the counter is the limit, and a scan has "
         "none", counter_cell),
        ("the blog's `get_peers` loop", "nothing, since Volta",
         "`__match_any_sync` gives the same mask in one instruction", loop_cell),
    ]
    lines = ["| your keys | reach for | because | measured |", "| --- | --- | --- | --- |"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    return "\n".join(lines) + "\n"


def sweep_figure():
    """The sweep's plot, where it and its data are committed (it sits beside data/)."""
    if not (have("sweep.csv") and os.path.exists(os.path.join(DATA, os.pardir, "sweep.png"))):
        return ""
    return ("![Time and speed-up over atomicAdd against distinct keys per warp, in runs and "
            "scattered](sweep.png)\n\n*Drawn by [`plot_sweep.py`](plot_sweep.py) from "
            f"{link('sweep.csv')}.*\n")


def sweep_table():
    if not have("sweep.csv"):
        return missing("the sweep", "sweep.csv")
    return plot_sweep.table(plot_sweep.load(path("sweep.csv")),
                            report.provenance(path("env.txt"), path("sweep.csv"),
                                              os.path.join(HERE, "README.md")))


BLOCKS = {"prints-01": prints_01, "number-01": number_01, "prints-02": prints_02,
          "number-02": number_02, "prints-03": prints_03, "number-03": number_03,
          "number-cg": number_cg, "sweep-figure": sweep_figure, "sweep-table": sweep_table,
          "prints-scan": prints_scan, "number-scan": number_scan,
          "number-library": number_library, "determinism-table": determinism_table,
          "prints-04": prints_04, "number-04": number_04, "number-04-cub": number_04_cub,
          "blog-table": blog_table, "which-to-use": which_to_use, "reuse-masks": reuse_masks}


def main():
    global DATA
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readme", help="rewrite the blocks of this README")
    parser.add_argument("--data", help="the folder of the data files (default: data/ here)")
    args = parser.parse_args()
    if args.readme and not os.access(args.readme, os.W_OK):
        parser.error(f"--readme {args.readme}: not a file that can be rewritten")
    if args.data:
        if not os.path.isdir(args.data):
            parser.error(f"--data {args.data}: no such folder")
        DATA = args.data
    for name, make in BLOCKS.items():
        text = make()
        if args.readme:
            report.update_readme(args.readme, text, name)
        else:
            print(f"<!-- {name} -->\n{text}")


if __name__ == "__main__":
    main()
