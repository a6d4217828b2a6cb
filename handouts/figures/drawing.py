"""Drawing helpers for the handouts' figures (make_figures.py): boxes, arrows, panels with a short
title and a caption wrapped to the figure's width, so that no title or caption is ever clipped.
Every figure is drawn in data units of one box; the figure's size follows from what it holds."""
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, Rectangle  # noqa: E402

# One colour per thread or lane (cycled); the colours of what is not a thread's.
THREAD = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C"]
IDLE, PAD, SHARED, WRONG, RIGHT = "#F2F2F2", "#FFE9A8", "#E8F0FA", "#C0392B", "#2E7D32"
INK, GREY = "#222222", "#555555"
LIGHT = {IDLE, PAD, SHARED, "#FFFFFF"}


def colour(thread):
    return THREAD[thread % len(THREAD)]


def wrapped(text, width_inches, fontsize):
    """`text` broken into lines that fit `width_inches` at `fontsize` points."""
    chars = max(20, int(width_inches * 72 / (0.52 * fontsize)))
    return "\n".join(textwrap.wrap(text, chars))


class Figure:
    """A figure of one or more panels stacked top to bottom, one data unit = `unit` inches both ways.
    rows: each panel's height in rows (row k is centred at y = -k, so the first row is at y = 0, and
    a panel's heading sits above it); width: the widest panel's width in units, x from -left."""

    def __init__(self, title, width, rows, caption, unit=0.42, left=2.8, min_inches=7.5):
        self.unit = unit
        self.width_inches = max(min_inches, unit * (width + left) + 0.3)
        self.title = wrapped(title, self.width_inches - 0.3, 11.5)
        self.caption = wrapped(caption, self.width_inches - 0.3, 8.5)
        title_inches = 0.21 * (self.title.count("\n") + 1) + 0.2
        caption_inches = 0.155 * (self.caption.count("\n") + 1) + 0.2
        panel_inches = [unit * (r + 0.8) for r in rows]
        height = sum(panel_inches) + caption_inches + title_inches
        self.fig = plt.figure(figsize=(self.width_inches, height))
        self.axes = []
        top = height - title_inches
        for r, inches in zip(rows, panel_inches):
            ax = self.fig.add_axes((0, (top - inches) / height, 1, inches / height))
            ax.set_xlim(-left, -left + self.width_inches / unit)
            ax.set_ylim(-(r - 0.5), 1.3)
            ax.axis("off")
            self.axes.append(ax)
            top -= inches
        self.fig.text(0.15 / self.width_inches, 1 - 0.1 / height, self.title, fontsize=11.5, va="top", ha="left",
                      color=INK)
        self.fig.text(0.15 / self.width_inches, 0.1 / height, self.caption, fontsize=8.5, va="bottom", ha="left",
                      color="#444444")

    def save(self, path):
        self.fig.savefig(path, dpi=110)
        plt.close(self.fig)


def box(ax, x, y, text="", fill=IDLE, w=0.9, h=0.7, fontsize=7, edge=GREY, hatch=None, text_colour=None, lw=0.6):
    ax.add_patch(Rectangle((x, y - h / 2), w, h, facecolor=fill, edgecolor=edge, linewidth=lw, hatch=hatch))
    if text:
        dark = fill not in LIGHT and hatch is None
        ax.text(x + w / 2, y, text, ha="center", va="center", fontsize=fontsize,
                color=text_colour or ("white" if dark else "black"))


def arrow(ax, x0, y0, x1, y1, fill, lw=0.9, style="-|>", scale=8):
    ax.add_patch(FancyArrowPatch((x0, y0), (x1, y1), arrowstyle=style, mutation_scale=scale, color=fill,
                                 linewidth=lw, shrinkA=0, shrinkB=0))


def label(ax, x, y, text, size=8, ha="right", colour_=INK, **kw):
    ax.text(x, y, text, ha=ha, va="center", fontsize=size, color=colour_, **kw)


def heading(ax, text, size=9.5):
    """A panel's own title, above its first row at the left."""
    ax.text(ax.get_xlim()[0] + 0.15, 0.85, text, ha="left", va="center", fontsize=size, color=INK, weight="bold")
