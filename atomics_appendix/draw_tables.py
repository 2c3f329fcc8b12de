#!/usr/bin/env python3
"""Draws the appendix's three table layouts holding the same keys, one picture each: the book's
chained table (A2-A4, tables_chained.png), open addressing with linear probing (A5,
tables_open.png), and A5's slots read a bucket of four at a time (A6, tables_bucketed.png);
the slots in one row, as wide as the chained picture.

    python3 atomics_appendix/draw_tables.py --out atomics_appendix

The keys are the programs' own: keys.h's random_keys (splitmix64, the top 32 bits, never
0xffffffff) with the programs' default seed 1234, only fewer of them (8, so that the picture is
readable at a page's width; drawn as k0-k7), and so are the tables' rules,
in small: device_table.h's hash (key % buckets; 4 buckets here, 1024 in the programs) and A2's push
at the head of the bucket's list; A5's home_slot (MurmurHash3's fmix32, modulo the slot count; 16
slots here, load 0.5, the programs' first load) and its probe to the next slot; A6's home_bucket
(the same hash, modulo the number of buckets of four slots) and its first empty slot of the first
bucket with one. The keys go in in index order, as one thread would insert them; on the GPU
colliding keys arrive in an order that varies between runs, and only which of them sits where
changes.
"""
import argparse
import os

SEED, KEYS, BUCKETS, SLOTS, BUCKET_SLOTS = 1234, 8, 4, 16, 4
MASK64 = (1 << 64) - 1


def splitmix64(state):
    """common::splitmix64: returns (the new state, the output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def random_keys(n, seed):
    """keys.h's random_keys."""
    keys, state = [], seed
    while len(keys) < n:
        state, z = splitmix64(state)
        key = z >> 32
        if key != 0xFFFFFFFF:
            keys.append(key)
    return keys


def fmix32(h):
    """A5's murmur3_fmix32."""
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    return h ^ (h >> 16)


def chained(keys):
    """A2's build: entry i for key i, pushed at the head of bucket key % BUCKETS."""
    heads = [[] for _ in range(BUCKETS)]
    for i, key in enumerate(keys):
        heads[key % BUCKETS].insert(0, i)
    return heads


def open_addressing(keys):
    """A5's insert: from the home slot, the next slot until an empty one. Returns slot -> index."""
    slots = [None] * SLOTS
    for i, key in enumerate(keys):
        s = fmix32(key) % SLOTS
        while slots[s] is not None:
            s = (s + 1) % SLOTS
        slots[s] = i
    return slots


def bucketed(keys):
    """A6's insert: the first empty slot of the first bucket, from the home bucket on, that has
    one."""
    buckets = SLOTS // BUCKET_SLOTS
    slots = [None] * SLOTS
    for i, key in enumerate(keys):
        b = fmix32(key) % buckets
        while None not in slots[b * BUCKET_SLOTS:(b + 1) * BUCKET_SLOTS]:
            b = (b + 1) % buckets
        slots[slots.index(None, b * BUCKET_SLOTS)] = i
    return slots


def draw(out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, Rectangle

    keys = random_keys(KEYS, SEED)
    colors = plt.get_cmap("tab20").colors
    color = {i: colors[i % len(colors)] for i in range(KEYS)}

    def entry_box(ax, x, y, w, h, i, text):
        ax.add_patch(Rectangle((x, y), w, h, facecolor=color[i], alpha=0.35, edgecolor="black"))
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=10)

    def arrow(ax, start, end, **kw):
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=9, lw=0.9, **kw))

    def save(fig, name):
        path = os.path.join(out, name)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        print(f"wrote {path}")

    # The chained table (A.2's programs, A4): bucket heads on the left, each list to the right.
    # At most ~900 px wide (8.1 in at 110 dpi), no text under 9 pt.
    heads = chained(keys)
    fig, left = plt.subplots(figsize=(8.1, 4.6))
    left.set_title(f"Chained, as in A2-A4: {KEYS} random keys in {BUCKETS} buckets "
                   "(the programs: 1024)\n"
                   "ki: the key keys[i], not the number i; bucket = ki % 4; pushed at the head",
                   fontsize=10)
    row_h = 2.2
    for b, chain in enumerate(heads):
        y = (BUCKETS - 1 - b) * row_h
        left.add_patch(Rectangle((0, y), 1.4, 1, facecolor="#eeeeee", edgecolor="black"))
        left.text(0.7, y + 0.5, f"head {b}", ha="center", va="center", fontsize=9)
        x = 2.2
        prev = (1.4, y + 0.5)
        for i in chain:
            entry_box(left, x, y, 3.6, 1, i, f"pool[{i}]\nk{i} % 4 = {b}")
            arrow(left, prev, (x, y + 0.5))
            prev = (x + 3.6, y + 0.5)
            x += 4.3
        left.text(prev[0] + 0.15, y + 0.5, "NULL", va="center", fontsize=9, color="gray")
    left.text(0, -1.6, "Inserting ki takes pool[i] and writes two pointers (next, then the "
              "head);\na lookup walks the list: in the programs ~25,600 entries a bucket.",
              fontsize=9.5)
    left.set_xlim(-0.2, 2.2 + 4.3 * max(len(c) for c in heads) + 1)
    left.set_ylim(-2.4, BUCKETS * row_h)
    left.axis("off")
    save(fig, "tables_chained.png")

    # Open addressing (A5) and buckets of four (A6): one row of slots each, one picture each,
    # as wide as the chained picture.
    def slot_row(ax, slots, home, moved, label, title, bucket_lines):
        ax.set_title(title, fontsize=10)
        for s in range(SLOTS):
            i = slots[s]
            if i is None:
                ax.add_patch(Rectangle((s, 0), 0.92, 1, facecolor="white", edgecolor="black"))
                ax.text(s + 0.46, 0.5, "–", ha="center", va="center", fontsize=9, color="gray")
            else:
                entry_box(ax, s, 0, 0.92, 1, i, f"k{i}")
                h = home(keys[i])
                if moved(h, s):  # displaced: named under the key, no arc from another key's slot
                    ax.text(s + 0.46, -0.25, label(h), ha="center", va="top", fontsize=9)
            ax.text(s + 0.46, 1.15, str(s), ha="center", va="bottom", fontsize=9)
        for b in bucket_lines:
            ax.plot([b * BUCKET_SLOTS - 0.04] * 2, [-0.15, 1.15], color="black", lw=2)
            if b < SLOTS // BUCKET_SLOTS:
                ax.text(b * BUCKET_SLOTS + 2 - 0.04, -0.25, f"bucket {b}", ha="center",
                        va="top", fontsize=9, color="gray")
        ax.set_xlim(-0.3, SLOTS + 0.2)
        ax.set_ylim(-2.3, 1.8)
        ax.axis("off")

    fig, mid = plt.subplots(figsize=(8.1, 2.6))
    slot_row(mid, open_addressing(keys), lambda k: fmix32(k) % SLOTS, lambda h, s: h != s,
             lambda h: f"home\n{h}",
             f"A5: the {KEYS} keys in {SLOTS} slots (load {KEYS / SLOTS:g}); "
             "home = fmix32(key) % 16; taken: try the next slot", [])
    mid.text(-0.2, -1.35, "\u2013: an empty slot. \"home h\": the key's home slot h held another "
             "key, so it moved on.\nA lookup probes from home to its key, or to an empty slot "
             "(a miss).", va="top", fontsize=9.5)
    save(fig, "tables_open.png")

    fig, right = plt.subplots(figsize=(8.1, 2.6))
    slot_row(right, bucketed(keys),
             lambda k: fmix32(k) % (SLOTS // BUCKET_SLOTS) * BUCKET_SLOTS,
             lambda h, s: h // BUCKET_SLOTS != s // BUCKET_SLOTS,
             lambda h: f"home\nb{h // BUCKET_SLOTS}",
             f"A6: A5's {SLOTS} slots as {SLOTS // BUCKET_SLOTS} buckets of four; home = "
             "fmix32(key) % 4; a step reads a whole bucket", range(SLOTS // BUCKET_SLOTS + 1))
    moved = any(fmix32(keys[i]) % (SLOTS // BUCKET_SLOTS) != s // BUCKET_SLOTS
                for s, i in enumerate(bucketed(keys)) if i is not None)
    right.text(-0.2, -1.35, "\u2013: an empty slot. A key takes the first empty slot of its "
               "home bucket, else of the next one" +
               (";\n\"home bi\": a key whose home bucket i was full." if moved else
                ";\nhere each key found room at home."), va="top", fontsize=9.5)
    save(fig, "tables_bucketed.png")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                        help="folder for the three PNGs")
    draw(parser.parse_args().out)


if __name__ == "__main__":
    main()
