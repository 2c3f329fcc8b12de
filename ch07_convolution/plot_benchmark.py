#!/usr/bin/env python3
"""Turns 07_99_benchmark's CSV into the chapter's results tables and plot, and 07_98's PGMs into the
image figure.

    build/bin/07_99_benchmark --csv > ch07_convolution/data/benchmark.csv
    build/bin/07_98_image_filter --n 1024 --out-dir images
    python3 ch07_convolution/plot_benchmark.py ch07_convolution/data/benchmark.csv \
        --env ch07_convolution/data/env.txt --png ch07_convolution/benchmark.png \
        --readme ch07_convolution/README.md --results ch07_convolution/RESULTS.md \
        --images images --images-png ch07_convolution/image_filter.png

The committed image_filter.png needs no GPU: 07_98's --host-reference writes the same pixels (the
GPU's are checked to equal the sequential convolution's exactly), and the figure says so:

    build/bin/07_98_image_filter --host-reference --n 1024 --out-dir images
    python3 ch07_convolution/plot_benchmark.py --images images \
        --images-png ch07_convolution/image_filter.png

data/ holds the run the README quotes (the H200 of 2026-11-26, the caches emptied before each timed
run by reading a buffer twice the L2's size); data/h100/ the same code's run on an H100 of
2026-11-25, timed the same way. `--compare ch07_convolution/data/h100/benchmark.csv` puts the
H100's columns beside the H200's in the README's table, with its provenance line:

    python3 ch07_convolution/plot_benchmark.py ch07_convolution/data/benchmark.csv \
        --env ch07_convolution/data/env.txt --png ch07_convolution/benchmark.png \
        --readme ch07_convolution/README.md --results ch07_convolution/RESULTS.md \
        --compare ch07_convolution/data/h100/benchmark.csv

--readme rewrites the results table (% of the roofline floor at every radius, for the rows of
README_ROWS: the book's kernels, 07_91 and 07_92, the defaults of 07_93 and 07_94, one cuDNN row
and NPP) between its results-table markers, in the README or, where the README has none, in the
--results file, and the README's provenance lines between the provenance markers; the plot (--png) shows the same rows. --compare adds a second GPU's columns beside the
first's, with its provenance line (its env.txt beside its CSV); while that CSV does not exist its
columns are left out. --results rewrites RESULTS.md's full tables (every row of the CSV, one table
per radius: median, fastest and slowest run, GB/s, GFLOP/s, % of the floor, speed against both
cuDNN rows and the algorithm cuDNN ran) between its spread-table markers and its provenance line.
--env names the run's env.txt (date, nvidia-smi and nvcc output, as scripts/gpu_check.sh writes
it): the provenance gives the GPU, driver, CUDA version and date. The plots need matplotlib (and
numpy for the images); without them they are skipped with a message and the tables are still
written. The image figure shows crops of 07_98's PGMs at 1:1, one image pixel per pixel (the left
edge's at 4:1, so that column 0 is wide enough to see), each inside a red margin so that its
outermost pixels show, and its title names the kernel that 07_98 records in its PGMs (a
"# kernel: ..." comment line).

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


def gpu_label(env_path, csv_path):
    """'H100' from an env.txt naming 'NVIDIA H100 80GB HBM3' (the model, without its memory); else
    the CSV's folder's name ('H100' for data/h100/benchmark.csv), for a run without an env.txt."""
    env = report.describe_env(env_path) if env_path and os.path.isfile(env_path) else ""
    if env:
        return env.split(",")[0].replace("NVIDIA ", "").split()[0]
    return os.path.basename(os.path.dirname(os.path.abspath(csv_path))).upper()


# The README's table and plot: (the CSV's kernel, the label shown). The book's kernels, the two
# kernels beyond it that have one form each, 07_93's and 07_94's defaults (the programs' own
# variants; the other register budgets are in RESULTS.md), the cuDNN algorithm a user calling cuDNN
# gets, and NPP. A row the run does not have (a library the build did not find) is left out.
README_ROWS = [("07_07 basic", "07_07 basic"),
               ("07_09 constant memory", "07_09 constant memory"),
               ("07_12 tiled", "07_12 tiled"),
               ("07_15 cached halo", "07_15 cached halo"),
               ("07_ex2 output tiled", "07_ex2 output tiled"),
               ("07_91 register tiled", "07_91 register tiled"),
               ("07_92 register cached", "07_92 register cached"),
               ("07_93 8 rows/64 regs", "07_93 strip float4"),
               ("07_94 4x5/72 regs", "07_94 strip FMA"),
               ("cuDNN fastest", "cuDNN (its fastest algorithm)"),
               ("NPP nppiFilter", "NPP nppiFilter")]


def readme_rows(kernels):
    """README_ROWS that the run has, as (kernel, label)."""
    return [(k, label) for k, label in README_ROWS if k in kernels]


def readme_table(gpus):
    """% of the roofline floor, one column per radius and GPU, for the README's rows: gpus is
    [(label, rows, radii, kernels)], every one with a committed run. The rows and radii are the
    first GPU's; a cell a GPU lacks is '–'."""
    _, _, radii, kernels = gpus[0]
    head = "| kernel |" + "".join(f" {label} {filt(r)} |" for label, _, _, _ in gpus for r in radii)
    lines = [head, "|---" * (1 + len(gpus) * len(radii)) + "|"]
    floor_cells = []
    for _, rows, _, ks in gpus:
        for r in radii:
            row = rows.get((ks[0], r))
            floor_cells.append(floor_kind(row, r) if row else "–")
    lines.append("| *the floor is* | " + " | ".join(floor_cells) + " |")
    for k, label in readme_rows(kernels):
        cells = []
        for _, rows, _, _ in gpus:
            for r in radii:
                row = rows.get((k, r))
                cells.append("–" if row is None else f"{pct_of_floor(row):.1f}%")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
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
    shown = readme_rows(kernels)
    fig, (pct, ms) = plt.subplots(1, 2, figsize=(15, 5.5))
    width = 0.8 / len(radii)
    for j, r in enumerate(radii):
        xs = [i + j * width for i in range(len(shown))]
        pct.bar(xs, [pct_of_floor(rows[(k, r)]) if (k, r) in rows else 0 for k, _ in shown],
                width, label=filt(r))
        ms.bar(xs, [float(rows[(k, r)]["ms"]) if (k, r) in rows else 0 for k, _ in shown], width,
               label=filt(r))
    for ax in (pct, ms):
        ax.set_xticks([i + width * (len(radii) - 1) / 2 for i in range(len(shown))])
        ax.set_xticklabels([label for _, label in shown], rotation=30, ha="right", fontsize=8)
        ax.legend(fontsize=8)
    pct.axhline(100, color="gray", linestyle=":")
    pct.set_ylabel("% of the roofline floor (higher is better)")
    pct.set_title("% of the roofline floor (dotted: the floor)")
    ms.set_yscale("log")
    # Plain ms labels (0.2, 0.5, 1, ...) rather than matplotlib's 3x10^0 on a log axis.
    times = [float(rows[(k, r)]["ms"]) for k, _ in shown for r in radii if (k, r) in rows]
    ticks = [t for t in (0.1, 0.2, 0.5, 1, 2, 3, 5, 10, 20, 50)
             if min(times) / 1.5 <= t <= max(times) * 1.5]
    ms.set_yticks(ticks)
    ms.set_yticklabels([f"{t:g}" for t in ticks])
    ms.yaxis.set_minor_formatter(plt.NullFormatter())
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


# The image figure's crops, as fractions of 07_98's test pattern (x0, y0 of the top-left corner),
# and each one's zoom (PNG pixels per image pixel, both ways): the left edge where the grey ramp
# meets the wide stripes (rows 556-595, the stripes from row 577), so that the crop has edges of its
# own beside column 0, where the Sobel filter marks the ghost cells' step and the blur darkens it,
# enlarged 4 times so that the one-pixel line shows beside the margin; small letters, whose strokes the sharpen
# filter makes crisper and the blur softens; the finest stripes, two pixels wide, which the blur
# averages to grey and the Sobel filter turns white (its output clamped to 255).
CROP = 160           # each crop's side in PNG pixels (CROP / zoom image pixels)
MARGIN = 4           # PNG pixels between a crop and its frame
GROUND = "#d62728"   # the margin's red, unlike any grey level of the images
CROPS = [("the left edge", 0.0, 0.725, 4),
         ("small letters", 0.04, 0.66, 1),
         ("the finest stripes", 1.0, 0.8, 1)]


def plot_images(folder, png, env):
    """07_98's input and its three filtered images side by side, as CROP x CROP crops shown at 1:1
    (one image pixel per pixel of the PNG), one row per crop."""
    plt = pyplot()
    if plt is None:
        return
    names = [("input.pgm", "input"), ("blur.pgm", "Gaussian blur 5×5"),
             ("sharpen.pgm", "sharpen 3×3"), ("sobel.pgm", "Sobel |∇| (3×3 x and y)")]
    comments = []
    images = [read_pgm(os.path.join(folder, name), comments) for name, _ in names]
    h, w = images[0].shape
    side = min(CROP, h, w)
    # Each crop sits MARGIN pixels inside its axes frame, on a red ground: a frame drawn on
    # the image would hide its outermost row and column, and column 0 is where the ghost cells show.
    pad = side + 2 * MARGIN
    left, top, gap, foot = 130, 70, 14, 10
    fig_w = left + len(names) * (pad + gap)
    fig_h = top + len(CROPS) * (pad + gap) + foot
    dpi = 100
    fig = plt.figure(figsize=(fig_w / dpi, fig_h / dpi), dpi=dpi)
    for row, (label, fx, fy, zoom) in enumerate(CROPS):
        n = side // zoom  # the crop's side in image pixels
        margin = MARGIN / zoom  # the margin in image pixels
        x0 = min(max(0, int(fx * w)), w - n)
        y0 = min(max(0, int(fy * h)), h - n)
        bottom = fig_h - top - (row + 1) * pad - row * gap
        scale = f", {zoom}:1" if zoom > 1 else ""
        fig.text((left - gap) / fig_w, (bottom + pad / 2) / fig_h,
                 f"{label}{scale}\nx {x0}–{x0 + n - 1}\ny {y0}–{y0 + n - 1}", ha="right",
                 va="center", fontsize=9)
        for col, (img, (_, title)) in enumerate(zip(images, names)):
            ax = fig.add_axes([(left + col * (pad + gap)) / fig_w, bottom / fig_h, pad / fig_w,
                               pad / fig_h])
            ax.imshow(img[y0:y0 + n, x0:x0 + n], cmap="gray", vmin=0, vmax=255,
                      interpolation="nearest")
            ax.set_xlim(-0.5 - margin, n - 0.5 + margin)
            ax.set_ylim(n - 0.5 + margin, -0.5 - margin)
            ax.set_facecolor(GROUND)
            ax.set_xticks([])
            ax.set_yticks([])
            if row == 0:
                ax.set_title(title, fontsize=9)
    # The kernel as 07_98 recorded it ("# kernel: 07_94_conv2d_strip_fma (...)"); PGMs from a
    # 07_98 that did not record it give a title without one.
    kernels = {c.split()[1] for c in comments if c.startswith("kernel:") and len(c.split()) > 1}
    through = f" through {', '.join(sorted(kernels))}, every pixel checked" if kernels else ""
    # PGMs from 07_98 --host-reference ("# host: ..."): no GPU ran, the pixels are the sequential
    # convolution's, which the GPU's are checked to equal exactly.
    if not kernels and any(c.startswith("host:") for c in comments):
        through = " --host-reference"
        env = "the sequential convolution on the host: the pixels 07_94's kernel writes"
    zoomed = sorted({zoom for *_, zoom in CROPS if zoom > 1})
    enlarged = "".join(f", one at {zoom}:1" for zoom in zoomed)
    fig.suptitle(f"07_98_image_filter{through}; {w}×{h} test pattern, "
                 f"crops at 1:1{enlarged}" + (f"\n{env}" if env else ""), fontsize=10)
    fig.savefig(png, dpi=dpi)
    print(f"wrote {png}")


def main():
    parser = report.parser(__doc__, csv_optional=True)
    parser.add_argument("--results", help="rewrite the spread tables of this RESULTS.md")
    parser.add_argument("--compare", help="a second GPU's benchmark CSV (its env.txt beside it): "
                        "its columns in the README's table, left out while the file is missing")
    parser.add_argument("--images", help="folder with 07_98's input/blur/sharpen/sobel PGMs")
    parser.add_argument("--images-png", help="write the side-by-side image figure here")
    args = report.parse_args(parser, outputs=("png", "images_png"))
    if (args.png or args.readme or args.results or args.compare) and not args.csv:
        parser.error("--png, --readme, --results and --compare need the benchmark's CSV")
    if bool(args.images) != bool(args.images_png):
        parser.error("--images and --images-png go together: the PGMs' folder and the figure")
    if args.images and not os.path.isdir(args.images):
        parser.error(f"--images {args.images}: no such folder")
    env = report.describe_env(args.env)
    if args.csv:
        rows, radii, kernels = load(args.csv)
        gpus = [(gpu_label(args.env, args.csv), rows, radii, kernels)]
        compare_env = None
        if args.compare:
            if os.path.isfile(args.compare):
                compare_env = os.path.join(os.path.dirname(args.compare), "env.txt")
                gpus.append((gpu_label(compare_env, args.compare), *load(args.compare)))
            else:
                print(f"--compare {args.compare}: no such file yet, its columns left out")
        table = readme_table(gpus)
        print(table)
        spreads = spread_table(rows, radii, kernels)
        if args.readme:
            # The table stands in the README, or where the README has no place for it (ch07's
            # keeps only the map of one radius), in RESULTS.md above the full tables.
            with open(args.readme, encoding="utf-8") as f:
                marked = "<!-- results-table:begin -->" in f.read()
            report.update_readme(args.readme if marked or not args.results else args.results,
                                 table, "results-table")
            lines = [f"{gpus[0][0]}: " + report.provenance(args.env, args.csv, args.readme)]
            if compare_env:
                lines.append(f"{gpus[1][0]}: " +
                             report.provenance(compare_env, args.compare, args.readme))
            report.update_readme(args.readme, "\n\n".join(lines) + "\n", "provenance")
        if args.results:
            report.update_readme(args.results, spreads, "spread-table")
            report.update_provenance(args.results, args.env, args.csv)
        if args.png:
            plot(rows, radii, kernels, args.png, env)
    if args.images and args.images_png:
        plot_images(args.images, args.images_png, env)


if __name__ == "__main__":
    main()
