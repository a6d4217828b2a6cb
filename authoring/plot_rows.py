#!/usr/bin/env python3
"""Draws the row-shape sweep (lab-bench --full --sweep-csv) as each row kernel's share of the
ceiling against the matrix's shape: the rung's reference solid, the cub::BlockReduce kernel dashed.

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
    figure, axes = plt.subplots(figsize=(9, 5.5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, op in enumerate(ops):
        for who, style in (("reference", "-"), ("cub_block_reduce", "--")):
            points = [(shapes.index(r["size"]), float(r["pct_ceiling"])) for r in rows
                      if r["kernel"].split("/")[1] == op and (r["kernel"].startswith("cub_") == (who != "reference"))]
            if points:
                axes.plot([x for x, _ in points], [y for _, y in points], style, marker="o", markersize=3,
                          color=colors[i % len(colors)], label=f"{op} ({who})")
    axes.set_xticks(range(len(shapes)))
    axes.set_xticklabels(shapes, rotation=20)
    axes.set_ylim(0, 110)
    axes.set_xlabel("rows x cols (2^24 floats in all)")
    axes.set_ylabel("% of the ceiling over as many bytes")
    axes.set_title(f"Row kernels by the shape of the matrix on {rows[0]['gpu']}")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8, ncol=2, loc="lower center")
    figure.tight_layout()
    figure.savefig(target, dpi=120)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_rows.py SWEEP_CSV PNG")
    main(sys.argv[1], sys.argv[2])
