#!/usr/bin/env python3
"""Draws the benchmark's CSV (lab-bench --full --csv) as bandwidth against input size.

usage: plot_bench.py RESULTS.csv OUTPUT.png
Needs matplotlib (Debian: python3-matplotlib).
"""
import csv
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot_bench.py: matplotlib is missing; on Debian or Ubuntu: sudo apt-get install python3-matplotlib")


def main(source, target):
    with open(source, newline="") as f:
        # Full reductions only: the row rung's kernels ("4096x4096") are tables in its handout.
        rows = [r for r in csv.DictReader(f) if r["dtype"] == "float" and "x" not in r["size"]]
    if not rows:
        sys.exit(f"plot_bench.py: no float rows in {source}")
    gpu = rows[0]["gpu"]
    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    figure, axes = plt.subplots(figsize=(9, 5.5))
    # A colour of its own for every rung's kernel (tab20 has 20, the ladder about 15), and a line
    # style per kind: the single-kernel rungs solid, the driver rungs' schemes dashed.
    palette = plt.get_cmap("tab20").colors
    rungs = [k for k in kernels if k not in ("cub", "cpu")]
    for kernel in kernels:
        points = sorted((int(r["bytes"]), float(r["gbps"])) for r in rows if r["kernel"] == kernel)
        if kernel == "cub":
            style = dict(color="black", linewidth=2.5)
        elif kernel == "cpu":
            style = dict(color="dimgrey", linestyle=":")
        else:
            style = dict(color=palette[(2 * rungs.index(kernel)) % 20 + (rungs.index(kernel) * 2 // 20) % 2],
                         linestyle="--" if "/" in kernel else "-")
        axes.plot([b for b, _ in points], [g for _, g in points], marker="o", markersize=3, label=kernel, **style)
    ceiling = max(float(r["gbps"]) * 100 / float(r["pct_ceiling"]) for r in rows if float(r["pct_ceiling"]) > 0)
    axes.axhline(ceiling, color="red", linestyle=":", label=f"in-run ceiling ({ceiling:.0f} GB/s)")
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel("input size (bytes)")
    axes.set_ylabel("GB/s (full reduction to one value)")
    axes.set_title(f"Reduction ladder on {gpu}")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8, ncol=2, loc="lower right")
    figure.tight_layout()
    figure.savefig(target, dpi=120)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
