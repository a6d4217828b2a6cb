#!/usr/bin/env python3
"""The handouts' figures: for each rung, which thread reads and writes which slot, on a small
example. Every arrow comes from the rung's own index arithmetic, computed below, never drawn by
hand. ./lab handouts runs this (python3 with matplotlib, Debian's python3-matplotlib):

    python3 handouts/figures/make_figures.py [OUT_DIR]     (default: handouts/figures)

writes OUT_DIR/NN_name.png for every rung of rungs.json that has a figure here; a rung of the
registry without one is an error, so a new rung cannot ship without its figure."""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, Rectangle  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.dirname(os.path.dirname(HERE))

# One colour per thread (cycled), and the colours of what is not a thread's.
THREAD = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C"]
IDLE, PAD, SHARED = "#F2F2F2", "#FFE9A8", "#E8F0FA"


class Figure:
    """A grid of slots: rows of boxes (one per step), arrows between them, labels on the left."""

    def __init__(self, title, width_slots, rows, caption):
        width = max(6.0, 0.55 * width_slots + 2.2, 0.072 * len(title))
        self.fig, self.ax = plt.subplots(figsize=(width, 0.95 * rows + 1.3))
        self.ax.set_xlim(-2.6, width_slots + 0.2)
        self.ax.set_ylim(-rows + 0.1, 1.1)
        self.ax.axis("off")
        self.ax.set_title(title, fontsize=11, loc="left")
        self.fig.text(0.01, 0.01, caption, fontsize=8, color="#444444", wrap=True)

    def row(self, y, cells, label=""):
        """cells: a list of (text, colour) or None for an empty place."""
        for x, cell in enumerate(cells):
            if cell is None:
                continue
            text, colour = cell
            self.ax.add_patch(Rectangle((x, y - 0.35), 0.9, 0.7, facecolor=colour, edgecolor="#555555", linewidth=0.6))
            light = colour in (IDLE, PAD, SHARED)
            self.ax.text(x + 0.45, y, text, ha="center", va="center", fontsize=7, color="black" if light else "white")
        if label:
            self.ax.text(-0.2, y, label, ha="right", va="center", fontsize=8)

    def arrow(self, x0, y0, x1, y1, colour):
        self.ax.add_patch(FancyArrowPatch((x0 + 0.45, y0 - 0.36), (x1 + 0.45, y1 + 0.36), arrowstyle="-|>",
                                          mutation_scale=7, color=colour, linewidth=0.8, shrinkA=0, shrinkB=0))

    def note(self, x, y, text, colour="#444444"):
        self.ax.text(x, y, text, ha="left", va="center", fontsize=7, color=colour)

    def save(self, path):
        self.fig.tight_layout(rect=(0, 0.06, 1, 1))
        self.fig.savefig(path, dpi=110)
        plt.close(self.fig)


def colour(thread):
    return THREAD[thread % len(THREAD)]


def tree(title, caption, n, steps, threads_label="thread"):
    """A shared-memory tree: steps is a list of (label, [(reader_slot, written_slot, thread)])."""
    f = Figure(title, n, len(steps) + 1, caption)
    f.row(0, [(f"x{i}", SHARED) for i in range(n)], "partial[]")
    for k, (label, ops) in enumerate(steps, start=1):
        written = {dst: t for _, dst, t in ops}
        f.row(-k, [(f"t{written[i]}", colour(written[i])) if i in written else ("", IDLE) for i in range(n)], label)
        for src, dst, t in ops:
            f.arrow(src, -k + 1, dst, -k, colour(t))
            f.arrow(dst, -k + 1, dst, -k, colour(t))
    return f


def fig_01(path):
    n = 16
    steps = []
    s = 1
    while s < n:
        steps.append((f"stride {s}", [(t + s, t, t) for t in range(n) if t % (2 * s) == 0]))
        s *= 2
    tree("01 interleaved: in the step with stride s, thread t adds slot t + s when t is a multiple of 2s",
         "16 elements, a block of 16 threads. Box t<k> = thread k wrote that slot in that step; grey = idle. The busy "
         "threads are scattered (0, 2, 4, ... then 0, 4, 8, ...), so every warp holds busy and idle threads.",
         n, steps).save(path)


def fig_02(path):
    n = 16
    steps = []
    s = 1
    while s < n:
        steps.append((f"stride {s}", [(2 * s * t + s, 2 * s * t, t) for t in range(n) if 2 * s * t + s < n]))
        s *= 2
    tree("02 strided index: thread t combines slots 2st and 2st + s, so the busy threads are 0, 1, 2, ...",
         "The same additions as rung 01, on the same slots, done by the first threads of the block: whole warps "
         "stay idle instead of every warp being half busy. Colour = the thread that does the addition.",
         n, steps).save(path)


def fig_03(path):
    n = 16
    steps = []
    s = n // 2
    while s > 0:
        steps.append((f"stride {s}", [(t + s, t, t) for t in range(s)]))
        s //= 2
    tree("03 sequential: the upper half folds onto the lower half; thread t adds slot t + s for t < s",
         "Thread t only ever writes slot t, and the slots a step reads are contiguous: no bank conflicts, no "
         "scattered busy threads.", n, steps).save(path)


def fig_04(path):
    b = 8
    f = Figure("04 first add during load: a block covers 2 x blockDim.x elements; each thread adds two as it loads",
               2 * b, 5, "A block of 8 threads over 16 elements: thread t loads x[t] and x[t + 8] and stores their sum; "
               "the tree of rung 03 then runs on 8 slots. Half the blocks, half the tree's idle threads.")
    f.row(0, [(f"x{i}", colour(i % b)) for i in range(2 * b)], "input")
    f.row(-1, [(f"t{t}", colour(t)) for t in range(b)] + [None] * b, "partial[]")
    for t in range(b):
        f.arrow(t, 0, t, -1, colour(t))
        f.arrow(t + b, 0, t, -1, colour(t))
    s, k = b // 2, 2
    while s > 0:
        f.row(-k, [(f"t{i}", colour(i)) if i < s else ("", IDLE) for i in range(b)] + [None] * b, f"stride {s}")
        for t in range(s):
            f.arrow(t + s, -k + 1, t, -k, colour(t))
        s //= 2
        k += 1
    f.save(path)


def warp_tree(title, caption, path, warp=4, block=16, compile_time=False):
    steps = []
    s = block // 2
    while s > 0:
        kind = "warp" if s <= warp else "block"  # warp 0's lanes read slots up to 2 x warp - 1
        label = (f"if (B >= {2 * s})" if compile_time else f"stride {s}") + (" __syncwarp" if kind == "warp" else " __syncthreads")
        steps.append((label, [(t + s, t, t) for t in range(s)]))
        s //= 2
    f = tree(title, caption, block, steps)
    f.note(block - 5.5, -len(steps) + 0.5, f"a warp = {warp} lanes in this drawing (32 on a GPU)")
    f.save(path)


def fig_05(path):
    warp_tree("05 unroll the last warp: once only one warp is busy, __syncwarp() replaces __syncthreads()",
              "16 threads, drawn with a 4-lane warp. The steps with stride up to the warp size (32 ... 1 on a GPU, "
              "the last six) run inside warp 0: each lane reads into a register, __syncwarp(), adds, writes, "
              "__syncwarp(). No lockstep is assumed.", path)


def fig_06(path):
    warp_tree("06 complete unroll: the block size is a template argument, so every step is known at compile time",
              "The same additions as rung 05, each behind `if (kBlockSize >= ...)` on a compile-time constant: the "
              "compiler keeps the steps the block size needs and drops the loop.", path, compile_time=True)


def fig_07(path):
    blocks, per, n = 2, 4, 29
    stride = blocks * per
    f = Figure("07 coarsening: a fixed grid strides over the input; each thread adds two elements per step",
               n, 3, f"{blocks} blocks of {per} threads (grid size {stride}) over {n} elements. Thread g takes "
               f"i = g, then i + {stride}, steps by 2 x {stride}; the last element a thread meets may be alone. "
               "Colour = the thread that reads the element.")
    owner = {}
    for g in range(stride):
        i = g
        while i < n:
            owner[i] = g
            if i + stride < n:
                owner[i + stride] = g
            i += 2 * stride
    f.row(0, [(f"{i}", colour(owner[i])) for i in range(n)], "input")
    f.row(-1, [(f"t{g}", colour(g)) for g in range(stride)] + [None] * (n - stride), "thread sums")
    for i in range(n):
        f.arrow(i, 0, owner[i], -1, colour(owner[i]))
    f.row(-2, [("b0", colour(0)), ("b1", colour(4))] + [None] * (n - 2), "block sums")
    for g in range(stride):
        f.arrow(g, -1, g // per, -2, colour(g // per * per))
    f.save(path)


def shuffle(title, caption, path, lanes=8, values=None, combine=None, label_of=str):
    offsets = []
    o = lanes // 2
    while o > 0:
        offsets.append(o)
        o //= 2
    f = Figure(title, lanes, len(offsets) + 1, caption)
    vals = list(values) if values is not None else [f"v{i}" for i in range(lanes)]
    f.row(0, [(label_of(v), colour(i)) for i, v in enumerate(vals)], "lane values")
    for k, o in enumerate(offsets, start=1):
        new = list(vals)
        for t in range(lanes):
            if t + o < lanes:
                new[t] = combine(vals[t], vals[t + o]) if combine else f"{vals[t]}+"
        vals = new
        f.row(-k, [(label_of(v) if combine else f"l{t}", colour(t) if t + o < lanes else IDLE)
                   for t, v in enumerate(vals)], f"offset {o}")
        for t in range(lanes - o):
            f.arrow(t + o, -k + 1, t, -k, colour(t))
    return f


def fig_08(path):
    shuffle("08 warp shuffle: __shfl_down_sync hands lane t the value of lane t + offset",
            "8 lanes drawn (32 on a GPU): offsets 4, 2, 1 (16, 8, 4, 2, 1 on a GPU). No shared memory and no barrier "
            "inside the warp; grey lanes get their own value back and their result is not used. Lane 0 ends with "
            "the warp's sum.", path).save(path)


def fig_09(path):
    inf = float("-inf")
    values = [-3.5, -7.0, -1.25, -9.0, -4.0, -2.5, inf, inf]
    shuffle("09 max: the same tree with max, and lanes past the input hold the identity, -infinity",
            "6 elements, all negative, on 8 lanes: lanes 6 and 7 have no element and contribute -inf, which never "
            "wins. With 0 there instead, the max of all-negative input would come out 0.",
            path, values=values, combine=max, label_of=lambda v: "-inf" if v == inf else f"{v:g}").save(path)


def fig_10(path):
    n, block = 29, 4
    pieces, start = [], 0
    while n - start >= block:
        piece = block
        while 2 * piece <= n - start:
            piece *= 2
        pieces.append((start, piece))
        start += piece
    sizes = " + ".join(str(p) for _, p in pieces)
    f = Figure("10 any length: the split scheme cuts the input into whole blocks by powers of two, and pads the tail",
               n + 3, 3, f"n = {n}, blocks of {block}: pieces of {sizes} elements, each a power of two of whole blocks, "
               f"then a tail of {n - start} padded with zeros to a whole block (yellow). Each piece is one launch of a "
               "kernel that checks no bounds; their partials are reduced again the same way (the tutorials' "
               "1856 = 1024 + 512 + 320).")
    cells = []
    for k, (s, p) in enumerate(pieces):
        cells += [(f"{i}", colour(k)) for i in range(s, s + p)]
    cells += [(f"{i}", colour(len(pieces))) for i in range(start, n)] + [("0", PAD)] * (block - (n - start))
    f.row(0, cells, "input")
    partial_cells, x = [], 0
    for k, (s, p) in enumerate(pieces):
        for b in range(p // block):
            partial_cells.append((f"p{x}", colour(k)))
            f.arrow(s + b * block + block // 2, 0, x, -1, colour(k))
            x += 1
    partial_cells.append((f"p{x}", colour(len(pieces))))
    f.arrow(start + 1, 0, x, -1, colour(len(pieces)))
    f.row(-1, partial_cells, "partials")
    f.row(-2, [("sum", colour(0))], "next round")
    for i in range(len(partial_cells)):
        f.arrow(i, -1, 0, -2, "#888888")
    f.save(path)


def fig_11(path):
    blocks = 4
    arrival = [2, 0, 3, 1]  # each block's ticket: the order in which they finish (any order will do)
    order = ", ".join(str(b) for b in sorted(range(blocks), key=lambda b: arrival[b]))
    f = Figure("11 single pass: each block writes its partial, fences, takes a ticket; the last ticket sums them all",
               8, 3, f"{blocks} blocks finishing in the order {order}. Each writes partial[b], __threadfence(), then "
               f"ticket = atomicAdd(&count, 1). The block that draws ticket {blocks - 1} (= gridDim.x - 1) knows every "
               "partial is written, adds them in index order (the same bits every run) and sets count back to 0.")
    f.row(0, [(f"b{b}", colour(b)) for b in range(blocks)], "blocks")
    f.row(-1, [(f"p{b}", colour(b)) for b in range(blocks)], "partials")
    for b in range(blocks):
        f.arrow(b, 0, b, -1, colour(b))
        f.note(b + 0.05, 0.55, f"ticket {arrival[b]}", colour(b))
    last = arrival.index(blocks - 1)
    f.row(-2, [("sum", colour(last))], "result")
    for b in range(blocks):
        f.arrow(b, -1, 0, -2, colour(last))
    f.note(1.2, -2, f"written by block {last}, the last ticket")
    f.save(path)


def row_share_owners(start, cols, threads):
    """Which thread holds each element of a row that starts at element `start` of a 16-byte aligned
    matrix, as lab::RowShare (harness/include/lab/kernel.hpp) shares it: the elements before the
    first 16-byte boundary one to a thread, then groups of four, group g to thread g % threads, then
    the elements after the last whole group one to a thread."""
    head = min((4 - start % 4) % 4, cols)
    groups = (cols - head) // 4
    owners = [c for c in range(head)]
    owners += [(g % threads) for g in range(groups) for _ in range(4)]
    owners += [c for c in range(cols - head - 4 * groups)]
    return owners


def fig_12(path):
    rows, cols, threads = 3, 10, 4
    f = Figure("12 real kernels: one block per row; the dot product strides, softmax takes groups of four",
               cols + 2, rows + 2, f"A {rows} x {cols} matrix, blocks of {threads} threads; block r reads row r (from "
               f"element r x cols). Colour = the thread. The dot product: thread t reads columns t, t + {threads}, ... "
               "Softmax and layer norm (lab::RowShare): 16-byte groups of four, group g to thread g % "
               f"{threads}, and one element to a thread before the first 16-byte boundary (row 1 starts 8 bytes past "
               "one) and after the last whole group. Then block_all_reduce gives every thread the row's max or sum, "
               "and each writes its own elements of the output.")
    f.row(0, [(f"{c}", colour(c % threads)) for c in range(cols)], "row 0, dot product")
    f.row(-1, [(f"t{t}", colour(t)) for t in range(threads)], "threads of block 0")
    for c in range(cols):
        f.arrow(c, 0, c % threads, -1, colour(c % threads))
    f.row(-2, [("all", SHARED)] * threads, "block_all_reduce")
    for t in range(threads):
        f.arrow(t, -1, t, -2, colour(t))
    for r in range(1, rows):
        owners = row_share_owners(r * cols, cols, threads)
        f.row(-2 - r, [(f"{r * cols + c}", colour(owners[c])) for c in range(cols)], f"row {r}, softmax (block {r})")
    f.note(cols + 0.1, -2 - (rows - 1) / 2, "groups of four;\nthe same reduction")
    f.save(path)


FIGURES = {"01": fig_01, "02": fig_02, "03": fig_03, "04": fig_04, "05": fig_05, "06": fig_06, "07": fig_07,
           "08": fig_08, "09": fig_09, "10": fig_10, "11": fig_11, "12": fig_12}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else HERE
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(KIT, "rungs.json")) as f:
        rungs = [r["id"] for r in json.load(f)["rungs"]]
    missing = [r for r in rungs if r[:2] not in FIGURES]
    if missing:
        sys.exit("make_figures.py: no figure for " + ", ".join(missing) + ": add a fig_NN function")
    for rung in rungs:
        FIGURES[rung[:2]](os.path.join(out, rung + ".png"))
        print("wrote", os.path.join(out, rung + ".png"))


if __name__ == "__main__":
    main()
