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
The files (scripts/gpu_check.sh writes them on a GPU machine):
  hello_world.txt       01 with 1 and 2 parent blocks
  pending_limit.txt     02 at pending-launch limits from 16 to 32768
  printed_forms.txt     03 and 04 as printed, and stalled
  correct_forms.txt     03 (barrier), 03 --tail and 04, the correct forms, at their defaults
  comparison.csv, comparison_log.txt, comparison.txt
                        05 --csv, its log, and 05's printed table from a second run
  comparison_no_rdc.csv 05_reduction_comparison_no_rdc --csv
  mandelbrot_default.txt, mandelbrot.csv, mandelbrot_log.txt
                        06's default run; 06 --sweep --csv and what it printed besides
  continuation.txt      07's default run, then its two racing ports
  tail_vs_printed.txt   04's tail launch and printed launch, alternating, at two limits
  runtime_limits.txt    device_runtime_limits at three pending-launch limits
  sanitizer.txt         the compute-sanitizer tools on 02 and on stop_condition_check
"""
import argparse
import os
import re
import statistics
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scripts"))
sys.path.insert(0, HERE)
import report  # noqa: E402  (scripts/report.py)
import plot_comparison  # noqa: E402
import plot_mandelbrot  # noqa: E402

DATA = os.path.join(HERE, "data")  # --data replaces it (the tests' own files)
RESULT = re.compile(r"^(?P<name>\S.*?)\s+n=(?P<n>\d+)\s+(?P<ms>[0-9.]+) ms")
ONE_LIMIT = re.compile(r"pending-launch limit (\d+) for every row")


def missing(program, name):
    return f"*No run of `{program}` is committed yet (its output goes to `data/{name}`).*\n"


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
    path = data("hello_world.txt")
    if not path:
        return missing("01_nested_hello_world", "hello_world.txt")
    for command, lines, _ in runs(path):
        if command.endswith("--blocks 2"):
            first = [i for i, l in enumerate(lines) if l.startswith("Recursion=")]
            arrow = next(i for i, l in enumerate(lines) if l.startswith("------->"))
            shown = lines[:first[0] + 2] + ["..."] + lines[arrow - 1:arrow + 4] + ["..."] + \
                lines[first[-1] - 1:]
            return fence(command, shown)
    return missing("01_nested_hello_world --blocks 2", "hello_world.txt")


def hello_one_block():
    """01 --blocks 1: (ms, grids, device-side launches), or None."""
    run = run_of("hello_world.txt", "--blocks 1")
    if not run:
        return None
    ms = results(run[1])["01_nested_hello_world blocks 1"]
    timed = next(l for l in run[1] if l.startswith("timed:"))
    levels, launches = map(int, re.search(r"(\d+) levels, (\d+) device-side", timed).groups())
    return ms, levels, launches


def number_01():
    one = hello_one_block()
    if not one:
        return missing("01_nested_hello_world --blocks 1", "hello_world.txt")
    ms, levels, launches = one
    return (f"**One number** (the document's first run, `--blocks 1`; the run printed above is its "
            f"second, and [`data/hello_world.txt`](data/hello_world.txt) holds both): {ms:.4f} ms "
            f"for the whole recursion of one parent block, {levels} grids: the host's and "
            f"{launches} launched from the device, each by the grid before it. **Per launch** "
            f"(here and below: a run's median time divided by the device-side launches it makes): "
            f"{us(ms, launches)}, the host's launch of the first grid and the timing included.\n")


# --- 02 ----------------------------------------------------------------------------------------

def nested_16384():
    """02 at the pending-launch limit 16384: (command, lines), or None."""
    return run_of("pending_limit.txt", "--pending-limit 16384")


def prints_02():
    run = nested_16384()
    return fence(*run) if run else missing("02_nested_reduce --pending-limit 16384",
                                           "pending_limit.txt")


def launches_in(lines):
    return int(re.search(r"(\d+) device-side launches", "\n".join(lines)).group(1))


def number_02():
    run = nested_16384()
    if not run:
        return missing("02_nested_reduce --pending-limit 16384", "pending_limit.txt")
    ms = results(run[1])["02_nested_reduce"]
    return (f"**One number:** {ms:.2f} ms, the run above: 2<sup>20</sup> ints summed with "
            f"{launches_in(run[1])} device-side launches, at the pending-launch limit 16384. The "
            f"time is the launches, not the 4 MiB.\n")


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
        raise Stale("data/comparison_log.txt does not say one pending-launch limit for every row")
    limit = said.group(1)
    rows = {r["variant"]: r for r in plot_comparison.load(path)}
    for r in rows.values():
        if r.get("pending_limit") and r["pending_limit"] != limit:
            raise Stale(f"data/comparison.csv: '{r['variant']}' ran at the pending-launch limit "
                        f"{r['pending_limit']}, its log says {limit} for every row")
    no_rdc = data("comparison_no_rdc.csv")
    if no_rdc:
        rows.update({r["variant"]: r for r in plot_comparison.load(no_rdc)})
    return rows, limit


WARNED = set()


def stale_05(why):
    if why not in WARNED:
        print(f"readme_numbers.py: {why}: 05's numbers are left out until 05 is rerun",
              file=sys.stderr)
        WARNED.add(why)
    return ("*The committed run of `05_reduction_comparison` is older than its one pending-launch "
            "limit (its log does not say one limit for every row): its numbers wait for a rerun "
            "(`data/comparison.csv`).*\n")


def from_05(make):
    """make(rows, limit) on 05's run, or what stands in for it."""
    try:
        found = comparison()
    except Stale as e:
        return stale_05(str(e))
    return make(*found) if found else missing("05_reduction_comparison", "comparison.csv")


def prints_03():
    path = data("printed_forms.txt")
    if not path:
        return missing("03_nested_reduce_nosync --faithful --stall-ns 200000", "printed_forms.txt")
    for command, lines, _ in runs(path):
        if command.startswith("build/bin/03_nested_reduce_nosync") and "--stall-ns" in command:
            return fence(command, [l for l in lines if l.startswith("FAIL")])
    return missing("03_nested_reduce_nosync --faithful --stall-ns 200000", "printed_forms.txt")


def correct_forms(program):
    """The runs of data/correct_forms.txt whose command starts with build/bin/<program>, fenced."""
    path = data("correct_forms.txt")
    if not path:
        return missing(program, "correct_forms.txt")
    shown = [fence(c, l).strip("`\n") for c, l, s in runs(path)
             if c.startswith(f"build/bin/{program}") and s == 0]
    if not shown:
        return missing(program, "correct_forms.txt")
    return "```\n" + "\n\n".join(shown) + "\n```\n"


def prints_03_correct():
    return correct_forms("03_nested_reduce_nosync")


def number_03():
    def make(rows, limit):
        nosync = float(rows["gpu nestedNosync"]["ms"])
        tail = float(rows["gpu nestedNosync (tail launch)"]["ms"])
        return (f"**One number:** {tail / nosync:.1f}: the tail-launch form's time over the "
                f"barrier form's, in 05's run (both at the pending-launch limit {limit}; the "
                f"times are in [its table](#results)).\n")
    return from_05(make)


def nosync_vs_nested():
    def make(rows, limit):
        nested, nosync = float(rows["gpu nested"]["ms"]), float(rows["gpu nestedNosync"]["ms"])
        return (f"In 05's run the barrier form takes {nosync / nested:.2f} times 02's time: with "
                f"the device-side wait gone, they are the same kernel.\n")
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


def prints_04_correct():
    return correct_forms("04_nested_reduce2")


def tail_launch_2048():
    """04's tail launch at its own limit, 2048: (the middle of its runs' medians, the runs, the
    launches)."""
    path = data("tail_vs_printed.txt")
    if not path:
        return None
    found = [(results(l)["04_nested_reduce2"], launches_in(l)) for c, l, s in runs(path)
             if "--pending-limit 2048" in c and "--faithful" not in c and s == 0]
    if not found:
        return None
    return statistics.median(ms for ms, _ in found), len(found), found[0][1]


def number_04():
    found = tail_launch_2048()
    if not found:
        return missing("04_nested_reduce2 --pending-limit 2048", "tail_vs_printed.txt")
    ms, count, launches = found
    return (f"**One number:** {ms:.4f} ms for the whole reduction, {launches + 1} grids: the "
            f"host's and {launches} launched from the device, each level tail-launched by the one "
            f"before, at the pending-launch limit 2048 it needs (the middle of {count} runs in "
            f"[`data/tail_vs_printed.txt`](data/tail_vs_printed.txt)).\n")


def per_launch():
    """What a launch costs where each waits for the one before, and where they overlap."""
    rows, dependent = [], []
    one = hello_one_block()
    if one:
        ms, _, launches = one
        rows.append(("`01_nested_hello_world --blocks 1`", launches,
                     "one chain: each grid launches the next", ms))
        dependent.append(ms / launches)
    four = tail_launch_2048()
    if four:
        ms, _, launches = four
        rows.append(("`04_nested_reduce2` (limit 2048)", launches,
                     "one chain: each level tail-launches the next", ms))
        dependent.append(ms / launches)
    try:
        found = comparison()
    except Stale:
        found = None
    if found:
        tail = found[0]["gpu nestedNosync (tail launch)"]
        ms = float(tail["ms"])
        rows.append((f"`03_nested_reduce_nosync --tail` (05's run, limit {found[1]})",
                     int(tail["device_launches"]),
                     "one after another: a grid's tail launches run in launch order", ms))
        dependent.append(ms / int(tail["device_launches"]))
    run = nested_16384()
    if run:
        ms = results(run[1])["02_nested_reduce"]
        rows.append(("`02_nested_reduce` (limit 16384)", launches_in(run[1]),
                     "2048 chains of 8, side by side", ms))
    if not rows:
        return missing("01_nested_hello_world", "hello_world.txt")
    lines = ["| run | device-side launches | how they wait for one another | ms | per launch |",
             "|---|---|---|---|---|"]
    lines += [f"| {name} | {launches} | {how} | {ms:.4f} | {us(ms, launches)} |"
              for name, launches, how, ms in rows]
    text = "\n".join(lines) + "\n"
    if not found:
        text += "\n*03's tail form waits for a current run of 05 (`data/comparison.csv`).*\n"
    return text


# --- 05 ----------------------------------------------------------------------------------------

def prints_05():
    path = data("comparison.txt")
    if not path:
        return missing("05_reduction_comparison", "comparison.txt")
    command, lines, status = runs(path)[0]
    if status != 0 or not any(ONE_LIMIT.search(l) for l in lines):
        return stale_05("data/comparison.txt is not a passing run of today's 05")
    return fence(command, lines)


def number_05():
    def make(rows, limit):
        relocatable = rows["gpu Neighbored"]
        plain = rows.get("gpu Neighbored, no -rdc")
        if plain is None:
            return ("**One number:** not measured yet. "
                    + missing("05_reduction_comparison_no_rdc", "comparison_no_rdc.csv"))
        r_ms, p_ms = float(relocatable["ms"]), float(plain["ms"])
        return (f"**One number:** {r_ms / p_ms:.2f}: `reduceNeighbored`'s time built with "
                f"relocatable device code and the device runtime (pending-launch limit {limit}) "
                f"over its time built without ({r_ms:.4f} ms and {p_ms:.4f} ms): the price a "
                f"kernel that launches nothing pays for sharing its program with dynamic "
                f"parallelism.\n")
    return from_05(make)


def results_table():
    def make(rows, limit):
        no_rdc = data("comparison_no_rdc.csv")
        return plot_comparison.table(plot_comparison.merge(
            plot_comparison.load(data("comparison.csv")),
            plot_comparison.load(no_rdc) if no_rdc else []))
    return from_05(make)


def comparison_figure():
    """The plot of 05's table, where it and a current run of 05 are committed (else nothing: the
    table's block says why)."""
    try:
        current = comparison() is not None
    except Stale:
        current = False
    if not current or not os.path.exists(os.path.join(HERE, "comparison.png")):
        return ""
    return "![The document's table on this GPU, beside the K40c's times](comparison.png)\n"


# --- 06 ----------------------------------------------------------------------------------------

def prints_06():
    path = data("mandelbrot_default.txt")
    if not path:
        return missing("06_mandelbrot_mariani_silver", "mandelbrot_default.txt")
    command, lines, _ = runs(path)[0]
    return fence(command, lines)


def mandelbrot_rows():
    path = data("mandelbrot.csv")
    return plot_mandelbrot.load(path) if path else None


def number_06():
    rows = mandelbrot_rows()
    if not rows:
        return missing("06_mandelbrot_mariani_silver --sweep --csv", "mandelbrot.csv")

    def ratio(r):
        return float(r["mariani_silver_ms"]) / float(r["host_driven_ms"])

    sides = [r["n"] for r in rows]
    wins = [r["n"] for r in rows if ratio(r) < 1]
    verdict = ("it is the faster form at none of these sizes" if not wins else
               f"it is the faster form from {wins[0]} × {wins[0]} up"
               if all(ratio(r) < 1 for r in rows[sides.index(wins[0]):])
               else "it is the faster form at some sizes only (the table)")
    large = rows[-1]
    return (f"**One number:** {ratio(large):.2f}: at {large['n']} × {large['n']}, the time of "
            f"Mariani–Silver with dynamic parallelism over the same algorithm driven from the "
            f"host; {verdict}.\n")


def mandelbrot_table():
    rows = mandelbrot_rows()
    if not rows:
        return missing("06_mandelbrot_mariani_silver --sweep --csv", "mandelbrot.csv")
    figure = ("\n![Time by image size: flat, host-driven and dynamic parallelism](mandelbrot.png)\n"
              if os.path.exists(os.path.join(HERE, "mandelbrot.png")) else "")
    return plot_mandelbrot.table(rows) + figure


# --- 07 ----------------------------------------------------------------------------------------

def continuation_run():
    path = data("continuation.txt")
    if not path:
        return None
    return next(((c, l) for c, l, s in runs(path)
                 if "--default-stream" not in c and "--no-join" not in c and s == 0), None)


def prints_07():
    run = continuation_run()
    return fence(*run) if run else missing("07_continuation", "continuation.txt")


def number_07():
    run = continuation_run()
    if not run:
        return missing("07_continuation", "continuation.txt")
    times = results(run[1])
    tail, cub = times["07_continuation tail launch"], times["07_continuation cub segmented reduce"]
    return (f"**One number:** {tail / cub:.2f}: the tail-launched form's time over "
            f"`cub::DeviceSegmentedReduce::Sum` followed by the same continuation, in the run "
            f"above.\n")


# --- the costs ---------------------------------------------------------------------------------

def pool_costs():
    """The pending-launch pool: what its size cost 02 in time, and what it holds in memory."""
    parts = []
    path = data("pending_limit.txt")
    if path:
        times = {c.split("--pending-limit ")[1].split()[0]: results(l)["02_nested_reduce"]
                 for c, l, s in runs(path) if s == 0}
        if "4096" in times and "16384" in times:
            parts.append(f"02's 16384 launches took {times['4096']:.2f} ms with a pool of 4096 "
                         f"slots and {times['16384']:.2f} ms with 16384, the one size enough in "
                         f"any order (RESULTS.md has five sizes).")
    memory = runtime_limits_rows()
    if memory:
        held = "; ".join(f"{limit} slots, {mib:.0f} MiB" for limit, mib, _ in memory)
        parts.append(f"The device memory the device runtime held back, from before the limit was "
                     f"set to after the first device-side launch (`device_runtime_limits`, "
                     f"RESULTS.md): {held}.")
    else:
        parts.append("What a pool holds in device memory is not measured yet "
                     "(`device_runtime_limits`, whose output goes to "
                     "`data/runtime_limits.txt`).")
    return " ".join(parts) + "\n"


# --- RESULTS.md ------------------------------------------------------------------------------

def cell(text):
    """Text in a Markdown table's cell: its own | would end the cell."""
    return text.replace("|", "\\|")


def pending_limits():
    path = data("pending_limit.txt")
    if not path:
        return missing("02_nested_reduce --pending-limit N", "pending_limit.txt")
    lines = ["| `--pending-limit` | limit granted | outcome |", "|---|---|---|"]
    for command, out, status in runs(path):
        asked = command.split("--pending-limit ")[1].split()[0]
        granted = next((m.group(1) for m in map(re.compile(r"pending-launch limit (\d+)").search,
                                                 out) if m), "?")
        if status == 0:
            outcome = f"every sum exact, {next(iter(results(out).values())):.2f} ms"
        else:
            fail = next(l for l in out if l.startswith("FAIL"))
            m = re.search(r"(\d+) device-side launches failed, (\d+) succeeded and (\d+) were "
                          r"never attempted.*one failure with (\w+)", fail)
            outcome = (f"{m.group(1)} launches refused, {m.group(2)} made, {m.group(3)} never "
                       f"attempted ({m.group(4)}); exit {status}" if m else fail)
        lines.append(f"| {asked} | {granted} | {outcome} |")
    return "\n".join(lines) + "\n"


def tail_vs_printed():
    path = data("tail_vs_printed.txt")
    if not path:
        return missing("04_nested_reduce2 --pending-limit N", "tail_vs_printed.txt")
    times = {}
    for command, out, _ in runs(path):
        limit = command.split("--pending-limit ")[1].split()[0]
        form = "printed launch" if "--faithful" in command else "tail launch"
        times.setdefault((limit, form), []).extend(f"{ms:.4f}" for ms in results(out).values())
    lines = ["| pending-launch limit | launch | ms, run by run (each the median of its reps) |",
             "|---|---|---|"]
    lines += [f"| {limit} | {form} | {', '.join(ms)} |" for (limit, form), ms in times.items()]
    return "\n".join(lines) + "\n"


def printed_forms():
    path = data("printed_forms.txt")
    if not path:
        return missing("03/04 --faithful", "printed_forms.txt")
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
        return missing("06_mandelbrot_mariani_silver --sweep --csv", "mandelbrot_log.txt")
    return "```\n" + open(path).read().strip() + "\n```\n"


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


def runtime_limits_rows():
    """device_runtime_limits' runs: (limit, MiB held by setting it and by the first launch, the
    run's lines)."""
    path = data("runtime_limits.txt")
    if not path:
        return []
    found = []
    for _, out, status in runs(path):
        text = "\n".join(out)
        m = re.search(r"pending-launch limit (\d+): .*?\(([0-9.]+) MiB held\).*?\(([0-9.]+) MiB "
                      r"more\)", text)
        if status == 0 and m:
            found.append((m.group(1), float(m.group(2)) + float(m.group(3)), out))
    return found


def runtime_limits():
    path = data("runtime_limits.txt")
    if not path:
        return missing("device_runtime_limits", "runtime_limits.txt")
    shown = []
    for command, out, status in runs(path):
        shown += ["$ " + command] + [l for l in out if not l.startswith("device ")]
        shown.append(f"[exit {status}]")
    return "```\n" + "\n".join(shown) + "\n```\n"


RESULTS_BLOCKS = {
    "pending-limits": pending_limits, "tail-vs-printed": tail_vs_printed,
    "printed-forms": printed_forms, "sanitizer": sanitizer, "mandelbrot-log": mandelbrot_log,
    "racing-ports": racing_ports, "runtime-limits": runtime_limits,
}


def wrap(text):
    """A block's prose at the repository's 100 columns (a code block, a table or an image as it
    is)."""
    if text.startswith(("```", "|", "!")):
        return text
    return textwrap.fill(text.strip(), width=100, break_long_words=False,
                         break_on_hyphens=False) + "\n"


BLOCKS = {
    "prints-01": prints_01, "number-01": number_01,
    "prints-02": prints_02, "number-02": number_02,
    "prints-03": prints_03, "prints-03-correct": prints_03_correct, "number-03": number_03,
    "nosync-vs-nested": nosync_vs_nested,
    "prints-04": prints_04, "prints-04-correct": prints_04_correct, "number-04": number_04,
    "per-launch": per_launch,
    "prints-05": prints_05, "number-05": number_05,
    "results-table": results_table, "comparison-figure": comparison_figure,
    "prints-06": prints_06, "number-06": number_06, "mandelbrot-table": mandelbrot_table,
    "prints-07": prints_07, "number-07": number_07,
    "pool-costs": pool_costs,
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
        for name, make in blocks.items():
            block = wrap(make())
            new = replaced(new, name, block)
            if replaced(old, name, block) != old:
                stale.append(f"{document}: {name}")
        if blocks is BLOCKS and data("env.txt"):
            line = report.provenance(data("env.txt"), DATA, document) + "\n"
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
