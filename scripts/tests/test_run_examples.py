#!/usr/bin/env python3
"""cmake/RunExamples.cmake (the examples command's run) on stand-in programs: one stream (all on
standard output, nothing on standard error unless a program failed), one line a program with its
verdict, its seconds and its last line, a summary per chapter, and the skip line the README
quotes, word for word."""
import argparse
import re
import shutil
import tempfile
from pathlib import Path

import stubs
from stubs import check


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", help="scratch folder (default: a temporary one)")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="run_examples_test_"))
    shutil.rmtree(work, ignore_errors=True)
    bin_dir = work / "bin"
    host = stubs.script(bin_dir / "host_sum", "sleep 0.3\necho 'checking'\n"
                        "echo \"host_sum cpu n=$2 0.5 ms\"\n")
    gpu = stubs.script(bin_dir / "gpu_sum", "echo 'SKIP: no CUDA device' >&2\nexit 77\n")
    bad = stubs.script(bin_dir / "bad_sum", "echo 'device 0: a GPU' \necho 'FAIL Fig 1 (sum): "
                       "first mismatch at index 3: got 0, expected 1' >&2\necho 'more' >&2\n"
                       "exit 1\n")
    manifest = work / "manifest.txt"
    manifest.write_text(f"chA|host_sum|host|{host}|--n 7\nchA|gpu_sum|gpu|{gpu}|\n"
                        f"chB|gpu_sum_two|gpu|{gpu}|\n")
    command = [stubs.REAL_CMAKE, f"-DMANIFEST={manifest}", "-P",
               stubs.REPO / "cmake" / "RunExamples.cmake"]
    code, out, err = stubs.run(command, None)
    print(f"exit {code}\nstdout:\n{out}stderr:\n{err}")
    lines = out.splitlines()
    check(code == 0 and err == "", "passes and skips: exit 0, nothing on standard error")
    row = re.compile(r"^(\S+) +(PASS|SKIP|FAIL) +(\d+\.\d) s  (.*)$")
    rows = {m[1]: m for m in map(row.match, lines) if m}
    check(set(rows) == {"host_sum", "gpu_sum", "gpu_sum_two"}, "one line a program")
    check(rows["host_sum"][2] == "PASS" and float(rows["host_sum"][3]) >= 0.2
          and rows["host_sum"][4] == "host_sum cpu n=7 0.5 ms",
          "a pass: its seconds and its result line (with the manifest's arguments)")
    check(rows["gpu_sum"][2] == "SKIP" and rows["gpu_sum"][4] == "SKIP: no CUDA device",
          "a skip: the program's SKIP line")
    check("chA: 1 passed, 0 failed, 1 skipped (" in out and "chB: 0 passed, 0 failed, 1 skipped ("
          in out, "a summary line per chapter")

    # The README says what the skip line says: its quoted words must be the script's.
    readme = (stubs.REPO / "README.md").read_text(encoding="utf-8")
    quoted = re.search(r"`(Skipped N GPU program\(s\): [^`]+)`", readme)
    check(quoted is not None, "README.md quotes the summary's skip line (`Skipped N GPU ...`)")
    if quoted:
        words = re.escape(" ".join(quoted[1].split())).replace(r"Skipped\ N", r"Skipped\ \d+")
        check(re.search(words, out) is not None,
              f"... as the script prints it: '{' '.join(quoted[1].split())}'")
    quoted = re.search(r"`(SKIP: no CUDA device)`", readme)
    check(quoted is not None and quoted[1] in rows["gpu_sum"][4],
          "README.md's quoted SKIP line is the programs'")

    manifest.write_text(f"chA|host_sum|host|{host}|\nchA|bad_sum|gpu|{bad}|\n")
    code, out, err = stubs.run(command, None)
    print(f"exit {code}\nstdout:\n{out}stderr:\n{err}")
    check(code != 0, "a failure: exit non-zero")
    check(re.search(r"^bad_sum +FAIL +\d+\.\d s  exit 1: FAIL Fig 1 \(sum\): first mismatch at "
                    r"index 3", out, re.M) is not None, "... its line gives the FAIL line")
    check("FAILED: chA/bad_sum" in out, "... and the verdict is on standard output")
    return stubs.finish()


if __name__ == "__main__":
    raise SystemExit(main())
