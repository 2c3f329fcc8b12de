#!/usr/bin/env python3
"""The notebook's first cells as Colab runs them when it opens the notebook alone: in an empty
folder outside any checkout, with no PMPP_REPO_DIR. With REPO_URL still the placeholder and
nothing uploaded, the notebook must stop in the repository's cell and say the three ways in; with
a zip of the repository uploaded (GitHub's Download ZIP form, a top folder inside), it unpacks it
and goes on; with REPO_URL set, it clones it.

    python3 notebooks/test_getting_in.py

Runs the code cells up to the repository's (the build comes after) in a fresh process per case,
each in a folder of the system's temporary folder (never inside a checkout, which the notebook
would find and use).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
NOTEBOOK = HERE / "pmpp_colab.ipynb"
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)


def first_cells(until):
    """The code cells' sources up to the one that defines `until`."""
    cells = []
    for cell in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code":
            continue
        cells.append("".join(cell["source"]))
        if f"\n{until} = " in "\n" + cells[-1]:
            return cells
    raise SystemExit(f"{NOTEBOOK}: no code cell sets {until}")


def run_case(folder, repo_url):
    """In this process: the cells in folder, REPO_URL set where given; prints REPO at the end."""
    os.chdir(folder)
    os.environ.pop("PMPP_REPO_DIR", None)
    namespace = {"__name__": "__main__"}
    cells = first_cells("REPO")
    for number, source in enumerate(cells, 1):
        if number == 2 and repo_url:
            namespace["REPO_URL"] = repo_url
        exec(compile(source, f"<cell {number}>", "exec"), namespace)
    print(f"REPO={namespace['REPO']}")


def case(work, name, setup, repo_url=""):
    folder = Path(work) / name
    folder.mkdir(parents=True)
    setup(folder)
    env = {k: v for k, v in os.environ.items() if k != "PMPP_REPO_DIR"}
    r = subprocess.run([sys.executable, __file__, "--case", str(folder), "--repo-url", repo_url],
                       capture_output=True, encoding="utf-8", errors="replace", env=env)
    print(f"--- {name}: exit {r.returncode}\n{r.stdout}{r.stderr}", flush=True)
    return folder, r.returncode, r.stdout + r.stderr


def tiny_repository(folder):
    """The files the first cells look for, and one executable script."""
    (folder / "notebooks").mkdir(parents=True)
    (folder / "CMakePresets.json").write_text("{}\n")
    shutil.copy(NOTEBOOK, folder / "notebooks" / NOTEBOOK.name)
    (folder / "run.sh").write_text("#!/bin/sh\necho run\n")
    (folder / "run.sh").chmod(0o755)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--repo-url", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        return run_case(args.case, args.repo_url)
    work = Path(tempfile.mkdtemp(prefix="notebook_getting_in_"))

    _, code, out = case(work, "nothing", lambda folder: None)
    check(code != 0 and "no repository" in out, "nothing here: the repository's cell stops")
    check("Upload the repository as a zip" in out and "Set REPO_URL in the first cell" in out
          and "PMPP_REPO_DIR" in out, "... and says the three ways in")

    source = work / "source" / "pmpp-cuda-examples-main"
    tiny_repository(source)

    def upload(folder):
        with zipfile.ZipFile(folder / "pmpp-cuda-examples-main.zip", "w") as z:
            for path in sorted(source.rglob("*")):
                info = zipfile.ZipInfo(path.relative_to(source.parent).as_posix() +
                                       ("/" if path.is_dir() else ""))
                info.external_attr = (path.stat().st_mode & 0xFFFF) << 16
                z.writestr(info, b"" if path.is_dir() else path.read_bytes())
    folder, code, out = case(work, "zip", upload)
    unpacked = folder / "pmpp-cuda-examples"
    check(code == 0 and f"REPO={unpacked}" in out, "a zip uploaded: unpacked and used")
    check((unpacked / "notebooks" / NOTEBOOK.name).is_file()
          and os.access(unpacked / "run.sh", os.X_OK), "... without its top folder, modes kept")

    subprocess.run(["git", "init", "--quiet", str(source)], check=True)
    subprocess.run(["git", "-C", str(source), "add", "."], check=True)
    subprocess.run(["git", "-C", str(source), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "--quiet", "-m", "tiny"], check=True)
    folder, code, out = case(work, "clone", lambda folder: None, repo_url=source.as_uri())
    check(code == 0 and (folder / "pmpp-cuda-examples" / "CMakePresets.json").is_file(),
          "REPO_URL set: cloned")

    if failures:
        print(f"{len(failures)} check(s) failed:\n  " + "\n  ".join(failures) +
              f"\n(the cases' folders are kept in {work})")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
