#!/usr/bin/env python3
"""Runs a notebook's code cells top to bottom without Jupyter, as "Run all" would, or checks that
it is committed clean.

    python3 notebooks/run_notebook.py notebooks/pmpp_colab.ipynb       execute it (CI, gpu_check)
    python3 notebooks/run_notebook.py --check notebooks/pmpp_colab.ipynb    only check it
    ... --expect HOMEWORK_VERDICT=skipped     and then a variable the cells set must have this value

Why not Jupyter's own nbclient: CI and the GPU machine have no Jupyter, and installing it (a kernel,
ZeroMQ, some thirty packages) on every run would make the check depend on the network and on
versions that move. The notebook's cells are plain Python on purpose (no `!` or `%` lines: a
helper in the first cell runs commands; images go through IPython.display where it exists), so
running each cell's source in one shared namespace, in order, is what a kernel does with them;
what this does not check is Colab itself (its image, its GPU), which only a run there can.

Either way the notebook must be clean: no outputs and no execution counts (a notebook run in
Colab and saved carries its outputs into the commit: clear them with Edit -> Clear all outputs),
and no cell that a plain Python interpreter would not run. A cell that raises stops the run with
the cell's number and its traceback; the exit code is then 1.
"""
import argparse
import json
import sys
import time
import traceback


def load(path):
    with open(path, encoding="utf-8") as f:  # not the locale's encoding: the cells hold → and ×
        return json.load(f)


def problems(nb):
    """What keeps the notebook from being committed: outputs, magics, code that does not parse."""
    found = []
    if nb.get("nbformat") != 4:
        found.append(f"nbformat {nb.get('nbformat')}, expected 4")
    for number, cell in enumerate(nb.get("cells", []), 1):
        if cell.get("cell_type") != "code":
            continue
        if cell.get("outputs"):
            found.append(f"cell {number} has outputs (clear them before committing)")
        if cell.get("execution_count") is not None:
            found.append(f"cell {number} has an execution count (clear the outputs)")
        source = "".join(cell.get("source", []))
        for line in source.splitlines():
            if line.lstrip().startswith(("!", "%")):
                found.append(f"cell {number}: `{line.strip()}` is IPython syntax; "
                             f"use the run() helper")
        try:
            compile(source, f"<cell {number}>", "exec")
        except SyntaxError as e:
            found.append(f"cell {number}: {e}")
    return found


def execute(nb, expect):
    namespace = {"__name__": "__main__"}
    code_cells = [c for c in nb["cells"] if c.get("cell_type") == "code"]
    for number, cell in enumerate(nb["cells"], 1):
        if cell.get("cell_type") != "code":
            continue
        source = "".join(cell.get("source", []))
        first = source.strip().splitlines()[0] if source.strip() else ""
        print(f"\n=== notebook cell {number}: {first}", flush=True)
        start = time.monotonic()
        try:
            exec(compile(source, f"<cell {number}>", "exec"), namespace)
        except BaseException:  # SystemExit too: a cell that stops the notebook fails the run
            traceback.print_exc()
            print(f"notebook: FAILED in cell {number}", flush=True)
            return 1
        sys.stdout.flush()
        print(f"=== cell {number} done in {time.monotonic() - start:.0f} s", flush=True)
    print(f"\nnotebook: all {len(code_cells)} code cells ran", flush=True)
    for name, value in expect:
        got = namespace.get(name, "(not set)")
        if str(got) != value:
            print(f"notebook: FAILED: {name} is '{got}', expected '{value}'", flush=True)
            return 1
        print(f"notebook: {name} is '{value}', as expected", flush=True)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook")
    parser.add_argument("--check", action="store_true", help="only check that it is clean")
    parser.add_argument("--expect", action="append", default=[], metavar="NAME=VALUE",
                        help="after the run, the cells' variable NAME must equal VALUE")
    args = parser.parse_args()
    nb = load(args.notebook)
    found = problems(nb)
    for p in found:
        print(f"{args.notebook}: {p}", file=sys.stderr)
    if found:
        return 1
    if args.check:
        print(f"{args.notebook}: clean (no outputs, plain Python cells)")
        return 0
    return execute(nb, [e.split("=", 1) for e in args.expect])


if __name__ == "__main__":
    sys.exit(main())
