#!/usr/bin/env python3
"""Checks, without a GPU, that the kernels printed for copying (copied_kernel with its launch, and
grid_stride_kernel, in README.md's and RESULTS.md's "Copying the header" today) are the ones
that readme_kernel_test.cu compiles and runs.

    python3 warp_aggregation/readme_kernel_text.py [--readme README.md] [--results RESULTS.md]
        [--source FILE.cu]

Each printed block is looked for in both documents, and exactly one ```cuda block of the two
must hold it: a block moved between the README and RESULTS.md is still found, a copy left behind
fails. Two kernels. `copied_kernel` is the one ```cuda block that defines
`__global__ void copied_kernel(`; the test's is the lines between `// readme-kernel:begin` and
`// readme-kernel:end`. `grid_stride_kernel` is the one ```cuda block that defines
`__global__ void grid_stride_kernel(`; the test's runs from the `template` line above that
definition to the first line after it that is `}` alone. Each pair must be the same lines, spaces
included (an edit on either side is made on both, the test's with clang-format). And the launch:
the one ```cuda block that holds `copied_kernel<F>` and `<<<` must be consecutive lines of
the test, each indented there by the first one's indentation. On a difference: the first line
that differs, from both files, and exit 1. Before that each check is run on a copy of the
document with one character of that kernel changed, which it must refuse: a check that cannot
fail is not one. Exit 0 when all hold, 2 on a bad flag.
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
COPIED = "__global__ void copied_kernel("
GRID_STRIDE = "__global__ void grid_stride_kernel("
BEGIN, END = "// readme-kernel:begin", "// readme-kernel:end"


def readme_kernel(text, definition):
    """The lines of the README's cuda block that holds `definition`, and its first line's number;
    exactly one block must."""
    blocks = []
    for match in re.finditer(r"^```cuda\n(.*?)^```$", text, re.M | re.S):
        if definition in match.group(1):
            first = text.count("\n", 0, match.start(1)) + 1
            blocks.append((match.group(1).splitlines(), first))
    if len(blocks) != 1:
        raise ValueError(f"{len(blocks)} cuda blocks define `{definition}`, not one")
    return blocks[0]


def marked_kernel(text):
    """copied_kernel in the source: the lines between the marker comments, and the first one's
    number."""
    lines = text.splitlines()
    begins = [n for n, line in enumerate(lines) if line.strip() == BEGIN]
    ends = [n for n, line in enumerate(lines) if line.strip() == END]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise ValueError(f"not one `{BEGIN}` followed by one `{END}`")
    return lines[begins[0] + 1:ends[0]], begins[0] + 2


def defined_kernel(text):
    """grid_stride_kernel in the source: from the `template` line above its definition to the
    first `}` alone at the start of a line after it, and the first line's number."""
    lines = text.splitlines()
    found = [n for n, line in enumerate(lines) if line.startswith(GRID_STRIDE)]
    if len(found) != 1 or found[0] == 0 or not lines[found[0] - 1].startswith("template <"):
        raise ValueError(f"not one `{GRID_STRIDE}` after a `template <` line")
    start = found[0] - 1
    ends = [n for n in range(found[0], len(lines)) if lines[n] == "}"]
    if not ends:
        raise ValueError(f"`{GRID_STRIDE}` has no closing `}}` alone on a line")
    return lines[start:ends[0] + 1], start + 1


LAUNCH = "copied_kernel<F>"


def readme_launch(text):
    """The lines of the README's one cuda block that launches copied_kernel, and its first line's
    number."""
    blocks = []
    for match in re.finditer(r"^```cuda\n(.*?)^```$", text, re.M | re.S):
        if LAUNCH in match.group(1) and "<<<" in match.group(1):
            blocks.append((match.group(1).splitlines(),
                           text.count("\n", 0, match.start(1)) + 1))
    if len(blocks) != 1:
        raise ValueError(f"{len(blocks)} cuda blocks launch `{LAUNCH}`, not one")
    return blocks[0]


def launch_difference(readme_text, source_text):
    """An empty string where the README's launch lines are consecutive lines of the source (the
    source's indented alike), else what is wrong."""
    want, want_at = readme_launch(readme_text)
    lines = source_text.splitlines()
    for n, line in enumerate(lines):
        indent = line[:len(line) - len(line.lstrip())]
        if lines[n:n + len(want)] == [indent + w if w else w for w in want]:
            return ""
    return (f"README lines {want_at} to {want_at + len(want) - 1}: the launch of `{LAUNCH}` is not "
            "in the source as it stands there")


# (the kernel's name, its definition line in the README or RESULTS.md, how to find it there)
KERNELS = [("copied_kernel", COPIED, marked_kernel),
           ("grid_stride_kernel", GRID_STRIDE, defined_kernel)]


def differences(readme_text, source_text, definition, find):
    """An empty string where the README's kernel and the source's are the same lines, else what
    differs."""
    (want, want_at), (got, got_at) = readme_kernel(readme_text, definition), find(source_text)
    for k in range(max(len(want), len(got))):
        a = want[k] if k < len(want) else "(the block has ended)"
        b = got[k] if k < len(got) else "(the source's kernel has ended)"
        if a != b:
            return (f"README line {want_at + k}: {a}\n"
                    f"source line {got_at + k}: {b}")
    return ""


def cuda_blocks(text, *needles):
    """How many of the text's ```cuda blocks hold every one of `needles`."""
    return sum(all(n in m.group(1) for n in needles)
               for m in re.finditer(r"^```cuda\n(.*?)^```$", text, re.M | re.S))


def holder(docs, *needles):
    """The (name, text) of the one document whose ```cuda blocks hold `needles`; across the
    documents exactly one block must."""
    found = [(name, text) for name, text in docs for _ in range(cuda_blocks(text, *needles))]
    if len(found) != 1:
        raise ValueError(f"{len(found)} cuda blocks of {' and '.join(n for n, _ in docs)} hold "
                         f"`{needles[0]}`, not one")
    return found[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readme", default=os.path.join(HERE, "README.md"))
    parser.add_argument("--results", default=os.path.join(HERE, "RESULTS.md"))
    parser.add_argument("--source", default=os.path.join(HERE, "readme_kernel_test.cu"))
    args = parser.parse_args()
    # copied_kernel and its launch stand in the README's "Copying the header", grid_stride_kernel
    # in RESULTS.md; each is looked for in both documents.
    docs = []
    for name in (args.readme, args.results):
        with open(name, encoding="utf-8") as f:
            docs.append((os.path.basename(name), f.read()))
    with open(args.source, encoding="utf-8") as f:
        source = f.read()
    for name, definition, find in KERNELS:
        try:
            doc, text = holder(docs, definition)
            # The check must see a change: the kernel with one character replaced (the
            # first one after the kernel's name and parenthesis: the `c` of `const`).
            at = text.index(definition) + len(definition)
            changed = text[:at] + "C" + text[at + 1:]
            if not differences(changed, source, definition, find):
                print(f"FAILED: a {doc} {name} with one character changed passes the check")
                return 1
            found = differences(text, source, definition, find)
        except ValueError as error:
            print(f"FAILED: {error}")
            return 1
        if found:
            print(f"FAILED: the {doc}'s {name} is not the one readme_kernel_test.cu runs:\n"
                  + found.replace("README line", f"{doc} line"))
            return 1
        lines = len(readme_kernel(text, definition)[0])
        print(f"ok: the {doc}'s {name}, {lines} lines, is readme_kernel_test.cu's")
    try:
        doc, text = holder(docs, LAUNCH, "<<<")
        # The character after the launch's `<<<` (the `g` of `grid`), made a `G`.
        at = text.index("<<<", text.index(LAUNCH)) + 3
        if not launch_difference(text[:at] + "G" + text[at + 1:], source):
            print(f"FAILED: a {doc} launch with one character changed passes the check")
            return 1
        found = launch_difference(text, source)
    except ValueError as error:
        print(f"FAILED: {error}")
        return 1
    if found:
        print(f"FAILED: {found.replace('README lines', f'{doc} lines')}")
        return 1
    print(f"ok: the {doc}'s launch of copied_kernel, {len(readme_launch(text)[0])} lines, is "
          "readme_kernel_test.cu's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
