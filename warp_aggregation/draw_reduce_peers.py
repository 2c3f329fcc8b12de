#!/usr/bin/env python3
"""Draws reduce_peers on one warp: the tree inside every peer group at once, indexed by rel_pos.

    python3 warp_aggregation/draw_reduce_peers.py --png warp_aggregation/reduce_peers.png

The warp is the first of warp_agg.h's '8 keys' pattern (keys splitmix64 % 8, values
quarter_values<float> with seed + 1, the programs' default seed 1234): what `02_reduce_peers
--trace` prints for that pattern. The rounds follow warp_peers.cuh's reduce_peers: rel_pos is the
number of a lane's peers below it; in round i every lane adds the partial sum of its next-higher
remaining peer, then the lanes whose rel_pos has bit i set are reduced away. Only the lanes that
still hold a partial sum are drawn after each round. Two groups are drawn in colour with their
additions as arrows (the largest, which takes every round, and another); the others run the same
tree at the same time, faded, their numbers and arrows left out. An arrow longer than 4 lanes
runs down, across and down, each at its own height, so that two long arrows never overlap.
--check prints the table 02's --trace prints for this warp, dots and result column included (the
GPU's is in data/traces.txt; readme_numbers_test.py checks that the two are the same).
--keys "0 0 1 1 ..." prints the same table for keys of your own, one per lane (1 to 32 lanes), with
the programs' values for the first lanes, and the number of rounds.
"""
import argparse

from draw_get_peers import SEED, WARP, eight_keys, parse_keys, splitmix64

FADED = "#ececec"  # the face of a lane whose group is not highlighted


def quarter_values(n, seed):
    """warp_agg.h's quarter_values: 0.25 * (1 + splitmix64 % 16)."""
    values, state = [], seed
    for _ in range(n):
        state, z = splitmix64(state)
        values.append(0.25 * (1 + z % 16))
    return values


def reduce_peers(keys, values):
    """[x after each round], [rel_pos], [(round, lane, source lane)]: warp_peers.cuh's loop. Every
    lane adds its next-higher remaining peer's value, whether or not it has been reduced away; the
    additions returned are those of the lanes still holding a partial sum after the round."""
    n = len(keys)
    peers = [sum(1 << j for j in range(n) if keys[j] == keys[lane]) for lane in range(n)]
    rel_pos = [bin(peers[lane] & ((1 << lane) - 1)).count("1") for lane in range(n)]
    above = [peers[lane] & (0xFFFFFFFE << lane) & 0xFFFFFFFF for lane in range(n)]
    pos = list(rel_pos)
    x = list(values)
    rounds, adds, r = [], [], 0
    while any(above):
        nxt = [(m & -m).bit_length() if m else 0 for m in above]  # __ffs: 1-based, 0 for none
        x = [x[lane] + x[nxt[lane] - 1] if nxt[lane] else x[lane] for lane in range(n)]
        done = sum(1 << lane for lane in range(n) if pos[lane] & 1)
        adds += [(r, lane, nxt[lane] - 1) for lane in range(n)
                 if nxt[lane] and rel_pos[lane] % (2 << r) == 0]
        above = [m & ~done for m in above]
        pos = [p >> 1 for p in pos]
        rounds.append(x)
        r += 1
    return rounds, rel_pos, adds


def trace(keys, values, what="first warp of '8 keys'"):
    """The lines 02_reduce_peers --trace prints for this warp: after each round, the partial sum
    of every lane that still holds one, a dot for a lane already reduced away (what such a lane
    goes on computing is never used); then the group's sum, which the last shuffle gives every
    peer, and the first peer marked."""
    rounds, rel_pos, _ = reduce_peers(keys, values)
    sums = {key: sum(v for k, v in zip(keys, values) if k == key) for key in keys}
    lines = [f"reduce_peers, round by round, {what} ({len(rounds)} rounds; x after each)",
             "  lane  key  rel_pos  value" + "".join(f"  round {r}" for r in range(len(rounds)))
             + "  result"]
    for lane in range(len(keys)):
        cells = "".join(f"  {x[lane]:7.2f}" if rel_pos[lane] % (2 << r) == 0 else f"  {'.':>7}"
                        for r, x in enumerate(rounds))
        lines.append(f"  {lane:4d} {keys[lane]:4d} {rel_pos[lane]:8d} {values[lane]:6.2f}{cells}"
                     f"  {sums[keys[lane]]:6.2f}" + ("  <- first" if rel_pos[lane] == 0 else ""))
    return lines


def draw(png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, Rectangle
    from matplotlib.path import Path

    keys = eight_keys(WARP, SEED)
    values = quarter_values(WARP, SEED + 1)
    rounds, rel_pos, adds = reduce_peers(keys, values)
    palette = plt.get_cmap("Set3").colors  # the colours of get_peers.png: a key, a colour
    # The highlighted groups: the largest (every round) and the lowest lane's.
    largest = max(sorted(set(keys)), key=keys.count)
    shown = {largest, keys[0] if keys[0] != largest else keys[1]}

    def face(key):
        return palette[key] if key in shown else FADED
    rows = len(rounds) + 2  # the keys and rel_pos, the values, the rounds
    gap = 1.6  # vertical distance between two rows: room for the arrows
    fig, ax = plt.subplots(figsize=(9.5, 7.2))  # about 950 px, as the chapter's other figures
    fig.subplots_adjust(left=0.01, right=0.99)  # the cells fill the width; bbox_inches crops

    def y_of(row):
        return (rows - 1 - row) * gap

    def cell(lane, row, text, bold=False, edge="white", lw=1.0):
        key = keys[lane]
        ax.add_patch(Rectangle((lane, y_of(row)), 1, 1, facecolor=face(key), edgecolor=edge, lw=lw))
        # The highlighted groups' numbers only; the others' cells stay empty, to be read past.
        if key in shown:
            ax.text(lane + 0.5, y_of(row) + 0.5, text, ha="center", va="center",
                    fontsize=6.5 if bold else 8, fontweight="bold" if bold else "normal")

    for lane, key in enumerate(keys):
        cell(lane, 0, f"{key}\n{rel_pos[lane]}")
        cell(lane, 1, f"{values[lane]:g}")
    ax.text(-0.4, y_of(0) + 0.5, "key\nrel_pos", ha="right", va="center", fontsize=9)
    ax.text(-0.4, y_of(1) + 0.5, "value", ha="right", va="center", fontsize=9)
    for r, x in enumerate(rounds):
        row = r + 2
        for lane, key in enumerate(keys):
            if rel_pos[lane] % (2 << r) == 0:  # still holds a partial sum
                last = r == len(rounds) - 1  # each lane left is a first peer: its group's sum
                mark = last and key in shown
                cell(lane, row, f"{x[lane]:g}", bold=mark, edge="black" if mark else "white",
                     lw=1.8 if mark else 1.0)
        ax.text(-0.4, y_of(row) + 0.5, f"round {r}", ha="right", va="center", fontsize=9)
    def darker(color):
        return tuple(0.55 * c for c in color)

    drawn = [(r, lane, source) for r, lane, source in adds if keys[lane] in shown]
    for r, lane, source in drawn:
        start, end = (source + 0.5, y_of(r + 1)), (lane + 0.5, y_of(r + 2) + 1)
        # The round's long arrows, longest first, each across at its own height in the gap.
        long = sorted((s - t for q, t, s in drawn if q == r and s - t > 4), reverse=True)
        if source - lane > 4:
            k = long.index(source - lane)
            drop = (gap - 1) * (k + 1) / (len(long) + 1)
            path = Path([start, (start[0], start[1] - drop), (end[0], start[1] - drop), end])
            arrow = FancyArrowPatch(path=path, arrowstyle="-|>", mutation_scale=7, lw=0.9,
                                    color=darker(palette[keys[lane]]), zorder=3)
        else:
            arrow = FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=7, lw=0.9,
                                    color=darker(palette[keys[lane]]), zorder=3)
        ax.add_patch(arrow)
    for r in range(len(rounds)):  # a lane that keeps its partial sum: a thin line
        for lane in range(WARP):
            if rel_pos[lane] % (2 << r) == 0:
                ax.plot([lane + 0.5, lane + 0.5], [y_of(r + 1), y_of(r + 2) + 1], color="0.75",
                        lw=0.6, zorder=1)
    for lane in range(WARP):
        ax.text(lane + 0.5, y_of(0) + 1.15, str(lane), ha="center", va="bottom", fontsize=8,
                color="gray")
    ax.text(WARP / 2, y_of(0) + 1.6, "lane", ha="center", fontsize=9, color="gray")
    ax.set_xlim(-3.6, WARP + 0.2)
    ax.set_ylim(-0.3, y_of(0) + 2.0)
    # Cells 1.6 times as tall as wide: room for numbers legible at the page's width.
    ax.set_aspect(1.6)
    ax.axis("off")
    # The explanation of the rounds is the README's caption; the title names the warp only.
    ax.set_title(
        f"reduce_peers on the first warp of '8 keys' (seed {SEED}): {len(rounds)} rounds for a "
        f"largest group of {max(keys.count(k) for k in keys)} lanes;\nkeys {min(shown)} and "
        f"{max(shown)} in colour, the other groups in grey; an empty slot: that lane's sum has gone "
        "to a lower peer", fontsize=11)
    fig.savefig(png, dpi=100, bbox_inches="tight")  # about 950 px
    print(f"wrote {png}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--png", default="reduce_peers.png")
    parser.add_argument("--check", action="store_true",
                        help="print the table 02_reduce_peers --trace prints for this warp")
    parser.add_argument("--keys", type=parse_keys, metavar='"K0 K1 ..."',
                        help="print the table for these keys, one per lane, instead of drawing")
    args = parser.parse_args()
    if args.check:
        print("\n".join(trace(eight_keys(WARP, SEED), quarter_values(WARP, SEED + 1))))
        return
    if args.keys:
        print("\n".join(trace(args.keys, quarter_values(len(args.keys), SEED + 1), "your keys")))
        largest = max(args.keys.count(k) for k in args.keys)
        rounds = len(reduce_peers(args.keys, [0.0] * len(args.keys))[0])
        print(f"{rounds} rounds: ceil(log2 {largest}), for the largest group's {largest} "
              f"lane{'s' if largest > 1 else ''}")
        return
    draw(args.png)


if __name__ == "__main__":
    main()
