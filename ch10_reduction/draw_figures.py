#!/usr/bin/env python3
"""Draws the chapter's pictures at the book's toy sizes, from the kernels' own index arithmetic.

    python3 ch10_reduction/draw_figures.py --out ch10_reduction [--bin build/bin]
    python3 ch10_reduction/draw_figures.py --trace 10_13|10_15 [--n N] [--block 8] [--coarse 2]
    python3 ch10_reduction/draw_figures.py --trace 10_06|10_09|10_11 [--n N | --values 6,2,7,...]

Writes, into --out:
  fig_10_03_max_tree.png      Fig 10.3: the max tree over the same 8 values (max = 7 in 3 steps)
  fig_10_05_sum_tree.png      Fig 10.5: the sum tree over 8 values, 3 steps of 4, 2 and 1 adders
  fig_10_07.png               Fig 10.7 as data flow at N = 16 (8 threads), each written element
                              with its thread and, for input[i] = i, its sum
  fig_10_07_segments.png      at N = 256 (4 warps), the 128-byte segments each warp's loads and
                              stores touch at every step of Fig 10.6: the book's 141 requests
  fig_10_08.png               Fig 10.8 as data flow at N = 16, as fig_10_07.png for Fig 10.9
  fig_10_08_segments.png      the same segments for Fig 10.9: the book's 36 requests
  fig_10_10_shared_memory.png Fig 10.10 at N = 16 (8 threads): the load that adds two inputs into
                              input_s, the tree in shared memory, the input never written; each
                              written element with its thread and, for input[i] = i, its sum
  fig_10_12_segments.png      Fig 10.12: three blocks of 8 threads, a slice of 16 inputs each, a
                              tree per block (input_s after the load and each step, for
                              input[i] = i), one atomicAdd per block into the output
  fig_10_14_coarsening.png    Fig 10.14: one block of 8 threads coarsened by 2 (32 inputs): three
                              steps in registers with every thread busy, then the tree; each
                              thread that adds with its sum, for input[i] = i
  fig_10_16_timeline.png      Fig 10.16: two blocks of Fig 10.13 one after the other (8 steps)
                              against one coarsened block doing the same work (6 steps)
  ex3_mirrored.png            Exercise 3 at N = 16: Fig 10.9 mirrored, the sums gather at the end
One palette throughout (and in draw_active_threads.py): blue, a thread that adds in this step;
orange, a thread (a lane) that takes part in the step but adds nothing; light grey, nothing runs.
The loops are divergence_analysis.h's, line for line (single_block_threads, the active-thread
conditions of Figs 10.6, 10.9, 10.11 and exercise 3, count_tree_steps). With --bin, the script
first runs the built programs (which print their counts and traces before they look for a GPU)
and stops if what it draws differs from what they print: the requests of 10_06 and 10_09 at
N = 256, the active threads of every step at N = 16 (10_06, 10_09, 10_11, 10_ex3), the sums of
Figs 10.10 and 10.14 (10_11's host trace) and Fig 10.16's steps of 10_15.

--trace 10_06, 10_09 or 10_11 replays the loop of Fig 10.6, 10.9 or 10.11 for input[i] = i in
one block of the programs' size for N (default 16, Figs 10.7, 10.8 and 10.10; at most 2048): the
threads that add at every step and the array after it (for N <= 64 only), as the programs print for --values 0,1,...
(with --bin the script checks that they do, at N = 13 and 16), and stops unless the result is the
sum. Above the rows it prints the counts the program prints first (the execution-resource
efficiency, the book's global memory requests, the warps that diverge at each step; for 10_11 the
requests; with --bin checked at N = 13, 256 and 2047); --values replays the loop on the given
integers instead of input[i] = i. --trace 10_13 or 10_15 replays the kernel of Fig 10.13
(10_13_segmented_sum.cu) or Fig 10.15 (10_15_coarsened_sum.cu) on the host, statement by
statement, for input[i] = i and blocks of --block threads (the programs launch 1024): per block,
each thread's value after the load (and, for 10_15, after each tile of the coarsening loop),
input_s after each stride of the tree, and the atomicAdd its thread 0 makes. The default N is
the figure's (48: Fig 10.12's three blocks; 32: Fig 10.14's one). It checks each block's result
and the output against the plain sum.
"""
import argparse
import os
import re
import subprocess

WARP = 32
SEGMENT = 32  # floats in a 128-byte segment
# The palette of every picture of the chapter (draw_active_threads.py imports it).
ADDS = "#1f6fb4"       # a thread that adds in this step (and the element it writes)
IDLE_LANE = "#f4a582"  # a thread that takes part in the step (its lane is spent) but adds nothing
NO_WORK = "#eeeeee"    # nothing runs: a warp with no active thread, consuming nothing
SHARED = "#d9e8f5"     # an element of shared memory (input_s)
EDGE = "#444444"
CARRIED = "#999999"    # an element no thread writes in this step: its value, carried down
COLOURS = ["#1b9e77", "#7570b3", "#e7298a", "#8c564b"]  # one per warp or block, none of the above


def single_block_threads(n):
    threads = 1
    while 2 * threads < n:
        threads *= 2
    return threads


# ---- The loops (divergence_analysis.h) --------------------------------------------------------

def simple_steps(n):
    """Fig 10.6: (stride, [(thread, owner, partner), ...]) per step."""
    threads, stride = single_block_threads(n), 1
    while stride <= threads:
        yield stride, [(t, 2 * t, 2 * t + stride) for t in range(threads)
                       if t % stride == 0 and 2 * t + stride < n]
        stride *= 2


def convergent_steps(n):
    """Fig 10.9: (stride, [(thread, owner, partner), ...]) per step."""
    threads = single_block_threads(n)
    stride = threads
    while stride >= 1:
        yield stride, [(t, t, t + stride) for t in range(threads) if t < stride and t + stride < n]
        stride //= 2


def mirrored_steps(n):
    """Exercise 3: (stride, [(thread, owner, partner), ...]) per step; thread t owns
    input[n - blockDim.x + t] and adds the element `stride` to its left."""
    threads = single_block_threads(n)
    stride = threads
    while stride >= 1:
        yield stride, [(t, n - threads + t, n - threads + t - stride) for t in range(threads)
                       if t >= threads - stride and n - threads + t >= stride]
        stride //= 2


def shared_memory_steps(n):
    """Fig 10.11's tree in input_s, after the load: (stride, [(thread, owner, partner), ...])."""
    threads = single_block_threads(n)
    stride = threads // 2
    while stride >= 1:
        yield stride, [(t, t, t + stride) for t in range(threads) if t < stride]
        stride //= 2


def requests(step):
    """The book's global memory requests of one step: per warp, the 128-byte segments of its
    owners (read, then written) and of its partners (read)."""
    warps = {}
    for t, own, partner in step:
        w = warps.setdefault(t // WARP, (set(), set()))
        w[0].add(own // SEGMENT)
        w[1].add(partner // SEGMENT)
    return {w: (own, partner, 2 * len(own) + len(partner)) for w, (own, partner) in warps.items()}


def tree_steps(block):
    """count_tree_steps: one per halving of the stride from block / 2."""
    steps, stride = 0, block // 2
    while stride >= 1:
        steps, stride = steps + 1, stride // 2
    return steps


def run(bin_dir, *args):
    return subprocess.run([os.path.join(bin_dir, args[0]), *args[1:]], capture_output=True,
                          text=True).stdout


def check_against_programs(bin_dir):
    for program, steps in (("10_06_simple_sum", simple_steps), ("10_09_convergent_sum",
                                                                convergent_steps)):
        printed = re.search(r"global memory requests +(\d+)", run(bin_dir, program, "--n", "256"))
        drawn = sum(r[2] for step in steps(256) for r in requests(step[1]).values())
        if not printed or int(printed.group(1)) != drawn:
            raise SystemExit(f"{program} --n 256 prints {printed and printed.group(0)!r}, "
                             f"the drawing counts {drawn} requests")
        print(f"{program} --n 256: {drawn} requests, as drawn")
    # The traces at N = 16: the threads that add at every step, as each program prints them.
    for program, steps in (("10_06_simple_sum", simple_steps),
                           ("10_09_convergent_sum", convergent_steps),
                           ("10_11_shared_memory_sum", shared_memory_steps),
                           ("10_ex3_mirrored_sum", mirrored_steps)):
        printed = [(int(s), [int(t) for t in who.split()]) for s, who in re.findall(
            r"step \d+ \(stride (\d+)\): threads([ \d]*)\n", run(bin_dir, program, "--n", "16",
                                                                 "--trace"))]
        drawn = [(stride, [t for t, _, _ in step]) for stride, step in steps(16)]
        if printed != drawn:
            raise SystemExit(f"{program} --n 16 --trace prints the steps {printed}, drawn {drawn}")
        print(f"{program} --n 16 --trace: the threads of {len(drawn)} steps, as drawn")
    # The sums in Figs 10.10 and 10.14, as 10_11's host trace prints them: Fig 10.10's rows for
    # input[i] = i, and the tree of Fig 10.14 from its input_s (10_11's load is its stride-4 step).
    fig_10 = one_block_rows("10_13", 16, 8)
    fig_14 = one_block_rows("10_15", 32, 8, 2)
    for values, drawn in ((list(range(16)), fig_10), (fig_14[4], fig_14[5:])):
        printed = [[int(float(v)) for v in row.split()] for row in re.findall(
            r"(?:load: input_s\[t\] =|\n {20,})([ \d.-]+)\n",
            run(bin_dir, "10_11_shared_memory_sum", "--values", ",".join(map(str, values))))]
        drawn = [row[:len(values) // 2] for row in drawn]  # the input_s of 10_11's threads
        if printed != drawn:
            raise SystemExit(f"10_11_shared_memory_sum --values {values} prints {printed}, "
                             f"drawn {drawn}")
        print(f"10_11_shared_memory_sum --values {values}: {len(drawn)} rows of sums, as drawn")
    # --trace 10_06, 10_09 and 10_11: the threads and the array of every step, as each program's
    # host trace prints them for --values 0,1,...,N-1 (at N = 13, a block with some threads idle).
    for kernel in SINGLE_BLOCK:
        for n in (13, 16):
            printed = [(lbl, [int(t) for t in who.split()], [int(float(v)) for v in row.split()])
                       for lbl, who, row in re.findall(
                           r"(step \d+ \(stride \d+\)): threads([ \d]*)\n +([ \d.-]+)\n",
                           run(bin_dir, f"{kernel}_{PROGRAM[kernel]}", "--values",
                               ",".join(map(str, range(n)))))]
            drawn = [row for row in replay_single_block(kernel, n)[1] if row[0].startswith("step")]
            if printed != drawn:
                raise SystemExit(f"{kernel} --values 0..{n - 1} prints {printed}, the replay "
                                 f"{drawn}")
            print(f"{kernel} --values 0..{n - 1}: {len(drawn)} steps, as --trace {kernel} replays")
    # --trace's counts: the efficiency, requests and diverging warps each program prints first.
    for kernel in SINGLE_BLOCK:
        for n in (13, 256, 2047):
            out = run(bin_dir, f"{kernel}_{PROGRAM[kernel]}", "--n", str(n))
            efficiency, diverging, requests_ = single_block_counts(kernel, n)
            printed = (re.search(r"efficiency (\d+/\d+)", out), re.search(r"by step +([\d ]+?)   ",
                       out), re.search(r"requests +(\d+)", out))
            printed = tuple(m and m.group(1) for m in printed)
            drawn = (efficiency and f"{efficiency[0]}/{efficiency[1]}",
                     diverging and " ".join(map(str, diverging)), str(requests_))
            if printed != drawn:
                raise SystemExit(f"{kernel} --n {n} prints the counts {printed}, --trace {drawn}")
        print(f"{kernel} --n 13, 256, 2047: the counts --trace {kernel} prints")
    rows = re.findall(r"blocks? of Fig 10\.1[35].*?(\d+) +(\d+) +(\d+)\n",
                      run(bin_dir, "10_15_coarsened_sum"))[:2]
    drawn = [(2 * (1 + tree_steps(8)), 2, 2 * tree_steps(8)), (3 + tree_steps(8), 3, tree_steps(8))]
    if [tuple(map(int, r)) for r in rows] != drawn:
        raise SystemExit(f"10_15_coarsened_sum prints Fig 10.16's steps {rows}, drawn {drawn}")
    print(f"10_15_coarsened_sum: Fig 10.16's steps {drawn}, as drawn")


# ---- --trace: Figs 10.13 and 10.15 replayed on the host ---------------------------------------

def replay_blocks(kernel, n, block, coarse):
    """The kernel of 10_13 (kernel "10_13") or 10_15 ("10_15", COARSE_FACTOR coarse) for
    input[i] = i and blockDim.x = block. Yields, per block, (b, segment, rows, result): rows are
    (label, values of the block's threads) in the order the kernel makes them, result the
    input_s[0] that thread 0 adds into the output. Inputs past n count as the identity, 0."""
    def load(i):
        return i if i < n else 0
    per_block = (coarse if kernel == "10_15" else 1) * 2 * block
    for b in range((n + per_block - 1) // per_block):
        segment = per_block * b
        rows = []
        if kernel == "10_13":
            input_s = [load(segment + t) + load(segment + t + block) for t in range(block)]
            rows.append((f"load: input_s[t] = input[i] + input[i + {block}]", list(input_s)))
        else:
            total = [load(segment + t) for t in range(block)]
            rows.append(("sum = input[i]", list(total)))
            for tile in range(1, 2 * coarse):
                total = [total[t] + load(segment + t + tile * block) for t in range(block)]
                rows.append((f"tile {tile}: sum += input[i + {tile * block}]", list(total)))
            input_s = total
            rows.append(("input_s[t] = sum", list(input_s)))
        for stride, step in shared_memory_steps(2 * block):
            for _, own, partner in step:
                input_s[own] += input_s[partner]
            rows.append((f"stride {stride}: input_s[t] += input_s[t + {stride}], t < {stride}",
                         list(input_s)))
        yield b, segment, per_block, rows, input_s[0]


PROGRAM = {"10_06": "simple_sum", "10_09": "convergent_sum", "10_11": "shared_memory_sum"}
SINGLE_BLOCK = {  # the one-block figures: name, what thread t owns, the loop's steps
    "10_06": ("Fig 10.6", "input[2t]", simple_steps),
    "10_09": ("Fig 10.9", "input[t]", convergent_steps),
    "10_11": ("Fig 10.11", "input_s[t]", shared_memory_steps),
}


def replay_single_block(kernel, n, values=None):
    """The loop of 10_06, 10_09 or 10_11 for input[i] = i (or the given values), in one block of
    the programs' size (the smallest power of two of threads with 2 * threads >= n). Returns the
    rows, each (label, the threads that add, the array after the row: input, or input_s for
    10_11)."""
    values = list(range(n)) if values is None else list(values)
    total = sum(values)
    threads = single_block_threads(n)
    rows = []
    if kernel == "10_11":
        values = [values[t] + (values[t + threads] if t + threads < n else 0)
                  for t in range(threads)]
        rows.append(("load: input_s[t] = input[t] + input[t + blockDim.x]", list(range(threads)),
                     list(values)))
    for k, (stride, step) in enumerate(SINGLE_BLOCK[kernel][2](n), start=1):
        for _, own, partner in step:
            values[own] += values[partner]
        rows.append((f"step {k} (stride {stride})", [t for t, _, _ in step], list(values)))
    if values[0] != total:
        raise SystemExit(f"{kernel} at N = {n}: the replay ends in {values[0]}, not the sum")
    return threads, rows


def single_block_counts(kernel, n):
    """The counts the programs print first, from the same loops: (additions, lanes consumed) of
    the execution-resource efficiency and the warps that diverge per step (10_06 and 10_09, else
    None), and the book's global memory requests."""
    threads = single_block_threads(n)
    if kernel == "10_11":  # the load's segments, per warp and per operand, and one store
        loads = sum(len({i // SEGMENT for i in range(w, min(w + WARP, threads)) if i < n})
                    + len({(i + threads) // SEGMENT for i in range(w, min(w + WARP, threads))
                           if i + threads < n}) for w in range(0, threads, WARP))
        return None, None, loads + 1
    steps = [step for _, step in SINGLE_BLOCK[kernel][2](n)]
    additions = sum(len(step) for step in steps)
    lanes = diverge = 0
    diverging = []
    for step in steps:
        active = {}
        for t, _, _ in step:
            active[t // WARP] = active.get(t // WARP, 0) + 1
        lanes += WARP * len(active)
        diverging.append(sum(1 for w, k in active.items()
                             if k < min(WARP, threads - w * WARP)))
    requests_ = sum(r[2] for step in steps for r in requests(step).values())
    return (additions, lanes), diverging, requests_


def print_single_block_trace(kernel, n, values=None):
    threads, rows = replay_single_block(kernel, n, values)
    figure, owns, _ = SINGLE_BLOCK[kernel]
    inputs = list(range(n)) if values is None else list(values)
    print(f"{figure} on the host: N = {n}, "
          f"{'input[i] = i' if values is None else 'the given values'}, 1 block of {threads} "
          f"thread{'s' if threads > 1 else ''}; thread t owns {owns}")
    efficiency, diverging, requests_ = single_block_counts(kernel, n)
    if efficiency:
        print(f"  execution-resource efficiency {efficiency[0]}/{efficiency[1]} = "
              f"{100 * efficiency[0] / efficiency[1]:.1f}%")
    print(f"  global memory requests        {requests_}")
    if diverging:
        print(f"  warps that diverge, by step   {' '.join(map(str, diverging))}   (of "
              f"{(threads + WARP - 1) // WARP}; step 1 first)")
    width = max(4, len(str(sum(inputs))) + 1)
    if n > 64:
        print(f"  (the rows are printed for N <= 64 only; here the result is {rows[-1][2][0]})")
        return
    print("  input:  " + "".join(f"{i:>{width}}" for i in inputs))
    for label, adding, row in rows:
        print(f"  {label}: threads {' '.join(map(str, adding))}")
        print("          " + "".join(f"{v:>{width}}" for v in row))
    print(f"result in {'input_s' if kernel == '10_11' else 'input'}[0]: {rows[-1][2][0]} = "
          + ("0 + 1 + ... + " + str(n - 1) if values is None else "the sum of the input"))


def one_block_rows(kernel, n, block, coarse=1):
    """The values of a one-block replay, row by row, for the pictures of Figs 10.10 and 10.14;
    stops if the block's result is not 0 + 1 + ... + n - 1."""
    blocks = list(replay_blocks(kernel, n, block, coarse))
    if len(blocks) != 1 or blocks[0][4] != n * (n - 1) // 2:
        raise SystemExit(f"{kernel} at N = {n}: the replay does not end in one block's plain sum")
    return [values for _, values in blocks[0][3]]


def print_trace(kernel, n, block, coarse):
    blocks = list(replay_blocks(kernel, n, block, coarse))
    per_block = blocks[0][2]
    figure = {"10_13": "Fig 10.13", "10_15": "Fig 10.15"}[kernel]
    print(f"{figure} on the host: N = {n}, input[i] = i, {len(blocks)} block"
          f"{'s' if len(blocks) > 1 else ''} of {block} thread{'s' if block > 1 else ''} "
          "(the programs': 1024)")
    print((f"COARSE_FACTOR {coarse}: " if kernel == "10_15" else "")
          + f"block b reduces input[{per_block}*b .. {per_block}*b + {per_block - 1}]; "
          f"its thread t starts at i = {per_block}*b + t")
    width = max(4, len(str(n * (n - 1) // 2)) + 1)
    label = max(len(lbl) for _, _, _, rows, _ in blocks for lbl, _ in rows) + 2
    print(f"  {'thread t':<{label}}" + "".join(f"{t:>{width}}" for t in range(block)))
    output = 0
    for b, segment, _, rows, result in blocks:
        last = min(segment + per_block, n) - 1
        past = segment + per_block - n
        print(f"block {b}: input[{segment} .. {last}]"
              + (f" and {past} past N, read as 0" if past > 0 else ""))
        for lbl, values in rows:
            print(f"  {lbl:<{label}}" + "".join(f"{v:>{width}}" for v in values))
        if result != sum(range(segment, last + 1)):
            raise SystemExit(f"block {b}: input_s[0] = {result}, not the sum of its slice")
        print(f"  thread 0: atomicAdd(output, {result}): output {output} -> {output + result}")
        output += result
    if output != n * (n - 1) // 2:
        raise SystemExit(f"output {output}, not 0 + 1 + ... + {n - 1}")
    print(f"output = {output} = 0 + 1 + ... + {n - 1} (the blocks' atomicAdds land in any order; "
          "here in block order)")


# ---- Drawing helpers ------------------------------------------------------------------------

def setup():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def box(ax, x, y, text, face="white", w=0.9, h=0.7, size=8, colour="black"):
    from matplotlib.patches import Rectangle
    ax.add_patch(Rectangle((x - w / 2, y - h / 2), w, h, facecolor=face, edgecolor=EDGE,
                           linewidth=0.8))
    if text != "":
        ax.text(x, y, str(text), ha="center", va="center", fontsize=size, color=colour)


def arrow(ax, x0, y0, x1, y1, colour=EDGE, width=0.8):
    ax.annotate("", xy=(x1, y1), xytext=(x0, y0),
                arrowprops=dict(arrowstyle="->", color=colour, lw=width, shrinkA=0, shrinkB=0))


def save(fig, out, name):
    path = os.path.join(out, name)
    fig.savefig(path, dpi=100)
    print(f"wrote {path}")


# ---- Figs 10.3 and 10.5 -----------------------------------------------------------------------

def draw_sum_tree(out, maximum=False):
    """Fig 10.5's sum tree over Fig 10.3's eight values; with maximum, Fig 10.3's max tree (the
    values 10_01_sequential_reduction prints in its 'Fig 10.3 max tree' lines)."""
    plt = setup()
    values = [3, 1, 7, 0, 4, 1, 6, 3]
    combine, unit = (max, "comparison") if maximum else (lambda a, b: a + b, "adder")
    fig, ax = plt.subplots(figsize=(8, 3.6))
    level = values
    xs = [float(i) for i in range(len(values))]
    for i, v in enumerate(values):
        box(ax, xs[i], 0, v, size=10)
    ax.text(-0.9, 0, "input", ha="right", va="center", fontsize=9)
    step = 0
    while len(level) > 1:
        step += 1
        nxt = [combine(level[i], level[i + 1]) for i in range(0, len(level), 2)]
        nx = [(xs[i] + xs[i + 1]) / 2 for i in range(0, len(level), 2)]
        for j, v in enumerate(nxt):
            arrow(ax, xs[2 * j], -step + 1 - 0.35, nx[j] - 0.1, -step + 0.35)
            arrow(ax, xs[2 * j + 1], -step + 1 - 0.35, nx[j] + 0.1, -step + 0.35)
            box(ax, nx[j], -step, v, face=ADDS, size=10, colour="white")
        ax.text(-0.9, -step, f"step {step}: {len(nxt)} {unit}{'s' if len(nxt) > 1 else ''}",
                ha="right", va="center", fontsize=9)
        level, xs = nxt, nx
    if maximum:
        title = (f"Fig 10.3: a max tree over {len(values)} values: log2 {len(values)} = {step} "
                 f"steps (the sequential loop takes {len(values)}), max = {level[0]}")
    else:
        title = (f"A sum tree over {len(values)} values: log2 {len(values)} = {step} steps "
                 f"(the sequential loop takes {len(values)}), {len(values) - 1} additions in all")
    ax.set_title(title, fontsize=10)
    ax.set_xlim(-3.6, len(values) - 0.4)
    ax.set_ylim(-step - 0.6, 0.6)
    ax.axis("off")
    fig.tight_layout()
    save(fig, out, "fig_10_03_max_tree.png" if maximum else "fig_10_05_sum_tree.png")


# ---- Figs 10.7 and 10.8, with the 128-byte segments -------------------------------------------

def draw_flow(ax, title, steps, n, label="input[i] = i", face="white", first_gap=1, carry=False):
    """One row per step: the array after it, the elements written in blue with the thread that
    wrote each and the sum it now holds (input[i] = i, so the top row's indices are the values);
    an arrow from each partner to its owner. first_gap > 1 lowers the first step's row, so that
    many long arrows into it (Fig 10.8's stride 8) stay apart. carry=True also writes each
    unchanged element's value in grey and draws an arrow from the owner's own element above, so
    that every sum can be traced to its two operands (Figs 10.7 and 10.8)."""
    ys = [0] + [-(first_gap + k) for k in range(len(steps))]
    values = list(range(n))
    for i in range(n):
        box(ax, i, 0, i, size=7, face=face)
    ax.text(-0.8, 0, label, ha="right", va="center", fontsize=8)
    for row, (stride, step) in enumerate(steps, start=1):
        written = {own: t for t, own, _ in step}
        for _, own, partner in step:  # every owner and partner of one step are distinct
            values[own] += values[partner]
        for i in range(n):
            if i in written:
                box(ax, i, ys[row], f"t{written[i]}\n{values[i]}", face=ADDS, size=6.5,
                    colour="white")
            else:
                box(ax, i, ys[row], values[i] if carry else "", face=face, size=6.5,
                    colour=CARRIED if carry else "white")
        for t, own, partner in step:
            arrow(ax, partner, ys[row - 1] - 0.35, own + (0.15 if partner > own else -0.15),
                  ys[row] + 0.35, colour="#888888")
            if carry:
                arrow(ax, own, ys[row - 1] - 0.35, own, ys[row] + 0.35, colour="#888888")
        ax.text(-0.8, ys[row], f"stride {stride}", ha="right", va="center", fontsize=8)
    ax.set_title(title, fontsize=10)
    ax.set_xlim(-4, n)
    ax.set_ylim(ys[-1] - 0.6, 0.6)
    ax.axis("off")


def draw_segments(ax, title, steps):
    """N = 256: per step, the 8 segments of 128 bytes; each one a warp touches is filled with that
    warp's colour and says how many of the step's requests it accounts for (2 for the owners' load
    and store, 1 for the partners' load, 3 for both)."""
    from matplotlib.patches import Rectangle
    segments = 256 // SEGMENT
    total = 0
    for row, (stride, step) in enumerate(steps):
        y = -row
        per_warp = requests(step)
        count = sum(r[2] for r in per_warp.values())
        total += count
        for s in range(segments):
            touching = [(w, 2 * (s in own) + (s in partner))
                        for w, (own, partner, _) in sorted(per_warp.items())
                        if s in own or s in partner]
            if len(touching) > 1:
                raise SystemExit(f"stride {stride}: segment {s} is touched by several warps, "
                                 f"which this drawing cannot show: {touching}")
            face = COLOURS[touching[0][0]] if touching else "white"
            ax.add_patch(Rectangle((s, y - 0.45), 0.96, 0.9, facecolor=face, edgecolor=EDGE,
                                   linewidth=0.6))
            if touching:
                w, r = touching[0]
                ax.text(s + 0.48, y, f"w{w}: {r}", ha="center", va="center", fontsize=7,
                        color="white")
        ax.text(-0.2, y, f"stride {stride}", ha="right", va="center", fontsize=8)
        ax.text(segments + 0.2, y, f"{count} requests", ha="left", va="center", fontsize=8)
    for s in range(segments):
        ax.text(s + 0.48, 0.75, f"{s * SEGMENT}-{s * SEGMENT + SEGMENT - 1}", ha="center",
                fontsize=6.5)
    ax.set_title(f"{title}: {total} requests", fontsize=10)
    ax.set_xlim(-2.2, segments + 2.6)
    ax.set_ylim(-len(steps) + 0.3, 1.2)
    ax.axis("off")


SEGMENTS_NOTE = ("The book's request: a 128-byte segment (32 floats) that one warp's "
                 "load or store touches.\nEach step loads the owner's and the partner's element "
                 "and stores the owner's. 'w0: 3' = warp 0\ntouches this segment with 3 of the "
                 "step's requests (2 if only its owners' elements are there, 1 if only\nits "
                 "partners').")


def draw_figs_7_8(out):
    """Two pictures per kernel: its data flow at N = 16 (Fig 10.7 or 10.8), and its segments at
    N = 256 (segments_name), since the README explains the segments apart, in section 10.5."""
    plt = setup()
    from matplotlib.patches import Patch
    n = 16
    # Fig 10.8's first step has eight long arrows (stride 8): its row sits lower, the picture taller.
    for name, fig_no, kernel, owns, steps, gap, segments_name in (
            ("fig_10_07.png", "10.7", "10.6", "input[2t]", simple_steps, 1,
             "fig_10_07_segments.png"),
            ("fig_10_08.png", "10.8", "10.9", "input[t]", convergent_steps, 2,
             "fig_10_08_segments.png")):
        flow_title = f"Fig {fig_no} (kernel of Fig {kernel}), N = {n}: thread t owns {owns}"
        segments_title = f"Fig {kernel} at N = 256: the 128-byte segments each warp touches"
        fig = plt.figure(figsize=(8, 3.9 + 1.0 * (gap - 1)))
        draw_flow(fig.add_subplot(1, 1, 1), flow_title, list(steps(n)), n, first_gap=gap,
                  carry=True)
        fig.legend(handles=[Patch(color=ADDS, label="written in this step: thread tK, its sum"),
                            Patch(facecolor="white", edgecolor=EDGE,
                                  label="not written: its value, unchanged (grey)")],
                   loc="lower center", ncol=2, fontsize=8.5, frameon=False)
        fig.tight_layout(rect=(0, 0.07, 1, 1))
        save(fig, out, name)
        fig = plt.figure(figsize=(8, 6.4))
        draw_segments(fig.add_subplot(1, 1, 1), segments_title, list(steps(256)))
        fig.legend(handles=[Patch(color=COLOURS[w], label=f"warp {w} touches this segment")
                            for w in range(4)],
                   loc="lower center", ncol=2, fontsize=8.5, frameon=False)
        fig.text(0.5, 0.115, SEGMENTS_NOTE, ha="center", fontsize=8.5)
        fig.tight_layout(rect=(0, 0.22, 1, 1))
        save(fig, out, segments_name)


# ---- Fig 10.10 --------------------------------------------------------------------------------

def draw_fig_10(out):
    plt = setup()
    from matplotlib.patches import Patch
    n = 16
    threads = single_block_threads(n)
    fig, ax = plt.subplots(figsize=(12, 6.2))
    for i in range(n):
        box(ax, i, 0, i, face="white", size=7)
    ax.text(-0.8, 0, "input[i]", ha="right", va="center", fontsize=8)
    ax.text(n - 0.5, 0.75, "global memory: read once, never written", ha="right", fontsize=9)
    # The load: thread t adds input[t] and input[t + blockDim.x] on the way into input_s[t]. Each
    # written cell shows its thread and, for input[i] = i, the sum it now holds (as in Fig 10.7):
    # the replay of Fig 10.13's one block, the load's row and then one row per stride.
    sums = one_block_rows("10_13", n, threads)
    for t in range(threads):
        arrow(ax, t, -0.35, t - 0.1, -1.65, colour="#888888")
        arrow(ax, t + threads, -0.35, t + 0.15, -1.65, colour="#888888")
        box(ax, t, -2, f"t{t}\n{sums[0][t]}", face=ADDS, size=6.5, colour="white")
    ax.text(-0.8, -2, "load: input_s[t]", ha="right", va="center", fontsize=8)
    ax.text(threads + 0.2, -2, "= input[t] + input[t + blockDim.x]: every thread adds on the "
            "way in,\n   its two loads coalesced", va="center", fontsize=8)
    row = -2
    for k, (stride, step) in enumerate(shared_memory_steps(n), start=1):
        row -= 1
        written = {own: t for t, own, _ in step}
        for t in range(threads):  # as in Figs 10.7 and 10.8: an unchanged value, in grey
            box(ax, t, row, f"t{t}\n{sums[k][t]}" if t in written else sums[k][t],
                face=ADDS if t in written else SHARED, size=6.5,
                colour="white" if t in written else CARRIED)
        for t, own, partner in step:
            arrow(ax, partner, row + 1 - 0.35, own + 0.15, row + 0.35, colour="#888888")
        ax.text(-0.8, row, f"stride {stride}", ha="right", va="center", fontsize=8)
    ax.text(threads + 0.2, (row - 1) / 2 - 0.5, "the tree in shared memory: a barrier at the top "
            "of each step,\nno global memory touched", va="center", fontsize=8)
    row -= 1.3
    arrow(ax, 0, row + 1.3 - 0.35, 0, row + 0.35, colour="#888888")
    box(ax, 0, row, "*output", face="white", w=1.6, size=8)
    ax.text(1.1, row, f"thread 0: *output = input_s[0] = {sums[-1][0]}, the one store to global "
            "memory", va="center", fontsize=8)
    ax.legend(handles=[Patch(color=ADDS, label="input_s[t] written in this step (thread tK, the "
                             "sum)"),
                       Patch(color=SHARED, label="input_s, in shared memory, unchanged in this "
                             "step (its value in grey)")],
              loc="lower right", fontsize=8, frameon=False)
    ax.set_title(f"Fig 10.10 (kernel of Fig 10.11), N = {n}, {threads} threads: {n} loads and 1 "
                 "store in global memory, the partial sums in input_s", fontsize=10)
    ax.set_xlim(-4, n)
    ax.set_ylim(row - 0.6, 1.2)
    ax.axis("off")
    fig.tight_layout()
    save(fig, out, "fig_10_10_shared_memory.png")


# ---- Fig 10.12 --------------------------------------------------------------------------------

def draw_fig_12(out):
    plt = setup()
    from matplotlib.colors import to_rgba
    blocks, threads = 3, 8
    seg = 2 * threads
    fig, ax = plt.subplots(figsize=(14, 5.2))
    mid = (blocks * (seg + 2) - 2) / 2 - 0.5
    total = 0
    for b in range(blocks):
        x0 = b * (seg + 2)
        for i in range(seg):
            box(ax, x0 + i, 0, b * seg + i, face="white", size=7)
        ax.text(x0 + seg / 2 - 0.5, 0.75, f"block {b}: segment = 2 x blockDim.x x {b} = {b * seg}",
                ha="center", fontsize=9, color=COLOURS[b])
        # The first step on the way into input_s: t adds i and i + blockDim.x (input[i] = i).
        # Its 16 arrows cross; drawn faint, so that the tree below stays the picture's subject.
        s = [(b * seg + t) + (b * seg + t + threads) for t in range(threads)]
        faint = to_rgba(COLOURS[b], 0.35)
        for t in range(threads):
            arrow(ax, x0 + t + threads, -0.35, x0 + t * 2 + 0.1, -1.65, colour=faint, width=0.4)
            arrow(ax, x0 + t, -0.35, x0 + t * 2 - 0.1, -1.65, colour=faint, width=0.4)
            box(ax, x0 + t * 2, -2, s[t], face=ADDS, size=7, colour="white")
        # Fig 10.11's tree in input_s, one row per stride, every cell as in Fig 10.10: dark, the
        # cells written in that step; light with a grey value, the ones carried down unchanged.
        row = -2
        for stride, step in shared_memory_steps(seg):
            row -= 1.2
            written = {own for _, own, _ in step}
            for t, own, partner in step:
                arrow(ax, x0 + own * 2, row + 1.2 - 0.35, x0 + own * 2, row + 0.35,
                      colour=COLOURS[b], width=0.5)
                arrow(ax, x0 + partner * 2, row + 1.2 - 0.35, x0 + own * 2 + 0.1, row + 0.35,
                      colour=COLOURS[b], width=0.5)
                s[own] += s[partner]
            for c in range(threads):
                box(ax, x0 + c * 2, row, s[c], face=ADDS if c in written else SHARED, size=7,
                    colour="white" if c in written else CARRIED)
            if b == 0:
                ax.text(-1, row, f"stride {stride}", ha="right", va="center", fontsize=9)
        total += s[0]
        arrow(ax, x0, row - 0.35, mid, -6.65, colour=COLOURS[b], width=1.2)
    box(ax, mid, -7.0, "*output", face="white", w=2.4, size=9)
    ax.text(mid + 1.6, -7.0, f"thread 0 of each block: atomicAdd(output, input_s[0]), in any "
            f"order: {total} = 0 + 1 + ... + {blocks * seg - 1}", fontsize=9, va="center")
    ax.text(-1, 0, "input[i] = i", ha="right", va="center", fontsize=9)
    ax.text(-1, -2, "load: input_s", ha="right", va="center", fontsize=9)
    # Fig 10.10's colour code: dark, an input_s[t] written in the load or a step; light, one
    # unchanged in this step; white, global memory.
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(facecolor=ADDS, edgecolor=EDGE, label="input_s[t] written in this "
                             "step (the load, then each stride)"),
                       Patch(facecolor=SHARED, edgecolor=EDGE, label="input_s[t] unchanged in "
                             "this step (its value in grey)"),
                       Patch(facecolor="white", edgecolor=EDGE, label="global memory")],
              loc="lower left", fontsize=8, frameon=False)
    ax.set_title("Fig 10.12: segmented reduction, three blocks of 8 threads, a slice of 16 inputs "
                 "each, a tree per block in input_s; the atomicAdds combine the blocks",
                 fontsize=10)
    ax.set_xlim(-3.5, blocks * (seg + 2))
    ax.set_ylim(-7.5, 1.2)
    ax.axis("off")
    fig.tight_layout()
    save(fig, out, "fig_10_12_segments.png")


# ---- Fig 10.14 --------------------------------------------------------------------------------

def draw_fig_14(out):
    plt = setup()
    from matplotlib.patches import Patch
    threads, coarse = 8, 2
    tiles = 2 * coarse
    fig, ax = plt.subplots(figsize=(11, 7.2))
    for tile in range(tiles):
        for t in range(threads):
            box(ax, t, -tile, tile * threads + t, face="white", size=8)
        ax.text(-0.8, -tile, f"tile {tile}: input[{tile} x blockDim.x + t]", ha="right",
                va="center", fontsize=8)
    for t in range(threads):
        ax.text(t, 0.7, f"t{t}", ha="center", fontsize=8)
    ax.text(threads + 0.1, -(tiles - 1) / 2,
            "thread t walks down its column:\neach row is one coalesced load\nby the block's "
            "neighbouring threads", fontsize=9, va="center")
    # Each thread that adds shows the sum it now holds, for input[i] = i: the replay of Fig
    # 10.15's block (--trace 10_15), its rows the tiles, input_s[t] = sum, then the strides.
    sums = one_block_rows("10_15", tiles * threads, threads, coarse)
    y = -tiles - 0.6
    for k in range(1, tiles):
        for t in range(threads):
            box(ax, t, y, sums[k][t], face=ADDS, size=8, colour="white")
        label = "sum = tile 0 + tile 1" if k == 1 else f"sum += tile {k}"
        ax.text(-0.8, y, f"step {k}: {label}", ha="right", va="center", fontsize=8)
        y -= 1
    ax.text(threads + 0.1, y + (tiles - 1) / 2 + 0.5, "every thread adds, in its own register:\n"
            "no barrier, no shared memory", fontsize=9, va="center")
    stride, step, top = threads // 2, tiles, y
    while stride >= 1:
        for t in range(threads):
            box(ax, t, y, sums[step + 1][t] if t < stride else "",
                face=ADDS if t < stride else IDLE_LANE, size=8, colour="white")
        ax.text(-0.8, y, f"step {step}: stride {stride}", ha="right", va="center", fontsize=8)
        y, stride, step = y - 1, stride // 2, step + 1
    ax.text(threads + 0.1, (top + y + 1) / 2, "input_s[t] = sum, then the tree of Fig 10.13:\n"
            "a barrier and shared memory each step,\nhalf the threads fewer each step", fontsize=9,
            va="center")
    ax.legend(handles=[Patch(color=ADDS, label="thread adds in this step (its sum, for input[i] = "
                             "i)"),
                       Patch(color=IDLE_LANE, label="thread idle in this step (its lane is "
                             "spent: the 8 threads are one warp)")],
              loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize=8, frameon=False)
    ax.set_title(f"Fig 10.14: one block of {threads} threads coarsened by {coarse}: "
                 f"{tiles * threads} inputs in {tiles} tiles of blockDim.x, {tiles - 1} steps with "
                 f"every thread busy, then {tree_steps(threads)} in the tree", fontsize=10)
    ax.set_xlim(-5.6, threads + 4.2)
    ax.set_ylim(y + 0.4, 1.2)
    ax.axis("off")
    fig.tight_layout()
    save(fig, out, "fig_10_14_coarsening.png")


# ---- Fig 10.16 --------------------------------------------------------------------------------

def block_steps(threads, inputs_per_thread):
    """(kind, threads busy) per step: the adds in registers or on the way in, then the tree."""
    steps = [("busy", threads)] * (inputs_per_thread - 1)
    stride = threads // 2
    while stride >= 1:
        steps.append(("tree", stride))
        stride //= 2
    return steps


def draw_fig_16(out):
    plt = setup()
    from matplotlib.patches import Patch, Rectangle
    threads, coarse = 8, 2
    rows = [("A: 2 blocks of Fig 10.13,\none after the other",
             block_steps(threads, 2) + block_steps(threads, 2)),
            ("B: 1 block of Fig 10.15,\nCOARSE_FACTOR 2", block_steps(threads, 2 * coarse))]
    fig, ax = plt.subplots(figsize=(11, 3.6))
    for r, (label, steps) in enumerate(rows):
        y = -r * 1.4
        for s, (kind, busy) in enumerate(steps):
            ax.add_patch(Rectangle((s, y), 0.94, 1.0, facecolor=IDLE_LANE, edgecolor=EDGE,
                                   linewidth=0.6))
            ax.add_patch(Rectangle((s, y), 0.94, busy / threads, facecolor=ADDS, linewidth=0))
            if kind == "tree":
                ax.add_patch(Rectangle((s, y), 0.94, 1.0, facecolor="none", edgecolor=EDGE,
                                       hatch="///", linewidth=0.6))
            ax.text(s + 0.47, y + 1.08, f"{busy}/{threads}", ha="center", fontsize=7)
        n_busy = sum(k == "busy" for k, _ in steps)
        ax.text(-0.3, y + 0.5, label, ha="right", va="center", fontsize=9)
        ax.text(len(steps) + 0.2, y + 0.5,
                f"{len(steps)} steps: {n_busy} with every thread busy,\n"
                f"{len(steps) - n_busy} in the tree (barrier, shared memory)", va="center",
                fontsize=9)
    ax.set_xlim(-3.2, 14)
    ax.set_ylim(-1.6, 1.4)
    ax.axis("off")
    ax.legend(handles=[Patch(color=ADDS, label="threads adding (the height: how many of 8)"),
                       Patch(color=IDLE_LANE, label="threads idle: the step is spent anyway"),
                       Patch(facecolor="white", edgecolor=EDGE, hatch="///",
                             label="tree step: a barrier and shared memory")],
              loc="lower center", bbox_to_anchor=(0.5, -0.34), ncol=3, fontsize=8, frameon=False)
    ax.set_title("Fig 10.16: the same 32 inputs, blocks of 8 threads; time goes right, one column "
                 "per step", fontsize=10)
    fig.tight_layout()
    save(fig, out, "fig_10_16_timeline.png")


# ---- Exercise 3 -------------------------------------------------------------------------------

def draw_ex3(out):
    plt = setup()
    from matplotlib.patches import Patch
    n = 16
    fig, ax = plt.subplots(figsize=(8.5, 3.9))
    draw_flow(ax, f"Exercise 3 (Fig 10.9 mirrored), N = {n}: thread t owns input[N - blockDim.x "
              "+ t];\nthe active threads stay at the top of the block, the sum ends in input[15]",
              list(mirrored_steps(n)), n, carry=True)
    fig.legend(handles=[Patch(color=ADDS, label="written in this step: thread tK, its sum"),
                        Patch(facecolor="white", edgecolor=EDGE,
                              label="not written: its value, unchanged (grey)")],
               loc="lower center", ncol=2, fontsize=8.5, frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    save(fig, out, "ex3_mirrored.png")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", help="folder for the pictures (made if missing)")
    p.add_argument("--bin", help="folder of the built programs, to check the counts against")
    p.add_argument("--trace", nargs="+", choices=[*SINGLE_BLOCK, "10_13", "10_15"],
                   help="replay the kernel of Fig 10.6, 10.9, 10.11, 10.13 or 10.15 on the host, "
                   "and draw nothing")
    p.add_argument("--n", type=int, help="with --trace: N, 1 to 4096, or to 2048 for the one-block "
                   "kernels 10_06, 10_09 and 10_11, whose rows are printed for N <= 64 only "
                   "(default: the figure's)")
    p.add_argument("--block", type=int, choices=[1, 2, 4, 8, 16],
                   help="with --trace 10_13 or 10_15: threads per block (default 8, the book's; "
                   "the one-block kernels take the programs' size for N)")
    p.add_argument("--values", type=lambda v: [int(x) for x in v.split(",")],
                   help="with --trace 10_06, 10_09 or 10_11: integers to replay the loop on, "
                   "comma-separated (at most 64), instead of input[i] = i")
    p.add_argument("--coarse", type=int, choices=[1, 2, 4, 8, 16, 32, 64],
                   help="with --trace 10_15: COARSE_FACTOR (default 2, the book's)")
    args = p.parse_args()
    if args.trace:
        if args.out or args.bin:
            p.error("--trace draws nothing: it takes no --out or --bin")
        if args.n is not None and not 1 <= args.n <= 4096:
            p.error("--n must be 1 to 4096")
        if args.n is not None and args.n > 2048 and any(k in SINGLE_BLOCK for k in args.trace):
            p.error("--trace 10_06, 10_09 and 10_11 need --n <= 2048 (one block)")
        if args.values is not None and (args.n is not None or not 1 <= len(args.values) <= 64
                                        or any(k not in SINGLE_BLOCK for k in args.trace)):
            p.error("--values (1 to 64 integers) goes with --trace 10_06, 10_09 or 10_11, "
                    "without --n")
        for kernel in args.trace:
            if kernel in SINGLE_BLOCK:
                n = len(args.values) if args.values is not None else args.n or 16
                print_single_block_trace(kernel, n, args.values)
            else:
                print_trace(kernel, args.n or {"10_13": 48, "10_15": 32}[kernel], args.block or 8,
                            args.coarse or 2)
        return
    if args.n or args.block or args.coarse or args.values:
        p.error("--n, --values, --block and --coarse go with --trace")
    if not args.out:
        p.error("give --out (to draw the pictures) or --trace (to replay a kernel)")
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        p.error(f"cannot create the folder '{args.out}': {e.strerror}")
    if args.bin:
        check_against_programs(args.bin)
    # The counts need no matplotlib: checked before it is looked for.
    try:
        setup()
    except ImportError:
        print("matplotlib is not installed: pictures skipped (pip install matplotlib)")
        return
    draw_sum_tree(args.out, maximum=True)
    draw_sum_tree(args.out)
    draw_figs_7_8(args.out)
    draw_fig_10(args.out)
    draw_fig_12(args.out)
    draw_fig_14(args.out)
    draw_fig_16(args.out)
    draw_ex3(args.out)


if __name__ == "__main__":
    main()
