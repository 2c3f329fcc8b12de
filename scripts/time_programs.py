#!/usr/bin/env python3
"""Times every program's default run, one after another, and writes the table.

    python3 scripts/time_programs.py [--build build] [--out build/times] [--chapters ch10,...]

The programs and their default arguments come from the list the build writes
(<build>/examples_manifest.txt, the one `cmake --workflow --preset examples` runs). For each
program, from one run (--gpu-time separate: the GPU seconds from a second run, so that CUPTI's
start-up and tracing stay out of the other two):

  wall seconds       from start to exit, the CUDA context's creation included
  host seconds       CPU time of the program's process, user and system, all its threads
                     (os.wait4's resource usage): the reference, the checks, the driver
  GPU seconds        the time the GPU worked on the program's kernels, memcpys and memsets,
                     overlapping work counted once, measured by CUPTI's activity API through
                     the injection library scripts/gpu_time/ (built where the toolkit has CUPTI;
                     <build>/gpu_time_library.txt names it); empty where it could not measure

Writes <out>/times.csv (one row a program) and <out>/times.md (the same as a Markdown table, with
the machine it ran on). A program that exits 77 (no CUDA device) is listed as skipped, one that
fails or passes its time limit as such: the table is written either way, and the exit status is
1 when any program failed. Standard library only; runs without a GPU (everything on the GPU is
then skipped).
"""
import argparse
import csv
import datetime
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

COLUMNS = ["chapter", "program", "kind", "args", "status", "wall_s", "host_s", "gpu_s",
           "kernels", "note"]


def read_manifest(path, chapters):
    """[(chapter, name, kind, executable, [args])] in the build's order."""
    rows = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        chapter, name, kind, exe, args = (line.split("|") + [""] * 5)[:5]
        if chapters and chapter not in chapters:
            continue
        rows.append((chapter, name, kind, exe, shlex.split(args)))
    return rows


def last_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else ""


def read_gpu_time(path):
    """{key: value} from the injection library's line, or {} where it wrote none."""
    try:
        words = Path(path).read_text(encoding="utf-8").split()
    except OSError:
        return {}
    return {k: float(v) for k, v in zip(words[0::2], words[1::2])}


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:  # it ended just now
        pass


def time_one(exe, args, timeout, gpu_lib, scratch):
    """Runs one program: {status, wall_s, host_s, gpu_s, kernels, note}."""
    env = dict(os.environ)
    gpu_file = Path(scratch) / "gpu_time.txt"
    gpu_file.unlink(missing_ok=True)
    if gpu_lib:
        env["CUDA_INJECTION64_PATH"] = str(gpu_lib)
        env["PMPP_GPU_TIME_FILE"] = str(gpu_file)
    err_path = Path(scratch) / "stderr.txt"
    start = time.monotonic()
    with open(err_path, "wb") as err:
        try:
            p = subprocess.Popen([exe, *args], stdout=subprocess.DEVNULL, stderr=err, env=env,
                                 start_new_session=True)
        except OSError as e:
            return {"status": "failed", "note": f"cannot run: {e}"}
        # A timer kills the program's whole process group at the limit; os.wait4 gives the
        # exit status and the resource usage of this one child (all its threads).
        timer = threading.Timer(timeout, kill_group, (p.pid,))
        timer.start()
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.monotonic() - start
        timed_out = not timer.is_alive()
        timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)
    row = {"wall_s": f"{wall:.2f}", "host_s": f"{usage.ru_utime + usage.ru_stime:.2f}"}
    gpu = read_gpu_time(gpu_file)
    if gpu:
        row["gpu_s"] = f"{gpu.get('gpu_busy_seconds', 0):.4f}"
        row["kernels"] = str(int(gpu.get("kernels", 0)))
        if gpu.get("dropped"):
            row["note"] = f"CUPTI dropped {int(gpu['dropped'])} records: GPU time too low"
    stderr = err_path.read_text(encoding="utf-8", errors="replace")
    if timed_out:
        row.update(status="timeout", note=f"stopped after {timeout:.0f} s")
    elif p.returncode == 0:
        row["status"] = "passed"
    elif p.returncode == 77:
        row.update(status="skipped", note=last_line(stderr))
    else:
        fail = next((l for l in stderr.splitlines() if l.startswith("FAIL")), last_line(stderr))
        row.update(status="failed", note=f"exit {p.returncode}: {fail}")
    row.setdefault("note", "")
    return row


def describe_machine():
    """One line: the GPU, its driver, the date."""
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    smi = shutil.which("nvidia-smi")
    gpu = "no GPU"
    if smi:
        r = subprocess.run([smi, "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, encoding="utf-8", errors="replace")
        if r.returncode == 0 and r.stdout.strip():
            name, _, driver = r.stdout.strip().splitlines()[0].partition(",")
            gpu = f"{name.strip()}, driver {driver.strip()}"
    return f"{gpu}; {os.cpu_count()} CPU cores; {date}"


def write_tables(rows, out, machine, gpu_note):
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "times.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in COLUMNS})
    about = (f"Measured by `scripts/time_programs.py` on {machine}, one run each. Wall: start "
             "to exit, the CUDA context included. Host: CPU seconds of the process (all its "
             "threads). GPU: its kernels, copies and memsets, overlapping work counted once "
             "(CUPTI activity records).")
    lines = ["# Each program's default run", "", textwrap.fill(about, 100), ""]
    if gpu_note:
        lines += [textwrap.fill(gpu_note, 100), ""]
    lines += ["| program | kind | args | status | wall s | host s | GPU s | note |",
              "| --- | --- | --- | --- | ---: | ---: | ---: | --- |"]
    for r in rows:
        lines.append("| {}/{} | {} | {} | {} | {} | {} | {} | {} |".format(
            r["chapter"], r["program"], r["kind"], r["args"] or "(default)", r["status"],
            r.get("wall_s", ""),
            r.get("host_s", ""), r.get("gpu_s", ""), r.get("note", "").replace("|", "\\|")))
    (out / "times.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build", help="the build folder (default: build)")
    parser.add_argument("--manifest",
                        help="the program list (default: <build>/examples_manifest.txt)")
    parser.add_argument("--out", help="folder for times.csv and times.md (default: <build>/times)")
    parser.add_argument("--chapters", default="", help="comma-separated chapter folders")
    parser.add_argument("--timeout", type=float, default=600, help="seconds a program may take")
    parser.add_argument("--gpu-time-lib", help="the CUPTI injection library (default: the one "
                                               "<build>/gpu_time_library.txt names)")
    parser.add_argument("--gpu-time", choices=("same", "separate", "off"), default="same",
                        help="GPU seconds from the timed run itself (same; its wall and host "
                             "seconds then include CUPTI's start-up and tracing), from a second "
                             "run of each GPU program (separate), or not at all (off)")
    args = parser.parse_args()
    build = Path(args.build)
    args.out = args.out or str(build / "times")
    manifest = Path(args.manifest or build / "examples_manifest.txt")
    if not manifest.is_file():
        parser.error(f"{manifest} does not exist: configure and build first "
                     f"(cmake --preset default && cmake --build build)")
    gpu_lib = args.gpu_time_lib
    named = build / "gpu_time_library.txt"
    if gpu_lib is None and named.is_file():
        gpu_lib = named.read_text(encoding="utf-8").strip()
    gpu_note = ""
    if args.gpu_time == "off":
        gpu_lib = None
    elif not gpu_lib or not Path(gpu_lib).is_file():
        gpu_note = ("No GPU seconds: the CUPTI library was not built (the toolkit has no CUPTI) "
                    "or not found.")
        gpu_lib = None
    programs = read_manifest(manifest, [c for c in args.chapters.split(",") if c])
    if not programs:
        parser.error(f"no program in {manifest} for chapters '{args.chapters}'")
    rows = []
    width = max(len(p[1]) for p in programs)
    print(f"{'program':<{width}}  status    wall s  host s   GPU s  note", flush=True)
    with tempfile.TemporaryDirectory(prefix="time_programs_") as scratch:
        for chapter, name, kind, exe, prog_args in programs:
            print(f"{name:<{width}}  ", end="", flush=True)
            if gpu_lib and kind == "gpu" and args.gpu_time == "separate":
                r = time_one(exe, prog_args, args.timeout, None, scratch)
                traced = time_one(exe, prog_args, args.timeout, gpu_lib, scratch)
                r.update({k: traced[k] for k in ("gpu_s", "kernels") if k in traced})
            else:
                r = time_one(exe, prog_args, args.timeout, gpu_lib if kind == "gpu" else None,
                             scratch)
            r.update(chapter=chapter, program=name, kind=kind, args=" ".join(prog_args))
            rows.append(r)
            print(f"{r['status']:<8} {r.get('wall_s', ''):>7} {r.get('host_s', ''):>7} "
                  f"{r.get('gpu_s', ''):>7}  {r.get('note', '')}", flush=True)
    if gpu_lib and args.gpu_time == "same":
        gpu_note = ("The wall and host seconds of the GPU programs include CUPTI's start-up and "
                    "its tracing (a few microseconds a launch); `--gpu-time separate` measures "
                    "them in a run without it.")
    write_tables(rows, Path(args.out), describe_machine(), gpu_note)
    counts = {s: sum(r["status"] == s for r in rows) for s in ("passed", "failed", "skipped",
                                                               "timeout")}
    print(f"time_programs: {counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['skipped']} skipped, {counts['timeout']} stopped; tables in "
          f"{Path(args.out) / 'times.md'} and times.csv", flush=True)
    return 1 if counts["failed"] or counts["timeout"] else 0


if __name__ == "__main__":
    sys.exit(main())
