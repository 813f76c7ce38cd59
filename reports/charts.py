"""Chart helpers shared by every analysis: style, colours, panels of subplots, error bars, saving."""

import struct
import textwrap
from pathlib import Path

import numpy as np
import polars as pl
import seaborn as sns
from matplotlib.figure import Figure
from matplotlib.ticker import AutoLocator, MaxNLocator

from reports.render import Chart

DPI = 110  # pixels per inch of figure; a chart is shown at its natural size (its pixels, 96 to the inch)
PRINT_WIDTH = 7.3  # inches: no chart is wider. A4 less 10 mm margins holds 718 pixels, so a chart of 7.3 in (803
# pixels) prints at 0.89 of its natural size: s pt of font print at s * 110 / 96 * 0.89 ~ 1.02 s pt. The style's
# smallest text (ticks and legends, 11 pt; 'small', 9.2 pt) thus prints at 8 pt or more.


def chart_style() -> dict:
    """matplotlib rc settings for all charts: seaborn's white grid, fonts that print at 8 pt or more (PRINT_WIDTH),
    Agg-friendly."""
    return {**sns.axes_style("whitegrid"), **sns.plotting_context("notebook", font_scale=1.0), "figure.dpi": DPI,
            "savefig.dpi": DPI, "axes.titleweight": "bold"}


def palette(n: int) -> list:
    """n colour-blind friendly colours (seaborn 'colorblind', cycled beyond 10)."""
    return sns.color_palette("colorblind", n)


def new_figure(width: float, height: float) -> Figure:
    """A pyplot-free figure, so nothing leaks between charts or threads."""
    return Figure(figsize=(width, height), layout="constrained")


def panels(n: int, width: float, height: float, **subplots) -> tuple[Figure, np.ndarray]:
    """A figure of n panels side by side, `width` wide in all (as inches), and the array of their axes."""
    fig = new_figure(width, height)
    return fig, np.atleast_1d(fig.subplots(1, n, **subplots))


def aligned(frame: pl.DataFrame, column: str, values: list) -> pl.DataFrame:
    """frame's rows in the order of `values` of `column` (nulls where a value has no row), for bars by category."""
    order = pl.DataFrame({column: values}, schema={column: frame.schema[column]} if column in frame.schema else None)
    return order.join(frame, on=column, how="left", maintain_order="left")


def rows_down(ax, labels: list[str], title: str, xlabel: str) -> None:
    """A panel of horizontal bars or boxes, one row per label from the top down, at positions 0, 1, ..."""
    ax.set(yticks=range(len(labels)), yticklabels=labels, ylim=(len(labels) - 0.5, -0.5), title=title, xlabel=xlabel)


def legend_below(fig: Figure, ax) -> None:
    """One legend for the whole figure, under the panels, taken from ax."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 6), frameon=False)


def finished_chart(fig: Figure, legend_from, title: str, out_dir: Path, file: str, caption: str) -> Chart:
    """The figure with one legend under its panels (taken from the axes legend_from) and its title, saved."""
    legend_below(fig, legend_from)
    fig.suptitle(title)
    return save_chart(fig, out_dir, file, caption)


def save_chart(fig: Figure, out_dir: Path, file: str, caption: str) -> Chart:
    """Write fig as out_dir/file, at most PRINT_WIDTH wide (its panels narrowed, its text as large), its title
    wrapped to the figure's width, and return its Chart block with its size in pixels."""
    width, height = fig.get_size_inches()
    if width > PRINT_WIDTH:
        fig.set_size_inches(PRINT_WIDTH, height)
        narrowed(fig.axes)
    fit_title(fig)
    fig.savefig(out_dir / file, dpi=DPI)
    return Chart(file, caption, *png_size(out_dir / file))


def png_size(path: Path) -> tuple[int, int]:
    """A PNG's width and height in pixels, from its header."""
    with path.open("rb") as png:
        return struct.unpack(">II", png.read(24)[16:24])


def narrowed(axes: list) -> None:
    """Panels narrowed to fit PRINT_WIDTH: fewer numeric ticks on x, and an x label all panels share written once,
    under the first."""
    for ax in axes:
        if type(ax.xaxis.get_major_locator()) is AutoLocator:
            ax.xaxis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 5, 10]))
    labels = {ax.get_xlabel() for ax in axes}
    if len(axes) > 1 and len(labels) == 1:
        for ax in axes[1:]:
            ax.set_xlabel("")


def fit_title(fig: Figure) -> None:
    """Wrap the figure's title (suptitle) where it is wider than the figure, so that no edge of it is cut off."""
    title = fig._suptitle
    if title is None:
        return
    width = title.get_window_extent(fig._get_renderer()).width
    if width <= 0.96 * fig.bbox.width:
        return
    longest = max(len(line) for line in title.get_text().splitlines())
    chars = max(20, int(longest * 0.96 * fig.bbox.width / width))
    title.set_text("\n".join(textwrap.fill(line, chars) for line in title.get_text().splitlines()))


def bars_with_ci(ax, categories: list[str], groups: dict[str, tuple], horizontal: bool = False) -> None:
    """Grouped bars with asymmetric 95% error bars.

    groups maps a legend label to (values, lo, hi), three arrays aligned with categories (NaN = no bar)."""
    colours = palette(len(groups))
    width = 0.8 / len(groups)
    positions = np.arange(len(categories))
    for i, (label, (values, lo, hi)) in enumerate(groups.items()):
        values, lo, hi = (np.asarray(a, dtype=float) for a in (values, lo, hi))
        offsets = positions - 0.4 + width * (i + 0.5)
        error = np.nan_to_num([values - lo, hi - values])
        style = {"color": colours[i], "label": label, "ecolor": "#333", "capsize": 3, "error_kw": {"elinewidth": 1}}
        if horizontal:
            ax.barh(offsets, values, height=width, xerr=error, **style)
        else:
            ax.bar(offsets, values, width=width, yerr=error, **style)
    if horizontal:
        ax.set_yticks(positions, categories)
        if not ax.yaxis_inverted():  # panels sharing y share the inversion: flip once, not once per panel
            ax.invert_yaxis()
    elif max(map(len, categories)) > 6:
        ax.set_xticks(positions, categories, rotation=25, ha="right", rotation_mode="anchor")
    else:
        ax.set_xticks(positions, categories)
