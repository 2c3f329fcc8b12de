#!/usr/bin/env python3
"""Writes each chapter README's "What each program costs" block from the committed timings.

    python3 scripts/cost_tables.py            rewrite the blocks from timings/default_runs_h200.csv
    python3 scripts/cost_tables.py --check    only check that the committed READMEs agree
    ... --timings FILE    another table of scripts/time_programs.py (its .md beside it)
    ... --root DIR        another copy of the repository (the tests' scratch trees)

The block of a chapter stands between <!-- costs:begin --> and <!-- costs:end --> in its
README.md (or, where the README has none, its RESULTS.md): one row for each of its programs in the CSV (wall, host CPU and GPU seconds of one
default run), which programs take longer than a few seconds, and where and when the run was made
(the machine line of the .md that scripts/time_programs.py wrote beside the CSV). After a new run
is committed, run this and commit the READMEs; --check (a CTest test, label tools) fails until
then, naming the README and this command. Standard library only.
"""
import argparse
import csv
import math
import re
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TIMINGS = "timings/default_runs_h200.csv"
# The chapters whose README quotes its programs' lines from here; the others' are left alone.
CHAPTERS = ("ch07_convolution", "ch10_reduction", "atomics_appendix", "warp_aggregation")
BEGIN, END = "<!-- costs:begin -->", "<!-- costs:end -->"
LONG_S = 5.0  # a default run longer than this is named in the sentence above the table
MACHINE = re.compile(r"on (?P<gpu>.+?)(?:, driver (?P<driver>[^;]+))?; (?P<cores>\d+) CPU cores; "
                     r"(?P<date>\d{4}-\d{2}-\d{2}), one run each")


def read_rows(csv_path):
    with open(csv_path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def read_machine(md_path):
    """(GPU, driver or None, CPU cores, date, whether CUPTI traced the timed runs) from the
    paragraph time_programs.py writes at the top of its .md."""
    text = " ".join(md_path.read_text(encoding="utf-8").split())
    m = MACHINE.search(text)
    if not m:
        sys.exit(f"{md_path}: no line 'Measured by ... on <GPU>, driver <version>; <n> CPU "
                 f"cores; <date>, one run each' (as scripts/time_programs.py writes it)")
    traced = "include CUPTI's start-up" in text
    return m["gpu"], m["driver"], m["cores"], m["date"], traced


def seconds(value):
    """A cell: the CSV's value as written, '<0.01' for a rounded zero, '—' where none."""
    if not value:
        return "—"
    return "<0.01" if float(value) == 0 else value


def block(rows, timings_link, machine):
    gpu, driver, cores, date, traced = machine
    intro = (f"One run of each program as you would type it (`build/bin/<program>`, with the "
             f"flags the table shows), from "
             f"[`{timings_link.rsplit('/', 1)[-1]}`]({timings_link}): wall seconds from start to "
             f"exit, the CPU seconds of its process (all its threads) and the seconds the GPU "
             f"worked on its kernels, copies and memsets.")
    passed = [r for r in rows if r["status"] == "passed" and r["wall_s"]]
    long = [r for r in passed if float(r["wall_s"]) > LONG_S]
    short = [r for r in passed if float(r["wall_s"]) <= LONG_S]
    if short:
        within = math.ceil(round(max(float(r["wall_s"]) for r in short) * 10, 6)) / 10
        if long:
            named = ", ".join(f"`{r['program']}` ({float(r['wall_s']):.0f} s)" for r in long)
            intro += f" Every program but {named} finishes within {within:g} s."
        else:
            intro += f" Every program finishes within {within:g} s."
    lines = [textwrap.fill(intro, 100, break_long_words=False, break_on_hyphens=False), "",
             "| program | wall s | host CPU s | GPU s |", "| --- | ---: | ---: | ---: |"]
    for r in rows:
        name = f"`{r['program']} {r['args']}`" if r["args"] else f"`{r['program']}`"
        if r["status"] != "passed":
            name += f" ({r['status']})"
        lines.append(f"| {name} | {seconds(r['wall_s'])} | {seconds(r['host_s'])} | "
                     f"{seconds(r['gpu_s'])} |")
    where = f"{gpu}, driver {driver}" if driver else gpu
    wall = "creating the CUDA context"
    if traced:
        wall += " and starting CUPTI, which counted the GPU seconds"
    lines += ["", textwrap.fill(f"Measured on {where}, {cores} CPU cores, {date}; one run each; "
                                f"wall includes {wall}.", 100, break_on_hyphens=False)]
    return "\n".join(lines) + "\n"


def replace(text, new):
    """text with what stands between the markers replaced by new, or None without markers."""
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        return None
    start, stop = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:start] + "\n" + new + text[stop:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 where a README's block is not what it writes")
    parser.add_argument("--timings", default=TIMINGS,
                        help=f"the CSV of scripts/time_programs.py, relative to --root "
                             f"(default: {TIMINGS})")
    parser.add_argument("--root", default=str(REPO), help="the repository (default: this one)")
    args = parser.parse_args()
    root = Path(args.root)
    csv_path = root / args.timings
    if not csv_path.is_file():
        parser.error(f"{csv_path} does not exist")
    rows = read_rows(csv_path)
    machine = read_machine(csv_path.with_suffix(".md"))
    link = "../" + Path(args.timings).with_suffix(".md").as_posix()
    stale = []
    for chapter in CHAPTERS:
        readme = root / chapter / "README.md"
        results = root / chapter / "RESULTS.md"  # where a chapter keeps the block in its appendix
        if BEGIN not in readme.read_text(encoding="utf-8") and results.is_file():
            readme = results
        mine = [r for r in rows if r["chapter"] == chapter]
        if not mine:
            sys.exit(f"{csv_path}: no program of {chapter}")
        text = readme.read_text(encoding="utf-8")
        new = replace(text, block(mine, link, machine))
        if new is None:
            sys.exit(f"{readme}: needs one {BEGIN} and, after it, one {END}")
        if new == text:
            continue
        if args.check:
            stale.append(readme)
        else:
            readme.write_text(new, encoding="utf-8")
            print(f"cost_tables: rewrote {readme}'s costs block")
    if stale:
        for readme in stale:
            print(f"{readme}: its costs block is not what {args.timings} gives")
        print("fix: run `python3 scripts/cost_tables.py` and commit the READMEs")
        return 1
    if args.check:
        print(f"cost_tables: the {len(CHAPTERS)} READMEs' costs blocks agree with {args.timings}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
