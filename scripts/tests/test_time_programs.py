#!/usr/bin/env python3
"""scripts/time_programs.py on stand-in programs: wall and host seconds of a program that
sleeps and one that computes, GPU seconds from what the injection library would write, a skipped
program (exit 77), a failed one and one stopped at its time limit, in times.csv and times.md."""
import argparse
import csv
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import stubs
from stubs import check

SCRIPT = stubs.REPO / "scripts" / "time_programs.py"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", help="scratch folder (default: a temporary one)")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="time_programs_test_"))
    shutil.rmtree(work, ignore_errors=True)
    b = work / "bin"
    progs = {
        "sleeper": stubs.script(b / "sleeper", "sleep 0.5\n"),
        # Busy in the shell itself: host seconds close to its wall seconds.
        "worker": stubs.script(b / "worker", "i=0\nwhile [ $i -lt 300000 ]; do i=$((i+1)); "
                               "done\n"),
        # What the CUPTI library writes at exit, written here where it would be loaded.
        "gpu": stubs.script(b / "gpu", '[ -n "$CUDA_INJECTION64_PATH" ] && echo "gpu_busy_seconds '
                            '0.125 gpu_sum_seconds 0.2 kernels 42 memcpys 2 memsets 1 dropped 0" '
                            '>"$PMPP_GPU_TIME_FILE"\nexit 0\n'),
        "skipper": stubs.script(b / "skipper", "echo 'SKIP: no CUDA device' >&2\nexit 77\n"),
        "failer": stubs.script(b / "failer", "echo 'FAIL x: first mismatch at index 2' >&2\n"
                               "echo bye >&2\nexit 1\n"),
        "hanger": stubs.script(b / "hanger", "sleep 30\n"),
    }
    manifest = work / "manifest.txt"
    manifest.write_text("".join(f"ch|{name}|gpu|{exe}|{'--n 3' if name == 'gpu' else ''}\n"
                                for name, exe in progs.items()))
    fake_lib = work / "libfake_gpu_time.so"  # only its existence is asked; the stand-in writes
    fake_lib.write_text("")
    out = work / "out"
    r = subprocess.run([sys.executable, SCRIPT, "--manifest", manifest, "--out", out,
                        "--timeout", "3", "--gpu-time-lib", fake_lib],
                       capture_output=True, encoding="utf-8")
    print(f"exit {r.returncode}\n{r.stdout}{r.stderr}")
    check(r.returncode == 1, "a failure and a time-out: exit 1")
    rows = {row["program"]: row for row in csv.DictReader(open(out / "times.csv"))}
    check(list(rows) == list(progs), "times.csv: a row a program, in the manifest's order")
    s = rows["sleeper"]
    check(s["status"] == "passed" and float(s["wall_s"]) >= 0.5 and float(s["host_s"]) < 0.3,
          "sleeper: wall >= 0.5 s, little host time")
    w = rows["worker"]
    check(w["status"] == "passed" and float(w["host_s"]) >= 0.1
          and float(w["host_s"]) <= float(w["wall_s"]) + 0.05, "worker: host time counted")
    g = rows["gpu"]
    check(g["gpu_s"] == "0.1250" and g["kernels"] == "42" and g["args"] == "--n 3",
          "gpu: GPU seconds and kernels from the library's file, the manifest's arguments")
    check(rows["skipper"]["status"] == "skipped" and rows["skipper"]["note"] ==
          "SKIP: no CUDA device", "exit 77: skipped, with its SKIP line")
    check(rows["failer"]["status"] == "failed" and rows["failer"]["note"] ==
          "exit 1: FAIL x: first mismatch at index 2", "exit 1: failed, with its FAIL line")
    h = rows["hanger"]
    check(h["status"] == "timeout" and float(h["wall_s"]) < 10, "hanger: stopped at its limit")
    md = (out / "times.md").read_text()
    check("| ch/gpu | gpu | --n 3 | passed |" in md and "| 0.1250 |" in md,
          "times.md: the same rows as a table")
    # --gpu-time separate: the times from a run without the library, the GPU seconds from one with.
    r = subprocess.run([sys.executable, SCRIPT, "--manifest", manifest, "--out", out,
                        "--timeout", "3", "--gpu-time-lib", fake_lib, "--gpu-time", "separate",
                        "--chapters", "ch"], capture_output=True, encoding="utf-8")
    rows = {row["program"]: row for row in csv.DictReader(open(out / "times.csv"))}
    check(rows["gpu"]["gpu_s"] == "0.1250", "--gpu-time separate: GPU seconds from the second run")
    return stubs.finish()


if __name__ == "__main__":
    raise SystemExit(main())
