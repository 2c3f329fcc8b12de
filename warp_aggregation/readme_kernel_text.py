#!/usr/bin/env python3
"""Checks, without a GPU, that the kernel the README prints for copying is the one that
readme_kernel_test.cu compiles and runs.

    python3 warp_aggregation/readme_kernel_text.py [--readme README.md] [--source FILE.cu]

The README's kernel is its one ```cuda block that defines `__global__ void copied_kernel(`; the
test's is the lines between `// readme-kernel:begin` and `// readme-kernel:end`. They must be the
same lines, spaces included (an edit on either side is made on both, the test's with clang-format).
On a difference: the first line that differs, from both files, and exit 1. Before that the check
is run on a copy of the README with one character changed, which it must refuse: a check that
cannot fail is not one. Exit 0 when both hold, 2 on a bad flag.
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFINITION = "__global__ void copied_kernel("
BEGIN, END = "// readme-kernel:begin", "// readme-kernel:end"


def readme_kernel(text):
    """The lines of the README's cuda block that defines copied_kernel, and its first line's
    number; exactly one block must."""
    blocks = []
    for match in re.finditer(r"^```cuda\n(.*?)^```$", text, re.M | re.S):
        if DEFINITION in match.group(1):
            first = text.count("\n", 0, match.start(1)) + 1
            blocks.append((match.group(1).splitlines(), first))
    if len(blocks) != 1:
        raise ValueError(f"{len(blocks)} cuda blocks define copied_kernel, not one")
    return blocks[0]


def source_kernel(text):
    """The lines between the marker comments, and the first one's number."""
    lines = text.splitlines()
    begins = [n for n, line in enumerate(lines) if line.strip() == BEGIN]
    ends = [n for n, line in enumerate(lines) if line.strip() == END]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise ValueError(f"not one `{BEGIN}` followed by one `{END}`")
    return lines[begins[0] + 1:ends[0]], begins[0] + 2


def differences(readme_text, source_text):
    """An empty string where the two kernels are the same lines, else what differs."""
    (want, want_at), (got, got_at) = readme_kernel(readme_text), source_kernel(source_text)
    for k in range(max(len(want), len(got))):
        a = want[k] if k < len(want) else "(the block has ended)"
        b = got[k] if k < len(got) else "(the markers' lines have ended)"
        if a != b:
            return (f"README line {want_at + k}: {a}\n"
                    f"source line {got_at + k}: {b}")
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readme", default=os.path.join(HERE, "README.md"))
    parser.add_argument("--source", default=os.path.join(HERE, "readme_kernel_test.cu"))
    args = parser.parse_args()
    with open(args.readme, encoding="utf-8") as f:
        readme = f.read()
    with open(args.source, encoding="utf-8") as f:
        source = f.read()
    try:
        # The check must see a change: the README's kernel with one character replaced (the first
        # one after the kernel's name and parenthesis: the `c` of `const`).
        at = readme.index(DEFINITION) + len(DEFINITION)
        changed = readme[:at] + "C" + readme[at + 1:]
        if not differences(changed, source):
            print("FAILED: a README kernel with one character changed passes the check")
            return 1
        found = differences(readme, source)
    except ValueError as error:
        print(f"FAILED: {error}")
        return 1
    if found:
        print("FAILED: the README's copied_kernel is not the one readme_kernel_test.cu runs:\n"
              + found)
        return 1
    lines = len(readme_kernel(readme)[0])
    print(f"ok: the README's copied_kernel, {lines} lines, is readme_kernel_test.cu's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
