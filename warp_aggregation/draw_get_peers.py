#!/usr/bin/env python3
"""Draws one warp's get_peers loop, round by round, beside __match_any_sync's single step.

    python3 warp_aggregation/draw_get_peers.py --png warp_aggregation/get_peers.png

The keys are the programs' own: the first warp of warp_agg.h's '8 keys' pattern (splitmix64 % 8,
the programs' default seed 1234), which is what `01_get_peers --trace` prints first for that
pattern. The rounds follow warp_peers.cuh's get_peers: the leader is the lowest unclaimed lane
(__ffs(unclaimed) - 1), __shfl_sync broadcasts its key, __ballot_sync collects the lanes holding
it (their peer mask), and they leave the pool (unclaimed ^= peers). --check prints the rounds as
01's trace does (the GPU's is in data/traces.txt; readme_numbers_test.py checks that the two are the
same). --keys "0 0 1 1 ..." prints the same table for keys of your own, one per lane (1 to 32 lanes:
fewer is a last warp's active lanes), and the number of rounds.
"""
import argparse

SEED, WARP, KEY_RANGE = 1234, 32, 8
MASK64 = (1 << 64) - 1


def splitmix64(state):
    """common::splitmix64: returns (the new state, the output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def eight_keys(n, seed):
    """warp_agg.h's pattern_keys(Pattern::kEightKeys, n, seed)."""
    keys, state = [], seed
    for _ in range(n):
        state, z = splitmix64(state)
        keys.append(z % KEY_RANGE)
    return keys


def get_peers_rounds(keys):
    """[(leader, peers, unclaimed before)], one per distinct key, as warp_peers.cuh's loop runs."""
    unclaimed = (1 << len(keys)) - 1
    rounds = []
    while unclaimed:
        leader = (unclaimed & -unclaimed).bit_length() - 1
        peers = sum(1 << lane for lane in range(len(keys))
                    if unclaimed >> lane & 1 and keys[lane] == keys[leader])
        rounds.append((leader, peers, unclaimed))
        unclaimed ^= peers
    return rounds


def parse_keys(text):
    """The integers of --keys, one per lane: 1 to 32 of them."""
    try:
        keys = [int(word) for word in text.replace(",", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--keys takes integers: {text!r}")
    if not 1 <= len(keys) <= WARP:
        raise argparse.ArgumentTypeError(f"--keys takes 1 to {WARP} keys, one per lane, "
                                         f"not {len(keys)}")
    return keys


def print_rounds(keys, title):
    """The rounds as 01_get_peers --trace prints them."""
    print(title)
    print("  keys     " + " ".join(map(str, keys)))
    label = "peers (ballot)" if len(keys) >= 14 else "peers"
    print(f"  round leader key   {label:<{len(keys)}}  unclaimed after")
    rounds = get_peers_rounds(keys)
    for r, (leader, peers, unclaimed) in enumerate(rounds):
        print(f"  {r:<5} {leader:<6} {keys[leader]:<4}  {lanes(peers, len(keys))}  "
              f"{lanes(unclaimed ^ peers, len(keys))}")
    return rounds


def lanes(mask, n=WARP):
    return "".join("1" if mask >> lane & 1 else "." for lane in range(n))


def draw(png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    keys = eight_keys(WARP, SEED)
    rounds = get_peers_rounds(keys)
    palette = plt.get_cmap("Set3").colors  # no grey among the first 8
    fig, ax = plt.subplots(figsize=(9.5, 8))
    fig.subplots_adjust(left=0.01, right=0.99)  # the cells fill the width; bbox_inches crops
    rows = len(rounds) + 2  # the keys, the rounds, __match_any_sync

    def cell(lane, row, face, text="", edge="white", lw=1.0, bold=False, alpha=1.0):
        y = rows - 1 - row
        ax.add_patch(Rectangle((lane, y), 1, 1, facecolor=face, edgecolor=edge, lw=lw,
                               alpha=alpha))
        if text:
            ax.text(lane + 0.5, y + 0.5, text, ha="center", va="center", fontsize=8,
                    fontweight="bold" if bold else "normal")

    for lane, key in enumerate(keys):
        cell(lane, 0, palette[key], str(key))
    ax.text(-0.4, rows - 0.5, "key of each lane", ha="right", va="center", fontsize=8)
    for r, (leader, peers, unclaimed) in enumerate(rounds):
        row = r + 1
        for lane, key in enumerate(keys):
            if peers >> lane & 1:  # matched this round: its peer mask is the ballot
                cell(lane, row, palette[key], str(key), bold=lane == leader)
            elif unclaimed >> lane & 1:  # still in the loop, another key
                cell(lane, row, "#f2f2f2", str(key))
            else:  # left in an earlier round
                cell(lane, row, "white")
        ax.add_patch(Rectangle((leader, rows - 1 - row), 1, 1, fill=False, edgecolor="black",
                               lw=2.2, zorder=3))
        ax.text(-0.4, rows - row - 0.5, f"round {r}: leader lane {leader}, key {keys[leader]}",
                ha="right", va="center", fontsize=8)
    for lane, key in enumerate(keys):
        cell(lane, rows - 1, palette[key], str(key), alpha=0.85)
    ax.text(-0.4, 0.5, "__match_any_sync: one step", ha="right", va="center", fontsize=8)
    for lane in range(WARP):
        ax.text(lane + 0.5, rows + 0.25, str(lane), ha="center", va="bottom", fontsize=7.5,
                color="gray")
    ax.text(WARP / 2, rows + 0.9, "lane", ha="center", fontsize=8, color="gray")
    ax.set_xlim(-9, WARP + 0.2)
    ax.set_ylim(-0.2, rows + 1.4)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"get_peers on the first warp of the '8 keys' pattern (keys from 8 values, "
                 f"seed {SEED}):\n{len(rounds)} rounds, one per distinct key. Each round, the "
                 "leader (outlined: the lowest lane\nstill in the loop) broadcasts its key; the "
                 "lanes holding it (coloured) take the ballot as their\npeer mask and leave the "
                 "loop. Grey: still in the loop; white: already left.", fontsize=9.5)
    fig.savefig(png, dpi=100, bbox_inches="tight")  # about 950 px: a README column
    print(f"wrote {png}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--png", default="get_peers.png")
    parser.add_argument("--check", action="store_true",
                        help="print the rounds as 01_get_peers --trace does instead of drawing")
    parser.add_argument("--keys", type=parse_keys, metavar='"K0 K1 ..."',
                        help="print the rounds for these keys, one per lane, instead of drawing")
    args = parser.parse_args()
    if args.check:
        print_rounds(eight_keys(WARP, SEED),
                     "get_peers, round by round, first warp of '8 keys' (lane 0 on the left)")
        return
    if args.keys:
        rounds = print_rounds(args.keys, "get_peers, round by round, your keys (lane 0 on the "
                              "left)")
        print(f"{len(rounds)} rounds: one per distinct key")
        return
    draw(args.png)


if __name__ == "__main__":
    main()
