#!/usr/bin/env python3
"""Draws the row-shape sweep (lab-bench --full --sweep-csv) as each row kernel's share of the
ceiling against the matrix's shape, a panel per operation: each row rung's reference solid, the same
kernel written on cub::BlockReduce dashed.

    python3 authoring/plot_rows.py rows_sweep.csv rows_sweep.png
"""
import csv
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot_rows.py: matplotlib is missing; on Debian or Ubuntu: sudo apt-get install python3-matplotlib")


def main(source, target):
    with open(source, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_rows.py: no rows in {source}")
    shapes = list(dict.fromkeys(r["size"] for r in rows))
    ops = list(dict.fromkeys(r["kernel"].split("/")[1] for r in rows))
    # One line per kernel family: each row rung's reference, and the cub::BlockReduce kernel.
    families = list(dict.fromkeys(r["kernel"].split("/")[0] for r in rows))
    families.sort(key=lambda k: (k.startswith("cub_"), k))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    columns = 2 if len(ops) > 1 else 1
    lines = (len(ops) + columns - 1) // columns
    figure, grid = plt.subplots(lines, columns, figsize=(11, 3.2 * lines + 0.8), sharex=True, sharey=True, squeeze=False)
    for k, op in enumerate(ops):
        axes = grid[k // columns][k % columns]
        for i, family in enumerate(families):
            points = [(shapes.index(r["size"]), float(r["pct_ceiling"])) for r in rows if r["kernel"] == f"{family}/{op}"]
            if not points:
                continue
            cub = family.startswith("cub_")
            axes.plot([x for x, _ in points], [y for _, y in points], "--" if cub else "-", marker="o", markersize=3,
                      color="0.55" if cub else colors[i % len(colors)], linewidth=1.2 if cub else 2,
                      label=family.replace("_", " ") if not cub else "the same on cub::BlockReduce")
        axes.set_title(op.replace("_", " "), fontsize=10)
        axes.set_ylim(0, 110)
        axes.grid(True, alpha=0.3)
        axes.set_xticks(range(len(shapes)))
        axes.set_xticklabels(shapes, rotation=20, fontsize=8)
        if k % columns == 0:
            axes.set_ylabel("% of the ceiling")
    for k in range(len(ops), lines * columns):
        grid[k // columns][k % columns].set_visible(False)
    handles, labels = grid[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=9)
    figure.suptitle(f"Row kernels by the shape of the matrix (rows x cols, 2^24 floats in all) on {rows[0]['gpu']}")
    figure.tight_layout(rect=(0, 0.05, 1, 1))
    figure.savefig(target, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_rows.py SWEEP_CSV PNG")
    main(sys.argv[1], sys.argv[2])
