#!/usr/bin/env python3
"""The handouts' figures: for each rung, the picture of its lesson on a small example (which thread
reads and writes which slot, which lanes of which warp work, which bank or sector a warp's request
touches, what happens when). Every arrow and count comes from the rung's own index arithmetic,
computed below, never drawn by hand. ./lab handouts runs this (python3 with matplotlib, Debian's
python3-matplotlib):

    python3 handouts/figures/make_figures.py [OUT_DIR]     (default: handouts/figures)

writes OUT_DIR/NN_name.png for every rung of rungs.json, and the rungs' further figures
(NN_name_what.png); a rung of the registry without a figure here is an error, so a new rung cannot
ship without one."""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the handouts for git to list
from drawing import GREY, IDLE, INK, PAD, RIGHT, SHARED, WRONG, Figure, arrow, box, colour, heading, label  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.dirname(os.path.dirname(HERE))
WARP = 32


# --- the shared-memory tree and the lanes that work in it ----------------------------------------

def tree_panel(ax, n, steps, hatched=()):
    """steps: (label, [(read_slot, written_slot, thread)]); a slot in `hatched` of a step is written
    by a lane whose result nobody reads."""
    for x in range(n):
        box(ax, x, 0, f"x{x}", SHARED)
    label(ax, -0.2, 0, "partial[]")
    for k, (name, ops) in enumerate(steps, start=1):
        written = {dst: t for _, dst, t in ops}
        for x in range(n):
            if x in written:
                unused = (k, x) in hatched
                box(ax, x, -k, f"t{written[x]}", "white" if unused else colour(written[x]),
                    hatch="////" if unused else None, edge=colour(written[x]) if unused else GREY)
            else:
                box(ax, x, -k, "", IDLE)
        label(ax, -0.2, -k, name)
        for src, dst, t in ops:
            if (k, dst) in hatched:
                continue
            arrow(ax, src + 0.45, -k + 0.64, dst + 0.45, -k + 0.36, colour(t), lw=0.8, scale=7)
            if src != dst:
                arrow(ax, dst + 0.45, -k + 0.64, dst + 0.45, -k + 0.36, colour(t), lw=0.8, scale=7)


def lanes_panel(ax, block, rounds, width):
    """Which of a block's threads add in each round: one thin column per thread, `width` units for the
    block, a line at every warp boundary, and per round how many warps issue and how many lanes add.
    rounds: (label, set of busy threads)."""
    step = width / block
    total = 0
    for k, (name, busy) in enumerate(rounds):
        y = -k
        warps = sorted({t // WARP for t in busy})
        total += len(warps)
        for w in range(block // WARP):
            issuing = w in warps
            ax.add_patch(_rect(w * WARP * step, y, WARP * step, "#DCE6F2" if issuing else "white"))
        for t in busy:
            ax.add_patch(_rect(t * step, y, step, colour(0), inset=0.12))
        label(ax, -0.2, y, name)
        lanes = f"{len(busy)} lane adds" if len(busy) == 1 else f"{len(busy)} lanes add"
        label(ax, width + 0.3, y, f"{len(warps)} of {block // WARP} warps issue, {lanes}", ha="left", size=7.5)
    for w in range(block // WARP + 1):
        ax.plot([w * WARP * step] * 2, [0.42, -len(rounds) + 0.58], color=INK, linewidth=0.9)
    for w in range(block // WARP):
        label(ax, (w + 0.5) * WARP * step, 0.62, f"warp {w}", ha="center", size=7)
    label(ax, width + 0.3, -len(rounds) + 0.25, f"{total} warp-rounds in all", ha="left", size=8, weight="bold")
    return total


def _rect(x, y, w, fill, inset=0.0):
    from matplotlib.patches import Rectangle
    return Rectangle((x, y - 0.32 + inset), w, 0.64 - 2 * inset, facecolor=fill, edgecolor="none")


def tree_figure(path, title, caption, steps16, rounds256, hatched=()):
    f = Figure(title, 24, [len(steps16) + 1, len(rounds256) + 0.7], caption, unit=0.36)
    heading(f.axes[0], "16 slots, a block of 16 threads: who adds what")
    tree_panel(f.axes[0], 16, steps16, hatched)
    heading(f.axes[1], "a block of 256 threads (8 warps): dark = the thread adds; shaded = its warp issues the step")
    lanes_panel(f.axes[1], 256, rounds256, 16)
    f.save(path)


def interleaved_steps(n):
    steps, s = [], 1
    while s < n:
        steps.append((f"stride {s}", [(t + s, t, t) for t in range(n) if t % (2 * s) == 0]))
        s *= 2
    return steps


def strided_steps(n):
    steps, s = [], 1
    while s < n:
        steps.append((f"stride {s}", [(2 * s * t + s, 2 * s * t, t) for t in range(n) if 2 * s * t + s < n]))
        s *= 2
    return steps


def sequential_steps(n):
    steps, s = [], n // 2
    while s > 0:
        steps.append((f"stride {s}", [(t + s, t, t) for t in range(s)]))
        s //= 2
    return steps


def busy_rounds(steps):
    return [(name, {t for _, _, t in ops}) for name, ops in steps]


def fig_01(path):
    tree_figure(path, "01 interleaved: thread t adds slot t + s when t is a multiple of 2s",
                "Top: the additions on 16 slots; box t<k> = thread k wrote that slot in that step, grey = idle. "
                "Bottom: the same rule in a block of 256 threads. While the stride is below 32 every warp has a "
                "thread that adds, so every warp issues every instruction of the step for 1 to 16 busy lanes: "
                "47 warp-rounds, each a load, a load and a store in shared memory (./lab explain 01 counts 150 "
                "requests a block: these 141, 8 to fill the array and 1 to read the result).",
                interleaved_steps(16), busy_rounds(interleaved_steps(256)))


def fig_02(path):
    tree_figure(path, "02 strided index: thread t combines slots 2st and 2st + s, so the busy threads are 0, 1, 2, ...",
                "Top: the same additions on the same slots as rung 01, done by the first threads of the block. "
                "Bottom: the busy threads are packed into the first warps, so a warp either works with all its "
                "lanes or issues nothing: 12 warp-rounds instead of 47, 45 shared-memory requests a block instead "
                "of 150. The slots they touch are 2s apart: see the bank figure.",
                strided_steps(16), busy_rounds(strided_steps(256)))


def fig_03(path):
    tree_figure(path, "03 sequential: the upper half folds onto the lower half; thread t adds slot t + s for t < s",
                "Thread t only ever writes slot t, and the busy threads are 0 ... s - 1: whole warps work or rest, "
                "12 warp-rounds as in rung 02, and a warp's 32 lanes touch 32 consecutive words, one in each bank.",
                sequential_steps(16), busy_rounds(sequential_steps(256)))


def fig_banks(path):
    """A warp's shared-memory request: which bank each lane's word lies in."""
    cases = [("02, stride 1: lane i reads word 2i", lambda i: 2 * i, 32),
             ("02, stride 4: lane i reads word 8i", lambda i: 8 * i, 32),
             ("03, any stride: lane i reads word i", lambda i: i, 32)]
    f = Figure("Shared-memory banks: a warp's 32 words in 32 banks, word w in bank w mod 32", 37,
               [3.2] * len(cases),
               "Each line joins a lane (top) to the bank its word lies in (bottom). A bank serves one word per "
               "pass (one wavefront); k lanes on different words of one bank take k passes. Rung 02's index puts "
               "2s lanes on each bank it uses while all 32 lanes work (32-way at stride 16 in a block of 1024; "
               "./lab explain 02: 3.33 wavefronts per request on average in a block of 256); rung 03's sequential index puts each lane on its own bank: 1 wavefront.", unit=0.265)
    for ax, (title, word, lanes) in zip(f.axes, cases):
        heading(ax, title)
        hits = {}
        for i in range(lanes):
            b = word(i) % 32
            hits[b] = hits.get(b, 0) + 1
            box(ax, i, 0, str(i), colour(i % 8), w=0.8, h=0.5, fontsize=6)
            ax.plot([i + 0.4, b + 0.4], [-0.25, -1.75], color=colour(i % 8), linewidth=0.7)
        for b in range(32):
            k = hits.get(b, 0)
            box(ax, b, -2, str(k) if k else "", WRONG if k > 1 else (RIGHT if k else IDLE), w=0.8, h=0.5, fontsize=6)
        worst = max(hits.values())
        label(ax, -0.2, 0, "lanes", size=7.5)
        label(ax, -0.2, -2, "banks", size=7.5)
        label(ax, 32.3, -1, f"{worst}-way: {worst} pass{'es' if worst > 1 else ''}", ha="left", size=8, weight="bold",
              colour_=WRONG if worst > 1 else RIGHT)
    f.save(path)


def fig_04(path):
    b = 8
    f = Figure("04 first add during load: a block covers 2 x blockDim.x elements", 2 * b, [5],
               "A block of 8 threads over 16 elements: thread t loads x[t] and x[t + 8] and stores their sum; the "
               "tree of rung 03 then runs on 8 slots. Each warp's two loads are each 32 consecutive elements "
               "(coalesced); the block's tree now serves twice the elements.")
    ax = f.axes[0]
    for i in range(2 * b):
        box(ax, i, 0, f"x{i}", colour(i % b))
    label(ax, -0.2, 0, "input")
    for t in range(b):
        box(ax, t, -1, f"t{t}", colour(t))
        arrow(ax, t + 0.45, -0.36, t + 0.45, -0.64, colour(t), lw=0.8, scale=7)
        arrow(ax, t + b + 0.45, -0.36, t + 0.45, -0.64, colour(t), lw=0.8, scale=7)
    label(ax, -0.2, -1, "partial[]")
    s, k = b // 2, 2
    while s > 0:
        for i in range(b):
            box(ax, i, -k, f"t{i}" if i < s else "", colour(i) if i < s else IDLE)
        for t in range(s):
            arrow(ax, t + s + 0.45, -k + 0.64, t + 0.45, -k + 0.36, colour(t), lw=0.8, scale=7)
        label(ax, -0.2, -k, f"stride {s}")
        s //= 2
        k += 1
    f.save(path)


def warp_steps(block, warp, compile_time):
    """Rung 05's (and 06's) tree drawn with a warp of `warp` lanes: the block's steps while the stride
    is above the warp, then warp 0's steps, in which every lane adds (the lanes past the needed ones
    add values nobody reads)."""
    steps, hatched, s = [], set(), block // 2
    while s > warp:
        steps.append(((f"if (B >= {2 * s})" if compile_time else f"stride {s}") + "  __syncthreads",
                      [(t + s, t, t) for t in range(s)]))
        s //= 2
    offset = warp
    while offset > 0:
        k = len(steps) + 1
        steps.append((f"offset {offset}  __syncwarp", [(t + offset, t, t) for t in range(warp)]))
        hatched |= {(k, t) for t in range(offset, warp)}
        offset //= 2
    return steps, hatched


def warp_figure(path, title, caption, compile_time):
    steps, hatched = warp_steps(16, 4, compile_time)
    f = Figure(title, 16, [len(steps) + 1], caption, left=4.6)
    heading(f.axes[0], "16 slots, a block of 16 threads, drawn with a warp of 4 lanes (32 on a GPU)")
    tree_panel(f.axes[0], 16, steps, hatched)
    f.save(path)


def fig_05(path):
    warp_figure(path, "05 unroll the last warp: once one warp is left, __syncwarp() replaces __syncthreads()",
                "The block's steps run while the stride is above the warp; then warp 0 folds the last 2 x 32 "
                "partials (here 2 x 4) alone. In each warp step every lane of warp 0 adds: the hatched lanes add "
                "values that no later step reads, which costs nothing, since the warp issues the instruction for "
                "all 32 lanes anyway. Each step reads into a register, __syncwarp(), writes, __syncwarp().", False)


def fig_05_race(path):
    """The offset-16 step of the tutorials' lockstep code, s[t] += s[t + 16], on two lanes."""
    f = Figure("05 the race: s[t] += s[t + 16] by lanes 0 and 16, without lockstep", 22, [2.4, 2.4, 2.4], unit=0.39, caption=
               "Time runs left to right. Top: what the tutorials assumed, every lane reading before any lane "
               "writes, as one instruction of a warp in lockstep. Middle: since Volta each lane has its own "
               "program counter, and lane 16 may run ahead: it writes s[16] before lane 0 reads it, so lane 0 "
               "adds s[16] + s[32] and counts s[32] twice (or, one step earlier, reads s[16] before lane 16 has "
               "added s[48] into it). volatile changes neither order. Bottom: the fix, a register and a "
               "__syncwarp() between every lane's read and any lane's write, and another before the next read.")

    def lane_rows(ax, title, events, barriers=()):
        heading(ax, title)
        for row, name in enumerate(["lane 0", "lane 16"]):
            label(ax, -0.2, -row, name)
            ax.plot([0, 21.5], [-row, -row], color="#BBBBBB", linewidth=0.6, zorder=0)
        for lane_row, start, width, text, fill in events:
            box(ax, start, -lane_row, text, fill, w=width, h=0.62, fontsize=7.5)
        for x in barriers:
            ax.plot([x, x], [0.45, -1.45], color=INK, linewidth=1.4)
            label(ax, x, -1.75, "__syncwarp()", ha="center", size=7)

    read, write = "#4C72B0", "#DD8452"
    lane_rows(f.axes[0], "lockstep (pre-Volta): one instruction, all lanes",
              [(0, 1, 4, "read s[16]", read), (1, 1, 4, "read s[32]", read),
               (0, 6, 5, "write s[0] = s0 + s16", write), (1, 6, 5, "write s[16] (unused)", write)])
    lane_rows(f.axes[1], "independent scheduling: lane 16 runs ahead",
              [(1, 0.5, 3.5, "read s[32]", read), (1, 4.2, 4.6, "write s[16] = s16 + s32", write),
               (0, 9.2, 4, "read s[16]", WRONG), (0, 13.4, 6.2, "s[0] = s0 + s16 + s32: wrong", WRONG)])
    lane_rows(f.axes[2], "the fix: read into a register, sync, write, sync",
              [(0, 1, 3.6, "other = s[16]", read), (1, 2.2, 3.6, "other = s[32]", read),
               (0, 7.2, 4.6, "s[0] += other", write), (1, 8.4, 4.6, "s[16] += other", write)],
              barriers=(6.6, 14.0))
    f.save(path)


def fig_06(path):
    warp_figure(path, "06 complete unroll: the block size is a template argument, each step a compile-time test",
                "The same additions as rung 05, each behind `if (kBlockSize >= ...)` on a compile-time constant: "
                "the compiler keeps the steps the block size needs, drops the others and the loop's counter, "
                "compare and branch. Nothing that ./lab explain counts changes; the instructions between the "
                "memory accesses do.", True)


# --- loads: sectors, and bytes in flight ---------------------------------------------------------

def fig_07(path):
    """One warp request of the grid-stride loop against one of a loop over a contiguous chunk."""
    sectors = 32
    f = Figure("07 coalesced or scattered: the sectors one warp request touches", sectors, [2.6, 2.6], unit=0.29, caption=
               "Each box is a 32-byte sector of the input (8 floats), the unit device memory moves. Top: the "
               "grid-stride loop; at every step a warp's 32 lanes read 32 consecutive floats, 4 sectors, all of "
               "their bytes used; the warp's next request is a whole grid further. Bottom: giving each thread a "
               "contiguous chunk of the input (here 8 elements) puts each lane in its own sector: 32 sectors "
               "fetched for 128 useful bytes, and the rest of each sector must wait in a cache until that lane "
               "comes back for it (./lab explain on a kernel written that way shows 32 sectors a request, 4 at the "
               "fewest).")
    for ax, (title, touched) in zip(f.axes, [("grid-stride: lane i reads element base + i", range(0, 4)),
                                             ("chunked: lane i reads element 8i + step", range(0, 32))]):
        heading(ax, title)
        for s in range(sectors):
            hit = s in touched
            box(ax, s, 0, f"{8 * s}", colour(s % 8) if hit else IDLE, w=0.9, h=0.62, fontsize=6)
        label(ax, -0.2, 0, "sectors")
        n = len(touched)
        label(ax, -0.2, -1.1, "one request", size=7.5)
        label(ax, 0, -1.1, f"{n} sectors, {n * 32} bytes moved for 128 bytes used", ha="left", size=8, weight="bold",
              colour_=RIGHT if n == 4 else WRONG)
    f.save(path)


def fig_in_flight(path):
    """Little's law: the bytes a thread keeps in flight, for each way of loading."""
    f = Figure("Bytes in flight: how many loads a thread issues before it waits", 24, [1.6, 1.6, 1.6], unit=0.37, caption=
               "Time runs left to right; a bar is one load from issue to data (the memory's latency, a few hundred "
               "ns), its length the same for all, its thickness its bytes. A thread that adds each element before loading the next keeps 4 "
               "bytes in flight. Rung 07 issues its two loads of a step together: 8 bytes. lab::thread_fold "
               "(rung 08 on) issues four 16-byte loads: 64 bytes. By Little's law the memory delivers at most "
               "(bytes in flight) / (latency): with 2,048 threads on each of 132 multiprocessors and 600 ns, "
               "4 bytes a thread allow 1.8 TB/s, 8 bytes 3.6 TB/s, 64 bytes far more than any HBM.")
    rows = [("sum += in[i], one load at a time: 1 x 4 B", [(0, 4)], 4), ("rung 07: 2 x 4 B", [(0, 4), (0.2, 4)], 8),
            ("lab::thread_fold: 4 x 16 B", [(0, 16), (0.2, 16), (0.4, 16), (0.6, 16)], 64)]
    latency = 8.5
    for ax, (name, loads, total) in zip(f.axes, rows):
        heading(ax, f"{name}: {total} bytes in flight")
        for period in range(2):
            t0 = period * (latency + 2.2)
            for k, (offset, size) in enumerate(loads):
                y = -0.19 * k + 0.19 * (len(loads) - 1) / 2
                ax.add_patch(_bar(t0 + offset, y, latency, 0.01 * size, colour(k)))  # thickness: the bytes
            box(ax, t0 + latency + 0.9, 0, "add", SHARED, w=1.0, h=0.5, fontsize=6.5)
        label(ax, -0.2, 0, "one thread")
    f.save(path)


def _bar(x, y, w, h, fill):
    from matplotlib.patches import Rectangle
    return Rectangle((x, y - h / 2), w, h, facecolor=fill, edgecolor="none")


# --- warp shuffles --------------------------------------------------------------------------------

def shuffle_panel(ax, lanes, values, combine, label_of, xor=False):
    """Warp shuffles on `lanes` lanes: with xor, lane t combines with lane t ^ offset, and every lane
    holds the total at the end; without, lane t combines with lane t + offset, and only lanes below
    the offset hold a part of the total (the others, grey, compute what nobody reads)."""
    offsets, o = [], lanes // 2
    while o > 0:
        offsets.append(o)
        o //= 2
    vals = list(values)
    for i, v in enumerate(vals):
        box(ax, i * 1.4, 0, label_of(v), colour(i), w=1.2)
    label(ax, -0.2, 0, "lane values")
    for k, o in enumerate(offsets, start=1):
        new = list(vals)
        for t in range(lanes):
            useful = xor or t < o
            if useful:
                partner = t ^ o if xor else t + o
                new[t] = combine(vals[t], vals[partner])
                arrow(ax, partner * 1.4 + 0.6, -k + 0.64, t * 1.4 + 0.6, -k + 0.36, colour(partner), lw=0.8, scale=7)
            box(ax, t * 1.4, -k, label_of(new[t]) if useful else "unused", colour(t) if useful else IDLE, w=1.2,
                fontsize=7 if useful else 6)
        vals = new
        label(ax, -0.2, -k, f"{'xor' if xor else 'down'} {o}")
    return vals


def fig_08(path):
    lanes = 8
    f = Figure("08 warp shuffle: each warp sums its lanes in registers, then warp 0 sums the warps", 19,
               [4, 2.6],
               "Top: __shfl_down_sync hands lane t the value of lane t + offset (8 lanes drawn: offsets 4, 2, 1; "
               "on a GPU 16, 8, 4, 2, 1). No shared memory and no barrier inside the warp; the grey lanes also "
               "add (a lane with no lane offset places up gets its own value back), but no later step reads "
               "their result. Lane 0 ends with the warp's sum. Bottom: lane 0 of "
               "each warp stores its sum in one shared slot, one __syncthreads(), then warp 0 reads the slots "
               "(lanes past the last warp take 0) and shuffles again.")
    heading(f.axes[0], "one warp, drawn with 8 lanes")
    shuffle_panel(f.axes[0], lanes, range(1, lanes + 1), lambda a, b: a + b, str)
    ax = f.axes[1]
    heading(ax, "a block of 8 warps")
    for w in range(8):
        box(ax, w * 1.4, 0, f"warp {w}", colour(w), w=1.2, fontsize=6.5)
        box(ax, w * 1.4, -1, f"slot {w}", SHARED, w=1.2, fontsize=6.5)
        arrow(ax, w * 1.4 + 0.6, -0.36, w * 1.4 + 0.6, -0.64, colour(w), lw=0.8, scale=7)
    label(ax, -0.2, 0, "each warp's sum")
    label(ax, -0.2, -1, "warp_sums[]")
    label(ax, 11.4, -1, "__syncthreads(), then warp 0 shuffles the 8 slots", ha="left", size=7.5)
    f.save(path)


def fig_butterfly(path):
    lanes = 8
    f = Figure("__shfl_xor_sync: every lane ends with the warp's total (the butterfly)", 14, [4],
               "Lane t exchanges with lane t ^ offset (offsets 4, 2, 1 here; 16 ... 1 on a GPU) and both add, so "
               "after log2(32) = 5 steps every lane holds the sum of all 32: no lane's result is wasted, and no "
               "broadcast is needed afterwards. Rung 12's block_all_reduce uses it so that every thread gets the "
               "row's max or sum; rung 08 needs the total in lane 0 only, where __shfl_down_sync does.")
    heading(f.axes[0], "one warp, drawn with 8 lanes")
    shuffle_panel(f.axes[0], lanes, range(1, lanes + 1), lambda a, b: a + b, str, xor=True)
    f.save(path)


def fig_09(path):
    inf = float("-inf")
    values = [-3.5, -7.0, -1.25, -9.0, -4.0, -2.5, inf, inf]
    f = Figure("09 max: the same tree with max; a lane with no element holds the identity, -infinity", 14, [4],
               "6 elements, all negative, on 8 lanes: lanes 6 and 7 have no element and contribute -inf, which "
               "never wins. With 0 there instead, the max of all-negative input would come out 0.")
    heading(f.axes[0], "one warp, drawn with 8 lanes")
    shuffle_panel(f.axes[0], 8, values, max, lambda v: "-inf" if v == inf else f"{v:g}")
    f.save(path)


# --- the driver rungs ----------------------------------------------------------------------------

def multipass_launches(n, block):
    """Rung 10's multipass: (elements in, partials out) of each launch, one block per 2 x block."""
    launches = []
    while n > 1:
        grid = -(-n // (2 * block))
        launches.append((n, grid))
        n = grid
    return launches


def split_rounds(n, block):
    """Rung 10's split: for each round, its pieces (powers of two of whole blocks) and its padded tail."""
    rounds = []
    while n > 1:
        pieces, done = [], 0
        while n - done >= block:
            piece = block
            while 2 * piece <= n - done:
                piece *= 2
            pieces.append(piece)
            done += piece
        tail = n - done
        rounds.append((pieces, tail))
        n = sum(p // block for p in pieces) + (1 if tail else 0)
    return rounds


def fig_10(path):
    n, block = 29, 4
    big, threads = 1_000_000, 256
    multipass = multipass_launches(big, threads)
    rounds = split_rounds(big, threads)
    rows = [("multipass", [f"{a:,} -> {b:,}" for a, b in multipass]),
            ("split", [f"round {k + 1}: " + (f"{len(p)} launch{'es' if len(p) > 1 else ''}" if p else "")
                       + (" + tail" if p and t else "the tail" if t else "") for k, (p, t) in enumerate(rounds)]),
            ("two_phase", [f"{big:,} -> 1,024", "1,024 -> 1"])]
    pieces, tail = split_rounds(n, block)[0]
    f = Figure("10 any length: three ways to get from n elements to one value", n + 4, [3.2, 2.6], unit=0.3, caption=
               f"Top: the kernel launches each scheme makes for n = {big:,} floats in blocks of {threads}: multipass "
               f"gives each block {2 * threads} elements and launches again on the partials; split cuts each round "
               f"into pieces of a power of two of whole blocks, one launch a piece, plus the tail padded to a block "
               f"(a memset, a copy and a launch); two_phase's first launch is a fixed grid of at most 1,024 blocks "
               f"whose threads stride over the input, and one block adds their partials. Each launch waits for the "
               f"one before it. Bottom: the split scheme's first round on n = {n}, blocks of {block}: pieces of "
               + " + ".join(str(p) for p in pieces)
               + f" elements, then a tail of {tail} padded with zeros (yellow) to a block.")
    ax = f.axes[0]
    heading(ax, f"launches for n = {big:,}")
    for row, (name, steps) in enumerate(rows):
        label(ax, -0.2, -row, name)
        x = 0
        for text in steps:
            width = 0.3 * len(text) + 0.8
            box(ax, x, -row, text, colour(row), w=width, h=0.62, fontsize=7)
            x += width + 0.4
    ax = f.axes[1]
    heading(ax, f"split, n = {n}, blocks of {block}: round 1")
    start = 0
    for k, p in enumerate(pieces + [block]):
        for i in range(start, start + p):
            inside = i < n
            box(ax, i, 0, str(i) if inside else "0", colour(k) if inside else PAD, fontsize=6.5)
        ax.plot([start + 0.05, start + p - 0.15], [-0.55, -0.55], color=colour(k), linewidth=2)
        text = f"launch {k + 1}: {p // block} block{'s' if p > block else ''}" if k < len(pieces) else "the tail, padded"
        label(ax, start + p / 2 - 0.05, -0.95 - 0.45 * (k == len(pieces)), text, ha="center", size=7.5)
        start += p
    label(ax, -0.2, 0, "input")
    f.save(path)


def fig_11(path):
    """The ticket scheme's hazard: the ticket seen before the partial, and the fence that prevents it."""
    f = Figure("11 single pass: a partial, a fence, a ticket; the last ticket adds the partials", 24, [2.4, 2.4, 2.4], unit=0.37, caption=
               "Time runs left to right; each row is one block's thread 0 (blocks 0 and 2 drawn of a grid of 4). "
               "Top: without a fence, block 0's store of partial[0] may become visible to other multiprocessors "
               "after its ticket does (the compiler or the memory system may reorder them): block 2 draws the last "
               "ticket, reads partial[0] before it has arrived, and adds a stale value. Middle: __threadfence() "
               "between the store and the atomic: no block can see the ticket before the partial. Bottom: the "
               "last block fences again and reads the partials (through volatile), adds them in index order, "
               "writes the result and sets the counter back to 0 for the next call.")
    store, fence, ticket, read = "#4C72B0", INK, "#DD8452", "#55A868"

    def rows(ax, title, events, note=None):
        heading(ax, title)
        for row, name in enumerate(["block 0", "block 2 (last)"]):
            label(ax, -0.2, -row, name)
            ax.plot([0, 23.5], [-row, -row], color="#BBBBBB", linewidth=0.6, zorder=0)
        for row, start, width, text, fill in events:
            box(ax, start, -row, text, fill, w=width, h=0.62, fontsize=7.5)
        if note:
            label(ax, note[0], note[1], note[2], ha="left", size=7.5, colour_=note[3])

    rows(f.axes[0], "no fence: the ticket overtakes the partial",
         [(0, 0.5, 4.2, "store partial[0]", store), (0, 5.0, 3.6, "ticket 1", ticket),
          (1, 9.5, 3.6, "ticket 3: last", ticket), (1, 13.4, 4.6, "read partial[0]: stale", WRONG),
          (0, 18.6, 4.6, "partial[0] arrives", store)])
    rows(f.axes[1], "__threadfence() before the ticket",
         [(0, 0.5, 4.2, "store partial[0]", store), (0, 5.0, 3.4, "__threadfence()", fence),
          (0, 8.7, 2.8, "ticket 1", ticket), (1, 12.0, 3.6, "ticket 3: last", ticket),
          (1, 15.9, 4.6, "read partial[0]: right", RIGHT)])
    rows(f.axes[2], "the last block: fence, read, add, reset",
         [(1, 0.5, 3.6, "ticket 3: last", ticket), (1, 4.4, 3.4, "__threadfence()", fence),
          (1, 8.1, 5.0, "read partial[0..3]", read), (1, 13.4, 3.6, "write *out", store),
          (1, 17.3, 3.8, "tickets = 0", ticket)])
    f.save(path)


# --- rung 12 --------------------------------------------------------------------------------------

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
    f = Figure("12 real kernels: one block per row; every thread needs the row's result", cols + 8, [rows + 2],
               f"A {rows} x {cols} matrix, blocks of {threads} threads; block r reads row r (from element r x cols). "
               "Colour = the thread. lab::RowShare (softmax, layer norm) and lab::for_each_pair (the dot product, "
               f"two rows alike) share a row in 16-byte groups of four, group g to thread g % {threads}, and one "
               "element to a thread before the row's first 16-byte boundary (row 1 starts 8 bytes past one) and "
               "after its last whole group. Then block_all_reduce gives every thread the row's max or sum (the "
               "butterfly figure of rung 08), and each thread writes its own elements of the output.")
    ax = f.axes[0]
    heading(ax, "which thread reads which element")
    owners0 = row_share_owners(0, cols, threads)
    for c in range(cols):
        box(ax, c, 0, f"{c}", colour(owners0[c]))
        arrow(ax, c + 0.45, -0.36, owners0[c] + 0.45, -0.64, colour(owners0[c]), lw=0.7, scale=6)
    label(ax, -0.2, 0, "row 0 (block 0)")
    for t in range(threads):
        box(ax, t, -1, f"t{t}", colour(t))
        box(ax, t, -2, "all", SHARED)
        arrow(ax, t + 0.45, -1.36, t + 0.45, -1.64, colour(t), lw=0.8, scale=7)
    label(ax, -0.2, -1, "threads of block 0")
    label(ax, -0.2, -2, "block_all_reduce")
    for r in range(1, rows):
        owners = row_share_owners(r * cols, cols, threads)
        for c in range(cols):
            box(ax, c, -2 - r, f"{r * cols + c}", colour(owners[c]))
        label(ax, -0.2, -2 - r, f"row {r} (block {r})")
    label(ax, cols + 0.2, -2 - (rows - 1) / 2, "the same sharing; the same reduction", ha="left", size=7.5)
    f.save(path)


# --- rung 13 --------------------------------------------------------------------------------------

def fig_13(path):
    """A cluster of four blocks per row: each holds a slice in its shared memory, stores its partial,
    and after the cluster's barrier reads the others' partials through distributed shared memory."""
    blocks = 4
    f = Figure("13 any row shape: a cluster per long row, the partials exchanged through distributed shared memory",
               25, [blocks + 1.4, blocks + 0.6], unit=0.37, caption=
               "Top: one long row cut into four slices; block r of the row's cluster copies slice r into its own "
               "shared memory, reduces it and stores its partial (Stats: a sum, a max and its sum of exponentials, "
               "or a count, mean and M2) in its variable `mine`. Every block then reads all four `mine`s, its own "
               "and its peers' (cluster.map_shared_rank(&mine, r)), and combines them in rank order, so all four "
               "compute the same bits. Bottom: the order in time. The first cluster.sync() makes every partial "
               "visible before anyone reads it (before it, a peer may not have stored its partial, or even "
               "started); the second keeps every block's shared memory alive until no block reads it (a block "
               "that exits takes its shared memory with it). Then each block writes its slice of the output from "
               "the values it holds: the row crosses the memory bus once in, once out.")
    ax = f.axes[0]
    heading(ax, "where the data lies: a slice per block, a partial per block")
    width = 5.2
    for b in range(blocks):
        x = b * (width + 0.6)
        box(ax, x, 0, f"slice {b} of the row", colour(b), w=width, h=0.6, fontsize=7.5)
        arrow(ax, x + width / 2, -0.32, x + width / 2, -0.78, colour(b), lw=0.8, scale=7)
        box(ax, x, -1.1, f"block {b}: shared memory", SHARED, w=width, h=0.6, fontsize=7.5)
        box(ax, x + width / 2 - 1.0, -2.2, f"mine ({b})", colour(b), w=2.0, h=0.55, fontsize=7.5)
        arrow(ax, x + width / 2, -1.42, x + width / 2, -1.9, colour(b), lw=0.8, scale=7)
    # Block 0 reading every partial, its own and its peers' (the others do the same).
    reader = 0 * (width + 0.6) + width / 2
    box(ax, reader - 2.4, -3.9, "block 0 combines mine(0), mine(1), mine(2), mine(3)", RIGHT, w=11.5, h=0.55, fontsize=7.5)
    for b in range(blocks):
        x = b * (width + 0.6) + width / 2
        arrow(ax, x, -2.5, reader + 0.9 * b - 1.0, -3.6, colour(b), lw=0.9, scale=7)
    label(ax, 12.2, -3.9, "(every block does the same: map_shared_rank(&mine, r), r = 0, 1, 2, 3)", ha="left", size=7.5)
    label(ax, -0.2, 0, "global memory")
    label(ax, -0.2, -1.1, "on chip")
    label(ax, -0.2, -3.9, "distributed\nshared memory")

    ax = f.axes[1]
    heading(ax, "in time: two cluster barriers")
    fill = {"load": "#8C8C8C", "reduce": "#4C72B0", "store": "#DD8452", "read": "#55A868", "write": "#8172B3"}
    for b in range(blocks):
        label(ax, -0.2, -b, f"block {b}")
        ax.plot([0, 24.5], [-b, -b], color="#BBBBBB", linewidth=0.6, zorder=0)
        late = 0.9 * b  # the blocks do not run in step
        box(ax, 0.2 + late * 0.3, -b, "load slice", fill["load"], w=2.6 + late * 0.5, h=0.55, fontsize=7)
        box(ax, 3.3 + late * 0.8, -b, "reduce", fill["reduce"], w=1.8, h=0.55, fontsize=7)
        box(ax, 5.3 + late * 0.8, -b, "mine =", fill["store"], w=1.4, h=0.55, fontsize=7)
        box(ax, 10.0, -b, "read 4 partials", fill["read"], w=3.6, h=0.55, fontsize=7)
        box(ax, 15.8, -b, "write its slice", fill["write"], w=3.6, h=0.55, fontsize=7)
    for x, text in [(9.3, "cluster.sync()"), (15.1, "cluster.sync()")]:
        ax.plot([x, x], [0.45, -(blocks - 1) - 0.45], color=INK, linewidth=1.6)
        label(ax, x + 0.15, 0.75, text, ha="left", size=7.5)
    label(ax, 10.0, -blocks + 0.1, "no read before every mine is stored", ha="left", size=7, colour_=GREY)
    label(ax, 15.3, -blocks + 0.1, "no exit while a peer may still read", ha="left", size=7, colour_=GREY)
    f.save(path)


# The rung's figure (NN_name.png) and its further ones (NN_name_what.png).
FIGURES = {"01": [("", fig_01)], "02": [("", fig_02), ("_banks", fig_banks)], "03": [("", fig_03)],
           "04": [("", fig_04)], "05": [("", fig_05), ("_race", fig_05_race)], "06": [("", fig_06)],
           "07": [("", fig_07), ("_in_flight", fig_in_flight)], "08": [("", fig_08), ("_xor", fig_butterfly)],
           "09": [("", fig_09)], "10": [("", fig_10)], "11": [("", fig_11)], "12": [("", fig_12)],
           "13": [("", fig_13)]}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else HERE
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(KIT, "rungs.json")) as f:
        rungs = [r["id"] for r in json.load(f)["rungs"]]
    missing = [r for r in rungs if r[:2] not in FIGURES]
    if missing:
        sys.exit("make_figures.py: no figure for " + ", ".join(missing) + ": add a fig_NN function")
    for rung in rungs:
        for suffix, draw in FIGURES[rung[:2]]:
            path = os.path.join(out, rung + suffix + ".png")
            draw(path)
            print("wrote", path)


if __name__ == "__main__":
    main()
