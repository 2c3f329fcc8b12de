"""What the chapters' plot scripts share: their command line, the run's description read from the
env.txt that scripts/gpu_check.sh writes, and the README table kept between two markers."""
import argparse
import datetime
import os
import re
import sys


def parser(doc, csv_optional=False):
    """The common flags: the benchmark's CSV, --png, --readme, --env (a script adds its own)."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("csv", nargs="?" if csv_optional else None)
    p.add_argument("--png", help="write the plot here")
    p.add_argument("--readme", help="rewrite the table between the markers of this README")
    p.add_argument("--env", help="file with the run's date, nvidia-smi and nvcc output")
    return p


def parse_args(parser, outputs=("png",)):
    """parser.parse_args(), then, before any work, the files the script will write checked: the
    folder of each output (the flags named in outputs) is made as mkdir -p, and the README of
    --readme and the RESULTS.md of --results (where the script takes it) must be files that can be
    written; the CSV and --env must exist. Anything else is a usage error (exit 2)."""
    args = parser.parse_args()
    for name in outputs:
        path = getattr(args, name)
        if not path:
            continue
        folder = os.path.dirname(path) or "."
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as e:
            parser.error(f"cannot create the folder '{folder}' for {path}: {e.strerror}")
        if not os.access(folder, os.W_OK):
            parser.error(f"cannot write in the folder '{folder}' for {path}")
    if args.readme and not (os.path.isfile(args.readme) and os.access(args.readme, os.W_OK)):
        parser.error(f"--readme {args.readme}: not a README that can be rewritten")
    results = getattr(args, "results", None)
    if results and not (os.path.isfile(results) and os.access(results, os.W_OK)):
        parser.error(f"--results {results}: not a file that can be rewritten")
    for name, path in (("the CSV", args.csv), ("--env", args.env)):
        if path and not os.path.isfile(path):
            parser.error(f"{name} {path}: no such file")
    return args


def describe_env(path):
    """'NVIDIA H200, driver 580.159.04, CUDA 13.0, 2026-11-22' from an env.txt (or a log whose first
    line is `date`'s output), or ''. The day only: what a reader needs to place the run."""
    if not path:
        return ""
    text = open(path).read()
    gpu = re.search(r"^(NVIDIA[^,\n]*), ([0-9.]+)", text, re.M)
    cuda = re.search(r"release ([0-9.]+)", text)
    date = re.search(r"date: (\d{4}-\d{2}-\d{2})", text)
    day = date.group(1) if date else None
    if not day:
        first = text.split("\n", 1)[0].strip()
        for fmt in ("%a %b %d %I:%M:%S %p %Z %Y", "%a %b %d %H:%M:%S %Z %Y"):
            try:
                day = datetime.datetime.strptime(first, fmt).date().isoformat()
                break
            except ValueError:
                continue
    parts = []
    if gpu:
        parts += [gpu.group(1), f"driver {gpu.group(2)}"]
    if cuda:
        parts.append(f"CUDA {cuda.group(1)}")
    if day:
        parts.append(day)
    return ", ".join(parts)


def provenance(env_path, csv_path, doc_path):
    """'Measured on <GPU>, driver <version>, CUDA <version>, <day>; data: [<csv>](<csv>).', the
    CSV's path relative to the document it goes in."""
    env = describe_env(env_path)
    data = os.path.relpath(csv_path, os.path.dirname(os.path.abspath(doc_path)))
    return f"Measured on {env or 'an unnamed GPU'}; data: [`{data}`]({data})."


def peak_gbps(rows, csv_path, env_path):
    """The peak a CSV's pct_of_peak column divides by (the device's 2 x memory clock x bus width):
    as the run's text output printed it (benchmark_log.txt beside the CSV, as scripts/gpu_check.sh
    writes it, or --env), else from the rows' own gb_per_s and pct_of_peak; None where neither
    holds it."""
    for path in (os.path.join(os.path.dirname(csv_path), "benchmark_log.txt"), env_path):
        if path and os.path.exists(path):
            found = re.search(r"(\d+) GB/s peak memory bandwidth", open(path).read())
            if found:
                return int(found.group(1))
    pairs = [(float(r["pct_of_peak"]), float(r["gb_per_s"])) for r in rows
             if r.get("pct_of_peak") and r.get("gb_per_s")]
    if not pairs:
        return None
    pct, gbps = max(pairs)
    return round(100 * gbps / pct)


def update_provenance(doc_path, env_path, csv_path):
    """Rewrites the provenance line between the document's provenance markers."""
    update_readme(doc_path, provenance(env_path, csv_path, doc_path) + "\n", "provenance")


def marked(path, marker="benchmark-table"):
    """The document's text and the span (start, stop) between its <!-- marker:begin --> and
    <!-- marker:end -->."""
    begin, end = f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->"
    text = open(path).read()
    if begin not in text or end not in text:
        sys.exit(f"{path} has no {begin} ... {end} markers")
    return text, text.index(begin) + len(begin), text.index(end)


def read_block(path, marker="benchmark-table"):
    """What stands between <!-- marker:begin --> and <!-- marker:end -->."""
    text, start, stop = marked(path, marker)
    return text[start:stop]


def update_readme(path, text, marker="benchmark-table"):
    """Replaces what stands between <!-- marker:begin --> and <!-- marker:end --> with text."""
    readme, start, stop = marked(path, marker)
    open(path, "w").write(readme[:start] + "\n" + text + readme[stop:])
