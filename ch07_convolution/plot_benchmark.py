#!/usr/bin/env python3
"""Turns 07_99_benchmark's CSV into the chapter's results tables and plot, and 07_98's PGMs into the
image figure.

    build/bin/07_99_benchmark --csv > ch07_convolution/data/benchmark.csv
    build/bin/07_98_image_filter --out-dir images
    python3 ch07_convolution/plot_benchmark.py ch07_convolution/data/benchmark.csv \
        --env ch07_convolution/data/env.txt --png ch07_convolution/benchmark.png \
        --readme ch07_convolution/README.md --results ch07_convolution/RESULTS.md \
        --images images --images-png ch07_convolution/image_filter.png

--readme rewrites the README's results table (each kernel's median time and % of the roofline floor
at every radius, and its speed against "cuDNN fastest" at 5x5 where the CSV has cuDNN rows) between
its results-table markers, and its provenance line between the provenance markers; --results
rewrites RESULTS.md's full tables (one per radius: median, fastest and slowest run, GB/s, GFLOP/s,
% of the floor, speed against both cuDNN rows and the algorithm cuDNN ran) between its spread-table
markers and its provenance line. --env names the run's env.txt (date, nvidia-smi and nvcc output, as
scripts/gpu_check.sh writes it): the provenance gives the GPU, driver, CUDA version and date. The
plots need matplotlib (and numpy for the images); without them they are skipped with a message and
the tables are still written. The image figure's title names the kernel that 07_98 records in its
PGMs (a "# kernel: ..." comment line).

% of floor is computed here from the CSV's floor_ms and ms, as 07_99 computes the percentage its log
prints: rounding the CSV's two-decimal pct_of_floor a second time could differ from the log by 0.1.
A cuDNN cell "d / f" is the row's speed against "cuDNN direct sum" (cuDNN's fastest direct-sum
algorithm) and against "cuDNN fastest" (its fastest of all, FFT and Winograd included); above 1 is
faster. A CSV without ms_min and ms_max (an older benchmark's) gives "–" for the spread.
"""
import csv
import os
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scripts"))
import report  # noqa: E402  (scripts/report.py: what every chapter's plot script shares)


def load(path):
    rows = OrderedDict()  # (kernel, radius) -> row
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            rows[(row["kernel"], int(row["radius"]))] = row
    radii = sorted({r for _, r in rows})
    kernels = list(OrderedDict.fromkeys(k for k, _ in rows))
    return rows, radii, kernels


def filt(r):
    return f"{2 * r + 1}×{2 * r + 1}"


def floor_kind(row, r):
    """'memory' or 'compute': which of the two floors the row's floor_ms is."""
    pixels = int(row["width"]) * int(row["height"])
    memory_ms = 8.0 * pixels / (float(row["copy_gbps"]) * 1e6)
    compute_ms = 2.0 * (2 * r + 1) ** 2 * pixels / (float(row["fp32_peak_gflops"]) * 1e6)
    return "memory" if memory_ms >= compute_ms else "compute"


def pct_of_floor(row):
    """% of the roofline floor: the floor's time over the kernel's, from the unrounded times."""
    return 100.0 * float(row["floor_ms"]) / float(row["ms"])


def ratio(row, column):
    """A ×cuDNN field, '–' where that cuDNN row did not run (0) or the CSV has no such column."""
    value = row.get(column)
    return f"{float(value):.2f}" if value and float(value) > 0 else "–"


def has_cudnn(rows):
    return any(float(row.get("speed_vs_cudnn_fastest") or 0) > 0 for row in rows.values())


def readme_table(rows, radii, kernels):
    cudnn = has_cudnn(rows) and 2 in radii
    head = "| kernel | " + " | ".join(f"{filt(r)}: ms · % of floor" for r in radii) + " |"
    head += " × cuDNN fastest at 5×5 |" if cudnn else ""
    floors = [f"{float(rows[(kernels[0], r)]['floor_ms']):.4f} · "
              f"{floor_kind(rows[(kernels[0], r)], r)}" for r in radii]
    lines = [head, "|---" * (len(radii) + 1 + cudnn) + "|",
             "| *roofline floor* | " + " | ".join(floors) + " |" + (" |" if cudnn else "")]
    for k in kernels:
        cells = []
        for r in radii:
            row = rows.get((k, r))
            cells.append("–" if row is None else
                         f"{float(row['ms']):.4f} · {pct_of_floor(row):.1f}%")
        line = f"| {k} | " + " | ".join(cells) + " |"
        if cudnn:
            row = rows.get((k, 2))
            line += f" {ratio(row, 'speed_vs_cudnn_fastest') if row else '–'} |"
        lines.append(line)
    return "\n".join(lines) + "\n"


def spread_table(rows, radii, kernels):
    first = rows[(kernels[0], radii[0])]
    out = [f"{first['width']} × {first['height']} fp32 image; copy bandwidth "
           f"{float(first['copy_gbps']):.0f} GB/s (measured in the same run), fp32 FMA peak "
           f"{float(first['fp32_peak_gflops']) / 1000:.1f} TFLOP/s.", ""]
    for r in radii:
        row0 = rows[(kernels[0], r)]
        out += [f"**{filt(r)}** (floor {float(row0['floor_ms']):.4f} ms, {floor_kind(row0, r)}):",
                "",
                "| kernel | ms median | fastest–slowest | GB/s | GFLOP/s | % of floor "
                "| × cuDNN d / f |",
                "|---|---|---|---|---|---|---|"]
        for k in kernels:
            row = rows.get((k, r))
            if row is None:
                continue
            spread = (f"{float(row['ms_min']):.4f}–{float(row['ms_max']):.4f}"
                      if row.get("ms_min") and row.get("ms_max") else "–")
            algo = f" ({row['algo']})" if row.get("algo") else ""
            out.append(f"| {k} | {float(row['ms']):.4f} | {spread} | "
                       f"{float(row['gb_per_s']):.0f} | {float(row['gflop_per_s']):.0f} | "
                       f"{pct_of_floor(row):.1f}% | {ratio(row, 'speed_vs_cudnn_direct')} / "
                       f"{ratio(row, 'speed_vs_cudnn_fastest')}{algo} |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print("matplotlib is not installed: plot skipped (pip install matplotlib)")
        return None


def plot(rows, radii, kernels, png, env):
    plt = pyplot()
    if plt is None:
        return
    fig, (pct, ms) = plt.subplots(1, 2, figsize=(15, 5.5))
    width = 0.8 / len(radii)
    for j, r in enumerate(radii):
        xs = [i + j * width for i in range(len(kernels))]
        pct.bar(xs, [pct_of_floor(rows[(k, r)]) if (k, r) in rows else 0 for k in kernels], width,
                label=filt(r))
        ms.bar(xs, [float(rows[(k, r)]["ms"]) if (k, r) in rows else 0 for k in kernels], width,
               label=filt(r))
    for ax in (pct, ms):
        ax.set_xticks([i + width * (len(radii) - 1) / 2 for i in range(len(kernels))])
        ax.set_xticklabels(kernels, rotation=30, ha="right", fontsize=8)
        ax.legend(fontsize=8)
    pct.axhline(100, color="gray", linestyle=":")
    pct.set_ylabel("% of the roofline floor (higher is better)")
    pct.set_title("Distance from the roofline floor (dotted: the floor)")
    ms.set_yscale("log")
    ms.set_ylabel("ms (log scale)")
    ms.set_title("Time per 2D convolution")
    first = rows[(kernels[0], radii[0])]
    fig.suptitle(f"07_99_benchmark, {first['width']}×{first['height']} fp32"
                 + (f" — {env}" if env else ""))
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def read_pgm(path, comments=None):
    """The pixels of an 8-bit P5 PGM; its comment lines are appended to `comments` if given."""
    import numpy as np
    data = open(path, "rb").read()
    tokens, pos = [], 0
    while len(tokens) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            end = data.index(b"\n", pos)
            if comments is not None:
                comments.append(data[pos + 1:end].decode("utf-8", "replace").strip())
            pos = end
            continue
        start = pos
        while not data[pos:pos + 1].isspace():
            pos += 1
        tokens.append(data[start:pos])
    if tokens[0] != b"P5" or int(tokens[3]) > 255:
        sys.exit(f"{path}: expected an 8-bit P5 PGM (07_98 writes those)")
    w, h = int(tokens[1]), int(tokens[2])
    return np.frombuffer(data[pos + 1:pos + 1 + w * h], dtype=np.uint8).reshape(h, w)


def plot_images(folder, png, env):
    plt = pyplot()
    if plt is None:
        return
    names = [("input.pgm", "input"), ("blur.pgm", "Gaussian blur 5×5"),
             ("sharpen.pgm", "sharpen 3×3"), ("sobel.pgm", "Sobel |∇| (3×3 x and y)")]
    fig, axes = plt.subplots(1, 4, figsize=(20, 4.4))
    comments = []
    for ax, (name, title) in zip(axes, names):
        ax.imshow(read_pgm(os.path.join(folder, name), comments), cmap="gray", vmin=0, vmax=255,
                  interpolation="nearest")
        ax.set_title(title)
        ax.axis("off")
    # The kernel as 07_98 recorded it ("# kernel: 07_94_conv2d_strip_fma (...)"); PGMs from a
    # 07_98 that did not record it give a title without one.
    kernels = {c.split()[1] for c in comments if c.startswith("kernel:") and len(c.split()) > 1}
    through = f" through {', '.join(sorted(kernels))}" if kernels else ""
    fig.suptitle(f"07_98_image_filter{through}, every pixel checked" + (f" — {env}" if env else ""))
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    print(f"wrote {png}")


def main():
    parser = report.parser(__doc__, csv_optional=True)
    parser.add_argument("--results", help="rewrite the spread tables of this RESULTS.md")
    parser.add_argument("--images", help="folder with 07_98's input/blur/sharpen/sobel PGMs")
    parser.add_argument("--images-png", help="write the side-by-side image figure here")
    args = report.parse_args(parser, outputs=("png", "images_png"))
    if (args.png or args.readme or args.results) and not args.csv:
        parser.error("--png, --readme and --results need the benchmark's CSV")
    if bool(args.images) != bool(args.images_png):
        parser.error("--images and --images-png go together: the PGMs' folder and the figure")
    if args.images and not os.path.isdir(args.images):
        parser.error(f"--images {args.images}: no such folder")
    env = report.describe_env(args.env)
    if args.csv:
        rows, radii, kernels = load(args.csv)
        table = readme_table(rows, radii, kernels)
        print(table)
        spreads = spread_table(rows, radii, kernels)
        for doc, marker, text in ((args.readme, "results-table", table),
                                  (args.results, "spread-table", spreads)):
            if doc:
                report.update_readme(doc, text, marker)
                report.update_provenance(doc, args.env, args.csv)
        if args.png:
            plot(rows, radii, kernels, args.png, env)
    if args.images and args.images_png:
        plot_images(args.images, args.images_png, env)


if __name__ == "__main__":
    main()
