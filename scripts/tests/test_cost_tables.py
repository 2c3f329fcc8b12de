#!/usr/bin/env python3
"""scripts/cost_tables.py in scratch copies of the chapter READMEs and the timings: --check passes
on the committed files, fails (naming the README and the fix) after a number changes in the CSV or
in a README's block, and passes again once the script has rewritten the blocks, which changes
nothing outside them; a long run is named above its table, a run that did not pass says so, and a
README without the markers is refused."""
import argparse
import csv
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import stubs
from stubs import check

sys.path.insert(0, str(stubs.REPO / "scripts"))
import cost_tables  # noqa: E402

SCRIPT = stubs.REPO / "scripts" / "cost_tables.py"


def tree(work, name):
    root = Path(work) / name
    for chapter in cost_tables.CHAPTERS:
        (root / chapter).mkdir(parents=True)
        for doc in ("README.md", "RESULTS.md"):  # RESULTS.md: where a chapter keeps the block
            if (stubs.REPO / chapter / doc).is_file():
                shutil.copy(stubs.REPO / chapter / doc, root / chapter / doc)
    timings = root / Path(cost_tables.TIMINGS).parent
    timings.mkdir(parents=True)
    for suffix in (".csv", ".md"):
        shutil.copy(stubs.REPO / Path(cost_tables.TIMINGS).with_suffix(suffix), timings)
    return root


def run(root, *args):
    r = subprocess.run([sys.executable, SCRIPT, "--root", root, *args], capture_output=True,
                       encoding="utf-8")
    print(f"$ cost_tables.py {' '.join(args)} (exit {r.returncode})\n{r.stdout}{r.stderr}", end="")
    return r.returncode, r.stdout + r.stderr


def edit_csv(root, program, **values):
    path = root / cost_tables.TIMINGS
    rows = cost_tables.read_rows(path)
    for r in rows:
        if r["program"] == program:
            r.update(values)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def outside(text):
    """The README without its costs block."""
    return text[:text.index(cost_tables.BEGIN)] + text[text.index(cost_tables.END):]


def block_of(text):
    return text[text.index(cost_tables.BEGIN):text.index(cost_tables.END)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", help="scratch folder (default: a temporary one)")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="cost_tables_test_"))
    shutil.rmtree(work, ignore_errors=True)

    root = tree(work, "committed")
    code, _ = run(root, "--check")
    check(code == 0, "the committed READMEs' blocks are what the committed timings give")

    root = tree(work, "csv_changed")
    ch10 = root / "ch10_reduction" / "RESULTS.md"
    before = ch10.read_text(encoding="utf-8")
    edit_csv(root, "10_06_simple_sum", wall_s="0.77")
    edit_csv(root, "04_warp_aggregated_increment", wall_s="7.40", status="failed")
    edit_csv(root, "03_reduction_by_key_benchmark", wall_s="8.60")
    code, out = run(root, "--check")
    check(code == 1 and "ch10_reduction/RESULTS.md: its costs block" in out
          and "warp_aggregation/RESULTS.md: its costs block" in out
          and "ch07_convolution/" not in out, "a new number in the CSV: --check fails "
                                               "for the two READMEs it changes, only them")
    check("fix: run `python3 scripts/cost_tables.py`" in out, "... and says the fix")
    check(ch10.read_text(encoding="utf-8") == before, "--check changes nothing")
    code, _ = run(root)
    after = ch10.read_text(encoding="utf-8")
    check(code == 0 and "| `10_06_simple_sum` | 0.77 |" in block_of(after),
          "rewritten, the block has the new number")
    check(outside(after) == outside(before), "nothing outside the block changed")
    warp = block_of((root / "warp_aggregation" / "RESULTS.md").read_text(encoding="utf-8"))
    check("`04_warp_aggregated_increment` (failed) | 7.40 |" in warp, "a failed run says so")
    check(re.search(r"Every program but `03_reduction_by_key_benchmark` \(9 s\) finishes within "
                    r"[0-9.]+ s\.", warp.replace("\n", " ")) is not None and
          "04_warp_aggregated_increment` (7" not in warp.split("|")[0],
          "a run of over 5 s is named above the table, failed ones not")
    code, _ = run(root, "--check")
    check(code == 0, "then --check passes")

    root = tree(work, "block_edited")
    ch07 = root / "ch07_convolution" / "RESULTS.md"  # where ch07 keeps its costs block
    text = ch07.read_text(encoding="utf-8")
    edited = re.sub(r"(\| `07_12_conv2d_tiled` \| )([0-9.]+)( \|)",
                    lambda m: m.group(1) + ("%.2f" % (float(m.group(2)) + 0.1)) + m.group(3),
                    text, count=1)
    check(edited != text, "the test found 07_12's row in ch07's costs block to edit")
    ch07.write_text(edited, encoding="utf-8")
    code, out = run(root, "--check")
    check(code == 1 and "ch07_convolution/RESULTS.md: its costs block" in out,
          "a number edited by hand in a README's block: --check fails")

    root = tree(work, "no_markers")
    atomics = root / "atomics_appendix" / "README.md"  # or its RESULTS.md, where the block is kept
    if cost_tables.BEGIN not in atomics.read_text(encoding="utf-8"):
        atomics = atomics.with_name("RESULTS.md")
    atomics.write_text(atomics.read_text(encoding="utf-8").replace(cost_tables.END, ""),
                       encoding="utf-8")
    code, out = run(root, "--check")
    check(code == 1 and "needs one <!-- costs:begin -->" in out, "a README without its end marker "
                                                                 "is refused")
    return stubs.finish()


if __name__ == "__main__":
    sys.exit(main())
