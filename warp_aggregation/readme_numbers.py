#!/usr/bin/env python3
"""Writes every measured sentence, output excerpt and small table of the chapter README from the
files in data/, so that the README quotes the committed measurements and nothing else.

    python3 warp_aggregation/readme_numbers.py --readme warp_aggregation/README.md \
        --results warp_aggregation/RESULTS.md

Each block stands between <!-- <name>:begin --> and <!-- <name>:end --> in the README (BLOCKS) or
in RESULTS.md (RESULTS_BLOCKS: the blog's conclusions, 03's orders of keys, the sweep in full,
the determinism table in full). Each section's
printed excerpt and its numbers come from one run. Without --readme or --results the blocks are
printed; --data reads another folder than data/ (the tests give it one).
A block whose data is missing says so instead of a number ("not yet measured" in a table cell).

Which build made the data: sources.txt, which scripts/gpu_check.sh writes beside the data (the
commit, then the sha256 of each source of the programs). A GPU run's files without it are refused
(exit 1: nothing says which code they measured). Where a source's bytes differ now, the data is
older than the code: the provenance line and the data-state block say so with the commit and its
day, and each printed excerpt says which of its program's sources changed since.
The files (a GPU run writes them; the commands are in RESULTS.md):
  sources.txt           the commit and the sources' sha256 (scripts/gpu_check.sh)
  traces.txt            01 and 02 --n 64 --trace
  get_peers.csv         01 --csv at its default size
  reduce_peers.csv      02 --csv at its default size (reduce_peers_log.txt: its stderr)
  benchmark.csv         03 --csv (benchmark_log.txt: what it printed besides)
  scan.txt              03 --order sorted --precision double, as it prints it (RESULTS.md's;
                        the README prints the rows of the run its numbers quote, benchmark.csv)
  sweep.csv             03 --order sweep --precision double --csv (and ../sweep.png, its plot)
  determinism.csv       03 --determinism 20 --csv
  determinism_4096.csv  03 --determinism 20 --order sorted --per-cell 4096 --precision double --csv
  filter.csv            04 --csv; filter.txt: 04 as it prints it
and one that the host writes, which a test keeps equal to the program's output:
  key_orders.txt        warp_host_checks --orders: the line 03 prints as it starts each order
The plots and RESULTS.md's tables of every variant come from plot_benchmark.py and
plot_sweep.py. Every ratio here is one median over another, rounded once, where it is printed.
"""
import argparse
import csv
import hashlib
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


# The files a GPU run writes: with any of them, sources.txt must say which code they measured.
GPU_FILES = ["traces.txt", "get_peers.csv", "reduce_peers.csv", "benchmark.csv", "benchmark_log.txt", "scan.txt",
             "sweep.csv", "determinism.csv", "determinism_4096.csv", "filter.csv", "filter.txt"]
# The sources behind each program's output: its own file and the two headers.
HEADERS = ["warp_peers.cuh", "warp_agg.h"]
PROGRAM_SOURCES = {"01": ["01_get_peers.cu"] + HEADERS, "02": ["02_reduce_peers.cu"] + HEADERS,
                   "03": ["03_reduction_by_key_benchmark.cu"] + HEADERS,
                   "04": ["04_warp_aggregated_increment.cu"] + HEADERS}


def sources():
    """(commit, day, [the sources listed whose bytes differ now]) from sources.txt, or None where
    it is missing. A source listed but gone counts as changed."""
    if not have("sources.txt"):
        return None
    commit, day, changed = "unknown", "", []
    for line in open(path("sources.txt")).read().splitlines():
        head = re.match(r"commit (\S+)(?: (\d{4}-\d{2}-\d{2}))?", line)
        entry = re.match(r"([0-9a-f]{64})  (\S+)$", line)
        if head:
            commit, day = head.group(1), head.group(2) or ""
        elif entry:
            source = os.path.join(HERE, entry.group(2))
            now = (hashlib.sha256(open(source, "rb").read()).hexdigest()
                   if os.path.exists(source) else None)
            if now != entry.group(1):
                changed.append(entry.group(2))
    return commit, day, changed


def short(commit):
    return commit[:7] if re.fullmatch(r"[0-9a-f]{40}", commit) else commit


def words(items):
    """`a`, `b` and `c`."""
    quoted = [f"`{i}`" for i in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def measured_at():
    """'at commit 7a3500e', or '' without sources.txt."""
    found = sources()
    return f"at commit {short(found[0])}" if found else ""


def changed_since(program=None):
    """The sources of `program` ("01".."04"; all where None) that changed since the run."""
    found = sources()
    if not found:
        return []
    return [c for c in found[2] if program is None or c in PROGRAM_SOURCES[program]]


def stale_note(program, what=""):
    """An italic line above a printed excerpt whose program's sources changed since the run: which
    build printed it, which sources changed, and `what` differs where the file shows it."""
    changed = changed_since(program)
    if not changed:
        return ""
    commit, day, _ = sources()
    verb = "has" if len(changed) == 1 else "have"
    return sentence(f"*Printed by the build of commit {short(commit)}"
                    + (f" ({day})" if day else "") + f"; {words(changed)} {verb} changed since, "
                    "so today's build may print otherwise" + (f": {what}" if what else "") + ".*") \
        + "\n"


def provenance(env_path, csv_path, doc_path):
    """report.provenance's line with the commit the data was measured at, and, where the sources
    changed since, which: for plot_benchmark.py and plot_sweep.py too (sources.txt beside the
    CSV)."""
    global DATA
    saved, DATA = DATA, os.path.dirname(os.path.abspath(csv_path))
    try:
        line = report.provenance(env_path, csv_path, doc_path)
        at = measured_at()
        if at:
            line = line.replace("; data:", f", {at}; data:", 1)
        changed = changed_since()
        if changed:
            line += (f" The sources have changed since ({words(changed)}): these are the older "
                     "build's numbers.")
        return sentence(line).rstrip("\n")
    finally:
        DATA = saved


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


def old_name(header):
    """What a stale note says of a trace made before the pattern had its name."""
    return "it named the '8 keys' pattern 'random'" if "'random'" in header else ""


def prints_01():
    found = have("traces.txt") and eight_keys_trace("01_get_peers")
    if not found:
        return missing("01's trace", "traces.txt")
    header, lines = found
    return stale_note("01", old_name(header)) + "\n".join(
        ["```", "$ build/bin/01_get_peers --n 64 --trace", "...", header] + lines + ["```", ""])


def prints_02():
    """02's trace of the 8-keys warp, trimmed to lane 0's group and the lanes still holding a
    partial sum after round 0 (an even rel_pos), a dot where a lane no longer holds one (whatever
    the file's format); the block says what it leaves out."""
    found = have("traces.txt") and eight_keys_trace("02_reduce_peers")
    if not found:
        return missing("02's trace", "traces.txt")
    header, lines = found
    rows, kept = [lines[0]], []
    first_key = lines[1].split()[1]  # lane 0's group is printed whole, so round 0 can be checked
    for line in lines[1:]:
        fields = line.split()
        rel_pos, rounds = int(fields[2]), fields[4:-1]
        if fields[-1] == "first":
            rounds = fields[4:-3]
        if rel_pos % 2:
            if fields[1] != first_key:
                continue
            kept.append(fields[0])
        cells = [x if rel_pos % (2 << r) == 0 else "." for r, x in enumerate(rounds)]
        result = fields[4 + len(rounds)]
        text = f"  {fields[0]:>4} {fields[1]:>4} {fields[2]:>8} {fields[3]:>6}"
        text += "".join(f"  {c:>7}" for c in cells) + f"  {result:>6}"
        rows.append(text + ("  <- first" if rel_pos == 0 else ""))
    # Rows: every lane still holding a partial sum after round 0, and lane 0's key's others.
    others = (f", and key {first_key}'s lane{'s' if len(kept) > 1 else ''} "
              + (kept[0] if len(kept) == 1 else ", ".join(kept[:-1]) + " and " + kept[-1])
              if kept else "")
    note = f"... (an excerpt: every lane still holding a partial sum after round 0{others})"
    return stale_note("02", old_name(header)) + "\n".join(
        ["```", "$ build/bin/02_reduce_peers --n 64 --trace", note, header] + rows + ["```", ""])


# 03's rows on sorted keys in double, in the program's text format, from the run the numbers quote
# (benchmark.csv): the blog's Figure 1 under 03's command, the scan's and the cg spelling's later.
# The blog's own bar, masks given + CAS, is a row only in runs since 03 timed it (BLOG_BAR).
BLOG_BAR = "reduce_peers masks given + CAS"
FIGURE_ROWS = ["atomicAdd", "atomicCAS loop", "shared-memory hashing", "warp get_peers",
               "warp get_peers + CAS", "warp match_any", "reduce_peers masks given", BLOG_BAR]
OPTIONAL_ROWS = {BLOG_BAR}
SCAN_ROWS = ["atomicAdd", "warp match_any", "warp segmented scan 4/lane"]  # CUB: the next section
CG_ROWS = ["warp match_any", "cg labeled_partition"]
# The README shows four of the ten columns 03 prints: the variant, its median and two ratios. The
# spread, GB/s and xCUB are RESULTS.md's (its tables of every variant); type and order are the
# command's.
SHORT_FORMAT = "%-30s %10s %8s %7s"
TEXT_HEADER = SHORT_FORMAT % ("variant", "ms", "xatomic", "xCAS")
COLUMNS_NOTE = "four of its ten columns"


def text_row(row):
    """A benchmark.csv row as 03 prints it without --csv (print_results' format), in the README's
    four columns."""
    def fmt(x):
        return f"{float(x):.2f}" if x else "-"
    return (SHORT_FORMAT % (row["variant"], f"{float(row['ms']):.4f}", fmt(row["vs_atomicadd"]),
                            fmt(row["vs_cas"]))).rstrip()


def text_rows(variants, what, order="sorted", order_line=True):
    """03's rows for these variants on this order of keys in double, as `--order <order>
    --precision double` prints them, from the run the numbers quote (benchmark.csv, in the
    program's text format; scan.txt, the sorted command's own run, is RESULTS.md's), with the same
    run's line on the keys; a "no measurement" note where a row is missing (a row of
    OPTIONAL_ROWS, which older runs lack, is left out instead)."""
    rows = {(r["precision"], r["order"], r["variant"]): r for r in load("benchmark.csv") or []}
    if not all(("double", order, v) in rows for v in variants if v not in OPTIONAL_ROWS):
        return missing(what, "benchmark.csv")
    variants = [v for v in variants if ("double", order, v) in rows]
    log = open(path("benchmark_log.txt")).read().splitlines() if have("benchmark_log.txt") else []
    keys = [line for line in log if line.startswith(order + ": ")] if order_line else []
    out = ["```", f"$ build/bin/03_reduction_by_key_benchmark --order {order} --precision double",
           "..."] + keys + [TEXT_HEADER]
    out += [text_row(rows[("double", order, v)]) for v in variants] + ["...", "```", ""]
    return stale_note("03") + "\n".join(out)


def prints_03():
    """The rows of the blog's Figure 1 (and plain get_peers), right under 03's command."""
    text = text_rows(FIGURE_ROWS, "03 on sorted keys in double")
    if "```" not in text:
        return text
    return text + "\n" + sentence(
        f"*Rows of the full `--csv` run ({link('benchmark.csv')}), shown as this command prints "
        f"them, {COLUMNS_NOTE}.*")


def prints_scan():
    """03's rows on sorted keys in double that the scan's lesson compares."""
    text = text_rows(SCAN_ROWS, "03 on sorted keys in double", order_line=False)
    if "```" not in text:
        return text
    return text + "\n" + sentence(
        f"*As in 03: rows of {link('benchmark.csv')}, {COLUMNS_NOTE}.*")


FILTER_LINE = re.compile(r"^\S+ (.+?) n=\d+\s+(\d+\.\d+) ms")


def filter_run():
    """(the file, {variant: ms}, [the lines at 50% kept]) of the 04 run that the README quotes:
    the run it prints (filter.txt) where that holds the lines at 50% kept, else the CSV's
    (filter.csv); or None. Every number of 04 in the README comes from this one run."""
    found = recorded("filter.txt")
    if found:
        kept = [line for line in found[1] if "/50% " in line]
        times_ = {m.group(1): float(m.group(2)) for line in found[1]
                  for m in [FILTER_LINE.match(line)] if m}
        if kept:
            return "filter.txt", times_, kept
    rows = load("filter.csv")
    if not rows:
        return None
    return "filter.csv", {r["variant"]: float(r["ms"]) for r in rows}, []


def filter_ms(variant):
    found = filter_run()
    return found[1].get(variant) if found else None


def prints_04():
    """04's result lines at 50% kept: as it printed them (filter.txt), else rebuilt from its CSV
    in the same format, and the block says so."""
    found = filter_run()
    if found and found[2]:
        return stale_note("04") + "\n".join(
            ["```", "$ " + recorded("filter.txt")[0], "..."] + found[2] + ["...", "```", ""]) \
            + "\n" + sentence(f"*From {link('filter.txt')}, which the numbers below quote.*")
    rows = [r for r in load("filter.csv") or [] if r["variant"].endswith("/50%")]
    if not rows:
        return missing("04 at its default size", "filter.csv")
    peak = report.peak_gbps(rows, path("filter.csv"), path("env.txt"))
    out = [stale_note("04") + "```", "$ build/bin/04_warp_aggregated_increment",
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
    n = next((int(r["n"]) for r in rows if r["variant"] == "get_peers/all distinct"), None)
    # The same search inside 03's aggregating kernel, and why nvcc makes it dearer there:
    # RESULTS.md, "01's timings" (03's try-next quotes it), one link away.
    # One sentence, one ratio: the times and the four patterns are RESULTS.md's "01's timings".
    return sentence(
        f"**One number:** finding and storing the peers of {n:,} keys, 32 distinct in every warp, "
        f"the blog's loop takes **{times(loop, match)} times** as long as `__match_any_sync` "
        f"({link('get_peers.csv')}).") + "\n" + sentence(
        f"{n:,} is not a multiple of 32, so the last warp is partial. Each of 01's kernels takes "
        f"{1000 * min(float(r['ms']) for r in rows):.0f} to "
        f"{1000 * max(float(r['ms']) for r in rows):.0f} µs, so fixed launch costs weigh in "
        "the ratio.")


def number_02():
    """02's number, from 02's own run (reduce_peers.csv): in double, keys all distinct (32 search
    rounds, no tree round) over keys all equal (one search round, 5 tree rounds). 02 times the
    search and the tree together; the tree alone (03's masks-given row) is RESULTS.md's."""
    rows = load("reduce_peers.csv")
    distinct = ms(rows, variant="reduce_peers/double/all distinct")
    equal = ms(rows, variant="reduce_peers/double/all equal")
    if None in (distinct, equal):
        return missing("02 at its default size", "reduce_peers.csv")
    given = bench("double", "sorted", "reduce_peers masks given")
    atomic = bench("double", "sorted", "atomicAdd")
    # A preview line first: what each pattern costs in rounds, so that the box holds one ratio.
    return sentence(
        "02 times the blog's `get_peers` search and the tree together. Keys all equal take "
        "one search round and 5 "
        "tree rounds. Keys all distinct take 32 search rounds and no tree round "
        "([its table](RESULTS.md#02s-timing))." + (
            "" if None in (given, atomic) else
            f" The tree and its atomics, timed in 03 from stored masks, are {times(atomic, given)} "
            "times as fast as `atomicAdd` on sorted keys in double.")) + "\n" + sentence(
        f"**One number:** in double, 02 takes **{times(distinct, equal)} times** as long on keys "
        f"all distinct as on keys all equal ({link('reduce_peers.csv')}).") + (
        "\n" + sentence("So 32 search rounds cost more than one search round plus 5 tree rounds: "
                        "the search dominates.") if distinct > equal else "")


def number_03():
    match = bench("double", "sorted", "warp match_any")
    atomic = bench("double", "sorted", "atomicAdd")
    if match is None or atomic is None:
        return missing("03", "benchmark.csv")
    return sentence(
        f"**One number:** on sorted keys in double, `warp_kernel` above is "
        f"**{times(atomic, match)} times as fast** as one native `atomicAdd(double)` per value "
        f"({link('benchmark.csv')}).\n")


def number_cg():
    cg = bench("double", "sorted", "cg labeled_partition")
    match = bench("double", "sorted", "warp match_any")
    if cg is None or match is None:
        return missing("`cg labeled_partition`", "benchmark.csv")
    return sentence(
        f"**One number:** on sorted keys in double, the two calls take **{times(cg, match)} "
        f"times** as long as the hand-written `match_peers` + `reduce_peers<false>` "
        f"({link('benchmark.csv')}).\n")


def number_scan():
    # Over atomicAdd, the page's one denominator (the library, xCUB, comes a section later).
    scan = bench("double", "sorted", "warp segmented scan 4/lane")
    atomic = bench("double", "sorted", "atomicAdd")
    if scan is None or atomic is None:
        return missing("the segmented scan", "benchmark.csv")
    return sentence(
        f"**One number:** on sorted keys in double, 4 values a lane, the scan is "
        f"**{times(atomic, scan)} times as fast** as one `atomicAdd` per value "
        f"({link('benchmark.csv')}).\n")


def prints_cg():
    """The cooperative-groups section's rows: labeled_partition beside the hand-written
    match_any kernel, sorted keys in double, from benchmark.csv, as 03 prints them."""
    if not have("benchmark.csv"):
        return missing("`cg labeled_partition`", "benchmark.csv")
    text = text_rows(CG_ROWS, "`cg labeled_partition` on sorted keys in double",
                       order_line=False)
    if "```" not in text:
        return text
    return text + "\n" + sentence(
        f"*As in 03: rows of {link('benchmark.csv')}, {COLUMNS_NOTE}.*")


def prints_library():
    """The library section's rows: random keys in double, from benchmark.csv (the run of every
    order), as 03 prints them."""
    text = text_rows(["atomicAdd", "CUB sort + ReduceByKey"],
                     "`CUB sort + ReduceByKey` on random keys in double", order="random",
                     order_line=False)
    if "```" not in text:
        return text
    return text + "\n" + sentence(f"*As in 03: rows of {link('benchmark.csv')}, {COLUMNS_NOTE}.*")


def number_library():
    sort = bench("double", "random", "CUB sort + ReduceByKey")
    atomic = bench("double", "random", "atomicAdd")
    if sort is None or atomic is None:
        return missing("`CUB sort + ReduceByKey`", "benchmark.csv")
    return sentence(
        f"**One number:** on random keys in double, sorting and then `ReduceByKey` takes "
        f"**{times(sort, atomic)} times** as long as one plain `atomicAdd` per value "
        f"({link('benchmark.csv')}).\n")


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
    lines = [sentence("Identical bits in every run? Values that are multiples of 1/10; each "
                      f"variant run {rows[0]['runs']} times on the same input, its bins compared "
                      f"bit for bit with its first run's ({link('determinism.csv')}).")]
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
    all_long = load("determinism_4096.csv") or []
    cub = ("CUB ReduceByKey", "CUB sort + ReduceByKey")
    long_runs = [r for r in all_long if r["variant"] in cub]
    if long_runs:
        text = "; ".join(f"{r['variant']}: {repeat_cell(r).replace('**', '')}"
                         for r in long_runs)
        others = [r for r in all_long if r["variant"] not in cub]
        every = ""
        if others and all(r["identical"] == "no" and r["distinct_results"] == r["runs"]
                          for r in others):
            per = int(others[0]["most_per_bin"])
            every = (f" Every other variant, the warp variants and the segmented scan among them, "
                     f"gave {others[0]['runs']} different results in {others[0]['runs']} runs "
                     f"there: a key's {per} values fill {per // 32} warps, and its bin receives "
                     "far more than two additions.")
        lines.append(sentence(
            f"With 4096 values per key (sorted keys in double, so that a run of equal keys spans "
            f"several of CUB's tiles), {text} ({link('determinism_4096.csv')})." + every))
    else:
        lines.append(missing("runs of 4096 equal keys", "determinism_4096.csv"))
    return "\n".join(lines)


# The variants of 03 in families that behave alike for determinism: the README's summary.
FAMILIES = [("plain atomics (atomicAdd, CAS loop, hashing)",
             ["atomicAdd", "atomicCAS loop", "shared-memory hashing"]),
            ("warp aggregation (every search, cg, masks given)",
             ["warp get_peers", "warp get_peers + CAS", "warp match_any", "cg labeled_partition",
              "reduce_peers masks given", BLOG_BAR]),
            ("warp segmented scan (4 and 8 a lane)",
             ["warp segmented scan 4/lane", "warp segmented scan 8/lane"]),
            ("CUB ReduceByKey", ["CUB ReduceByKey"]),
            ("CUB sort + ReduceByKey", ["CUB sort + ReduceByKey"])]


def family_cell(rows):
    """yes, no or mixed over a family's rows (both types), or – where it did not run."""
    if not rows:
        return "–"
    same = {r["identical"] for r in rows}
    if same == {"yes"}:
        return "yes"
    if same == {"no"}:
        return "**no**"
    return "mixed ([RESULTS.md](RESULTS.md#run-to-run-determinism))"


def determinism_summary():
    """The README's table: one row per family of variants, yes/no per order (float and double
    together), and the runs of 4096 equal keys; the full table is RESULTS.md's."""
    rows = load("determinism.csv")
    if not rows:
        return missing("the determinism check", "determinism.csv")
    long_runs = load("determinism_4096.csv") or []
    orders = [o for o in ("sorted", "partially sorted", "random")
              if any(r["order"] == o for r in rows)]
    head = orders + (["sorted, 4096 a key (double)"] if long_runs else [])
    lines = [sentence(f"Identical bits in all {rows[0]['runs']} runs? Float and double together "
                      f"({link('determinism.csv')}"
                      + (f", {link('determinism_4096.csv')}" if long_runs else "")
                      + "; each variant: [RESULTS.md](RESULTS.md#run-to-run-determinism)):"),
             "| variants | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    for name, variants in FAMILIES:
        cells = [family_cell([r for r in rows if r["variant"] in variants and r["order"] == o])
                 for o in orders]
        if long_runs:
            cells.append(family_cell([r for r in long_runs if r["variant"] in variants]))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def number_04():
    """The hand-written warp aggregation over the plain kernel: a tie, since the compiler already
    aggregates an atomicAdd to one address (the README says why; per-block aggregation is a
    question there)."""
    plain, warp = filter_ms("plain atomicAdd/50%"), filter_ms("warp-aggregated/50%")
    block = filter_ms("block-aggregated/50%")
    if None in (plain, warp, block):
        return missing("04 at its default size", "filter.txt")
    return sentence(
        f"**One number:** keeping half of 2^24 ints, the hand-written warp aggregation is "
        f"**{times(plain, warp)} times as fast** as one plain `atomicAdd` per element: no gain "
        f"({link(filter_run()[0])}).\n")


def data_state():
    """Which run the numbers and excerpts below come from, and whether the code changed since."""
    if not any(have(name) for name in GPU_FILES):
        return missing("a GPU run", "benchmark.csv")
    commit, day, changed = sources()
    env = report.describe_env(path("env.txt")) if have("env.txt") else ""
    text = (f"The numbers and printed outputs below come from one GPU run"
            + (f" ({env})" if env else "") + f", at commit {short(commit)} "
            f"({link('sources.txt')} has each source's sha256). ")
    if changed:
        text += (f"The sources have changed since: {words(changed)}. The numbers are that older "
                 "build's; where its printed output differs from today's, the excerpt says so.")
        if "warp_peers.cuh" in changed:
            text += (" Every kernel here includes `warp_peers.cuh`; the `get_peers` kernels, bound "
                     "by instruction issue ([RESULTS.md](RESULTS.md#what-limits-each-kernel-nsight-"
                     "compute-sorted-keys-double)), are the likeliest to time otherwise.")
    else:
        text += "The sources have not changed since."
    return sentence(text)


def order_lines():
    """{order name: line} of key_orders.txt, or None where it is missing."""
    found = recorded("key_orders.txt")
    if not found:
        return None
    return {line.split(":")[0]: line for line in found[1] if ":" in line}


def orders():
    """The three orders' lines, as 03 prints them (warp_host_checks --orders, without a GPU)."""
    lines = order_lines()
    if not lines:
        return missing("03's key orders", "key_orders.txt")
    shown = [lines[o] for o in ("sorted", "partially sorted", "random") if o in lines]
    return "\n".join(["```", "$ build/bin/warp_host_checks --orders", *shown, "...", "```",
                      ""]) + "\n" + sentence(f"*From {link('key_orders.txt')}, which a test "
                                             "keeps equal to what the program prints.*")


def sweep_bins():
    """The sweep's bins and values a bin, the same at every d (key_orders.txt)."""
    lines = order_lines() or {}
    found = [re.search(r"(\d+) bins, at most (\d+) values", line)
             for name, line in lines.items() if "keys/warp" in name]
    found = [m.groups() for m in found if m]
    if not found:
        return missing("the sweep's bins", "key_orders.txt")
    bins = sorted({b for b, _ in found})
    most = sorted({v for _, v in found})
    if len(bins) > 1 or len(most) > 1:
        return sentence(f"The sweep's bins differ from one *d* to the next: {', '.join(bins)} "
                        f"({link('key_orders.txt')}).")
    # Exactly that many where bins times the most a bin is every value of the sweep (its log).
    total = None
    try:
        with open(os.path.join(DATA, "sweep_log.txt"), encoding="utf-8") as f:
            m = re.search(r"^(\d+) values;", f.read(), re.M)
            total = int(m.group(1)) if m else None
    except OSError:
        pass
    how = "exactly" if total == int(bins[0]) * int(most[0]) else "at most"
    return sentence(
        f"At every *d*, in runs and scattered, the keys fill the same {int(bins[0]):,} bins with "
        f"{how} {most[0]} values each ({link('key_orders.txt')}).")


# ---------------------------------------------------------------------------------------------
# The blog's conclusions, each beside one measurement; which technique for which keys.

ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}


def spread(precision, order, variant):
    """(fastest, slowest) ms of a benchmark row, or None."""
    for row in load("benchmark.csv") or []:
        if (row["precision"], row["order"], row["variant"]) == (precision, order, variant):
            return float(row["ms_min"]), float(row["ms_max"])
    return None


def overlap(a, b):
    return a is not None and b is not None and a[0] <= b[1] and b[0] <= a[1]


def reuse():
    """The blog's reuse of the masks on sorted keys in double, or None: k uses cost
    search + k * given with a separate search pass that stores the masks (measured), and
    first + (k - 1) * given with a first pass that aggregates and stores its masks at once (a
    model: the whole get_peers kernel plus its 4-byte masks written at the peak bandwidth; not
    measured), against k * atomicAdd. k_separate and k_fused are the fewest uses that pay, and
    `close` says whether the runs' spreads overlap at k_separate."""
    rows = load("benchmark.csv")
    search = bench("double", "sorted", "get_peers search only")
    given = bench("double", "sorted", "reduce_peers masks given")
    atomic = bench("double", "sorted", "atomicAdd")
    whole = bench("double", "sorted", "warp get_peers")
    if None in (search, given, atomic, whole):
        return None
    k_separate = next((k for k in range(1, 1001) if search + k * given < k * atomic), None)
    close = False
    if k_separate:
        s, g, a = (spread("double", "sorted", v) for v in
                   ("get_peers search only", "reduce_peers masks given", "atomicAdd"))
        if s and g and a:
            close = overlap((s[0] + k_separate * g[0], s[1] + k_separate * g[1]),
                            (k_separate * a[0], k_separate * a[1]))
    n = next(int(r["n"]) for r in rows if r["variant"] == "atomicAdd")
    peak = report.peak_gbps(rows, path("benchmark.csv"), path("env.txt") if have("env.txt")
                            else None)
    masks_ms = 4.0 * n / (peak * 1e6) if peak else None
    first = whole + masks_ms if masks_ms else None
    k_fused = (next((k for k in range(1, 1001) if first + (k - 1) * given < k * atomic), None)
               if first else None)
    return dict(search=search, given=given, atomic=atomic, whole=whole, k_separate=k_separate,
                close=close, n=n, peak=peak, masks_ms=masks_ms, first=first, k_fused=k_fused)


def use(k):
    return f"the {ORDINALS.get(k, f'{k}th')} use" if k else "no use"


SAME = "〃 (the same)"


def two_rows(says, rows):
    """A claim of the blog and its verdicts, one row each; the second row's claim is SAME."""
    return [f"| {says if n == 0 else SAME} | {verdict} | {cell} |"
            for n, (verdict, cell) in enumerate(rows)]


def blog_table(brief=True):
    """The blog's conclusions beside the measurements: the README's (brief) with one short ratio a
    cell, RESULTS.md's with what each ratio compares spelt out."""
    if load("benchmark.csv") is None:
        return missing("03", "benchmark.csv")

    def speedup(precision, order, variant, base="atomicAdd"):
        return ratio(bench(precision, order, base), bench(precision, order, variant))

    def cell(value, what, short=None):
        """What over what, x as fast; brief: the ratio and `short`, the denominator or the name."""
        if value is None:
            return "–"
        if brief:
            return (short or "{}").format(f"{value:.2f}×")
        return f"{what}: {value:.2f}× as fast"

    given = bench("double", "sorted", "reduce_peers masks given")
    whole = bench("double", "sorted", "warp get_peers")
    match = bench("double", "sorted", "warp match_any")
    if None in (given, whole, match):
        search_verdict = search_cell = "–"
        search_rows = [("–", "–")]
    else:
        # What the search adds to a whole kernel: its time over the reduction from stored masks.
        # At least that much, since the masks-given kernel also reads a mask per value.
        def adds(ms, share):
            return (f"{ms - given:.4f} ms, {100 * (ms - given) / given:.0f}%{share}"
                    if ms > given else "nothing measurable")

        def plus(ms):  # the README's: what the search adds, short
            return (f"+{ms - given:.4f} ms ({100 * (ms - given) / given:.0f}%)" if ms > given
                    else "nothing measurable")

        def end(ms):  # a few percent, or the order of a reduction step
            return "the lower" if ms - given < 0.1 * given else "the upper"

        search_verdict = (f"{end(whole)} end with the blog's loop, {end(match)} with "
                          "`__match_any_sync`")
        # The README's: one search a row (the row below, SAME, takes `__match_any_sync`).
        # One denominator for both rows, named once: the reduction from stored masks.
        def share(ms):
            return (f"at least +{ms - given:.4f} ms, {100 * (ms - given) / given:.0f}%"
                    if ms > given else "nothing measurable")
        # One number a cell: the search's share of a reduction from stored masks (the times are
        # RESULTS.md's row).
        def pct(ms):
            return (f"adds at least {ms - given:.4f} ms to a {given:.4f} ms reduction from "
                    "stored masks" if ms > given else "nothing measurable")
        # The ratio column has one baseline, `atomicAdd`: the search's share goes to the verdict.
        search_rows = [(f"{end(whole)} end with the blog's `get_peers`: {pct(whole)}", "–"),
                       (f"{end(match)} end with `__match_any_sync`: {pct(match)}", "–")]
        search_cell = (
            "" if brief else
            f"what the search adds to the whole kernel, at least, over the reduction from stored "
            f"masks ({given:.4f} ms): `get_peers` ({whole:.4f} ms) "
            f"{adds(whole, ' of the reduction')}; `match_any` ({match:.4f}) {adds(match, '')} "
            "(differences of the unrounded medians)")
    found = reuse()
    reuse_rows = [("–", "–")]
    if found is None:
        reuse_verdict = reuse_cell = "–"
    else:
        f = found
        # The README's: the verdict, one search a row; the inequality behind it in RESULTS.md.
        link_reuse = "[reusing the masks](RESULTS.md#reusing-the-masks)"
        # The README's in words, no k: one stored search and the reductions that reuse it against
        # as many atomicAdd passes; the model of a first pass that stores its masks: RESULTS.md.
        # The blog's "at least once" is two passes: measured, the masks pay from k_separate;
        # two passes only by the model of a pass that aggregates and stores at once.
        reuse_rows = [(
            (("true" if f["k_separate"] <= 2 else "partly") + ": with `get_peers`, a stored "
             "search plus k reductions beats k `atomicAdd` passes from "
             f"k = {f['k_separate']}, from measured parts" + (
                 f"; from k = {f['k_fused']} if the first pass stores its masks while "
                 "aggregating (estimated, not measured)" if f["k_fused"] and
                f["k_fused"] < f["k_separate"] else "") + (", barely" if f["close"] else ""))
            if f["k_separate"] else
            "with `get_peers`, for no k measured",
            link_reuse)]
        # One framing with RESULTS.md's reuse-masks-full block: k passes, measured pass by pass
        # with a separate search pass; by a model with an aggregating pass that stores its masks.
        reuse_verdict = (f"with `get_peers`, from k = {f['k_separate']} passes that reuse one "
                         "stored search (computed from measured single passes"
                         + (")" if brief else ": a search pass that stores the masks, then k "
                            "reductions)")
                         + (", barely" if f["close"] else "") if f["k_separate"] else
                         "with `get_peers`, for no k measured")
        reuse_verdict += (f"; from k = {f['k_fused']} by a model (not measured) of an aggregating "
                          "pass that stores them" if f["k_fused"] and not brief else "")
        match = bench("double", "sorted", "warp match_any")
        if match is not None:
            # With __match_any_sync the search is nearly free: what storing can save of a pass.
            reuse_verdict += (f"; with `__match_any_sync`, at most about "
                              f"{100 * (1 - f['given'] / match):.0f}% of a pass to gain")
            # One row: the match_any verdict joins get_peers's (a reader asked the 〃 rows merged).
            reuse_rows[0] = (reuse_rows[0][0] + ". With `__match_any_sync`, little to gain: its "
                             "search is cheap", reuse_rows[0][1])
        # The times and the model: linked, not repeated (RESULTS.md has the section).
        reuse_cell = ("[reusing the masks](RESULTS.md#reusing-the-masks)" if brief else
                      "the passes' times and the model: [reusing the masks](#reusing-the-masks)")
    gpu = re.search(r"NVIDIA ([^,]+)", report.describe_env(path("env.txt"))
                    if have("env.txt") else "")

    def gains(precision, variant):
        """Whether a variant beats atomicAdd on sorted keys beyond the runs' spread: True, False
        (slower beyond it) or None (the spreads overlap, or a row is missing)."""
        mine, base = spread(precision, "sorted", variant), spread(precision, "sorted", "atomicAdd")
        if mine is None or base is None or overlap(mine, base):
            return None
        return mine[1] < base[0]

    loop_double, loop_float = gains("double", "warp get_peers"), gains("float", "warp get_peers")
    native_verdict = {
        True: "both searches now beat it, the blog's `get_peers` by less than `__match_any_sync`",
        None: "the blog's `get_peers` gains nothing over it, `__match_any_sync` does",
        False: "the blog's `get_peers` loses to it, `__match_any_sync` beats it"}[loop_double]
    float_verdict = {
        True: "not on sorted keys: both searches beat plain `atomicAdd` there",
        None: "true of the blog's loop with its search, not of `__match_any_sync`",
        False: "true of the blog's loop with its search, not of `__match_any_sync`"}[loop_float]
    if loop_float is not True and gains("float", "reduce_peers masks given"):
        float_verdict += ", nor of the blog's loop timed as its figure was, the search left out"
    # The blog's own bar, where the run has it: the reduction from stored masks with the loop.
    own = speedup("double", "sorted", BLOG_BAR, "atomicCAS loop")
    # RESULTS.md's table only: the README's Figure 1 shows the blog's own bar.
    own_bar = ("; " + cell(own, "the blog's own bar, `reduce_peers` from stored masks (search "
                           "left out) adding with the loop, over the loop alone")
               if own is not None and not brief else "")
    lines = [
        f"| the blog says | on the {gpu.group(1) if gpu else 'GPU'} | "
        + ("× as fast as `atomicAdd` |" if brief else "the number |"),
        "|---|---|---|",
        "| warp aggregation speeds up sorted keys in double, against its baseline, the "
        "`atomicCAS` loop" + ("" if brief else " (its figure leaves the peer search out)")
        + " | still true, the search included"
        + ("" if not brief or speedup("double", "sorted", "warp get_peers + CAS",
                                      "atomicCAS loop") is None else
           f": {speedup('double', 'sorted', 'warp get_peers + CAS', 'atomicCAS loop'):.2f}× "
           "as fast as the loop")
        + " | " + ("–" if brief else
                   cell(speedup("double", "sorted", "warp get_peers + CAS", "atomicCAS loop"),
                        "`get_peers` aggregation with the `atomicCAS` loop, search included, "
                        "over the loop alone") + own_bar) + " |",
        "| *since then:* Pascal's native `atomicAdd(double)` is the baseline to beat | "
        + native_verdict + " | "
        + cell(speedup("double", "sorted", "warp get_peers"),
               "`get_peers` aggregation over `atomicAdd`", "`get_peers` {}") + "; "
        + cell(speedup("double", "sorted", "warp match_any"), "`match_any` aggregation",
               "`match_any` {}") + " |",
        "| in float, plain atomics are never significantly slower | " + float_verdict + " | "
        + cell(speedup("float", "sorted", "warp get_peers"),
               "`get_peers` aggregation over `atomicAdd`, float", "`get_peers` {}") + "; "
        + cell(speedup("float", "sorted", "warp match_any"), "`match_any` aggregation",
               "`match_any` {}") + "; "
        + cell(speedup("float", "sorted", "reduce_peers masks given"),
               "`reduce_peers` from stored masks, the search left out as the blog's figure does",
               "from stored masks, as the blog timed, {}") + " |",
        "| not for you if the keys are random | still true | "
        + cell(speedup("double", "random", "warp match_any"),
               "`match_any` aggregation over `atomicAdd`, random keys") + " |",
        "| not for you if the number of keys is small (all bins fit in shared memory) | not "
        "measured: every run here has too many bins for that | – |",
    ] + two_rows(
        "the time to find the peers \"varies from an insignificant few percent (…) to about the "
        "same order of magnitude as a reduction step\"",
        search_rows if brief else [(search_verdict, search_cell)]) + two_rows(
        "with the masks reused \"at least once\", a net gain even so",
        reuse_rows if brief else [(reuse_verdict, reuse_cell)]) + [
        "| shared-memory binning (\"hashing ... per block\") is the alternative | it loses to "
        "native atomics | "
        + cell(speedup("double", "sorted", "shared-memory hashing"),
               "hashing over `atomicAdd`") + " |",
    ] + ([] if brief else [  # not measured: RESULTS.md's table only
        "| aggregation \"at the thread block level is significantly slower\" (its peer search "
        "and reduction through shared memory) | not measured: 03 has no block-level peer "
        "reduction; the nearest relative, shared-memory hashing (the row above), loses | – |",
    ])
    return "\n".join(lines) + "\n\n" + sentence(
        f"Sorted keys in double unless the row says otherwise; {link('benchmark.csv')} ("
        + ("ratios of medians of 20 runs)." if brief else "ms: the median of 20 runs)."))


def reuse_masks():
    """The blog's advice to store the masks and reuse them: the measured break-even, and the model
    of a first pass that aggregates and stores at once (RESULTS.md's)."""
    found = reuse()
    if found is None:
        return missing("the search and the reduction apart", "benchmark.csv")
    f = found
    match = bench("double", "sorted", "warp match_any")
    text = (f"On sorted keys in double ({link('benchmark.csv')}), the blog's search in a pass of "
            f"its own that writes the masks takes {f['search']:.4f} ms, a reduction from them "
            f"{f['given']:.4f} ms, a plain `atomicAdd` pass {f['atomic']:.4f} ms. So k passes cost "
            f"{f['search']:.4f} + k × {f['given']:.4f} ms against k × {f['atomic']:.4f} ms: ")
    text += (f"the stored masks pay from k = {f['k_separate']} on"
             + (", by less than the runs' spread." if f["close"] else ".")
             if f["k_separate"] else "the stored masks never pay.")
    if f["first"]:
        text += (f" A first pass that aggregates and writes its masks at once would cost about "
                 f"{f['first']:.4f} ms ({f['whole']:.4f} for the kernel, {f['masks_ms']:.4f} for "
                 f"{4 * f['n'] / 1e6:.0f} MB of masks at the peak bandwidth: a model, not "
                 "measured), and then the masks pay from k = "
                 f"{f['k_fused']} on." if f["k_fused"] else " Not even then.")
    if match is not None:
        text += (" With `__match_any_sync` there is nothing to store: a whole pass takes "
                 f"{match:.4f} ms, less than the reduction from stored masks."
                 if match < f["given"] else
                 " With `__match_any_sync` storing them gains little: a whole pass takes "
                 f"{match:.4f} ms, {times(match, f['given'])} times the reduction from stored masks.")
    return sentence(text)


def cg_against_match(rows, runs=None, brief=False):
    """'but costs more from *d* = 2 on; at *d* = 1, where ..., it is 1.39× as fast as ...
    (scattered; 1.40 in runs)': how labeled_partition's medians compare with match_any's in the
    scattered arrangement of the sweep (rows), and at the same d in runs (runs), if measured."""
    cg, match = rows.get("cg labeled_partition", {}), rows.get("warp match_any", {})
    ds = sorted(set(cg) & set(match))
    if not ds:
        return "but costs more"
    faster = [d for d in ds if float(cg[d]["ms"]) < float(match[d]["ms"])]
    if not faster:
        return "but costs more at every *d* measured"
    if len(faster) == len(ds):
        return "and costs less at every *d* measured"
    best = max(faster, key=lambda d: float(match[d]["ms"]) / float(cg[d]["ms"]))
    gain = times(float(match[best]["ms"]), float(cg[best]["ms"]))
    versus = " as `match_peers` + `reduce_peers`"
    runs = runs or {}
    in_runs = [runs.get(v, {}).get(best) for v in ("warp match_any", "cg labeled_partition")]
    where = (f" (scattered; {times(float(in_runs[0]['ms']), float(in_runs[1]['ms']))} in runs)"
             if all(in_runs) else " (scattered)")
    if brief:
        # The "reach for" column: the verdict alone; the measured column gets the numbers.
        if faster == ds[:len(faster)]:
            return f"but costs more from *d* = {ds[len(faster)]} on, faster only at *d* = " + (
                f"{faster[0]}" if len(faster) == 1 else f"{faster[0]} to {faster[-1]}")
        return "but costs more at most *d*"
    if faster == ds[:len(faster)]:
        return (f"but costs more from *d* = {ds[len(faster)]} on; at *d* = {faster[-1]}"
                + (", where its one group is the whole warp," if faster == [1] else " and below,")
                + f" it is {gain}× as fast" + ("" if best == faster[-1] or len(faster) == 1
                                              else f" at its best, *d* = {best},")
                + versus + where)
    return (f"but costs more at most *d*; it is faster at *d* = "
            + ", ".join(str(d) for d in faster)
            + f" ({gain}× as fast{versus} at *d* = {best}; {where[2:-1]})")


def which_to_use():
    """The advice: a table of short cells, each row with the measurement behind it or "(not yet
    measured)", and its caveats in numbered notes below it."""
    scan = ratio(bench("double", "sorted", "atomicAdd"),
                 bench("double", "sorted", "warp segmented scan 4/lane"))
    scan_partial = ratio(bench("double", "partially sorted", "warp match_any"),
                         bench("double", "partially sorted", "warp segmented scan 4/lane"))
    cub = ratio(bench("double", "sorted", "atomicAdd"),
                bench("double", "sorted", "CUB ReduceByKey"))
    # One ratio a cell: match_any aggregation's on sorted keys is the Results table's.
    # One baseline for the whole column, named in its header: one `atomicAdd` per value.
    sorted_cell = NOT_YET if cub is None else f"`ReduceByKey` {cub:.2f}×"
    match_partial = ratio(bench("double", "partially sorted", "atomicAdd"),
                          bench("double", "partially sorted", "warp match_any"))
    # The copyable kernel's ratio; the scan (03 only, note 2) beside it in words.
    partial_cell = (NOT_YET if scan_partial is None or match_partial is None else
                    f"`match_any` aggregation {match_partial:.2f}×, the scan ² within "
                    f"{max(1, round(100 * abs(scan_partial - 1))):.0f}% of it")
    scattered = cross = sweep_atomic = None
    if have("sweep.csv"):
        for arrangements in plot_sweep.load(path("sweep.csv")).values():
            rows = arrangements.get("scattered")
            if rows and "warp match_any" in rows:
                cross = plot_sweep.slower_from(rows, "warp match_any")
                four = plot_sweep.speedup(rows, "warp match_any", 4)
                scattered = ((f"`match_any` aggregation {four:.2f}× at *d* = 4 ⁵, "
                              if four else "`match_any` aggregation ")
                             + f"slower from *d* = {cross} on"
                             if cross else
                             "`match_any` aggregation faster than `atomicAdd` at every *d*")
                # Why d = 4 here beats 03's sorted keys (other bins): note 4.
                sweep_atomic = rows.get("atomicAdd", {}).get(4)
    random_match = ratio(bench("double", "random", "atomicAdd"),
                         bench("double", "random", "warp match_any"))
    random_cell = (NOT_YET if random_match is None else
                   f"`match_any` aggregation {random_match:.2f}×")
    sort = ratio(bench("double", "random", "CUB sort + ReduceByKey"),
                 bench("double", "random", "atomicAdd"))
    repeat = [r for r in load("determinism.csv") or []
              if r["variant"] == "CUB sort + ReduceByKey" and r["order"] == "random"]
    same = {r["identical"] for r in repeat}
    # One ratio of one kind, × as fast; the bits go to the note.
    sort_cell = f"sort + `ReduceByKey` {1 / sort:.2f}×" if sort else NOT_YET
    bits_note = ("Identical bits in every run of `--determinism 20` here" if same == {"yes"} else
                 "Identical bits: " + (", ".join(f"{r['identical']} ({r['precision']})"
                                                 for r in repeat) if repeat else NOT_YET))
    block = ratio(filter_ms("plain atomicAdd/50%"), filter_ms("block-aggregated/50%"))
    select = ratio(filter_ms("plain atomicAdd/50%"), filter_ms("CUB DeviceSelect::If/50%"))
    counter_cell = ("`DeviceSelect::If` " + (f"{select:.2f}×" if select else NOT_YET)
                    + (f" ({link(filter_run()[0])})" if select else ""))
    rows = [
        ("sorted", "`ReduceByKey` ¹, or `match_peers` + `reduce_peers` ²", sorted_cell),
        ("nearly sorted", "`match_peers` + `reduce_peers`", partial_cell),
        ("few keys a warp, scattered over its lanes", "`match_peers` + `reduce_peers`",
         scattered or NOT_YET),
        ("random, one pass", "plain `atomicAdd`", random_cell),
        ("random, the same bits every run", "sort + `ReduceByKey` ¹ ³", sort_cell),
        ("one counter (filtering)", "`DeviceSelect::If`, or per-block aggregation ⁴",
         counter_cell),
    ]
    lines = ["| your keys | use | × as fast as one `atomicAdd` a value (double; 04: 2^24 ints, "
             "half kept) |",
             "| --- | --- | --- |"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    notes = [
        "¹ Its sums are the bins only because every key occurs; otherwise a scatter follows, not "
        "timed ([the library](#the-library-and-determinism)).",
        "² 03's segmented scan is faster still"
        + (f" ({scan:.2f}×)" if scan is not None else "")
        + ", but not for copying ([why](RESULTS.md#copying-the-segmented-scan)).",
        "³ " + bits_note + ", but not on very long runs of equal keys "
        "([determinism](#the-library-and-determinism)): check the bits.",
        "⁴ Per-block aggregation: " + (f"{block:.2f}×" if block else NOT_YET)
        + ". With any counter the output's order changes from run to run.",
    ]
    match_sorted = ratio(bench("double", "sorted", "atomicAdd"),
                         bench("double", "sorted", "warp match_any"))
    bins = re.search(r"([\d,]+) bins with \w+ (\d+) values", sweep_bins())
    if sweep_atomic and match_sorted and bins:
        notes.append(
            f"⁵ More than on 03's sorted keys ({match_sorted:.2f}×), also *d* = 4: other bins, "
            f"{bins.group(2)} values each, not 10.")
    return "\n".join(lines) + "\n\n" + "\n".join(sentence(n).rstrip("\n") + "\n" for n in notes)


def loop_line():
    """The caption's line on the blog's loop (green): from which d it loses to atomicAdd and from
    which it is the slowest line drawn, where both arrangements agree; empty otherwise."""
    double = plot_sweep.load(path("sweep.csv")).get("double", {})
    loses, slowest = set(), set()
    for rows in (double.get(a, {}) for a in plot_sweep.ARRANGEMENTS):
        loses.add(plot_sweep.slower_from(rows, "warp get_peers"))
        drawn = [v for v in plot_sweep.PLOTTED if "search only" not in v and v in rows]
        ds = sorted(rows.get("warp get_peers", {}))
        worst = [d for d in ds if all(float(rows["warp get_peers"][d]["ms"]) >=
                                      float(rows[v][d]["ms"]) for v in drawn if d in rows[v])]
        slowest.add(next((d for d in ds if all(e in worst for e in ds if e >= d)), None))
    if len(loses) != 1 or len(slowest) != 1 or None in loses | slowest:
        return ""
    return (f" Green, the blog's loop: slower than `atomicAdd` from *d* = {loses.pop()}, the "
            f"slowest line from *d* = {slowest.pop()}.")


def sweep_figure():
    """The sweep's plot, where it and its data are committed (it sits beside data/)."""
    if not (have("sweep.csv") and os.path.exists(os.path.join(DATA, os.pardir, "sweep.png"))):
        return ""
    caption = sentence(
        f"*Drawn by [`plot_sweep.py`](plot_sweep.py) from {link('sweep.csv')}. Left: keys in "
        "runs; right: scattered. Bottom: `warp match_any` (purple) against the line at 1 "
        "(`atomicAdd`); above it, aggregation wins. Top: time; dashed (left), the search alone."
        + loop_line() + "*")
    return ("![Time and speed-up over atomicAdd against distinct keys per warp, in runs and "
            "scattered](sweep.png)\n\n" + caption)


def number_sweep():
    """match_any aggregation at d = 1, keys in runs, over atomicAdd; then where it stops winning,
    in runs and scattered, with the doubtful points (plot_sweep.TAIL) left out and named."""
    if not have("sweep.csv"):
        return missing("the sweep", "sweep.csv")
    double = plot_sweep.load(path("sweep.csv")).get("double", {})
    rows = double.get("in runs", {})
    variant = "warp match_any"
    one_add, one_match = rows.get("atomicAdd", {}).get(1), rows.get(variant, {}).get(1)
    if not (one_add and one_match):
        return missing("the sweep at d = 1", "sweep.csv")
    add, match = float(one_add["ms"]), float(one_match["ms"])
    text = (f"**One number:** with the keys in runs, in double, at *d* = 1, `match_any` "
            f"aggregation is **{times(add, match)} times as fast** as plain `atomicAdd` "
            f"({link('sweep.csv')}).")
    d_runs = plot_sweep.slower_from(rows, variant)
    # Where it starts to lose (in runs and scattered) is the README's paragraph below the block.
    # A disturbed point just below the crossover is left out of it, not out of sight: a copier
    # deciding from d must know the break-even may come one step earlier.
    below = [d for d in plot_sweep.doubtful_ds(rows, variant) if d_runs and d < d_runs]
    ratio = plot_sweep.speedup(rows, variant, max(below)) if below else None
    if ratio and ratio < 1.0:
        d = max(below)
        text += (f" The crossover may come one step earlier: in runs, *d* = {d}'s sample was "
                 f"disturbed and left out, and it was slower too "
                 f"({speedup_text(rows, variant, d)}).")
    return sentence(text)


def sweep_where(brief=True):
    """Why the sweep's crossover is not random keys': at the sweep's largest d, in runs, and on
    random keys (d about 32 as well), match_any aggregation against atomicAdd; in RESULTS.md's
    (not brief) also the two halves of its kernel timed apart (its search alone; the atomics from
    given masks)."""
    if not (have("sweep.csv") and have("benchmark.csv")):
        return missing("the sweep beside random keys", "sweep.csv")
    rows = plot_sweep.load(path("sweep.csv")).get("double", {}).get("in runs", {})
    names = ("atomicAdd", "warp match_any", "match_any search only", "reduce_peers masks given")
    ds = sorted(set.intersection(*(set(rows.get(v, {})) for v in names))) if rows else []
    far = [bench("double", "random", v) for v in names]
    if not ds or None in far:
        return missing("the sweep beside random keys", "sweep.csv")
    d = ds[-1]
    near = [float(rows[v][d]["ms"]) for v in names]

    def hides(ms):
        """Whether a whole pass took no longer than the longer of its halves timed apart."""
        return ms[1] <= max(ms[2], ms[3])
    tail = ""
    if hides(far) != hides(near):
        (a, at), (b, bt) = ("on random keys", far), ("in the sweep", near)
        if not hides(far):
            (a, at), (b, bt) = (b, bt), (a, at)
        tail = (f" So {a} the whole pass takes no longer than its longer half ({at[1]:.4f} against "
                f"{max(at[2], at[3]):.4f} ms): the search hides behind slow, scattered atomics; "
                f"{b} it takes longer than either ({bt[1]:.4f} against {max(bt[2], bt[3]):.4f}).")
    text = (
        f"**That crossover holds for a warp's bins close together in memory.** At *d* = {d} in "
        f"the sweep, a warp's {d} bins are consecutive doubles, where `atomicAdd` is cheap "
        f"({near[0]:.4f} ms) and `match_any` aggregation takes {times(near[1], near[0])} times as "
        f"long. Random keys scatter a warp's atomics over 10^6 bins: `atomicAdd` takes "
        f"{far[0]:.4f} ms, `match_any` aggregation {far[1]:.4f}"
        + (" (a tie)" if abs(far[0] / far[1] - 1) < 0.03 else
           f" ({times(far[0], far[1])} times as fast)"))
    if brief:  # the README: random keys only; the sweep's end and the halves in RESULTS.md
        # One verdict, no times: the times are RESULTS.md's. The crossover is said here, where
        # the section first needs it.
        cross = plot_sweep.slower_from(rows, "warp match_any")
        lead = (f"**`match_any` aggregation loses to `atomicAdd` from *d* = {cross} on, with a "
                "warp's bins close together in memory.**" if cross else
                "**In the sweep, a warp's bins lie close together in memory.**")
        return sentence(
            lead + " On random keys, "
            "scattered over 10^6 bins, `match_any` aggregation "
            + ("ties with `atomicAdd`" if abs(far[0] / far[1] - 1) < 0.03 else
               f"is {times(far[0], far[1])} times as fast as `atomicAdd`")
            + (": the search hides behind slow atomics" if hides(far) else "")
            + " ([why](RESULTS.md#where-the-crossover-holds)).")
    return sentence(
        text + ". Timed apart, its search takes "
        + ("about the same in both" if abs(near[2] / far[2] - 1) < 0.1
           else "in the sweep and on random keys")
        + f" ({near[2]:.4f} and {far[2]:.4f} ms), its atomics from given masks {near[3]:.4f} and "
        f"{far[3]:.4f} ({link('sweep.csv')}'s rows \"match_any search only\" and \"reduce_peers "
        f"masks given\" at *d* = {d} in runs, not plotted; {link('benchmark.csv')}'s random "
        "rows)." + tail)


def sweep_where_full():
    return sweep_where(brief=False)


def speedup_text(rows, variant, d):
    """'0.1004 ms against atomicAdd's 0.0733', the variant's and atomicAdd's medians at d."""
    return (f"{float(rows[variant][d]['ms']):.4f} ms against `atomicAdd`'s "
            f"{float(rows['atomicAdd'][d]['ms']):.4f}")


def sweep_disturbed():
    """RESULTS.md: the in-runs point of match_any aggregation that a disturbed sample makes
    doubtful (plot_sweep.TAIL), against the same keys scattered and the other variants there."""
    if not have("sweep.csv"):
        return missing("the sweep", "sweep.csv")
    double = plot_sweep.load(path("sweep.csv")).get("double", {})
    rows, scattered = double.get("in runs", {}), double.get("scattered", {})
    variant = "warp match_any"
    doubtful = plot_sweep.doubtful_ds(rows, variant)
    if not doubtful:
        return sentence("No point of `match_any` aggregation in runs is disturbed.")
    d = doubtful[0]
    row, other = rows[variant][d], scattered.get(variant, {}).get(d)
    text = (f"`match_any` aggregation's in-runs point at *d* = {d} is out of line: its median is "
            f"{float(row['ms']):.4f} ms, its runs spread from {float(row['ms_min']):.4f} to "
            f"{float(row['ms_max']):.4f} ms")
    if other:
        text += f", where the same keys scattered take {float(other['ms']):.4f} ms"
        apart = [abs(float(rows[variant][e]["ms"]) / float(scattered[variant][e]["ms"]) - 1)
                 for e in rows[variant] if e in scattered[variant] and e not in doubtful]
        if apart:
            text += (f" (at every other *d* the two arrangements' medians agree within "
                     f"{100 * max(apart):.0f}%)")
    tails = [v for v, by_d in rows.items() if v != variant and by_d.get(d)
             and float(by_d[d]["ms_max"]) > 1.2 * float(by_d[d]["ms"])]
    if tails:
        text += (f"; at that point the slowest run of {words(tails)} also took over 1.2 times "
                 "its median")
    text += ". A disturbed sample, most likely; without a rerun that is not proven."
    return sentence(text)


def sweep_even():
    """RESULTS.md: match_any aggregation and atomicAdd, scattered, at the d just below the
    crossover, in ms, and whether their runs overlap."""
    if not have("sweep.csv"):
        return missing("the sweep", "sweep.csv")
    scattered = plot_sweep.load(path("sweep.csv")).get("double", {}).get("scattered", {})
    variant = "warp match_any"
    d_from = plot_sweep.slower_from(scattered, variant) if scattered else None
    ds = sorted(scattered.get(variant, {}))
    if variant not in scattered or "atomicAdd" not in scattered:
        return missing("the sweep, scattered", "sweep.csv")
    if not d_from or d_from not in ds or ds.index(d_from) == 0:
        return sentence(f"Scattered, `match_any` aggregation has no crossover from faster to "
                        f"slower than `atomicAdd` among the *d* measured ({link('sweep.csv')}).")
    before = ds[ds.index(d_from) - 1]
    match, add = scattered[variant][before], scattered["atomicAdd"][before]
    overlap = (float(match["ms_min"]) <= float(add["ms_max"])
               and float(add["ms_min"]) <= float(match["ms_max"]))
    return sentence(
        f"Just below the crossover, scattered at *d* = {before}, `match_any` aggregation takes "
        f"{float(match['ms']):.4f} ms (runs {float(match['ms_min']):.4f} to "
        f"{float(match['ms_max']):.4f}) and `atomicAdd` {float(add['ms']):.4f} ms "
        f"({float(add['ms_min']):.4f} to {float(add['ms_max']):.4f}; {link('sweep.csv')}): "
        + ("their runs overlap, a tie rather than a win." if overlap else
           "their runs do not overlap.") + "\n")


def sweep_table(brief=True):
    """The README's: the keys in runs alone; RESULTS.md's (brief False): both arrangements, with
    each variant's crossover and the disturbed points."""
    if not have("sweep.csv"):
        return missing("the sweep", "sweep.csv")
    return plot_sweep.table(plot_sweep.load(path("sweep.csv")),
                            provenance(path("env.txt"), path("sweep.csv"),
                                       os.path.join(HERE, "README.md")), brief=brief)


def sweep_full():
    return sweep_table(brief=False)


def provenance_block():
    """The results section's provenance line (plot_benchmark.py writes the same)."""
    if not have("benchmark.csv"):
        return missing("03", "benchmark.csv")
    return provenance(path("env.txt") if have("env.txt") else None, path("benchmark.csv"),
                      os.path.join(HERE, "README.md")) + "\n"


BLOCKS = {"data-state": data_state, "prints-01": prints_01, "number-01": number_01,
          "prints-02": prints_02, "number-02": number_02,
          "prints-03": prints_03, "number-03": number_03, "prints-cg": prints_cg, "number-cg": number_cg,
          "sweep-bins": sweep_bins, "sweep-figure": sweep_figure, "number-sweep": number_sweep,
          "sweep-where": sweep_where,
          "prints-scan": prints_scan, "number-scan": number_scan,
          "prints-library": prints_library, "number-library": number_library,
          "determinism-summary": determinism_summary,
          "prints-04": prints_04, "number-04": number_04,
          "provenance": provenance_block,
          "which-to-use": which_to_use, "blog-table": blog_table}
# RESULTS.md's blocks (--results).
RESULTS_BLOCKS = {"blog-table": lambda: blog_table(brief=False), "orders": orders,
                  "sweep-full": sweep_full, "sweep-disturbed": sweep_disturbed,
                  "sweep-even": sweep_even, "determinism-table": determinism_table,
                  "reuse-masks-full": reuse_masks,
                  "sweep-where-full": sweep_where_full}


def main():
    global DATA
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readme", help="rewrite the blocks of this README")
    parser.add_argument("--results", help="rewrite the blocks of this RESULTS.md")
    parser.add_argument("--data", help="the folder of the data files (default: data/ here)")
    args = parser.parse_args()
    if args.readme and not os.access(args.readme, os.W_OK):
        parser.error(f"--readme {args.readme}: not a file that can be rewritten")
    if args.results and not os.access(args.results, os.W_OK):
        parser.error(f"--results {args.results}: not a file that can be rewritten")
    if args.data:
        if not os.path.isdir(args.data):
            parser.error(f"--data {args.data}: no such folder")
        DATA = args.data
    made = [name for name in GPU_FILES if have(name)]
    if made and not have("sources.txt"):
        sys.exit(f"{DATA}: {', '.join(made)} but no sources.txt: nothing says which build made "
                 "them (scripts/gpu_check.sh writes it with them); refused")
    changed = changed_since()
    if made and changed:
        commit, day, _ = sources()
        print(f"note: the data is older than the code ({short(commit)} {day}; changed since: "
              f"{', '.join(changed)}): the blocks say so", file=sys.stderr)
    for blocks, doc in ((BLOCKS, args.readme), (RESULTS_BLOCKS, args.results)):
        for name, make in blocks.items():
            text = make()
            if doc:
                report.update_readme(doc, text, name)
            elif not (args.readme or args.results):
                print(f"<!-- {name} -->\n{text}")


if __name__ == "__main__":
    main()
