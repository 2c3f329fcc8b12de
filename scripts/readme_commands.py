#!/usr/bin/env python3
"""Runs the README's commands in the order written, in a fresh clone, and times each one.

    python3 scripts/readme_commands.py                    clone, run, print each command's time
    python3 scripts/readme_commands.py --all              also the blocks skipped by default
    python3 scripts/readme_commands.py --list             only say what would run (no clone)
    ... --work DIR    where the clone goes (default: a temporary folder, kept on failure)
    ... --durations FILE    also write "seconds<TAB>exit<TAB>command" lines there
    ... --sections "Start here,Tests"    only these sections' commands (the rest are listed)
    ... --commands 4-6 --work DIR --reuse    only these commands (numbered as --list numbers
            them), in the clone an earlier run left in DIR: a long list split over several calls

A student's first hour is the README's commands typed one after another on a fresh clone: this
is that, with every ```sh block of README.md, section by section (each block in the folder its
section says: the clone's top unless PLAN names another). A command passes with exit 0, or 77
where it runs one GPU program and there is no GPU (the program says SKIP). PLAN says, for each
section that shows commands, whether they run here and, where not, why not: a block in a
section PLAN does not know stops the run (and the test that runs --list), so that a new command
in the README is never silently left out.

The clone is of this checkout's last commit (git clone), or where this is no git checkout a copy
of the tree without its build folders. Standard library only; runs with or without a GPU.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RUN = "run"
# section heading (##, or a ### one where it differs from its section) -> RUN, or why its
# commands do not run here ("--all:" ones run with --all).
PLAN = {
    "(top)": RUN,
    "Start here": RUN,
    "Toolkits the build was checked with": "installs a second CUDA toolkit from PyPI",
    "Choosing the GPU architecture": "--all: builds everything a second time, for another GPU",
    "Running one program": RUN,
    "Tests": RUN,
    "Homework: for instructors": "exports and grades: homework/gpu_check_homework.sh runs these",
    "Homework: for students": "runs inside an exported homework tree: homework/"
                              "gpu_check_homework.sh runs these",
}


def blocks(readme):
    """[((section, subsection), [command, ...])] for every ```sh block, in order: the ## heading
    above it and the ### (or deeper) one, if any, under that; a command is one line, or lines
    joined where one ends in a backslash; comment-only lines left out."""
    found, section, inside, lines = [], ("(top)", None), False, []
    for line in readme.splitlines():
        heading = re.match(r"^(#{2,4}) +(.+?) *$", line)
        if heading and not inside:
            section = (heading[2], None) if heading[1] == "##" else (section[0], heading[2])
        elif line.strip().startswith("```"):
            if inside:
                commands, pending = [], ""
                for raw in lines:
                    pending += raw
                    if pending.endswith("\\"):
                        pending = pending[:-1] + " "
                        continue
                    if pending.strip() and not pending.strip().startswith("#"):
                        commands.append(pending.strip())
                    pending = ""
                found.append((section, commands))
                inside, lines = False, []
            elif line.strip() in ("```sh", "```bash", "```shell"):
                inside = True
        elif inside:
            lines.append(line)
    return found


def plan_of(readme, run_all, only=()):
    """[(section, command, None to run or the reason it does not)]; unknown sections raise."""
    steps = []
    for (h2, h3), commands in blocks(readme):
        section = h3 if h3 in PLAN else h2  # a subsection of its own, else its section's
        if section not in PLAN:
            raise SystemExit(f"readme_commands: README.md shows commands under '{h2}', which "
                             f"PLAN in {Path(__file__).name} does not know: say whether they "
                             f"run here")
        why = PLAN[section]
        if why == RUN or (run_all and why.startswith("--all:")):
            why = None
        if only and section not in only:
            why = "not among --sections"
        steps += [(section, c, why) for c in commands]
    return steps


def make_clone(work):
    clone = work / "clone"
    if subprocess.run(["git", "-C", str(REPO), "rev-parse", "--git-dir"],
                      capture_output=True).returncode == 0:
        if subprocess.run(["git", "-C", str(REPO), "status", "--porcelain"], capture_output=True,
                          encoding="utf-8").stdout.strip():
            print("readme_commands: uncommitted changes are not in the clone (it has the last "
                  "commit only)", flush=True)
        subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    else:
        shutil.copytree(REPO, clone, ignore=shutil.ignore_patterns("build", "build-*", ".git",
                                                              "gpu-check-out"))
    return clone


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="also the blocks marked --all")
    parser.add_argument("--list", action="store_true", help="only list the plan")
    parser.add_argument("--work", help="folder for the clone (default: a temporary one)")
    parser.add_argument("--durations", help="file for each command's seconds and exit status")
    parser.add_argument("--sections", default="", help="comma-separated section headings")
    parser.add_argument("--commands", help="a range of command numbers, as --list numbers them")
    parser.add_argument("--reuse", action="store_true", help="run in the clone in --work")
    args = parser.parse_args()
    if args.reuse and not args.work:
        parser.error("--reuse needs --work, the folder of an earlier run")
    only = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = [s for s in only if s not in PLAN]
    if unknown:
        parser.error(f"no section {unknown} in PLAN: {', '.join(PLAN)}")
    steps = plan_of((REPO / "README.md").read_text(encoding="utf-8"), args.all, only)
    if args.commands:
        first, _, last = args.commands.partition("-")
        first, last = int(first), int(last or first)
        steps = [(sec, cmd, why if why or first <= i <= last else "not among --commands")
                 for i, (sec, cmd, why) in enumerate(steps, 1)]
    if args.list:
        for number, (section, command, why) in enumerate(steps, 1):
            print(f"{number:2} {'run ' if why is None else 'skip'}  [{section}]  {command}"
                  f"{'' if why is None else '  -- ' + why}")
        print(f"readme_commands: {sum(w is None for _, _, w in steps)} of {len(steps)} commands "
              f"would run")
        return 0
    work = Path(args.work or tempfile.mkdtemp(prefix="readme_commands_"))
    if args.reuse:
        clone = work / "clone"
        if not clone.is_dir():
            raise SystemExit(f"readme_commands: no clone in {work} to reuse")
        print(f"readme_commands: in the clone at {clone}, as an earlier run left it", flush=True)
    else:
        if work.exists() and any(work.iterdir()):
            raise SystemExit(f"readme_commands: {work} is not empty")
        work.mkdir(parents=True, exist_ok=True)
        clone = make_clone(work)
        print(f"readme_commands: in a fresh clone at {clone}", flush=True)
    results, failed = [], False
    for section, command, why in steps:
        if why is not None:
            print(f"\n## [{section}] not run: {command}\n##   ({why})", flush=True)
            continue
        if failed:
            print(f"\n## [{section}] not run after the failure above: {command}", flush=True)
            continue
        print(f"\n## [{section}] $ {command}", flush=True)
        start = time.monotonic()
        code = subprocess.run(["bash", "-c", command], cwd=clone).returncode
        seconds = time.monotonic() - start
        verdict = "ok" if code == 0 else "skipped (no GPU)" if code == 77 else "FAILED"
        print(f"## exit {code}: {verdict}, {seconds:.1f} s", flush=True)
        results.append((seconds, code, command))
        failed = code not in (0, 77)
    print("\n== each command's time, in the order written", flush=True)
    for seconds, code, command in results:
        print(f"{seconds:9.1f} s  exit {code:<3} {command}", flush=True)
    if args.durations:
        Path(args.durations).write_text("".join(f"{s:.1f}\t{c}\t{cmd}\n" for s, c, cmd in
                                                results), encoding="utf-8")
    if failed:
        print(f"readme_commands: FAILED (the clone is kept in {work})", flush=True)
        return 1
    print("readme_commands: every command ran in order and passed", flush=True)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
