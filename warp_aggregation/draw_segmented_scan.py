#!/usr/bin/env python3
"""Draws the warp segmented scan of 03 (segmented_scan_kernel<4>) on the first lanes of one tile
(one warp's 32 lanes of 4 elements).

    python3 warp_aggregation/draw_segmented_scan.py --png warp_aggregation/segmented_scan.png

The tile is the first of 03's sorted keys at its default 10 particles per cell (key = i / 10),
4 elements a lane, with quarter_values<double> (seed 1235: the default seed + 1). The steps follow
the kernel: each lane sums the part of its last run that reaches its end (`tail`) and says whether
a run starts in it; a segmented inclusive scan of `tail` over the lanes, a segment starting at
each lane where a run starts, with rounds at offsets 1, 2, 4, ... up to the warp's longest
distance from a lane to its segment's start; then each lane takes what the lanes before carry into
its first run (the tail of the lane before, after the scan) and adds its own part of that run,
and the last element of every run adds the run's sum to its bin with one atomicAdd. --check runs
the whole warp of 32 lanes and prints each atomic, and checks that they sum every key's values.
"""
import argparse

from draw_get_peers import splitmix64

WARP, ITEMS, PER_CELL, SEED, SHOWN = 32, 4, 10, 1234, 8


def values(n, seed):
    """warp_agg.h's quarter_values."""
    out, state = [], seed
    for _ in range(n):
        state, z = splitmix64(state)
        out.append(0.25 * (1 + z % 16))
    return out


def segmented_scan(keys, vals):
    """The kernel on one tile: per lane its tail before the scan, whether a run starts in it, the
    tail after each round {offset: [tail]}, the carry, and the atomics [(lane, element, key, sum,
    carried)], carried being what the lanes before gave the run (None for a run that starts in
    the lane)."""
    lane_keys = [keys[l * ITEMS:(l + 1) * ITEMS] for l in range(WARP)]
    lane_vals = [vals[l * ITEMS:(l + 1) * ITEMS] for l in range(WARP)]
    starts_run = [l == 0 or lane_keys[l][0] != lane_keys[l - 1][-1] for l in range(WARP)]
    goes_on = [l != WARP - 1 and lane_keys[l][-1] == lane_keys[l + 1][0] for l in range(WARP)]
    has_start, tail = [], []
    for l in range(WARP):
        start, t = starts_run[l], lane_vals[l][0]
        for j in range(1, ITEMS):
            if lane_keys[l][j] != lane_keys[l][j - 1]:
                start, t = True, 0.0
            t += lane_vals[l][j]
        has_start.append(start)
        tail.append(t)
    first = [max(s for s in range(l + 1) if has_start[s]) for l in range(WARP)]
    longest = max(l - first[l] for l in range(WARP))
    before, rounds, offset = list(tail), {}, 1
    while offset <= longest:
        up = [tail[l - offset] if l >= offset else tail[l] for l in range(WARP)]  # __shfl_up_sync
        tail = [tail[l] + up[l] if l >= first[l] + offset else tail[l] for l in range(WARP)]
        rounds[offset] = list(tail)
        offset *= 2
    carry = [tail[l - 1] if l >= 1 else tail[l] for l in range(WARP)]
    atomics = []
    for l in range(WARP):
        run = 0.0 if starts_run[l] else carry[l]
        carried = None if starts_run[l] else carry[l]
        for j in range(ITEMS):
            if j > 0 and lane_keys[l][j] != lane_keys[l][j - 1]:
                run, carried = 0.0, None
            run += lane_vals[l][j]
            ends = lane_keys[l][j + 1] != lane_keys[l][j] if j < ITEMS - 1 else not goes_on[l]
            if ends:
                atomics.append((l, l * ITEMS + j, lane_keys[l][j], run, carried))
    return before, has_start, first, rounds, carry, atomics


def tile():
    keys = [i // PER_CELL for i in range(WARP * ITEMS)]
    return keys, values(WARP * ITEMS, SEED + 1)


def draw(png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, Rectangle

    keys, vals = tile()
    before, has_start, first, rounds, carry, atomics = segmented_scan(keys, vals)
    palette = plt.get_cmap("Set3").colors
    w = ITEMS  # a lane is ITEMS element cells wide
    rows = (["keys", "values", "tail"] + [f"scan, offset {o}" for o in rounds]
            + ["carried in\n+ own part", "atomicAdd"])
    gap = 1.7
    fig, ax = plt.subplots(figsize=(9.5, 8))
    fig.subplots_adjust(left=0.01, right=0.99)  # the cells fill the width; bbox_inches crops

    def y_of(row):
        return (len(rows) - 1 - row) * gap

    def box(x, row, width, face, text, bold=False, edge="white", lw=1.0, size=7):
        ax.add_patch(Rectangle((x, y_of(row)), width, 1, facecolor=face, edgecolor=edge, lw=lw))
        ax.text(x + width / 2, y_of(row) + 0.5, text, ha="center", va="center", fontsize=size,
                fontweight="bold" if bold else "normal")

    for l in range(SHOWN):
        key_of_tail = keys[l * ITEMS + ITEMS - 1]
        for j in range(ITEMS):
            i = l * ITEMS + j
            box(l * w + j, 0, 1, palette[keys[i] % 12], str(keys[i]))
            box(l * w + j, 1, 1, palette[keys[i] % 12], f"{vals[i]:g}", size=6.5)
        # The lane's frame, and a start mark where a run starts in it.
        for row in (0, 1):
            ax.add_patch(Rectangle((l * w, y_of(row)), w, 1, fill=False, edgecolor="black",
                                   lw=1.2))
        if has_start[l]:
            ax.text(l * w + 0.15, y_of(0) + 1.05, "▼ start", fontsize=6.5, color="black")
        box(l * w + 0.3, 2, w - 0.6, palette[key_of_tail % 12], f"{before[l]:g}",
            edge="black" if has_start[l] else "white", lw=1.8 if has_start[l] else 1.0)
        for r, (offset, tail) in enumerate(rounds.items()):
            row = 3 + r
            adds = l >= first[l] + offset
            box(l * w + 0.3, row, w - 0.6, palette[key_of_tail % 12], f"{tail[l]:g}", bold=adds)
            if adds:
                ax.add_patch(FancyArrowPatch(((l - offset) * w + w / 2, y_of(row - 1)),
                                             (l * w + w / 2, y_of(row) + 1), arrowstyle="-|>",
                                             mutation_scale=8, lw=0.9, color="0.25", zorder=3))
    atomic_row, run_row, last_scan = len(rows) - 1, len(rows) - 2, 2 + len(rounds)
    for lane, element, key, total, carried in atomics:
        if lane >= SHOWN:
            continue
        # The run's sum: what the lanes before carry in (the tail of the lane before, after the
        # scan: arrow), plus this lane's own part of the run.
        own = total - (carried or 0.0)
        text = f"{carried:g} + {own:g}" if carried is not None else f"{own:g}"
        box(lane * w + 0.3, run_row, w - 0.6, palette[key % 12], text, bold=True)
        if carried is not None:
            ax.add_patch(FancyArrowPatch(((lane - 1) * w + w / 2, y_of(last_scan)),
                                         (lane * w + w / 2, y_of(run_row) + 1), arrowstyle="-|>",
                                         mutation_scale=8, lw=0.9, color="0.25", zorder=3))
        box(element, atomic_row, 1, palette[key % 12], "", edge="black", lw=1.2)
        ax.text(element + 0.5, y_of(atomic_row) - 0.25, f"bin {key}\n+= {total:g}", ha="center",
                va="top", fontsize=7, fontweight="bold")
    for row, label in enumerate(rows):
        ax.text(-0.5, y_of(row) + 0.5, label, ha="right", va="center", fontsize=8)
    for l in range(SHOWN):
        ax.text(l * w + w / 2, y_of(0) + 1.5, f"lane {l}", ha="center", fontsize=8, color="gray")
    ax.set_xlim(-5, SHOWN * w + 0.2)
    ax.set_ylim(-1.6, y_of(0) + 2.0)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(
        f"The warp segmented scan on 03's sorted keys ({PER_CELL} per key, {ITEMS} a lane): "
        f"lanes 0-{SHOWN - 1} of the first warp.\n`tail`: the part of a lane's last run that "
        "reaches its end (outlined where a run starts in the lane).\nEach scan round adds the "
        "tail of the lane `offset` below (arrow) when that lane is in the same segment.\nA run "
        "that began in an earlier lane takes what the lanes before carry in (the tail of the lane "
        "before,\nafter the scan) and adds its own part; the run's last element adds the sum "
        "with one atomicAdd.", fontsize=9.5)
    fig.savefig(png, dpi=100, bbox_inches="tight")  # about 950 px: a README column
    print(f"wrote {png}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--png", default="segmented_scan.png")
    parser.add_argument("--check", action="store_true",
                        help="print the whole warp's atomics and check them against every key's sum")
    args = parser.parse_args()
    if args.check:
        keys, vals = tile()
        before, has_start, first, rounds, carry, atomics = segmented_scan(keys, vals)
        print(f"rounds: {list(rounds)}; atomics ({len(atomics)}):")
        sums = {}
        for lane, element, key, total, _ in atomics:
            print(f"  lane {lane:2d} element {element:3d}: bin {key} += {total:g}")
            sums[key] = sums.get(key, 0.0) + total
        want = {}
        for k, v in zip(keys, vals):
            want[k] = want.get(k, 0.0) + v
        print("every key's values summed exactly" if sums == want else f"WRONG: {sums} != {want}")
        return
    draw(args.png)


if __name__ == "__main__":
    main()
