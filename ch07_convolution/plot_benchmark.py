#!/usr/bin/env python3
"""Turns 07_99_benchmark's CSV into the chapter README's table and plot, and 07_98's PGMs into the
image figure.

    build/bin/07_99_benchmark --csv > benchmark_h200.csv
    build/bin/07_98_image_filter --out-dir images
    python3 ch07_convolution/plot_benchmark.py benchmark_h200.csv --png benchmark_h200.png \
        --readme ch07_convolution/README.md --env env.txt --images images --images-png image_filter.png

--readme rewrites the table between the README's benchmark markers; --env names a file holding
the run's date, `nvidia-smi --query-gpu=name,driver_version,... --format=csv` and `nvcc --version`
output. The plots need matplotlib (and numpy for the images); without them they are skipped with a
message and the table is still written.

The table's ×cuDNN field is "d / f": the row's speed against "cuDNN direct sum" (cuDNN's fastest
direct-sum algorithm) and against "cuDNN fastest" (its fastest of all, FFT and Winograd included);
a cuDNN row's cell ends with the algorithm it ran. A CSV of the older benchmark (one cuDNN row,
one speed_vs_cudnn column, which was against its direct-sum row) gives "d / –". The image figure's
title names the kernel that 07_98 records in its PGMs (a "# kernel: ..." comment line).
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


def table(rows, radii, kernels, env):
    first = rows[(kernels[0], radii[0])]
    lines = [f"Measured {env}." if env else "",
             f"{first['width']} x {first['height']} fp32 image; copy bandwidth {float(first['copy_gbps']):.0f} GB/s "
             f"(measured in the same run), fp32 FMA peak {float(first['fp32_peak_gflops']) / 1000:.1f} TFLOP/s.", ""]
    floors = " | ".join(f"{2 * r + 1}×{2 * r + 1}: {float(rows[(kernels[0], r)]['floor_ms']):.4f} ms"
                        for r in radii)
    lines.append(f"Floor: {floors}.")
    lines.append("")
    lines.append("| kernel | " + " | ".join(f"{2 * r + 1}×{2 * r + 1}: ms · GB/s · GFLOP/s · % of floor · "
                                          "×cuDNN d / f" for r in radii) + " |")
    lines.append("|---" * (len(radii) + 1) + "|")
    for k in kernels:
        cells = []
        for r in radii:
            row = rows.get((k, r))
            if row is None:
                cells.append("–")
                continue
            speeds = " / ".join(ratio(row, column) for column in ("speed_vs_cudnn_direct", "speed_vs_cudnn_fastest"))
            algo = f" ({row['algo']})" if row.get("algo") else ""
            cells.append(f"{float(row['ms']):.4f} · {float(row['gb_per_s']):.0f} · {float(row['gflop_per_s']):.0f}"
                         f" · {float(row['pct_of_floor']):.1f}% · {speeds}{algo}")
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(lines).strip() + "\n"


def ratio(row, column):
    """A ×cuDNN field, '–' where that cuDNN row did not run (0) or the CSV has no such column."""
    value = row.get(column)
    if value is None and column == "speed_vs_cudnn_direct":
        value = row.get("speed_vs_cudnn")  # the older CSV: its one cuDNN row was the direct sum
    return f"{float(value):.2f}" if value and float(value) > 0 else "–"


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
        pct.bar(xs, [float(rows[(k, r)]["pct_of_floor"]) if (k, r) in rows else 0 for k in kernels], width,
                label=f"{2 * r + 1}×{2 * r + 1}")
        ms.bar(xs, [float(rows[(k, r)]["ms"]) if (k, r) in rows else 0 for k in kernels], width,
               label=f"{2 * r + 1}×{2 * r + 1}")
    for ax in (pct, ms):
        ax.set_xticks([i + width * (len(radii) - 1) / 2 for i in range(len(kernels))])
        ax.set_xticklabels(kernels, rotation=30, ha="right", fontsize=8)
        ax.legend(fontsize=8)
    pct.axhline(100, color="gray", linestyle=":")
    pct.axhline(90, color="gray", linestyle="--", linewidth=0.8)
    pct.set_ylabel("% of the roofline floor (higher is better)")
    pct.set_title("Distance from the floor (dashed: 90%)")
    ms.set_yscale("log")
    ms.set_ylabel("ms (log scale)")
    ms.set_title("Time per 2D convolution")
    first = rows[(kernels[0], radii[0])]
    fig.suptitle(f"07_99_benchmark, {first['width']}×{first['height']} fp32" + (f" — {env}" if env else ""))
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
    names = [("input.pgm", "input"), ("blur.pgm", "Gaussian blur 5×5"), ("sharpen.pgm", "sharpen 3×3"),
             ("sobel.pgm", "Sobel |∇| (3×3 x and y)")]
    fig, axes = plt.subplots(1, 4, figsize=(20, 4.4))
    comments = []
    for ax, (name, title) in zip(axes, names):
        ax.imshow(read_pgm(os.path.join(folder, name), comments), cmap="gray", vmin=0, vmax=255,
                  interpolation="nearest")
        ax.set_title(title)
        ax.axis("off")
    # The kernel as 07_98 recorded it ("# kernel: 07_93_conv2d_strip_float4 (...)"); PGMs from a
    # 07_98 that did not record it give a title without one.
    kernels = {c.split()[1] for c in comments if c.startswith("kernel:") and len(c.split()) > 1}
    through = f" through {', '.join(sorted(kernels))}" if kernels else ""
    fig.suptitle(f"07_98_image_filter{through}, every pixel checked" + (f" — {env}" if env else ""))
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    print(f"wrote {png}")


def main():
    parser = report.parser(__doc__, csv_optional=True)
    parser.add_argument("--images", help="folder with 07_98's input/blur/sharpen/sobel PGMs")
    parser.add_argument("--images-png", help="write the side-by-side image figure here")
    args = report.parse_args(parser, outputs=("png", "images_png"))
    if (args.png or args.readme) and not args.csv:
        parser.error("--png and --readme need the benchmark's CSV")
    if bool(args.images) != bool(args.images_png):
        parser.error("--images and --images-png go together: the PGMs' folder and the figure")
    if args.images and not os.path.isdir(args.images):
        parser.error(f"--images {args.images}: no such folder")
    env = report.describe_env(args.env)
    if args.csv:
        rows, radii, kernels = load(args.csv)
        text = table(rows, radii, kernels, env)
        print(text)
        if args.readme:
            report.update_readme(args.readme, text)
        if args.png:
            plot(rows, radii, kernels, args.png, env)
    if args.images and args.images_png:
        plot_images(args.images, args.images_png, env)


if __name__ == "__main__":
    main()
