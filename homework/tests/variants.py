#!/usr/bin/env python3
"""Submissions made from a marked file and a variant file (homework/wrong/, homework/adversarial/),
by make(solution text, variant text).

A variant file starts with a line `program: <exercise>  file: <path in the tree>`, then lines
that describe it, then blocks: `// ==== region <k> replace` (region k's code becomes the block),
`// ==== region <k> prepend` (the block goes before the solution's code), or `// ==== after line
<text>` (the block goes right after the first line of the file, outside any region, that reads
<text> once stripped). Regions no block names keep the solution. In a block, `<U+XXXX>` stands for
that character (a lone CR, a form feed), so that the fixture itself holds none. The output has no
marks and no STUB lines: it is what a student would hand in.
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "grader"))
from hwtext import BEGIN, END, STUB  # noqa: E402  (the marks, as the export reads them)

BLOCK = re.compile(r"^// ==== (?:region (\d+) (replace|prepend)|after line (.*))$")
ESCAPE = re.compile(r"<U\+([0-9A-Fa-f]{4,6})>")


def parse(variant_text):
    """(header fields, {region: (mode, lines)}, [(after text, lines)])."""
    lines = variant_text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    header = dict(re.findall(r"(\w+): *(\S+)", lines[0]))
    regions, after = {}, []
    current = None
    for line in lines[1:]:
        m = BLOCK.match(line)
        if m:
            current = []
            if m.group(1):
                regions[int(m.group(1))] = (m.group(2), current)
            else:
                after.append((m.group(3).strip(), current))
        elif current is not None:
            current.append(ESCAPE.sub(lambda e: chr(int(e.group(1), 16)), line))
    return header, regions, after


def make(solution_text, variant_text):
    _, regions, after = parse(variant_text)
    out = []
    region = 0
    inside = False
    pending = list(after)
    for line in solution_text.split("\n"):
        if BEGIN.match(line):
            region += 1
            inside = True
            if region in regions:
                out.extend(regions[region][1])
        elif END.match(line):
            inside = False
        elif STUB.match(line):
            pass
        elif not inside or regions.get(region, ("keep",))[0] != "replace":
            out.append(line)
            for item in list(pending):
                if not inside and line.strip() == item[0]:
                    out.extend(item[1])
                    pending.remove(item)
    if pending:
        raise ValueError("no line reads `%s` outside the regions" % pending[0][0])
    return "\n".join(out)

