#!/usr/bin/env python3
"""Writes every measured sentence, output excerpt and table of the chapter README and of RESULTS.md
from the files in data/, so that both quote the committed measurements and nothing else.

    python3 dynamic_parallelism/readme_numbers.py --readme dynamic_parallelism/README.md \
        --results dynamic_parallelism/RESULTS.md

Each block stands between <!-- <name>:begin --> and <!-- <name>:end --> in its document. Without
--readme and --results the blocks are printed. A block whose data file is missing says so instead
of a number.
The files (scripts/gpu_check.sh writes them on a GPU machine):
  hello_world.txt       01 with 1 and 2 parent blocks
  pending_limit.txt     02 at pending-launch limits from 16 to 32768
  printed_forms.txt     03 and 04 as printed, and stalled
  comparison.csv        05 --csv; comparison_no_rdc.csv: 05_reduction_comparison_no_rdc --csv
  mandelbrot_default.txt, mandelbrot.csv
                        06's default run; 06 --sweep --csv
  continuation.txt      07's default run, then its continuation in the default stream
  tail_vs_printed.txt   04's tail launch and printed launch, alternating, at two limits
  mandelbrot_log.txt    what 06 --sweep printed besides its CSV
  sanitizer.txt         the compute-sanitizer tools on 02 and on stop_condition_check
"""
import argparse
import os
import re
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scripts"))
sys.path.insert(0, HERE)
import report  # noqa: E402  (scripts/report.py)
import plot_comparison  # noqa: E402
import plot_mandelbrot  # noqa: E402

RESULT = re.compile(r"^(?P<name>\S.*?)\s+n=(?P<n>\d+)\s+(?P<ms>[0-9.]+) ms")


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
    path = os.path.join(HERE, "data", name)
    return path if os.path.exists(path) else None


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


def number_01():
    path = data("hello_world.txt")
    if not path:
        return missing("01_nested_hello_world", "hello_world.txt")
    for command, lines, _ in runs(path):
        if command.endswith("--blocks 1"):
            ms = results(lines)["01_nested_hello_world blocks 1"]
            timed = next(l for l in lines if l.startswith("timed:"))
            levels, launches = map(int, re.search(r"(\d+) levels, (\d+) device-side", timed).groups())
            return (f"**One number:** {ms:.4f} ms for the whole recursion of one parent block "
                    f"({levels} levels, {launches} device-side launches, each made by the grid "
                    f"the one before made): {1000 * ms / launches:.0f} µs per level, the "
                    f"latency of a launch from the device ([`data/hello_world.txt`]"
                    f"(data/hello_world.txt)).\n")
    return missing("01_nested_hello_world --blocks 1", "hello_world.txt")


# --- 02 to 05, from 05's table -------------------------------------------------------------------

def table_rows():
    path = data("comparison.csv")
    if not path:
        return None
    rows = {r["variant"]: r for r in plot_comparison.load(path)}
    no_rdc = data("comparison_no_rdc.csv")
    if no_rdc:
        rows.update({r["variant"]: r for r in plot_comparison.load(no_rdc)})
    return rows


def prints_02():
    path = data("pending_limit.txt")
    if not path:
        return missing("02_nested_reduce", "pending_limit.txt")
    for command, lines, status in runs(path):
        if command.endswith("--pending-limit 16384") and status == 0:
            return fence(command, lines)
    return missing("02_nested_reduce --pending-limit 16384", "pending_limit.txt")


def number_02():
    rows = table_rows()
    if rows is None:
        return missing("05_reduction_comparison", "comparison.csv")
    nested, cub = rows["gpu nested"], rows["cub DeviceReduce::Sum"]
    ms, launches = float(nested["ms"]), int(nested["device_launches"])
    return (f"**One number:** {ms:.2f} ms for 2<sup>20</sup> ints and {launches} device-side "
            f"launches (pending-launch limit {nested['pending_limit']}): "
            f"{1000 * ms / launches:.1f} µs per launch, and {ms / float(cub['ms']):.0f} times "
            f"the {float(cub['ms']):.4f} ms of `cub::DeviceReduce::Sum` on the same ints "
            f"([results](#results)). The time is the launches, not the 4 MiB.\n")


def prints_03():
    path = data("printed_forms.txt")
    if not path:
        return missing("03_nested_reduce_nosync --faithful --stall-ns 200000", "printed_forms.txt")
    for command, lines, _ in runs(path):
        if command.startswith("build/bin/03_nested_reduce_nosync") and "--stall-ns" in command:
            return fence(command, [l for l in lines if l.startswith("FAIL")])
    return missing("03_nested_reduce_nosync --faithful --stall-ns 200000", "printed_forms.txt")


def prints_04():
    path = data("printed_forms.txt")
    if not path:
        return missing("04_nested_reduce2 --faithful --stall-ns 200000", "printed_forms.txt")
    for command, lines, _ in runs(path):
        if command.startswith("build/bin/04_nested_reduce2") and "--stall-ns" in command:
            return fence(command, [l for l in lines if l.startswith("FAIL")])
    return missing("04_nested_reduce2 --faithful --stall-ns 200000", "printed_forms.txt")


def number_03():
    rows = table_rows()
    if rows is None:
        return missing("05_reduction_comparison", "comparison.csv")
    nested, nosync = float(rows["gpu nested"]["ms"]), float(rows["gpu nestedNosync"]["ms"])
    tail = rows["gpu nestedNosync (tail launch)"]
    tail_ms, launches = float(tail["ms"]), int(tail["device_launches"])
    return (f"**One number:** the barrier form takes {nosync:.2f} ms, {nosync / nested:.2f} times "
            f"02's {nested:.2f} ms: the document's factor of three (172 ms to 59 ms on its K40c) "
            f"was the price of the device-side synchronisation, which no longer exists. The "
            f"tail-launch form takes {tail_ms:.1f} ms, {tail_ms / nosync:.1f} times the barrier "
            f"form, {1000 * tail_ms / launches:.0f} µs per launch: a grid's tail launches run one "
            f"after another, each when the previous one's whole chain is complete.\n")


def number_04():
    rows = table_rows()
    if rows is None:
        return missing("05_reduction_comparison", "comparison.csv")
    nested2, neighbored = rows["gpu nested2"], float(rows["gpu Neighbored"]["ms"])
    ms, launches = float(nested2["ms"]), int(nested2["device_launches"])
    return (f"**One number:** {ms:.4f} ms for {launches} launches, one per level, "
            f"{1000 * ms / launches:.0f} µs a level (pending-launch limit "
            f"{nested2['pending_limit']}), and {ms / neighbored:.1f} times `reduceNeighbored`'s "
            f"{neighbored:.4f} ms, which does the same tree in one launch.\n")


def number_05():
    rows = table_rows()
    if rows is None:
        return missing("05_reduction_comparison", "comparison.csv")
    relocatable = rows["gpu Neighbored"]
    plain = rows.get("gpu Neighbored, no -rdc")
    if plain is None:
        return ("**One number:** `reduceNeighbored` takes "
                f"{float(relocatable['ms']):.4f} ms in this build. "
                + missing("05_reduction_comparison_no_rdc", "comparison_no_rdc.csv"))
    r_ms, p_ms = float(relocatable["ms"]), float(plain["ms"])
    return (f"**One number:** `reduceNeighbored` takes {r_ms:.4f} ms built with relocatable "
            f"device code and the device runtime (pending-launch limit "
            f"{relocatable['pending_limit']}), {p_ms:.4f} ms built without: a ratio of "
            f"{r_ms / p_ms:.2f}, the price a kernel that launches nothing pays for sharing its "
            f"program with dynamic parallelism.\n")


def results_table():
    path = data("comparison.csv")
    if not path:
        return missing("05_reduction_comparison", "comparison.csv")
    no_rdc = data("comparison_no_rdc.csv")
    rows = plot_comparison.merge(plot_comparison.load(path),
                                 plot_comparison.load(no_rdc) if no_rdc else [])
    return plot_comparison.table(rows)


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
    small, large = rows[0], rows[-1]

    def ratio(r):
        return float(r["mariani_silver_ms"]) / float(r["flat_ms"])

    wins = [r["n"] for r in rows if ratio(r) < 1]
    verdict = (f"it is faster from {wins[0]} × {wins[0]} up" if wins and
               all(ratio(r) < 1 for r in rows[[r["n"] for r in rows].index(wins[0]):])
               else "see the table for the sizes where it is faster" if wins
               else "it is faster at none of these sizes")
    steps = int(large["mariani_silver_steps"]) / max(1, int(large["flat_steps"]))
    return (f"**One number:** at {large['n']} × {large['n']} Mariani–Silver takes "
            f"{ratio(large):.2f} times the flat kernel's time ({float(large['mariani_silver_ms']):.3f} "
            f"ms against {float(large['flat_ms']):.3f} ms), having spent {100 * steps:.0f}% of its "
            f"dwell steps; at {small['n']} × {small['n']} it takes {ratio(small):.2f} times "
            f"({float(small['mariani_silver_ms']):.4f} ms against {float(small['flat_ms']):.4f} "
            f"ms): {verdict}.\n")


def mandelbrot_table():
    rows = mandelbrot_rows()
    if not rows:
        return missing("06_mandelbrot_mariani_silver --sweep --csv", "mandelbrot.csv")
    figure = ("\n![Time by image size, flat and Mariani–Silver](mandelbrot.png)\n"
              if os.path.exists(os.path.join(HERE, "mandelbrot.png")) else "")
    return plot_mandelbrot.table(rows) + figure


# --- 07 ----------------------------------------------------------------------------------------

def continuation_run():
    path = data("continuation.txt")
    if not path:
        return None
    return next(((c, l) for c, l, s in runs(path) if "--default-stream" not in c and s == 0), None)


def prints_07():
    run = continuation_run()
    return fence(*run) if run else missing("07_continuation", "continuation.txt")


def number_07():
    run = continuation_run()
    if not run:
        return missing("07_continuation", "continuation.txt")
    times = results(run[1])
    tail, host = times["07_continuation tail launch"], times["07_continuation host-driven"]
    launches = re.search(r"(\d+) device-side launches", "\n".join(run[1])).group(1)
    return (f"**One number:** the tail-launched pipeline takes {tail:.4f} ms ({launches} "
            f"device-side launches), the host-driven form {host:.4f} ms: a ratio of "
            f"{tail / host:.2f} ([`data/continuation.txt`](data/continuation.txt)).\n")


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


def default_stream_runs():
    path = data("continuation.txt")
    if not path:
        return missing("07_continuation --default-stream", "continuation.txt")
    lines = ["| run | outcome |", "|---|---|"]
    for command, out, status in runs(path):
        if "--default-stream" not in command:
            continue
        fail = next((l for l in out if l.startswith("FAIL")), None)
        outcome = f"exit {status}: {cell(fail)}" if fail else f"exit {status}: every sum right"
        lines.append(f"| `{command.replace('build/bin/', '')}` | {outcome} |")
    return "\n".join(lines) + "\n"


RESULTS_BLOCKS = {
    "pending-limits": pending_limits, "tail-vs-printed": tail_vs_printed,
    "printed-forms": printed_forms, "sanitizer": sanitizer, "mandelbrot-log": mandelbrot_log,
    "default-stream-runs": default_stream_runs,
}


def wrap(text):
    """A block's prose at the repository's 100 columns (a code block or a table as it is)."""
    if text.startswith(("```", "|")):
        return text
    return textwrap.fill(text.strip(), width=100, break_long_words=False,
                         break_on_hyphens=False) + "\n"


BLOCKS = {
    "prints-01": prints_01, "number-01": number_01,
    "prints-02": prints_02, "number-02": number_02,
    "prints-03": prints_03, "number-03": number_03,
    "prints-04": prints_04, "number-04": number_04, "number-05": number_05,
    "results-table": results_table,
    "prints-06": prints_06, "number-06": number_06, "mandelbrot-table": mandelbrot_table,
    "prints-07": prints_07, "number-07": number_07,
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readme", help="rewrite the blocks between the markers of this README")
    parser.add_argument("--results", help="and of this RESULTS.md")
    parser.add_argument("--check", action="store_true",
                        help="rewrite nothing: exit 1 where a block differs from what the data "
                             "gives (the data changed and this script was not run)")
    args = parser.parse_args()
    for flag, path in (("--readme", args.readme), ("--results", args.results)):
        if path and not (os.path.isfile(path) and (args.check or os.access(path, os.W_OK))):
            parser.error(f"{flag} {path}: not a file that can be rewritten")
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
            new = replaced(new, name, wrap(make()))
            if replaced(old, name, wrap(make())) != old:
                stale.append(f"{document}: {name}")
        if blocks is BLOCKS and data("comparison.csv"):
            line = report.provenance(data("env.txt"), data("comparison.csv"), document) + "\n"
            new = replaced(new, "provenance", line)
            if replaced(old, "provenance", line) != old:
                stale.append(f"{document}: provenance")
        if not args.check and new != old:
            open(document, "w").write(new)
    if args.check and stale:
        sys.exit("not what data/ gives (run dynamic_parallelism/readme_numbers.py with --readme and "
                 "--results): " + ", ".join(stale))


if __name__ == "__main__":
    main()
