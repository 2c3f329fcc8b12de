#!/usr/bin/env python3
"""Writes every measured sentence, output excerpt and table of the chapter README and of RESULTS.md
from the files in data/, so that both quote the committed measurements and nothing else.

    python3 dynamic_parallelism/readme_numbers.py --readme dynamic_parallelism/README.md \
        --results dynamic_parallelism/RESULTS.md

Each block stands between <!-- <name>:begin --> and <!-- <name>:end --> in its document. Without
--readme and --results the blocks are printed. A block whose data file is missing says so instead
of a number, and so does a block of 05's table when that run is not one of today's 05: its log
(comparison_log.txt) must say that one pending-launch limit was set for every row, and every GPU
row of its CSV must give that limit (a warning on stderr says which file is stale).

Three runs, each folder with its env.txt. data/ is this run, the one the README quotes: one call of
scripts/gpu_check.sh's dp stage on an H200 on 2026-11-26, of every program as it is now. Two older
runs sit inside it, with the same file names (OLDER, below, says what each is): data/h100/, the
H100's run of 01 to 05 of 2026-11-25 (the reduce part alone, DP_PARTS=reduce), and data/h200/, the
H200's run of 2026-11-23, before the L2 flush fix. Where this run lacks a file (or its 05 is
stale), a README block gives the first older run's numbers that has it, under one line that names
that run; RESULTS.md gives every run's record, each labelled. The older runs' provenance lines go
between the provenance-older markers, and the programs' costs come from the repository's timing of
every default run (../timings/default_runs_h200.csv), beside 02's time from the run on the same
kind of GPU.
The files (scripts/gpu_check.sh writes them on a GPU machine):
  env.txt               the GPU, driver and toolkit of the run (and, from the runs that record
                        them, the commit and a hash of every source file)
  hello_world.txt       01 with 1 parent block (three times) and 2
  pending_limit.txt     02 at pending-launch limits from 16 to 32768 (those that pass, 3 times)
  pending_limit_refused.txt
                        02 and device_runtime_limits asking for more slots than the runtime grants
  printed_forms.txt     03 and 04 as printed, and stalled
  correct_forms.txt     03 (barrier), 03 --tail and 04, the correct forms, at their defaults
  comparison.csv, comparison_log.txt, comparison.txt
                        05 --csv, its log, and 05's printed table from a second run
  comparison_no_rdc.csv 05_reduction_comparison_no_rdc --csv
  comparison_block1024.txt
                        05 --block 1024
  comparison_env.txt    the env.txt of 05's files: a later run than the rest, at commit 9780ccf
  mandelbrot_default.txt 06's default run
  mandelbrot.csv, mandelbrot_log.txt
                        06 at each size in its own process at its own pending-launch limit
                        (three times each), and what each run printed besides
  mandelbrot_pool.csv, mandelbrot_pool_log.txt
                        the same at the limit of the largest size
  mandelbrot_depth.csv, mandelbrot_depth_log.txt
                        a deeper tree at two depth limits
  continuation.txt      07's default run and its per-block form, then the racing ports
  tail_vs_printed.txt   04's tail launch and printed launch, alternating, at two limits
  launch_baseline.txt   04's levels from the device, from the host in one stream, as a CUDA graph
  runtime_limits.txt    device_runtime_limits at three pending-launch limits (and eagerly loaded)
  pool_memory.txt       device_runtime_limits --leave-free-mib: the free memory taken first
  chain_times.txt       device_runtime_limits --chain-times
  relocatable_overhead.txt
                        06's flat kernel without and with -rdc, and with launches in flight
  sanitizer.txt         the compute-sanitizer tools on 02 and on stop_condition_check
"""
import argparse
import contextlib
import csv
import os
import pathlib
import re
import statistics
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scripts"))
sys.path.insert(0, HERE)
import report  # noqa: E402  (scripts/report.py)
import cost_tables  # noqa: E402  (scripts/cost_tables.py: every chapter's costs block)
import plot_comparison  # noqa: E402
import plot_mandelbrot  # noqa: E402

DATA = os.path.join(HERE, "data")  # --data replaces it (the tests' own files)
# The older runs, inside DATA, in the order a README block falls back on them where this run lacks
# a file, each with what a reader must know about it besides its env.txt.
OLDER = {
    "h100": ("the H100 run of 2026-11-25, of 01 to 05 only, as they were then",
             "the H100 run of 2026-11-25, of 01 to 05 only, as they were before their latest "
             "changes (among them the check that stops a run granted fewer pending-launch slots "
             "than it needs)"),
    "h200": ("the H200 run of 2026-11-23, before the L2 flush fix",
             "the H200 run of 2026-11-23 (code 7a3500e), before the L2 flush fix: a memset "
             "flushed the L2, and its write-backs inside the timed region made times slower"),
}
SHOWN = "data/"  # how the blocks name the folder being read
FOLDER = None  # the key of OLDER being read, None for this run's data/
TIMINGS = os.path.join(HERE, os.pardir, "timings", "default_runs_h200")  # .csv and .md
RESULT = re.compile(r"^(?P<name>\S.*?)\s+n=(?P<n>\d+)\s+(?P<ms>[0-9.]+) ms")
ONE_LIMIT = re.compile(r"pending-launch limit (\d+) for every row")


class Missing(str):
    """The text that stands in a block for a measurement not committed (or not current)."""


class Done(str):
    """A block's text already at 100 columns, part by part: wrap() leaves it as it is."""


def missing(program, name):
    if FOLDER:
        return Missing(f"*Not in this run: `{SHOWN}{name}` was not written.*\n")
    return Missing(f"*Not measured yet with the current programs: `{program}` writes "
                   f"`{SHOWN}{name}` on a GPU.*\n")


@contextlib.contextmanager
def older(folder):
    """Every data() inside reads the older run in DATA/<folder>."""
    global DATA, SHOWN, FOLDER
    saved = DATA, SHOWN, FOLDER
    DATA, SHOWN, FOLDER = os.path.join(DATA, folder), SHOWN + folder + "/", folder
    try:
        yield
    finally:
        DATA, SHOWN, FOLDER = saved


def env():
    """The env.txt of the folder being read, or None."""
    return data("env.txt")


def gpu():
    """The short name of the GPU of the folder being read ('H200' of 'NVIDIA H200'), from its
    env.txt."""
    path = env()
    found = re.search(r"^NVIDIA ([^\s,]+)", open(path).read(), re.M) if path else None
    return found.group(1) if found else "GPU"


def day():
    """The date of the run in the folder being read, from its env.txt, or None."""
    path = env()
    found = re.search(r"^date: (\S+)", open(path).read(), re.M) if path else None
    return found.group(1) if found else None


def run_name():
    """The run in the folder being read, in a few words, in bold, with a link to its folder."""
    when = f" of {day()}" if day() else ""
    if FOLDER is None:
        return f"**This run** ({gpu()}{when}, [`{SHOWN}`]({SHOWN}))"
    return f"**An older run** ([`{SHOWN}`]({SHOWN}), {OLDER[FOLDER][0]})"


def provenance(document):
    """The provenance line of this run."""
    return report.provenance(data("env.txt"), DATA, document)


def either(make):
    """make() on this run's data; where that is missing or stale, make() on the first older run
    that has it, under a line that names that run (else what stands for this run's)."""
    first = make()
    if not isinstance(first, Missing):
        return first
    for folder in OLDER:
        with older(folder):
            if not data("env.txt"):
                continue
            other = make()
            if isinstance(other, Missing):
                continue
            note = f"*From {OLDER[folder][0]} ([`{SHOWN}`]({SHOWN})).*"
        return Done(wrap(note) + "\n" + wrap(other))
    return first


def both(make):
    """make() on every run's data, each labelled (RESULTS.md keeps every record); an older run
    that lacks the file is left out."""
    parts = [wrap(run_name() + ":") + "\n" + wrap(make()) if not isinstance(make(), Missing)
             else wrap(run_name() + ": " + make().strip())]
    for folder in OLDER:
        with older(folder):
            if not data("env.txt"):
                continue
            text = make()
            if not isinstance(text, Missing):
                parts.append(wrap(run_name() + ":") + "\n" + wrap(text))
    return Done("\n".join(parts))


def runs(path):
    """The runs a data file records: (command line, output lines, exit status)."""
    found, command, lines = [], None, []
    for line in open(path).read().splitlines():
        if line.startswith("$ "):
            command, lines = line[2:], []
        elif line.startswith("[exit ") and command is not None:
            found.append((command, lines, int(line[6:-1])))
            command = None
        elif command is not None:
            lines.append(line)
    return found


def results(lines):
    """{result-line name: ms} of a run's output."""
    return {m["name"].strip(): float(m["ms"]) for m in map(RESULT.match, lines) if m}


def fence(command, lines):
    return "```\n$ " + command + "\n" + "\n".join(lines) + "\n```\n"


def shortened(lines):
    """A run's output as the README shows it: less the GPU's line, which every run prints alike
    (the provenance line names the GPU), and the spread of the timed runs (RESULTS.md has it)."""
    return [l for l in lines if not l.startswith(("device 0:", "the fastest and slowest"))]


def data(name):
    path = os.path.join(DATA, name)
    return path if os.path.exists(path) else None


def run_of(name, match):
    """The first run of data/<name> whose command line ends with `match` and that exited 0, as
    (command, lines); None where there is none."""
    path = data(name)
    if not path:
        return None
    return next(((c, l) for c, l, s in runs(path) if c.endswith(match) and s == 0), None)


def us(ms, launches):
    return f"{1000 * ms / launches:.1f} µs"


# --- 01 ----------------------------------------------------------------------------------------

def prints_01():
    """The document's first run: the middle (by its median) of the --blocks 1 runs, whole but for
    the top grid's threads 2 to 6 (the --blocks 2 runs are in data/ and RESULTS.md)."""
    path = data("hello_world.txt")
    if not path:
        return missing("01_nested_hello_world", "hello_world.txt")
    one = [(c, l) for c, l, s in runs(path) if c.endswith("--blocks 1") and s == 0]
    if not one:
        return missing("01_nested_hello_world --blocks 1", "hello_world.txt")
    ms = statistics.median(results(l)["01_nested_hello_world blocks 1"] for _, l in one)
    command, lines = next((c, l) for c, l in one
                          if results(l)["01_nested_hello_world blocks 1"] == ms)
    top = [i for i, l in enumerate(lines) if l.startswith("Recursion=0:")]
    if len(top) > 3:  # the top grid's threads 2 to 6 say what 0, 1 and 7 say
        lines = lines[:top[1] + 1] + ["..."] + lines[top[-1]:]
    # The counts by depth, which the verified line sums up, stand as "...".
    counts = next((i for i, l in enumerate(lines) if l.startswith("threads that printed")), None)
    verified = next((i for i, l in enumerate(lines) if l.startswith("verified:")), None)
    if counts is not None and verified is not None:
        lines = (lines[:counts] + ["..."] + lines[verified:verified + 1]
                 + [l for l in lines[verified:] if l.startswith("timed:") or RESULT.match(l)])
    return Done(fence(command, shortened(lines)))


def prints_01_two():
    """The document's second run (--blocks 2) from where the two parent blocks' lines end to the
    children's second level: each level's lines twice, every child "block 0"."""
    path = data("hello_world.txt")
    two = [(c, l) for c, l, s in runs(path) if c.endswith("--blocks 2") and s == 0] if path else []
    if not two:
        return missing("01_nested_hello_world --blocks 2", "hello_world.txt")
    command, lines = two[0]
    top = [i for i, l in enumerate(lines) if l.startswith("Recursion=0:")]
    deeper = [i for i, l in enumerate(lines) if l.startswith("Recursion=2:")]
    if not top or not deeper:
        return missing("01_nested_hello_world --blocks 2", "hello_world.txt")
    return Done(fence(command, ["..."] + lines[top[-1]:deeper[0]] + ["..."]))


def hello_one_block():
    """01 --blocks 1: (ms, grids, device-side launches, runs): the middle of its runs' medians, or
    None."""
    path = data("hello_world.txt")
    found = [l for c, l, s in runs(path) if c.endswith("--blocks 1") and s == 0] if path else []
    if not found:
        return None
    ms = statistics.median(results(l)["01_nested_hello_world blocks 1"] for l in found)
    timed = next(l for l in found[0] if l.startswith("timed:"))
    levels, launches = map(int, re.search(r"(\d+) levels, (\d+) device-side", timed).groups())
    return ms, levels, launches, len(found)


def chain_slope():
    """device_runtime_limits --chain-times: (first length, its ms, third length, its ms, µs a grid
    added between them), or None: a dependent launch's latency, without a host's launch."""
    run = run_of("chain_times.txt", "--chain-times")
    if not run:
        return None
    chains = [(int(n), float(ms)) for n, ms in
              re.findall(r"chain of\s+(\d+) grids:\s+([0-9.]+) ms", "\n".join(run[1]))]
    if len(chains) < 3:
        return None
    (n0, t0), (n2, t2) = chains[0], chains[2]
    return n0, t0, n2, t2, 1000 * (t2 - t0) / (n2 - n0)


def one_01():
    """01's One number, its division as written (ms / device-side launches = per launch), and its
    data file; None where not committed."""
    hello = hello_one_block()
    if not hello:
        return None
    ms, _, launches, _ = hello
    return f"{ms:.4f} ms / {launches} launches = {us(ms, launches)}", "hello_world.txt"


def number_01():
    """01's own timed run (the middle of its --blocks 1 runs): ms / device-side launches. The
    chains' slope, which leaves out the host's launch, is in the table of launch costs."""
    one = one_01()
    if not one:
        return missing("01_nested_hello_world --blocks 1", "hello_world.txt")
    return (f"**One number:** {one[0]} per device-side launch, the host's launch included: an "
            f"upper bound.\n")


# --- 02 ----------------------------------------------------------------------------------------

def nested_16384():
    """02 at the pending-launch limit 16384: (command, lines), or None."""
    return run_of("pending_limit.txt", "--pending-limit 16384")


def nested_16384_middle():
    """02 at the pending-launch limit 16384: (the middle of its runs' medians, the runs, the
    launches), or None."""
    run = nested_16384()
    times = limit_times().get("16384")
    if not run or not times:
        return None
    return statistics.median(times), len(times), launches_in(run[1])


def prints_02():
    run = nested_16384()
    if not run:
        return missing("02_nested_reduce --pending-limit 16384", "pending_limit.txt")
    return fence(run[0], shortened(run[1]))


def launches_in(lines):
    return int(re.search(r"(\d+) device-side launches", "\n".join(lines)).group(1))


def one_02():
    """02's One number at the limit 16384 (ms / device-side launches = per launch) and its data
    file; None where not committed."""
    found = nested_16384_middle()
    if not found:
        return None
    ms, _, launches = found
    return f"{ms:.2f} ms / {launches} launches = {us(ms, launches)}", "pending_limit.txt"


def number_02():
    one = one_02()
    if not one:
        return missing("02_nested_reduce --pending-limit 16384", "pending_limit.txt")
    return (f"**One number:** {one[0]} per device-side launch "
            f"([`{SHOWN}{one[1]}`]({SHOWN}{one[1]})).\n")


REFUSED = re.compile(r"asked the device runtime for (\d+) slots .* granted (\d+), fewer than")


def refused_runs():
    """The runs of pending_limit_refused.txt that stopped because the runtime granted fewer slots
    than asked: [(command, FAIL line, asked, granted, exit status)]."""
    path = data("pending_limit_refused.txt")
    found = []
    for command, lines, status in runs(path) if path else []:
        fail = next((l for l in lines if l.startswith("FAIL") and REFUSED.search(l)), None)
        if fail and status != 0:
            found.append((command, fail, *REFUSED.search(fail).groups(), status))
    return found


def pending_refused_runs():
    """RESULTS.md: every run of pending_limit_refused.txt, less the device line."""
    path = data("pending_limit_refused.txt")
    if not path:
        return missing("02_nested_reduce --pending-limit 16777216", "pending_limit_refused.txt")
    shown = []
    for command, out, status in runs(path):
        shown += ["$ " + command] + [l for l in out if not l.startswith("device ")]
        shown.append(f"[exit {status}]")
    return "```\n" + "\n".join(shown) + "\n```\n"


# --- 05's run: the rows of 03 and 05 -----------------------------------------------------------

class Stale(Exception):
    """05's committed run is not one of today's 05: its rows ran at more than one limit."""


def comparison():
    """05's rows {variant: row} (the build without -rdc's rows added where committed) and the one
    pending-launch limit every GPU row ran at; None where no run is committed. Raises Stale where
    the log does not say one limit for every row, or a GPU row gives another."""
    path = data("comparison.csv")
    if not path:
        return None
    log = data("comparison_log.txt")
    said = ONE_LIMIT.search(open(log).read()) if log else None
    if not said:
        raise Stale(f"{SHOWN}comparison_log.txt does not say one pending-launch limit for every "
                    f"row")
    limit = said.group(1)
    rows = {r["variant"]: r for r in plot_comparison.load(path)}
    for r in rows.values():
        if r.get("pending_limit") and r["pending_limit"] != limit:
            raise Stale(f"{SHOWN}comparison.csv: '{r['variant']}' ran at the pending-launch limit "
                        f"{r['pending_limit']}, its log says {limit} for every row")
    no_rdc = data("comparison_no_rdc.csv")
    if no_rdc:
        rows.update({r["variant"]: r for r in plot_comparison.load(no_rdc)})
    return rows, limit


WARNED = set()
# 05's row that runs 02's kernel under the document's name: as 05 prints it now, then as older runs
# printed it.
NOSYNC = ("gpu nestedNosync (= nested)", "gpu nestedNosync")


def stale_05(why):
    if why not in WARNED:
        print(f"readme_numbers.py: {why}: 05's numbers are left out until 05 is rerun",
              file=sys.stderr)
        WARNED.add(why)
    return Missing("*The committed run of `05_reduction_comparison` is older than its one "
                   "pending-launch limit (its log does not say one limit for every row): its "
                   f"numbers wait for a rerun (`{SHOWN}comparison.csv`).*\n")


def from_05(make):
    """make(rows, limit) on 05's run, or what stands in for it."""
    try:
        found = comparison()
    except Stale as e:
        return stale_05(str(e))
    return make(*found) if found else missing("05_reduction_comparison", "comparison.csv")


def prints_03():
    """The document's kernel as printed: its first plain run (where committed), then the stalled
    run that makes its race certain."""
    path = data("printed_forms.txt")
    if not path:
        return missing("03_nested_reduce_nosync --faithful --stall-ns 200000", "printed_forms.txt")
    found = runs(path)
    plain = next(((c, l) for c, l, s in found
                  if c == "build/bin/03_nested_reduce_nosync --faithful" and s == 0), None)
    for command, lines, _ in found:
        if command.startswith("build/bin/03_nested_reduce_nosync") and "--stall-ns" in command:
            stalled = fence(command, [l for l in lines if l.startswith("FAIL")])
            if not plain:
                return stalled
            return Done("```\n$ " + plain[0] + "\n" + "\n".join(shortened(plain[1])) + "\n\n"
                        + stalled.strip("`\n") + "\n```\n")
    return missing("03_nested_reduce_nosync --faithful --stall-ns 200000", "printed_forms.txt")


def correct_forms(program, every=False):
    """The first run of each command of data/correct_forms.txt that starts with
    build/bin/<program>, fenced; with `every`, instead, every run's time (for RESULTS.md)."""
    path = data("correct_forms.txt")
    if not path:
        return missing(program, "correct_forms.txt")
    found = {}
    for c, l, s in runs(path):
        if c.startswith(f"build/bin/{program}") and s == 0:
            found.setdefault(c, []).append(l)
    if not found:
        return missing(program, "correct_forms.txt")
    # After the first command, the lines every run prints alike (the device, the problem) stand
    # as "...".
    alike = ("device ", "array ")
    shown = [fence(c, shortened(l[0]) if i == 0 else
                   ["..."] + [x for x in shortened(l[0]) if not x.startswith(alike)])
             for i, (c, l) in enumerate(found.items())]
    text = "```\n" + "\n\n".join(f.strip("`\n") for f in shown) + "\n```\n"
    if not every:
        return Done(text)
    times = "; ".join(f"`{c.replace('build/bin/', '')}`: "
                      + ", ".join(f"{next(iter(results(x).values())):.4f}" for x in l) + " ms"
                      for c, l in found.items())
    return times


def correct_forms_runs():
    """RESULTS.md: every run of 03's and 04's correct forms."""
    parts = [correct_forms(p, every=True) for p in ("03_nested_reduce_nosync", "04_nested_reduce2")]
    if all(isinstance(p, Missing) for p in parts):
        return parts[0]
    times = "; ".join(p for p in parts if not isinstance(p, Missing))
    return (f"Every run in [`{SHOWN}correct_forms.txt`]({SHOWN}correct_forms.txt), run by run: "
            f"{times}.\n")


def prints_03_correct():
    return correct_forms("03_nested_reduce_nosync")


def correct_middle(command):
    """The middle of the medians of the runs of `command` in correct_forms.txt that passed, the
    runs and the device-side launches: (ms, runs, launches), or None."""
    path = data("correct_forms.txt")
    found = [l for c, l, s in runs(path) if c == command and s == 0] if path else []
    if not found:
        return None
    ms = statistics.median(next(iter(results(l).values())) for l in found)
    return ms, len(found), launches_in(found[0])


def one_03():
    """03's One number (the tail-launch form's ms / the barrier form's ms = the ratio), its data
    file, the ratio and the two forms' middles; None where not committed."""
    barrier = correct_middle("build/bin/03_nested_reduce_nosync")
    tail = correct_middle("build/bin/03_nested_reduce_nosync --tail")
    if not (barrier and tail):
        return None
    ratio = f"{tail[0] / barrier[0]:.1f}"
    return (f"{tail[0]:.2f} ms / {barrier[0]:.2f} ms = {ratio}", "correct_forms.txt", ratio,
            tail, barrier)


def number_03():
    one = one_03()
    if not one:
        return missing("03_nested_reduce_nosync [--tail]", "correct_forms.txt")
    _, _, ratio, tail, barrier = one
    return (f"**One number:** {one[0]}: the tail-launch form took {ratio} "
            f"times the barrier form's time, for the same {tail[2]} launches and the same sums "
            f"(each the middle of {min(tail[1], barrier[1])} runs, not the run shown: "
            f"[`{SHOWN}correct_forms.txt`]({SHOWN}correct_forms.txt)).\n")


def nosync_vs_nested():
    """RESULTS.md, for 03: the barrier form against 02 in their own runs, then in 05's two runs,
    where the same kernel's gap repeats."""
    def make(rows, limit):
        nosync_name = next(v for v in NOSYNC if v in rows)
        nested, nosync = float(rows["gpu nested"]["ms"]), float(rows[nosync_name]["ms"])
        own, nested_own = correct_middle("build/bin/03_nested_reduce_nosync"), nested_16384_middle()
        runs_own = (f"in their own runs, {own[0] / nested_own[0]:.3f} ({own[0]:.2f} ms over "
                    f"{nested_own[0]:.2f} ms, the middle of {min(own[1], nested_own[1])} runs "
                    f"each). " if own and nested_own else "")
        first = f"{nosync / nested:.2f}"
        again = [printed_table_ms(v) for v in ("gpu nested", nosync_name)]
        if all(again):
            second = f"{again[1] / again[0]:.2f}"
            in_05 = (f"in both of 05's runs (its table, and `{SHOWN}comparison.txt`)"
                     if second == first else f"and {second} in 05's two runs (its table, and "
                     f"`{SHOWN}comparison.txt`)")
            repeated = "systematic within 05, but not the kernel's"
        else:
            in_05, repeated = "in 05's run (its table)", "not the kernel's"
        return (f"With the wait gone, the barrier form is 02's kernel: {runs_own}Yet it took "
                f"{first} times 02's time {in_05}: {repeated}, and its cause was not measured "
                f"here. A null result: a gap of a few percent between two rows of one program, "
                f"even a repeated one, says nothing about the kernels until each is timed "
                f"alone.\n")
    return from_05(make)


# --- 04 ----------------------------------------------------------------------------------------

def prints_04():
    path = data("printed_forms.txt")
    if not path:
        return missing("04_nested_reduce2 --faithful --stall-ns 200000", "printed_forms.txt")
    for command, lines, _ in runs(path):
        if command.startswith("build/bin/04_nested_reduce2") and "--stall-ns" in command:
            return fence(command, [l for l in lines if l.startswith("FAIL")])
    return missing("04_nested_reduce2 --faithful --stall-ns 200000", "printed_forms.txt")


def middle_launch_runs():
    """launch_baseline.txt: for the device's and the host stream's forms of 04, the run whose
    median is the middle of that form's runs, as {how: (command, lines, which run of that form,
    of how many)}; {} where either is missing."""
    path = data("launch_baseline.txt")
    found = launch_from()
    if not path or "device" not in found or "stream" not in found:
        return {}
    shown = {}
    for how in ("device", "stream"):
        times = found[how][0]
        middle = statistics.median(times)
        command, lines = next((c, l) for c, l, s in runs(path)
                              if s == 0 and f"--launch-from {how}" in c
                              and next(iter(results(l).values())) == middle)
        shown[how] = (command, lines, times.index(middle) + 1, len(times))
    return shown


def prints_04_correct():
    """04 correct, from the device and from the host: the middle run of each in
    launch_baseline.txt, less the device line and the spread, under a line that says which run of
    each form it is (the middles may be different rounds of the alternation)."""
    shown = middle_launch_runs()
    if not shown:
        return missing("04_nested_reduce2 --launch-from device|stream", "launch_baseline.txt")
    said = (f"The middle run of each form, excerpt "
            f"([`{SHOWN}launch_baseline.txt`]({SHOWN}launch_baseline.txt)):")
    lines = []
    for command, out, _, _ in shown.values():
        lines += ([""] if lines else []) + ["$ " + command]
        lines += [x for x in out if not x.startswith(("device 0:", "the fastest"))]
    return Done(wrap(said) + "\n```\n" + "\n".join(lines) + "\n```\n")


def one_04():
    """04's One number (from the device / from the host's stream = the ratio), its data file and
    the ratio; None where not committed."""
    ms, _ = launch_medians()
    if "device" not in ms or "stream" not in ms:
        return None
    device, stream = ms["device"], ms["stream"]
    ratio = f"{device / stream:.1f}"
    return f"{device:.4f} ms / {stream:.4f} ms = {ratio}", "launch_baseline.txt", ratio


def number_04():
    one = one_04()
    if not one:
        return missing("04_nested_reduce2 --launch-from device|stream", "launch_baseline.txt")
    return (f"**One number:** {one[0]}: 04's nine levels took {one[2]} times as long launched "
            f"from the device as from the host ([`{SHOWN}{one[1]}`]({SHOWN}{one[1]})).\n")


def launch_rows():
    """The per-launch table's rows from the folder being read: {run: (launches, how, ms)}, in the
    table's order."""
    rows = {}
    one = hello_one_block()
    if one:
        ms, _, launches, _ = one
        rows["`01_nested_hello_world --blocks 1`"] = (
            launches, "one chain: each grid launches the next", ms)
    four = correct_middle("build/bin/04_nested_reduce2")
    if four:
        ms, _, launches = four
        rows["`04_nested_reduce2` (limit 2048)"] = (
            launches, "one chain: each level tail-launches the next", ms)
    tail = correct_middle("build/bin/03_nested_reduce_nosync --tail")
    if tail:
        ms, _, launches = tail
        rows["`03_nested_reduce_nosync --tail` (limit 16384)"] = (
            launches, "one after another: a grid's tail launches run in launch order", ms)
    two = nested_16384_middle()
    if two:
        ms, _, launches = two
        rows["`02_nested_reduce` (limit 16384)"] = (launches, "2048 chains of 8, side by side", ms)
    return rows


def launch_costs():
    """The README's table of what a device-side launch cost where each waits for the one before:
    chains short and long (device_runtime_limits --chain-times), 01's own run, 04's levels against
    the host's, 03's tail launches; then, apart, 02's overlapping chains, a throughput. (07's tail
    form less its device-streams form is no launch cost: the two split the work differently.)"""
    run = run_of("chain_times.txt", "--chain-times")
    chains = [(int(n), float(ms)) for n, ms in re.findall(
        r"chain of\s+(\d+) grids:\s+([0-9.]+) ms", "\n".join(run[1]))] if run else []
    rows = launch_rows()
    tail = rows.get("`03_nested_reduce_nosync --tail` (limit 16384)")
    two = rows.get("`02_nested_reduce` (limit 16384)")
    one = rows.get("`01_nested_hello_world --blocks 1`")
    if len(chains) < 4 or not tail or not two:
        return missing("device_runtime_limits --chain-times", "chain_times.txt")
    (n0, t0), (n2, t2) = chains[0], chains[2]
    (m0, u0), (m1, u1) = chains[-2], chains[-1]
    lines = ["| a chain: each launch waits for the one before | per launch |", "| --- | --- |",
             f"| a chain of {n0} to {n2} grids, each launching the next: the slope, no host "
             f"launch in it | {1000 * (t2 - t0) / (n2 - n0):.1f} µs |",
             f"| a chain of {m0} to {m1} grids | {1000 * (u1 - u0) / (m1 - m0):.1f} µs |"]
    if one:
        lines.append(f"| 01's run: {one[0]} launches, the host's launch of the first included "
                     f"| {us(one[2], one[0])} |")
    levels, _ = launch_medians()
    if "device" in levels and "stream" in levels:
        # The times as printed, and two decimals: (0.1132 − 0.0368) / 8 is 9.55, which one decimal
        # would round down in binary floating point and a reader by hand up.
        device, stream = round(levels["device"], 4), round(levels["stream"], 4)
        lines.append(f"| 04's 8 levels, each launched by the one before: "
                     f"({device:.4f} − {stream:.4f}) ms / 8, device less host "
                     f"| {(device - stream) * 1000 / 8:.2f} µs |")
    lines.append(f"| 03's tail launches, run one after another | {us(tail[2], tail[0])} |")
    lines.append("")
    lines.append(f"Launches that overlap cost less. 02's 2048 chains side by side took "
                 f"{us(two[2], two[0])} a launch, a throughput.")
    return "\n".join(lines) + "\n"


def per_launch():
    """What a launch costs where each waits for the one before, and where they overlap: this run's
    rows, and an older run's in place of one this run lacks, marked."""
    rows, marks = launch_rows(), {}
    for folder in OLDER:
        with older(folder):
            for run, row in launch_rows().items():
                if run not in rows:
                    rows[run], marks[run] = row, f" ([`{SHOWN}`]({SHOWN}), an older run)"
    if not rows:
        return missing("01_nested_hello_world", "hello_world.txt")
    order = sorted(rows, key=lambda r: "01 04 03 02".split().index(r[1:3]))
    lines = ["| run | device-side launches | how they wait for one another | ms | per launch |",
             "|---|---|---|---|---|"]
    lines += [f"| {run}{marks.get(run, '')} | {rows[run][0]} | {rows[run][1]} | {rows[run][2]:.4f} "
              f"| {us(rows[run][2], rows[run][0])} |" for run in order]
    return "\n".join(lines) + "\n"


# --- 05 ----------------------------------------------------------------------------------------

def printed_table_ms(variant):
    """The ms of `variant` in 05's printed table (comparison.txt, a second run of the same build),
    or None."""
    path = data("comparison.txt")
    for _, lines, status in runs(path) if path else []:
        for line in lines:
            found = re.match(re.escape(variant) + r"\s+([0-9.]+)\s", line)
            if found and status == 0:
                return float(found.group(1))
    return None


def prints_05():
    """05's printed run (comparison.txt): the program's own table beside the document's K40c, less
    the GPU's line and the launch count each row's column repeats (the --csv run is RESULTS.md's
    table: results-table; the figure plots this printed run)."""
    def make(rows, limit):
        run = run_of("comparison.txt", "05_reduction_comparison")
        if not run:
            return missing("05_reduction_comparison", "comparison.txt")
        lines = [l for l in shortened(run[1]) if not l.endswith(" device-side launches")]
        return fence(run[0], lines)
    return from_05(make)


def about(x):
    """x to two significant figures, as a reader would say it (1414 -> 1400)."""
    digits = max(len(str(int(x))) - 2, 0)
    return f"{round(x, -digits):.0f}"


def one_05(rows):
    """05's One number from its rows: the printed run's (comparison.txt, the table the README
    shows) where committed, else the --csv run's (the figure's): (`gpu nested`'s ms /
    `reduceNeighbored`'s, its data file, the ratio to two figures)."""
    nested, neighbored = printed_table_ms("gpu nested"), printed_table_ms("gpu Neighbored")
    name = "comparison.txt"
    if nested is None or neighbored is None:
        nested = float(rows["gpu nested"]["ms"])
        neighbored = float(rows["gpu Neighbored"]["ms"])
        name = "comparison.csv"
    return f"{nested:.2f} ms / {neighbored:.4f} ms", name, about(nested / neighbored)


def number_05():
    """05's One number (one_05); the K40c's ratio is RESULTS.md's (its K40c column)."""
    def make(rows, limit):
        division, name, ratio = one_05(rows)
        which = (f"the run printed above, [`{SHOWN}{name}`]({SHOWN}{name})"
                 if name == "comparison.txt" else "the `--csv` run")
        # The older-run test (CMakeLists.txt) looks for the H100 run's "One number:** 29.20 ms / ".
        return (f"**One number:** {division}: `gpu nested` took about {ratio} times as long as "
                f"`reduceNeighbored`, for the same sums ({which}).\n")
    return from_05(make)


def rdc_noise():
    """The answer under 05 that weighs its one number: how far apart two runs of the same build
    were, and what CUB's sum, which launches nothing either, gave."""
    def make(rows, limit):
        relocatable = rows["gpu Neighbored"]
        plain = rows.get("gpu Neighbored, no -rdc")
        if plain is None:
            return missing("05_reduction_comparison_no_rdc", "comparison_no_rdc.csv")
        r_ms, p_ms = float(relocatable["ms"]), float(plain["ms"])
        ratios = [r_ms / p_ms]
        cub, cub_plain = rows.get("cub DeviceReduce::Sum"), rows.get(
            "cub DeviceReduce::Sum, no -rdc")
        if cub and cub_plain:
            ratios.append(float(cub["ms"]) / float(cub_plain["ms"]))
        said = (f"`reduceNeighbored` took {r_ms:.4f} ms built with relocatable device code and "
                f"the device runtime, {p_ms:.4f} ms built without: {r_ms / p_ms:.2f}"
                + (f"; CUB's sum, which launches nothing either, {ratios[1]:.2f}"
                   if len(ratios) == 2 else "") + ". ")
        # Two runs of one build (comparison.csv, comparison.txt), as a ratio like the builds'.
        spreads = []
        again = printed_table_ms("gpu Neighbored")
        if again:
            spreads.append(("`reduceNeighbored`", r_ms, again))
        cub_again = printed_table_ms("cub DeviceReduce::Sum") if cub else None
        if cub_again:
            spreads.append(("CUB's sum", float(cub["ms"]), cub_again))
        if not spreads:
            return missing("05_reduction_comparison", "comparison.txt")
        bound = max(abs(x - 1) for x in ratios)
        name, x, y = max(spreads, key=lambda s: max(s[1:]) / min(s[1:]))
        spread = max(x, y) / min(x, y)
        if spread - 1 >= bound:
            return (said + f"That is noise: two runs of one build differed as much ({name} "
                    f"{x:.4f} and {y:.4f} ms, {spread:.2f}).\n")
        return (said + f"Two runs of one build differed less ({name} {x:.4f} and {y:.4f} ms, "
                f"{spread:.2f}): in these runs the price is within {100 * bound:.0f}%.\n")
    return from_05(make)


def results_table():
    def make(rows, limit):
        no_rdc = data("comparison_no_rdc.csv")
        table = plot_comparison.table(plot_comparison.merge(
            plot_comparison.load(data("comparison.csv")),
            plot_comparison.load(no_rdc) if no_rdc else []))
        # The row runs 02's barrier kernel under 03's name; the K40c's was the barrier-free one.
        # 05 names it so since 2026-11-26; an older run's CSV gets the same name here.
        return table.replace("| gpu nestedNosync |", f"| {NOSYNC[0]} |")
    return from_05(make)


def current_05():
    try:
        return comparison() is not None
    except Stale:
        return False


def comparison_figure():
    """The plot of 05's printed table (plot_comparison.py --printed), beside this script, where a
    current run of 05 is committed (else nothing: the table's block says why)."""
    if current_05() and os.path.exists(os.path.join(HERE, "comparison.png")):
        return ("![The document's table on this GPU, beside the K40c's times](comparison.png)\n\n"
                "*Plotted by [`plot_comparison.py`](plot_comparison.py) from the run printed above,\n"
                "[`data/comparison.txt`](data/comparison.txt).*\n")
    return ""


# --- 06 ----------------------------------------------------------------------------------------

def prints_06():
    path = data("mandelbrot_default.txt")
    if not path:
        return missing("06_mandelbrot_mariani_silver", "mandelbrot_default.txt")
    command, lines, _ = runs(path)[0]
    # The CPU reference's two lines, and the trees counted on the device (RESULTS.md's log of the
    # sweep has them), stand as one "...".
    cpu = [i for i, l in enumerate(lines) if l.startswith("CPU reference:")]
    if cpu:
        lines = lines[:cpu[0]] + ["..."] + lines[cpu[0] + 2:]
    # The dwell steps and the fill's check are RESULTS.md's (the sweep's log); the pool's line and
    # the ratios are the README's prose (its one number and its answer).
    lines = [l for l in lines if not l.startswith((
        "dwell steps:", "filled pixels whose", "pending-launch limit", "dynamic parallelism /",
        "tail-launched levels /", "mariani-silver /"))]
    lines = [l for i, l in enumerate(lines)  # less the blank line that followed the pool's line
             if l.strip() or i == 0 or not lines[i - 1].startswith("device 0:")]
    trees = [i for i, l in enumerate(lines) if l.endswith("the tree, counted on the device:")]
    for start in reversed(trees):
        stop = start + 1
        while stop < len(lines) and lines[stop].startswith(" "):
            stop += 1
        lines = lines[:start] + lines[stop:]
    # The image's constants are the README's idea, the check its Results section: the launches and
    # the times are what the section reads.
    lines = [l for l in lines if not l.startswith(("image ", "verified:"))]
    note = default_vs_sweep(short=True)
    return Done(fence(command, shortened(lines)) + ("\n" + wrap(note) if note else ""))


def default_vs_sweep_results():
    """RESULTS.md: why 06's default run and the sweep disagree, where they do."""
    note = default_vs_sweep()
    if note:
        return note + "\n"
    rows, default = mandelbrot_rows(), data("mandelbrot_default.txt")
    if not (rows and default):
        return missing("06_mandelbrot_mariani_silver", "mandelbrot_default.txt")
    said = re.findall(r"dynamic parallelism / host-driven: ([0-9.]+)", open(default).read())
    out = "\n".join(runs(default)[0][1])
    n = re.search(r"image (\d+)x", out)
    row = next((r for r in rows if n and r["n"] == n.group(1)), None)
    if not (said and row):
        return missing("06_mandelbrot_mariani_silver", "mandelbrot_default.txt")
    at_size = ms_of(row)[2] / ms_of(row)[1]
    return (f"The default runs' lines `dynamic parallelism / host-driven` say "
            f"{', '.join(said)} at {side(row)}; the runs of that size in "
            f"`{SHOWN}mandelbrot.csv`, at the same pending-launch limit "
            f"({row['pending_limit']}), {at_size:.2f} between their middle runs: no "
            f"disagreement to explain.\n")


def default_vs_sweep(short=False):
    """Where 06's default run and the sweep, at the same size and other pending-launch limits,
    disagree on which form was faster: one sentence for under the default run's output (else
    None)."""
    rows = mandelbrot_rows()
    default, log = data("mandelbrot_default.txt"), data("mandelbrot_log.txt")
    # Only a --sweep's log (one process, no command lines) ran every size at one limit.
    if not (rows and default and log) or any(l.startswith("$ ") for l in open(log)):
        return None
    out = "\n".join(runs(default)[0][1])
    n = re.search(r"image (\d+)x", out)
    limit = re.search(r"pending-launch limit (\d+)", out)
    ratio = re.search(r"dynamic parallelism / host-driven: ([0-9.]+)", out)
    swept = re.search(r"pending-launch limit (\d+)", open(log).read())
    row = next((r for r in rows if n and r["n"] == n.group(1)), None)
    if not (n and limit and ratio and swept and row) or limit.group(1) == swept.group(1):
        return None
    at_sweep = ms_of(row)[2] / ms_of(row)[1]
    if (float(ratio.group(1)) - 1) * (at_sweep - 1) >= 0:
        return None
    if short:
        return (f"This single run's `dynamic parallelism / host-driven: {ratio.group(1)}` is not "
                f"the lesson's verdict: the sweep below measured {at_sweep:.2f} at the same size, "
                f"under another pending-launch limit ([RESULTS.md](RESULTS.md#06-the-sweeps-log) "
                f"compares "
                f"the two).")
    return (f"The default run's line `dynamic parallelism / host-driven: {ratio.group(1)}` says "
            f"dynamic parallelism won at {side(row)}; the sweep, at the same size, measured "
            f"{at_sweep:.2f}, dynamic parallelism slower. One run each, at different "
            f"pending-launch limits ({limit.group(1)} in the default run, {swept.group(1)} in the "
            f"sweep, "
            f"which sets the limit its largest image needs): the pool's size, which changed 02's "
            f"time, is one difference between them. The README's verdict rests on the sweep, "
            f"every size measured the same way (*06: the sweep*).")


def mandelbrot_rows():
    path = data("mandelbrot.csv")
    return plot_mandelbrot.load(path) if path else None


def side(row):
    return f"{row['n']} × {row['n']}"


def ms_of(row):
    """(flat, host-driven, dynamic parallelism) ms of a sweep's row."""
    return (float(row["flat_ms"]), float(row["host_driven_ms"]),
            float(row["mariani_silver_ms"]))


def sizes(rows, every):
    """The images of `rows` (a sweep, smallest first) named: 'from A up' where they are the
    sweep's last ones and more than two, else each."""
    names = [side(r) for r in rows]
    if len(rows) > 2 and rows[-1] is every[-1] and every[-len(rows):] == rows:
        return f"from {names[0]} up"
    return "at " + (" and ".join(names) if len(names) < 3 else
                    ", ".join(names[:-1]) + " and " + names[-1])


def span(values):
    low, high = min(values), max(values)
    return f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f} to {high:.2f}"


def number_06():
    one = one_06()
    if not one:
        return missing("06_mandelbrot_mariani_silver --n N --csv", "mandelbrot.csv")
    _, _, ratio, shown = one
    return (f"**One number:** {one[0]}: at {side(shown)}, Mariani–Silver with dynamic parallelism "
            f"took {ratio} times as long as the host-driven form "
            f"([`{SHOWN}{one[1]}`]({SHOWN}{one[1]}), {runs_said(shown)}).\n")


def one_06():
    """06's One number at the largest size (dynamic parallelism's ms / the host-driven form's =
    the ratio), its data file, the ratio and the row; None where not committed. The run the README
    prints (1024 x 1024) is within noise of the host-driven form; the largest image shows what the
    launches cost once there are many (the sweep's figure and *The answer* carry the other
    sizes)."""
    rows = mandelbrot_rows()
    if not rows:
        return None
    shown = rows[-1]
    _, host, dp = ms_of(shown)
    ratio = f"{dp / host:.2f}"
    return f"{dp:.2f} ms / {host:.2f} ms = {ratio}", "mandelbrot.csv", ratio, shown


def answer_06():
    """*The answer* under 06: the device form against the host-driven one, a verdict first, then
    why it led where nothing was cut."""
    rows = mandelbrot_rows()
    if not rows:
        return missing("06_mandelbrot_mariani_silver --n N --csv", "mandelbrot.csv")
    uncut = [r for r in rows if int(r["launches"]) == 0]
    cut = [r for r in rows if int(r["launches"]) > 0]
    # A gap under 5% is within the spread of two runs here: not a win.
    close = [r for r in cut if abs(ms_of(r)[2] / ms_of(r)[1] - 1) < 0.05]
    won = [r for r in cut if ms_of(r)[2] / ms_of(r)[1] <= 0.95]
    lost = [r for r in cut if ms_of(r)[2] / ms_of(r)[1] >= 1.05]
    ratio = lambda r: ms_of(r)[2] / ms_of(r)[1]
    text = []
    if won and lost:
        text.append(f"Where rectangles were cut, the device form beat the host-driven form only "
                    f"{sizes(won, rows)}, taking {span([ratio(r) for r in won])} of its time. "
                    f"{sizes(lost, rows)[0].upper()}{sizes(lost, rows)[1:]} it took "
                    f"{span([ratio(r) for r in lost])} times as long.")
    if close:
        text.append(f"{sizes(close, rows)[0].upper()}{sizes(close, rows)[1:]} the two were within "
                    f"5%: noise.")
    if uncut:
        text.append(f"Up to {side(uncut[-1])} nothing was cut, yet the device form took "
                    f"{span([ratio(r) for r in uncut])} of the host-driven time. The host-driven "
                    f"form still clears and reads back its one level's count: a round trip.")
    return "\n".join(text) + "\n"


def runs_said(row):
    """'one run', or 'each the middle of 3 runs' where the CSV held several of the size."""
    count = int(row.get("runs", 1))
    return "one run" if count == 1 else f"each the middle of {count} runs"


def mandelbrot_verdict():
    """The section's hypothesis answered from the sweep (and the default run, at its own
    pending-launch limit)."""
    rows = mandelbrot_rows()
    if not rows:
        return missing("06_mandelbrot_mariani_silver --n N --csv", "mandelbrot.csv")
    text = []
    beat = [r for r in rows if max(ms_of(r)[1:]) < ms_of(r)[0]]
    lose = [r for r in rows if min(ms_of(r)[1:]) > ms_of(r)[0]]
    large = rows[-1]
    flat, host, dp = ms_of(large)
    steps = int(large["mariani_silver_steps"]) / int(large["flat_steps"])
    if beat:
        text.append(f"Against the flat kernel, both Mariani–Silver forms were faster "
                    f"{sizes(beat, rows)}; at {side(large)} they took {host / flat:.2f} "
                    f"(host-driven) and {dp / flat:.2f} (dynamic parallelism) of its time, for "
                    f"{steps:.2f} of its dwell steps.")
    if lose:
        text.append(f"The flat kernel was faster than either {sizes(lose, rows)}: the faster "
                    f"Mariani–Silver form took "
                    f"{span([min(ms_of(r)[1:]) / ms_of(r)[0] for r in lose])} times its time.")
    launching = [r for r in rows if int(r["launches"]) > 0]
    quiet = [r for r in rows if int(r["launches"]) == 0]
    noise = [r for r in launching if within_noise(r["n"])]
    slower = [r for r in launching if ms_of(r)[2] > ms_of(r)[1] and r not in noise]
    faster = [r for r in launching if ms_of(r)[2] < ms_of(r)[1] and r not in noise]
    if noise:
        text.append(f"Between the two forms, where dynamic parallelism launched from the device "
                    f"it was within noise of the host-driven form {sizes(noise, rows)} (in every "
                    f"run of those sizes, the two forms' fastest and slowest repetitions "
                    f"overlapped: {span([ms_of(r)[2] / ms_of(r)[1] for r in noise])} of its time)"
                    + (f", and slower {sizes(slower, rows)}, by "
                       f"{span([ms_of(r)[2] / ms_of(r)[1] for r in slower])} times"
                       if slower else "")
                    + (f", and faster {sizes(faster, rows)}" if faster else "") + ".")
    elif launching:
        counts = [int(r["launches"]) for r in launching]
        where = (f"at every size where it launched from the device ({sizes(launching, rows)}, "
                 f"{min(counts)} to {max(counts)} launches)")
        if slower and not faster:
            text.append(f"Between the two forms, dynamic parallelism was the slower {where}, "
                        f"by {span([ms_of(r)[2] / ms_of(r)[1] for r in slower])} times.")
        elif faster and not slower:
            text.append(f"Between the two forms, dynamic parallelism was the faster {where}: "
                        f"{span([ms_of(r)[2] / ms_of(r)[1] for r in faster])} of the "
                        f"host-driven form's time.")
        else:
            text.append(f"Between the two forms, where dynamic parallelism launched from the "
                        f"device it was faster {sizes(faster, rows)} and slower "
                        f"{sizes(slower, rows)}.")
    if quiet:
        ratios = [ms_of(r)[2] / ms_of(r)[1] for r in quiet]
        who = ("faster" if all(x < 1 for x in ratios) else
               "slower" if all(x > 1 for x in ratios) else "as fast or not")
        text.append(f"{sizes(quiet, rows).capitalize()} nothing is cut, so dynamic parallelism "
                    f"launched nothing from the device, and it was {who} ({span(ratios)} of the "
                    f"host-driven form's time): what differs there is not a launch but the "
                    f"host-driven form's reset and read-back of its list's length.")
    return " ".join(text) + "\n"


def within_noise(n):
    """Whether, in every run of the image size n, the fastest and slowest repetitions of the
    device-launched and host-driven forms overlapped (the program's own "within noise")."""
    with open(data("mandelbrot.csv"), newline="") as f:
        runs_of = [r for r in csv.DictReader(f) if r["n"] == n]
    return bool(runs_of) and all(
        float(r["mariani_silver_min_ms"]) <= float(r["host_driven_max_ms"])
        and float(r["host_driven_min_ms"]) <= float(r["mariani_silver_max_ms"]) for r in runs_of)


def mandelbrot_table():
    """RESULTS.md: the sweep's times; the README shows them as the plot (mandelbrot_figure())."""
    rows = mandelbrot_rows()
    if not rows:
        return missing("06_mandelbrot_mariani_silver --n N --csv", "mandelbrot.csv")
    return Done(split_table(rows))


def mandelbrot_figure():
    """The README's plot of the sweep (plot_mandelbrot.py draws it from the same CSV)."""
    rows = mandelbrot_rows()
    if not rows:
        return missing("06_mandelbrot_mariani_silver --n N --csv", "mandelbrot.csv")
    png, shown = ((data("mandelbrot.png"), f"{SHOWN}mandelbrot.png") if FOLDER else
                  (os.path.join(HERE, "mandelbrot.png"), "mandelbrot.png"))
    if not (png and os.path.exists(png)):
        return missing("plot_mandelbrot.py --png", "mandelbrot.png")
    return Done(f"![Time by image size: flat, host-driven and dynamic parallelism]({shown})\n\n"
                f"The times are tabled in [RESULTS.md]"
                f"(RESULTS.md#06-the-sweep).\n")


def split_table(rows):
    """The sweep as one table of times, with the two counts that explain them: the launches from
    the device, and the dwell steps Mariani-Silver computes (plot_mandelbrot.table() has every
    column, as RESULTS.md keeps it; the logs there have the rest of each tree)."""
    tail = all(r.get("tail_levels_ms") for r in rows)
    times = ["| image | flat | host-driven | dynamic parallelism | "
             + ("tail-launched levels | " if tail else "")
             + "dynamic parallelism ÷ host-driven | dynamic parallelism ÷ flat |"
             + (" tail-launched levels ÷ host-driven |" if tail else "")
             + " launches from the device | dwell steps, Mariani–Silver ÷ flat |",
             "|---|---|---|---|---|---|---|---|" + ("---|---|" if tail else "")]
    for r in rows:
        flat, host = float(r["flat_ms"]), float(r["host_driven_ms"])
        dp = float(r["mariani_silver_ms"])
        levels = float(r["tail_levels_ms"]) if tail else None
        steps = int(r["mariani_silver_steps"]) / max(1, int(r["flat_steps"]))
        times.append(f"| {r['n']} × {r['n']} | {flat:.4f} | {host:.4f} | {dp:.4f} | "
                     + (f"{levels:.4f} | " if tail else "")
                     + f"{dp / host:.2f} | {dp / flat:.2f} |"
                     + (f" {levels / host:.2f} |" if tail else "")
                     + f" {r['launches']} | {steps:.2f} |")
    runs = {r.get("runs", "1") for r in rows}
    said = (f"each the middle of {' or '.join(sorted(runs))} runs of its size, each in a process "
            f"of its own" if runs != {"1"} else "one run each")
    return "The times, in ms (" + said + "):\n\n" + "\n".join(times) + "\n"


def pool_rows():
    """06 at each size at the largest image's pending-launch limit (mandelbrot_pool.csv), one row
    per size as mandelbrot_rows(); None without the file."""
    path = data("mandelbrot_pool.csv")
    return plot_mandelbrot.load(path) if path else None


def forms_by_pool():
    """{size: {form: (ms at the size's own limit, ms at the largest image's limit)}} for the sizes
    both CSVs have, and the two limits of each size."""
    own, pool = mandelbrot_rows(), pool_rows()
    if not (own and pool):
        return None
    pooled = {r["n"]: r for r in pool}
    found = {}
    for row in own:
        other = pooled.get(row["n"])
        if other:
            found[row["n"]] = ({form: (float(row[f"{form}_ms"]), float(other[f"{form}_ms"]))
                                for form in ("host_driven", "mariani_silver", "tail_levels")},
                               row["pending_limit"], other["pending_limit"], row)
    return found


def mandelbrot_pool():
    """Under 06: what the pending-launch pool's size alone did to each form, size by size."""
    found = forms_by_pool()
    if not found:
        return missing("06_mandelbrot_mariani_silver --n N --pending-limit 69888 --csv",
                       "mandelbrot_pool.csv")
    changed = {n: v for n, v in found.items() if v[1] != v[2]}
    if not changed:
        return missing("06_mandelbrot_mariani_silver --n N --pending-limit 69888 --csv",
                       "mandelbrot_pool.csv")
    big = next(iter(changed.values()))[2]
    first = next(n for n in changed if int(changed[n][3]["launches"]) > 0)
    dp_own, dp_big = changed[first][0]["mariani_silver"]
    def ratios(form, only=None):
        return span([v[0][form][1] / v[0][form][0] for n, v in changed.items()
                     if only is None or only(v[3])])
    counts = [int(v[3]["tail_level_launches"]) for v in changed.values()]
    tails = f"{min(counts)} to {max(counts)}" if min(counts) != max(counts) else str(counts[0])
    return (f"At {first} × {first}, Mariani–Silver with dynamic parallelism took "
            f"{dp_big / dp_own:.2f} times as long at the pending-launch limit {big} as at the "
            f"limit {changed[first][1]} that the image needs ({dp_big:.4f} ms over "
            f"{dp_own:.4f} ms, each the middle of 3 runs, "
            f"[`{SHOWN}mandelbrot_pool.csv`]({SHOWN}mandelbrot_pool.csv) over "
            f"[`{SHOWN}mandelbrot.csv`]({SHOWN}mandelbrot.csv)). At every size below 16384 × "
            f"16384, where the two limits differ, the larger pool made the device-launched form "
            f"{ratios('mariani_silver', lambda r: int(r['launches']) > 0)} times slower where it "
            f"launched from the device, and "
            f"{ratios('mariani_silver', lambda r: int(r['launches']) == 0)} where it did not; the "
            f"tail-launched levels, {tails} launches from the device, {ratios('tail_levels')} "
            f"times; the host-driven form, which launches nothing from the device, "
            f"{ratios('host_driven')} times.\n")


def depth_rows():
    """mandelbrot_depth.csv by max depth: {depth: {column: the middle of its runs}}; None without
    the file."""
    path = data("mandelbrot_depth.csv")
    if not path:
        return None
    by_depth = {}
    for r in plot_mandelbrot.csv.DictReader(open(path, newline="")):
        by_depth.setdefault(int(r["max_depth"]), []).append(r)
    found = {}
    for depth, rows in sorted(by_depth.items()):
        row = dict(rows[0], runs=len(rows))
        for form in ("flat", "host_driven", "mariani_silver", "tail_levels"):
            row[form] = statistics.median(float(r[f"{form}_ms"]) for r in rows)
        found[depth] = row
    return found


def mandelbrot_depth():
    """Under 06: a deeper tree, where launches from the device are many more."""
    rows = depth_rows()
    if not rows or len(rows) < 2:
        return missing("06_mandelbrot_mariani_silver --n 4096 --min-size 1 --max-depth 4|5 --csv",
                       "mandelbrot_depth.csv")
    lines = ["| max depth | launches: from the device, from the host | flat: ms | "
             "host-driven: ms | dynamic parallelism: ms | tail-launched levels: ms | "
             "dynamic parallelism ÷ host-driven |", "|---|---|---|---|---|---|---|"]
    for depth, r in rows.items():
        lines.append(f"| {depth} | {r['launches']}, {r['host_levels']} | {r['flat']:.4f} | "
                     f"{r['host_driven']:.4f} | {r['mariani_silver']:.4f} | "
                     f"{r['tail_levels']:.4f} | {r['mariani_silver'] / r['host_driven']:.1f} |")
    deep = rows[max(rows)]
    n = deep["n"]
    text = (f"At {n} × {n} with parts down to 1 pixel and {max(rows)} levels, Mariani–Silver "
            f"with dynamic parallelism took {deep['mariani_silver'] / deep['host_driven']:.1f} "
            f"times as long as the same algorithm driven from the host "
            f"({deep['mariani_silver']:.2f} ms over {deep['host_driven']:.2f} ms, the middle of "
            f"{deep['runs']} runs, [`{SHOWN}mandelbrot_depth.csv`]({SHOWN}mandelbrot_depth.csv); "
            f"every time in the table is such a middle run).")
    return Done(wrap(text) + "\n" + "\n".join(lines) + "\n")


def mandelbrot_pool_results():
    """RESULTS.md: the sweep at the largest image's limit, and the deeper trees' log."""
    rows = pool_rows()
    if not rows:
        return missing("06_mandelbrot_mariani_silver --n N --pending-limit 69888 --csv",
                       "mandelbrot_pool.csv")
    return Done(plot_mandelbrot.table(rows) + "\n" + wrap(
        f"Every size at the pending-launch limit {rows[-1]['pending_limit']}, "
        f"[`{SHOWN}mandelbrot_pool.csv`]({SHOWN}mandelbrot_pool.csv); what each run printed "
        f"besides is in [`{SHOWN}mandelbrot_pool_log.txt`]({SHOWN}mandelbrot_pool_log.txt)."))


def mandelbrot_depth_results():
    rows = depth_rows()
    if not rows:
        return missing("06_mandelbrot_mariani_silver --max-depth 4|5", "mandelbrot_depth.csv")
    lines = ["| max depth | pending-launch limit (the bound) | rectangles | pixels filled | "
             "filled pixels off their escape time | host-driven, ms | dynamic parallelism, ms, "
             "run by run | tail-launched levels, ms, run by run |",
             "|---|---|---|---|---|---|---|---|"]
    path = data("mandelbrot_depth.csv")
    every = list(plot_mandelbrot.csv.DictReader(open(path, newline="")))
    dp, tail = "mariani_silver_ms", "tail_levels_ms"
    for depth, r in rows.items():
        mine = [x for x in every if int(x["max_depth"]) == depth]
        lines.append(f"| {depth} | {r['pending_limit']} ({r['launch_bound']}) | "
                     f"{r['rectangles']} | "
                     f"{100 * int(r['filled_pixels']) / int(r['pixels']):.1f}% | "
                     f"{r['fill_mismatches']} | {r['host_driven']:.4f} | "
                     f"{', '.join(f'{float(x[dp]):.2f}' for x in mine)} | "
                     f"{', '.join(f'{float(x[tail]):.2f}' for x in mine)} |")
    short = [r for r in rows.values() if int(r["pending_limit"]) < int(r["launch_bound"])]
    if not short:
        return "\n".join(lines) + "\n"
    r = short[0]
    return Done("\n".join(lines) + "\n\n" + wrap(
        f"At {r['max_depth']} levels the program asked for the bound, {r['launch_bound']} slots, "
        f"and `cudaDeviceGetLimit()` read back {r['pending_limit']}: the device runtime granted "
        f"less than was asked, without an error (the log, "
        f"[`{SHOWN}mandelbrot_depth_log.txt`]({SHOWN}mandelbrot_depth_log.txt), prints both). "
        f"The tree made {r['launches']} launches, fewer than that, and every run verified."))


# --- 07 ----------------------------------------------------------------------------------------

def racing(command):
    return "--default-stream" in command or "--no-join" in command


def continuation_run(per_block=False):
    """07's first passing run that is not a racing port: its default form, or with `per_block`
    its --per-block form, as (command, lines); None where there is none."""
    path = data("continuation.txt")
    if not path:
        return None
    return next(((c, l) for c, l, s in runs(path)
                 if not racing(c) and ("--per-block" in c) == per_block and s == 0), None)


def prints_07():
    run = continuation_run()
    return fence(run[0], shortened(run[1])) if run else missing("07_continuation",
                                                                 "continuation.txt")


def continuation_medians():
    """07's default runs (not racing, not --per-block, exit 0): ({form: the middle of the runs'
    times}, how many runs), or None."""
    path = data("continuation.txt")
    every = [results(l) for c, l, s in runs(path) if not racing(c) and "--per-block" not in c
             and s == 0] if path else []
    if not every:
        return None
    forms = ("tail launch", "device streams", "host-driven", "cub segmented reduce")
    return {f: statistics.median(t[f"07_continuation {f}"] for t in every) for f in forms}, len(
        every)


def one_07():
    """07's One number (the tail form's ms / the host-driven form's = the ratio), its data file,
    the ratio and the runs; None where not committed."""
    found = continuation_medians()
    if not found:
        return None
    host, tail = found[0]["host-driven"], found[0]["tail launch"]
    ratio = f"{tail / host:.1f}"
    return f"{tail:.4f} ms / {host:.4f} ms = {ratio}", "continuation.txt", ratio, found[1]


def number_07():
    one = one_07()
    if not one:
        return missing("07_continuation", "continuation.txt")
    return (f"**One number:** {one[0]}: the tail form took {one[2]} times as long as the "
            f"host-driven form, each the middle of {one[3]} runs, not the run shown "
            f"([`{SHOWN}{one[1]}`]({SHOWN}{one[1]})).\n")


def continuation_forms():
    """07's four forms side by side, for RESULTS.md: the middle of the default runs."""
    found = continuation_medians()
    if not found:
        return missing("07_continuation", "continuation.txt")
    ms, count = found
    host = ms["host-driven"]
    run = run_of("continuation.txt", "07_continuation")
    said = re.search(r"(\d+) in the tail form .* (\d+) in the device-streams form",
                     "\n".join(run[1])) if run else None
    tail, streams = said.groups() if said else ("?", "?")
    rows = [("tail launch: a child grid per non-empty segment, then the continuation",
             f"{tail} device-side launches"),
            ("device streams: one device thread, the per-block kernel in two halves, an event, "
             "the continuation", f"{streams} device-side launches"),
            ("host-driven: the per-block kernel, then the continuation",
             "2 launches from the host"),
            ("cub segmented reduce: another algorithm, then the continuation", "from the host")]
    names = ("tail launch", "device streams", "host-driven", "cub segmented reduce")
    table = ["| form | launches | ms | ÷ host-driven |", "|---|---|---|---|"]
    for name, (form, launches) in zip(names, rows):
        table.append(f"| {form} | {launches} | {ms[name]:.4f} | {ms[name] / host:.2f} |")
    return ("\n".join(table) + f"\n\nEach time is the middle of {count} runs in "
            f"[`{SHOWN}continuation.txt`]({SHOWN}continuation.txt).\n")


PORTS = {"--default-stream": "the continuation in the default stream",
         "--per-block --default-stream": "the per-block continuation in the default stream",
         "--no-join": "the device-streams form without its event wait"}
TESTS = {"--default-stream": "default_stream_stalled",
         "--per-block --default-stream": "per_block_default_stream_stalled",
         "--no-join": "no_join_stalled"}


def port_of(command):
    """The racing port a command of 07 runs (a key of PORTS), or None."""
    if "--no-join" in command:
        return "--no-join"
    if "--default-stream" in command:
        return "--per-block --default-stream" if "--per-block" in command else "--default-stream"
    return None


def racing_summary():
    """How often each racing port of 07 went wrong, unstalled and stalled."""
    path = data("continuation.txt")
    if not path:
        return missing("07_continuation --default-stream / --no-join", "continuation.txt")
    unstalled, stalled, tests = [], [], []
    for flag, what in PORTS.items():
        found = [(c, s) for c, _, s in runs(path) if port_of(c) == flag]
        if found:
            tests.append(f"`07_continuation/{TESTS[flag]}`")
        plain = [s for c, s in found if "--stall-ns" not in c]
        late = [s for c, s in found if "--stall-ns" in c]
        if plain:
            unstalled.append(f"{what} {'' if unstalled else 'went wrong '}in "
                             f"{sum(s != 0 for s in plain)} of {len(plain)}"
                             f"{'' if unstalled else ' runs'}")
        if late:
            stalled.append(f"{what} {'failed' if all(s == 1 for s in late) else 'passed'}")
    text = []
    if unstalled:
        text.append("Unstalled, " + (", and " if len(unstalled) < 3 else "; ").join(unstalled)
                    + ".")
    if stalled and all(x.endswith("failed") for x in stalled):
        text.append("Stalled, each failed, as its test requires." if len(tests) > 1 else
                    f"Stalled, it failed, as the test {tests[0]} requires.")
    elif stalled:
        text.append("Stalled, " + "; ".join(stalled) + " (its stalled test passes only where the "
                    "port fails).")
    return " ".join(text) + "\n" if text else missing("07_continuation --default-stream",
                                                       "continuation.txt")


# --- 01's depth, and the costs ------------------------------------------------------------------

def nesting():
    """What the chain of device_runtime_limits did, in each of its runs."""
    path = data("runtime_limits.txt")
    if not path:
        return missing("device_runtime_limits", "runtime_limits.txt")
    said = [next((l for l in out if l.startswith("nesting: ")), None)
            for _, out, _ in runs(path)]
    limits = [row[0] for row in runtime_limits_rows()]
    if not said or None in said:
        return missing("device_runtime_limits", "runtime_limits.txt")
    ran = [re.match(r"nesting: all (\d+) grids ran \(depths 0 to (\d+)\)", l) for l in said]
    both_ways = (", each with modules loaded lazily and eagerly"
                 if runtime_limits_rows(eager=True) else "")
    runs_named = (f"each of its {len(said)} runs on the {gpu()} "
                  f"(pending-launch limits "
                  f"{', '.join(limits[:-1])} and {limits[-1]}{both_ways})" if len(limits) > 1
                  else "its run")
    if all(ran) and len({m.groups() for m in ran}) == 1:
        grids, deepest = ran[0].groups()
        past = (", deeper than the document's 24" if int(deepest) > 24 else "")
        return (f"In {runs_named}, a chain of {grids} grids, depths 0 to {deepest}, ran with no "
                f"launch refused{past}; this test tried no longer chain ([*A launch's latency*]"
                f"(#a-launchs-latency) did).\n")
    return (f"In {runs_named}: " + "; ".join(l.removeprefix("nesting: ") for l in said) + ".\n")


def runtime_limits_rows(eager=False):
    """device_runtime_limits' runs, with modules loaded lazily (the default) or, with `eager`,
    eagerly (CUDA_MODULE_LOADING=EAGER, which the run prints): (limit, free MiB before the limit
    was set, MiB held by setting it, MiB taken by a host launch of a kernel that launches nothing
    (None in an older run's line, which has no such launch), MiB taken by the first device-side
    launch, the run's lines), smallest limit first."""
    path = data("runtime_limits.txt")
    if not path:
        return []
    found = []
    for _, out, status in runs(path):
        text = "\n".join(out)
        if ("module loading: EAGER" in text) != eager:
            continue
        m = re.search(r"pending-launch limit (\d+): free device memory ([0-9.]+) MiB before it was "
                      r"set, .*?\(([0-9.]+) MiB held\)(?:.*?after a host launch of a kernel that "
                      r"launches nothing \(([0-9.]+) MiB more\))?.*?after the first device-side "
                      r"launch \(([0-9.]+) MiB more\)", text)
        if status == 0 and m:
            host = float(m.group(4)) if m.group(4) is not None else None
            found.append((m.group(1), float(m.group(2)), float(m.group(3)), host,
                          float(m.group(5)), out))
    return sorted(found, key=lambda row: int(row[0]))


def listed(values, unit=""):
    """'1, 2 and 3' (each value as it is given), with `unit` after the last."""
    values = list(values)
    text = ", ".join(values[:-1]) + " and " + values[-1] if len(values) > 1 else values[0]
    return text + unit


def pool_memory():
    """What the pool took of the free device memory, by limit, and at which step, in a sentence;
    None without a run."""
    rows = runtime_limits_rows()
    if not rows:
        return None
    total = [r[2] + (r[3] or 0) + r[4] for r in rows]
    text = (f"from before the limit was set to after the first device-side launch, the free device "
            f"memory fell by {listed([f'{t:.0f}' for t in total], ' MiB')} at "
            f"{listed([r[0] for r in rows])} slots")
    if len(rows) > 1:
        slots, mib = int(rows[-1][0]) - int(rows[0][0]), total[-1] - total[0]
        text += (f": {mib:.0f} MiB more for {slots} more slots, about "
                 f"{1024 * mib / slots:.1f} KiB a slot")
    steps = [("setting the limit took", [r[2] for r in rows])]
    if all(r[3] is not None for r in rows):
        steps.append(("a host launch of a kernel that launches nothing", [r[3] for r in rows]))
    steps.append(("the first device-side launch", [r[4] for r in rows]))
    text += "; of that, " + ", ".join(f"{step} {listed([f'{v:.0f}' for v in values], ' MiB')}"
                                      for step, values in steps)
    eager = runtime_limits_rows(eager=True)
    if eager:
        gone = rows[0][1] - eager[0][1]
        text += (f" (with modules loaded eagerly, at {listed([r[0] for r in eager])} slots: "
                 f"setting the limit took {listed([f'{r[2]:.0f}' for r in eager], ' MiB')}, the "
                 f"launches "
                 f"{listed([f'{(r[3] or 0) + r[4]:.0f}' for r in eager], ' MiB')}, and "
                 f"{gone:.0f} MiB less was free before the limit was set than with lazy loading)")
    return text


def chain_times():
    """RESULTS.md, a launch's latency alone, from device_runtime_limits --chain-times: what
    a grid adds in short chains (the first lengths' difference) and in long ones (the last two
    lengths'), since the least-squares line through every length overfits the long chains."""
    run = run_of("chain_times.txt", "--chain-times")
    if not run:
        return missing("device_runtime_limits --chain-times", "chain_times.txt")
    chains = [(int(n), float(ms)) for n, ms in
              re.findall(r"chain of\s+(\d+) grids:\s+([0-9.]+) ms", "\n".join(run[1]))]
    if len(chains) < 4:
        return missing("device_runtime_limits --chain-times", "chain_times.txt")
    (n0, t0), (n2, t2) = chains[0], chains[2]
    (m0, u0), (m1, u1) = chains[-2], chains[-1]
    short = 1000 * (t2 - t0) / (n2 - n0)
    long = 1000 * (u1 - u0) / (m1 - m0)
    return (f"**A launch's latency on its own** (`device_runtime_limits --chain-times`, on the "
            f"{gpu()}, [`{SHOWN}chain_times.txt`]({SHOWN}chain_times.txt)): "
            f"chains of one-thread grids, each launching the next, each the median of 20 runs: "
            f"from {n0} to {n2} grids ({t0:.4f} to {t2:.4f} ms) each grid added {short:.1f} µs, "
            f"from {m0} to {m1} ({u0:.4f} to {u1:.4f} ms) {long:.1f} µs. A dependent launch's "
            f"latency, without the host's launch that 01's includes, grows with the chain's "
            f"length.\n")


def relocatable_runs():
    """relocatable_overhead.txt: {build: [ms, run by run]}, in the order of the file."""
    path = data("relocatable_overhead.txt")
    found = {}
    for command, out, status in runs(path) if path else []:
        if status == 0:
            for name, ms in results(out).items():
                found.setdefault(name.split("4096x4096, ")[-1], []).append(ms)
    return found


def relocatable_overhead():
    """The cost of relocatable code and the device runtime to a kernel of milliseconds."""
    found = relocatable_runs()
    plain, rdc = found.get("not relocatable"), found.get("relocatable")
    if not (plain and rdc):
        return missing("relocatable_overhead[_no_rdc]", "relocatable_overhead.txt")
    p, r = statistics.median(plain), statistics.median(rdc)
    text = (f"**In short:** {r / p:.2f}: 06's flat kernel, a 4096 × 4096 image of milliseconds "
            f"of arithmetic, built with `-rdc=true` and the device runtime over the same kernel "
            f"built without ({r:.4f} ms over {p:.4f} ms, the middle of {len(rdc)} runs each, "
            f"alternating, on the {gpu()}, "
            f"[`{SHOWN}relocatable_overhead.txt`]({SHOWN}relocatable_overhead.txt)); the runs "
            f"of the two builds spanned {min(plain + rdc):.4f} to {max(plain + rdc):.4f} ms")
    busy = found.get("relocatable, launches in flight")
    if busy:
        text += (f"; with the device runtime at work beside it (`--in-flight`: a chain of "
                 f"one-thread grids, each launching the next, running in a stream of its own "
                 f"during every timed run) the relocatable build took "
                 f"{statistics.median(busy):.4f} ms")
    return text + ".\n"


def relocatable_results():
    found = relocatable_runs()
    if not found:
        return missing("relocatable_overhead[_no_rdc]", "relocatable_overhead.txt")
    lines = ["| build | ms, run by run (each the median of 20 reps) |", "|---|---|"]
    lines += [f"| {name} | {', '.join(f'{ms:.4f}' for ms in times)} |"
              for name, times in found.items()]
    return "\n".join(lines) + "\n"


def pool_taken_first():
    """pool_memory.txt: whether the first device-side launch still ran with almost no free memory
    left after the first host launch."""
    path = data("pool_memory.txt")
    if not path:
        return missing("device_runtime_limits --leave-free-mib N", "pool_memory.txt")
    said = []
    for command, out, status in runs(path):
        text = "\n".join(out)
        limit = re.search(r"pending-launch limit (\d+):", text)
        left = re.search(r"allocated all but ([0-9.]+) MiB", text)
        ran = re.search(r"the first device-side launch: (.*)", text)
        if limit and left and ran:
            said.append(f"at {limit.group(1)} slots with {left.group(1)} MiB left, "
                        f"{ran.group(1)}{'' if status == 0 else f' (exit {status})'}")
    if not said:
        return missing("device_runtime_limits --leave-free-mib N", "pool_memory.txt")
    return (f"With the free device memory allocated, after that host launch and before the first "
            f"device-side launch, down to what each run left (`device_runtime_limits "
            f"--leave-free-mib`, "
            f"[`{SHOWN}pool_memory.txt`]({SHOWN}pool_memory.txt)): " + "; ".join(said) + ".\n")


def pool_memory_results():
    path = data("pool_memory.txt")
    if not path:
        return missing("device_runtime_limits --leave-free-mib N", "pool_memory.txt")
    shown = []
    for command, out, status in runs(path):
        shown += ["$ " + command] + [l for l in out if not l.startswith(("device ", "cudaLimit"))]
        shown.append(f"[exit {status}]")
    return "```\n" + "\n".join(shown) + "\n```\n"


def chain_times_results():
    path = data("chain_times.txt")
    if not path:
        return missing("device_runtime_limits --chain-times", "chain_times.txt")
    shown = []
    for command, out, status in runs(path):
        shown += ["$ " + command] + [l for l in out if l.startswith(("chain of", "the line"))]
        shown.append(f"[exit {status}]")
    return "```\n" + "\n".join(shown) + "\n```\n"


def limit_times():
    """02's runs in pending_limit.txt that passed: {limit: [ms, run by run]}."""
    path = data("pending_limit.txt")
    found = {}
    for command, lines, status in runs(path) if path else []:
        if status == 0:
            limit = command.split("--pending-limit ")[1].split()[0]
            found.setdefault(limit, []).append(results(lines)["02_nested_reduce"])
    return found


def pool_costs():
    """The pending-launch pool: what its size cost 02 in time, and what it holds in memory."""
    parts = []
    times = limit_times()
    if "4096" in times and "16384" in times:
        small, large = times["4096"], times["16384"]
        parts.append(f"02's 16384 launches took {statistics.median(small):.2f} ms with a pool "
                     f"of "
                     f"4096 slots and {statistics.median(large):.2f} ms with 16384, the one size "
                     f"enough in any order (the middle of {len(small)} runs each; RESULTS.md has "
                     f"every run and the other sizes).")
    memory = pool_memory()
    if memory:
        parts.append(f"In device memory (`device_runtime_limits`, RESULTS.md): {memory}.")
    else:
        for folder in OLDER:
            with older(folder):
                memory = pool_memory()
                where = f"[`{SHOWN}runtime_limits.txt`]({SHOWN}runtime_limits.txt)"
            if memory:
                parts.append(f"In device memory, from {OLDER[folder][0]} ({where}): "
                             f"{memory}.")
                break
        else:
            parts.append("What a pool holds in device memory is not measured yet "
                         "(`device_runtime_limits`, whose output goes to "
                         "`data/runtime_limits.txt`).")
    return " ".join(parts) + "\n"


def refused_at(limit):
    """02's failed runs at `limit` in pending_limit.txt: the launches each refused."""
    path = data("pending_limit.txt")
    found = []
    for command, lines, status in runs(path) if path else []:
        if status != 0 and command.endswith(f"--pending-limit {limit}"):
            m = re.search(r"(\d+) device-side launches failed", "\n".join(lines))
            if m:
                found.append(int(m.group(1)))
    return found


def one_pool():
    """The pool's One number (02's middle run with 16384 slots / with 4096 = the ratio), its data
    file and the ratio; None where not committed."""
    times = limit_times()
    if "4096" not in times or "16384" not in times:
        return None
    large, small = statistics.median(times["16384"]), statistics.median(times["4096"])
    ratio = f"{large / small:.2f}"
    return f"{large:.2f} ms / {small:.2f} ms = {ratio}", "pending_limit.txt", ratio


def pool_trade():
    """The README's pool section (under 02): 02's time at each pool size that passed (the middle
    run) and what 2048 did, then the One number; RESULTS.md has every run and their spread."""
    times = limit_times()
    if "4096" not in times or "16384" not in times:
        return missing("02_nested_reduce --pending-limit N", "pending_limit.txt")
    sizes = [l for l in ("4096", "8192", "16384", "32768") if l in times]
    text = (f"In [`{SHOWN}pending_limit.txt`]({SHOWN}pending_limit.txt): "
            + ", ".join(f"{l} slots {statistics.median(times[l]):.2f} ms" for l in sizes) + ".")
    refused = refused_at(2048)
    if refused:
        text += (f" At 2048, {refused[0]} launches were refused." if len(refused) == 1
                 else f" At 2048 every run failed: {', '.join(map(str, refused))} launches "
                      f"refused.")
    text += " [RESULTS.md](RESULTS.md#the-pending-launch-limit) has every run."
    one = one_pool()
    text += (f"\n\n**One number:** {one[0]}: 02 took {one[2]} times as long with the 16384 slots "
             f"that no order of its chains can exhaust as with 4096, the price of the guarantee.")
    return text + "\n"


def one_05_or_none():
    """one_05 on 05's run where it is current, else None (the section says why)."""
    try:
        found = comparison()
    except Stale:
        return None
    if not found:
        return None
    division, name, ratio = one_05(found[0])
    return f"{division}, about {ratio}", name


# The README's table of every section's One number: (the section, what its number compares, the
# function that gives it, whether the section falls back on an older run where this one lacks the
# file, as main_or_second does).
SUMMARY = (
    ("[01](#01_nested_hello_world--a-kernel-that-launches-itself)",
     "ms / device-side launches, the host's launch included", one_01, False),
    ("[02](#02_nested_reduce--the-barrier-before-the-launch)",
     "ms / device-side launches, 2048 chains side by side", one_02, False),
    ("[pool](#the-pending-launch-pool)", "02 with 16384 slots / with 4096", one_pool, False),
    ("[03](#03_nested_reduce_nosync--the-race-and-the-tail-launch)",
     "tail-launch form / barrier form", one_03, True),
    ("[04](#04_nested_reduce2--one-launch-per-level)",
     "levels launched from the device / from the host", one_04, False),
    ("[05](#05_reduction_comparison--the-documents-table-on-this-gpu)",
     "`gpu nested` / `reduceNeighbored`", one_05_or_none, True),
    ("[06](#06_mandelbrot_mariani_silver--is-dynamic-parallelism-the-right-tool-here)",
     "dynamic parallelism / host-driven, the largest image", one_06, True),
    ("[07](#07_continuation--what-replaces-waiting-for-a-child)",
     "tail form / host-driven form", one_07, True),
)


def summary_table():
    """The README's Results: each section's One number, from the functions its sentence uses, with
    its data file; an older run's where the section gives one, marked."""
    lines = ["| section | what is compared | One number | data |", "|---|---|---|---|"]
    for section, compared, make, fallback in SUMMARY:
        one, where, mark = make(), SHOWN, ""
        for folder in OLDER if fallback and not one else ():
            with older(folder):
                one = make() if data("env.txt") else None
                where, mark = SHOWN, f" ({OLDER[folder][0]})"
            if one:
                break
        cells = (f"{one[0]} | [`{where}{one[1]}`]({where}{one[1]}){mark}" if one
                 else "not measured yet | –")
        lines.append(f"| {section} | {compared} | {cells} |")
    return "\n".join(lines) + "\n"


def program_costs():
    """Each program's default run: wall, host and GPU seconds, in the block every chapter's README
    has (scripts/cost_tables.py writes the others'), from the repository's timing of every default
    run (timings/default_runs_h200.csv and the .md beside it, which names the machine); and what its
    GPU seconds leave out here."""
    if not (os.path.exists(TIMINGS + ".csv") and os.path.exists(TIMINGS + ".md")):
        return missing("scripts/time_programs.py", "../timings/default_runs_h200.csv")
    rows = [r for r in cost_tables.read_rows(TIMINGS + ".csv")
            if r["chapter"] == "dynamic_parallelism"]
    if not rows:
        return missing("scripts/time_programs.py", "../timings/default_runs_h200.csv")
    text = cost_tables.block(rows, "../timings/default_runs_h200.md",
                             cost_tables.read_machine(pathlib.Path(TIMINGS + ".md")))
    nested = next((r for r in rows if r["program"] == "02_nested_reduce"), None)
    machine = cost_tables.read_machine(pathlib.Path(TIMINGS + ".md"))[0]
    # 02's timed run from the run in data/ on the timings' kind of GPU: this run's, else an older
    # one's.
    found = None
    for folder in (None, *OLDER):
        with older(folder) if folder else contextlib.nullcontext():
            if data("env.txt") and gpu() in machine and nested_16384_middle():
                found, shown = nested_16384_middle(), SHOWN
                break
    if nested and nested["gpu_s"] and found:
        one = found[0]
        if 1000 * float(nested["gpu_s"]) < one:
            text += "\n" + wrap(
                f"Here the GPU seconds leave out the grids launched from the device: CUPTI's "
                f"records of 02's run add up to {float(nested['gpu_s']):.4f} s, less than one of "
                f"its timed runs takes ({one:.2f} ms at its default limit on the same kind of GPU, "
                f"the middle of {found[1]} runs in "
                f"[`{shown}pending_limit.txt`]({shown}pending_limit.txt)). The wall seconds are "
                f"the measure for 01 to 07.")
    return Done(text)


def provenance_older():
    """The older runs' provenance lines, and what each stands in for."""
    lines = []
    for folder, (_, what) in OLDER.items():
        with older(folder):
            env = data("env.txt")
            if not env:
                continue
            line = report.provenance(env, DATA, os.path.join(HERE, "README.md"))
            lines.append(f"**An older run, {gpu()}:** {line[0].lower()}{line[1:-1]}: {what}.")
    if not lines:
        return ""
    lacking = {}  # the older folder that stands in -> what it stands in for
    for what, name in (("06", "mandelbrot.csv"), ("07", "continuation.txt"),
                       ("the device runtime's limits", "runtime_limits.txt"),
                       ("the compute-sanitizer tools", "sanitizer.txt")):
        if data(name):
            continue
        for folder in OLDER:
            with older(folder):
                if data(name):
                    lacking.setdefault(f"[`{SHOWN}`]({SHOWN})", []).append(what)
                    break
    if lacking:
        said = "; ".join(f"{', '.join(w[:-1])}{' and ' if len(w) > 1 else ''}{w[-1]} from {where}"
                         for where, w in lacking.items())
        lines.append(f"This run lacks some measurements; their sections quote an older run, under a "
                     f"line that names it: {said}. What no run has measured yet is listed in "
                     f"[RESULTS.md](RESULTS.md#not-yet-measured).")
    return Done("\n\n".join(wrap(l).strip() for l in lines) + "\n")


# --- RESULTS.md ------------------------------------------------------------------------------

def cut_short(name):
    """What stands for a data file whose first run never finished."""
    return Missing(f"*The run ended during this one: `{SHOWN}{name}` holds no finished run.*\n")


def cell(text):
    """Text in a Markdown table's cell: its own | would end the cell."""
    return text.replace("|", "\\|")


def pending_limits():
    path = data("pending_limit.txt")
    if not path:
        return missing("02_nested_reduce --pending-limit N", "pending_limit.txt")
    rows = {}  # (asked, granted) -> outcomes, in the order first run
    for command, out, status in runs(path):
        asked = command.split("--pending-limit ")[1].split()[0]
        granted = next((m.group(1) for m in map(re.compile(r"pending-launch limit (\d+)").search,
                                                 out) if m), "?")
        if status == 0:
            outcome = f"{next(iter(results(out).values())):.2f}"
        else:
            fail = next(l for l in out if l.startswith("FAIL"))
            m = re.search(r"(\d+) device-side launches failed, (\d+) succeeded and (\d+) were "
                          r"never attempted.*one failure with (\w+)", fail)
            outcome = (f"{m.group(1)} launches refused, {m.group(2)} made, {m.group(3)} never "
                       f"attempted ({m.group(4)}); exit {status}" if m else cell(fail))
        rows.setdefault((asked, granted), []).append((status, outcome))
    for command, _, asked, granted, status in refused_runs():
        if command.startswith("build/bin/02_nested_reduce"):
            rows.setdefault((asked, granted), []).append(
                (status, f"stopped before its first launch: fewer slots granted than asked "
                         f"(`{SHOWN}pending_limit_refused.txt`); exit {status}"))
    lines = ["| `--pending-limit` | limit granted | outcome |", "|---|---|---|"]
    for (asked, granted), outcomes in rows.items():
        passed = [o for st, o in outcomes if st == 0]
        failed = [o for st, o in outcomes if st != 0]
        said = failed + ([f"every sum exact, {', '.join(passed)} ms"
                          + (" (run by run)" if len(passed) > 1 else "")] if passed else [])
        lines.append(f"| {asked} | {granted} | {'; '.join(said)} |")
    return "\n".join(lines) + "\n"


def tail_vs_printed():
    path = data("tail_vs_printed.txt")
    if not path:
        text = missing("04_nested_reduce2 --pending-limit N", "tail_vs_printed.txt")
        four = correct_middle("build/bin/04_nested_reduce2")
        try:
            found = comparison()
        except Stale:
            found = None
        if FOLDER and four and found:
            text = Missing(text.strip() + f" The nearest in its run: 04's tail launch at the "
                           f"limit 2048 took {four[0]:.4f} ms (`{SHOWN}correct_forms.txt`, the "
                           f"middle of {four[1]} runs), and "
                           f"05's `gpu nested2` row, the same kernel at the limit {found[1]}, "
                           f"{float(found[0]['gpu nested2']['ms']):.4f} ms "
                           f"(`{SHOWN}comparison.csv`); the printed launch was not timed.\n")
        return text
    times = {}
    for command, out, _ in runs(path):
        limit = command.split("--pending-limit ")[1].split()[0]
        form = "printed launch" if "--faithful" in command else "tail launch"
        times.setdefault((limit, form), []).extend(f"{ms:.4f}" for ms in results(out).values())
    lines = ["| pending-launch limit | launch | ms, run by run (each the median of its reps) |",
             "|---|---|---|"]
    lines += [f"| {limit} | {form} | {', '.join(ms)} |" for (limit, form), ms in times.items()]
    said = []
    for limit in dict.fromkeys(limit for limit, _ in times):
        tail = [float(x) for x in times.get((limit, "tail launch"), [])]
        printed = [float(x) for x in times.get((limit, "printed launch"), [])]
        if not (tail and printed):
            continue
        if max(tail) >= min(printed) and max(printed) >= min(tail):
            said.append(f"at {limit} the two ranges overlap")
            continue
        faster, slower = ("tail", "printed") if max(tail) < min(printed) else ("printed", "tail")
        ratio = statistics.median(tail if slower == "tail" else printed) / statistics.median(
            printed if slower == "tail" else tail)
        said.append(f"at {limit} every run of the {faster} launch was faster than every run of "
                    f"the {slower} launch, by {100 * (ratio - 1):.0f}% between the middle runs")
    if said:
        text = "; ".join(said)
        return Done("\n".join(lines) + "\n\n" + wrap(text[0].upper() + text[1:] + "."))
    return "\n".join(lines) + "\n"


FROM = {"device": "from the device: each level tail-launches the next",
        "stream": "from the host: one launch per level into one stream",
        "graph": "from the host: the same launches captured once as a CUDA graph"}


def launch_from():
    """04's levels launched from the device, from the host into one stream and as a CUDA graph:
    {how: ([ms, run by run], launches)} from launch_baseline.txt, or {}."""
    path = data("launch_baseline.txt")
    found = {}
    for command, out, status in runs(path) if path else []:
        how = re.search(r"--launch-from (\w+)", command)
        if status == 0 and how and how.group(1) in FROM:
            ms = next(iter(results(out).values()))
            found.setdefault(how.group(1), ([], launches_or_levels(out)))[0].append(ms)
    return {how: found[how] for how in FROM if how in found}


def launch_medians():
    """launch_from()'s forms, each the middle of its runs: ({how: ms}, the device form's number of
    runs, 0 where it has none)."""
    found = launch_from()
    ms = {how: statistics.median(times) for how, (times, _) in found.items()}
    return ms, len(found["device"][0]) if "device" in found else 0


def launches_or_levels(lines):
    """The launches a run of 04 made: its device-side launches, or its launches from the host."""
    text = "\n".join(lines)
    found = re.search(r"(\d+) (device-side launches|launches from the host)", text)
    return f"{found.group(1)} {found.group(2)}" if found else "?"


def launch_baseline():
    """The README's sentence: what the same chain of levels costs launched from the device and
    from the host."""
    ms, count = launch_medians()
    if len(ms) < 3:
        return missing("04_nested_reduce2 --launch-from device|stream|graph",
                       "launch_baseline.txt")
    return (f"**The same chain launched from the host** (`--launch-from stream` and `--launch-from "
            f"graph`, the middle of {count} runs each, alternating, in "
            f"[`{SHOWN}launch_baseline.txt`]({SHOWN}launch_baseline.txt)): {ms['device']:.4f} ms "
            f"with each level tail-launched from the device, {ms['stream']:.4f} ms with the host "
            f"launching the nine levels into one stream, {ms['graph']:.4f} ms with those launches "
            f"captured once as a CUDA graph. The device-side chain took "
            f"{ms['device'] / ms['stream']:.1f} times the host's stream: the host enqueues every "
            f"level while earlier ones run, while each device-side level is launched by the one "
            f"before it and waits for that grid to complete. Where the host knows every level in "
            f"advance, it is the better launcher.\n")


def four_at_2048():
    """Every run of 04's tail-launched form at the limit 2048 in this folder's files: the ms of
    each (correct_forms.txt, tail_vs_printed.txt, launch_baseline.txt)."""
    every = []
    for name in ("correct_forms.txt", "tail_vs_printed.txt", "launch_baseline.txt"):
        path = data(name)
        for command, lines, status in runs(path) if path else []:
            if (command.startswith("build/bin/04_nested_reduce2") and status == 0
                    and "--faithful" not in command and "--launch-from stream" not in command
                    and "--launch-from graph" not in command
                    and any("pending-launch limit 2048" in l for l in lines)):
                every.append(next(iter(results(lines).values())))
    return every


def launch_baseline_runs():
    """RESULTS.md's table of launch_baseline.txt, run by run."""
    found = launch_from()
    if not found:
        return missing("04_nested_reduce2 --launch-from device|stream|graph",
                       "launch_baseline.txt")
    lines = ["| who launches each level | launches | ms, run by run (each the median of its reps) "
             "|",
             "|---|---|---|"]
    lines += [f"| {FROM[how]} | {launches} | {', '.join(f'{t:.4f}' for t in times)} |"
              for how, (times, launches) in found.items()]
    every = four_at_2048()
    if len(every) > 1:
        lines += [""] + textwrap.wrap(
            f"The device-side time is a run of its own: 04's runs at its default in this "
            f"chapter's files took {min(every):.4f} to {max(every):.4f} ms, "
            f"{100 * (max(every) / min(every) - 1):.0f}% apart, far less than the host's gain.",
            100)
    return "\n".join(lines) + "\n"


def printed_forms():
    path = data("printed_forms.txt")
    if not path:
        return missing("03/04 --faithful", "printed_forms.txt")
    if not runs(path):
        return cut_short("printed_forms.txt")
    lines = ["| run | outcome |", "|---|---|"]
    for command, out, status in runs(path):
        fail = next((l for l in out if l.startswith("FAIL")), None)
        outcome = (f"exit {status}: {cell(fail.split(': ', 1)[1])}" if fail else
                   f"every sum exact, {next(iter(results(out).values())):.4f} ms")
        lines.append(f"| `{command.replace('build/bin/', '')}` | {outcome} |")
    return "\n".join(lines) + "\n"


def sanitizer():
    path = data("sanitizer.txt")
    if not path:
        return missing("compute-sanitizer", "sanitizer.txt")
    shown = []
    for command, out, status in runs(path):
        shown.append("$ " + command)
        shown += [l for l in out if l.startswith("=========") and l.strip("= ")
                  or l.startswith("Version")]
        shown.append(f"[exit {status}]")
    return "```\n" + "\n".join(shown) + "\n```\n"


def mandelbrot_log():
    path = data("mandelbrot_log.txt")
    if not path:
        return missing("06_mandelbrot_mariani_silver --n N --csv", "mandelbrot_log.txt")
    every = runs(path)
    if not every:  # a --sweep's log: one process, no command lines
        return "```\n" + open(path).read().strip() + "\n```\n"
    first = {}
    for command, lines, status in every:
        first.setdefault(command, (lines, status))
    shown = []
    for command, (lines, status) in first.items():
        shown += ["$ " + command] + lines + [f"[exit {status}]"]
    text = "```\n" + "\n".join(shown) + "\n```\n"
    if len(first) < len(every):
        text += "\n" + wrap(f"The first run of each command of the {len(every)} in "
                             f"[`{SHOWN}mandelbrot_log.txt`]({SHOWN}mandelbrot_log.txt); the others "
                             f"printed the same trees and counts.")
    return Done(text)


def racing_ports():
    path = data("continuation.txt")
    if not path:
        return missing("07_continuation --default-stream / --no-join", "continuation.txt")
    lines = ["| run | outcome |", "|---|---|"]
    for command, out, status in runs(path):
        if "--default-stream" not in command and "--no-join" not in command:
            continue
        fail = next((l for l in out if l.startswith("FAIL")), None)
        outcome = f"exit {status}: {cell(fail)}" if fail else f"exit {status}: every sum right"
        lines.append(f"| `{command.replace('build/bin/', '')}` | {outcome} |")
    return "\n".join(lines) + "\n"


def runtime_limits():
    path = data("runtime_limits.txt")
    if not path:
        return missing("device_runtime_limits", "runtime_limits.txt")
    shown = []
    for command, out, status in runs(path):
        shown += ["$ " + command] + [l for l in out if not l.startswith("device ")]
        shown.append(f"[exit {status}]")
    text = "```\n" + "\n".join(shown) + "\n```\n"
    said = [nesting().strip()]
    memory = pool_memory()
    if memory:
        said.append(f"In device memory, {memory}.")
    return Done(text + "\n" + wrap(" ".join(said)))


RESULTS_BLOCKS = {name: (lambda make=make: both(make)) for name, make in {
    "pending-limits": pending_limits,
    "tail-vs-printed": tail_vs_printed,
    "launch-baseline": launch_baseline_runs,
    "launch-baseline-summary": launch_baseline,
    "printed-forms": printed_forms,
    "sanitizer": sanitizer,
    "mandelbrot-log": mandelbrot_log,
    "racing-ports": racing_ports,
    "racing-summary": racing_summary,
    "runtime-limits": runtime_limits,
    "pending-refused-runs": pending_refused_runs,
    "correct-forms": correct_forms_runs,
    "default-vs-sweep": default_vs_sweep_results,
    "mandelbrot-pool-runs": mandelbrot_pool_results,
    "mandelbrot-depth-runs": mandelbrot_depth_results,
    "pool-memory-runs": pool_memory_results,
    "chain-times-runs": chain_times_results,
    "relocatable-overhead-runs": relocatable_results,
    "mandelbrot-verdict": mandelbrot_verdict,
    "continuation-forms": continuation_forms,
}.items()}
# This run's alone: what the README's 06 says in a sentence, in full.
RESULTS_BLOCKS.update({"mandelbrot-pool": mandelbrot_pool, "mandelbrot-depth": mandelbrot_depth,
                       "pool-costs": pool_costs, "pool-memory": pool_taken_first,
                       "program-costs": program_costs, "provenance-older": provenance_older,
                       "relocatable-overhead": relocatable_overhead,
                       "per-launch": per_launch, "chain-times": chain_times,
                       "mandelbrot-table": lambda: either(mandelbrot_table),
                       "nosync-vs-nested": lambda: either(nosync_vs_nested),
                       "results-table": lambda: either(results_table),
                       "rdc-noise": lambda: either(rdc_noise)})


def wrap(text):
    """A block's prose at the repository's 100 columns (a code block, a table or an image as it
    is)."""
    if isinstance(text, Done) or text.startswith(("```", "|", "!")):
        return text
    return "\n\n".join(textwrap.fill(part.strip(), width=100, break_long_words=False,
                                     break_on_hyphens=False)
                       for part in text.strip().split("\n\n")) + "\n"


NOTE = re.compile(r"\A\*From (.*?)\.\*\n", re.S)  # the line either() puts over an older run


def once_a_section(document, blocks):
    """blocks ({name: text}) with an older run's line said once a ## section of document: where
    every block of the section from one on carries the same line, the first keeps it, saying that it
    covers the rest, and the others lose it."""
    starts = [m.start() for m in re.finditer(r"^## ", document, re.M)]
    sections = {}
    for name in sorted(blocks, key=lambda name: document.index(f"<!-- {name}:begin -->")):
        where = document.index(f"<!-- {name}:begin -->")
        sections.setdefault(sum(1 for start in starts if start < where), []).append(name)
    for names in sections.values():
        found = NOTE.match(blocks[names[-1]])
        tail = []
        for name in reversed(names):
            other = NOTE.match(blocks[name])
            if not (found and other and other.group(1) == found.group(1)):
                break
            tail.insert(0, name)
        if len(tail) < 2:
            continue
        line = wrap(f"*From {' '.join(found.group(1).split())}, as is every measured passage "
                    f"below it in this section.*")
        blocks[tail[0]] = Done(line + blocks[tail[0]][found.end():])
        for name in tail[1:]:
            blocks[name] = Done(blocks[name][found.end():].lstrip("\n"))
    return blocks


def main_or_second(make):
    return lambda: either(make)


BLOCKS = {
    "prints-01": prints_01, "prints-01-two": prints_01_two, "number-01": number_01,
    "prints-02": prints_02, "number-02": number_02,
    "prints-03": prints_03, "prints-03-correct": main_or_second(prints_03_correct),
    "number-03": main_or_second(number_03),
    "prints-04": prints_04,
    "prints-04-correct": prints_04_correct, "number-04": number_04, "launch-costs": launch_costs,
    "prints-05": main_or_second(prints_05), "number-05": main_or_second(number_05),
    "comparison-figure": comparison_figure,
    "prints-06": main_or_second(prints_06), "number-06": main_or_second(number_06),
    "answer-06": main_or_second(answer_06),
    "mandelbrot-figure": main_or_second(mandelbrot_figure),
    "prints-07": main_or_second(prints_07), "number-07": main_or_second(number_07),
    "pool-trade": pool_trade, "summary-table": summary_table,
}


def replaced(text, name, block):
    """text with block between its <!-- name:begin --> and <!-- name:end --> markers (as
    report.update_readme writes them)."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if begin not in text or end not in text:
        sys.exit(f"no {begin} ... {end} markers")
    start, stop = text.index(begin) + len(begin), text.index(end)
    return text[:start] + "\n" + block + text[stop:]


def main():
    global DATA
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readme", help="rewrite the blocks between the markers of this README")
    parser.add_argument("--results", help="and of this RESULTS.md")
    parser.add_argument("--check", action="store_true",
                        help="rewrite nothing: exit 1 where a block differs from what the data "
                             "gives (the data changed and this script was not run)")
    parser.add_argument("--data", help="read the data files from this folder (default: data/ "
                                       "beside this script)")
    args = parser.parse_args()
    for flag, path in (("--readme", args.readme), ("--results", args.results)):
        if path and not (os.path.isfile(path) and (args.check or os.access(path, os.W_OK))):
            parser.error(f"{flag} {path}: not a file that can be rewritten")
    if args.data:
        if not os.path.isdir(args.data):
            parser.error(f"--data {args.data}: no such folder")
        DATA = os.path.abspath(args.data)
    if not (args.readme or args.results):
        for name, make in {**BLOCKS, **RESULTS_BLOCKS}.items():
            print(f"<!-- {name} -->\n{wrap(make())}")
        return
    stale = []
    for document, blocks in ((args.readme, BLOCKS), (args.results, RESULTS_BLOCKS)):
        if not document:
            continue
        old = open(document).read()
        new = old
        made = {name: wrap(make()) for name, make in blocks.items()}
        if blocks is BLOCKS:
            made = once_a_section(old, made)
        for name, block in made.items():
            new = replaced(new, name, block)
            if replaced(old, name, block) != old:
                stale.append(f"{document}: {name}")
        if blocks is BLOCKS and data("env.txt"):
            line = wrap(provenance(document))
            new = replaced(new, "provenance", line)
            if replaced(old, "provenance", line) != old:
                stale.append(f"{document}: provenance")
        if not args.check and new != old:
            open(document, "w").write(new)
    if args.check and stale:
        sys.exit("not what data/ gives (run dynamic_parallelism/readme_numbers.py with --readme "
                 "and --results): " + ", ".join(stale))


if __name__ == "__main__":
    main()
