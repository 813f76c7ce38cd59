"""Report building blocks (sections, tables, charts), number formats, and HTML / Markdown rendering."""

import html
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
import seaborn as sns
from matplotlib.figure import Figure


@dataclass(frozen=True)
class Table:
    """A table of already formatted cells."""

    caption: str
    columns: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class Chart:
    """A PNG written next to the report."""

    file: str
    caption: str


@dataclass(frozen=True)
class Heading:
    """A sub-heading inside a section."""

    text: str


Block = str | Table | Chart | Heading


@dataclass
class Section:
    """One part of the report: its content, its one-line findings for the summary, and its caveats."""

    title: str
    blocks: list[Block] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)


@dataclass
class Report:
    """The whole report, ready to render."""

    title: str
    overview: list[Block]
    summary: list[tuple[str, list[str]]]  # (heading, findings) per game
    sections: list[Section]
    caveats: list[str]


def pct(x: float) -> str:
    """0.4567 -> '45.7%'."""
    return f"{100 * x:.1f}%"


def pct_ci(lo: float, hi: float) -> str:
    """An interval of proportions: '43.2–48.1%' (more decimals where one would hide its width)."""
    digits = 1
    while digits < 3 and lo != hi and f"{100 * lo:.{digits}f}" == f"{100 * hi:.{digits}f}":
        digits += 1
    return f"{100 * lo:.{digits}f}–{100 * hi:.{digits}f}%"


def pp(x: float) -> str:
    """A signed difference of proportions in percentage points: '+4.3 pp'."""
    return f"{100 * x:+.1f} pp"


def pp_ci(lo: float, hi: float) -> str:
    """An interval of differences in percentage points: '+3.1 to +5.6 pp'."""
    return f"{100 * lo:+.1f} to {100 * hi:+.1f} pp"


def num(x: float, digits: int = 2) -> str:
    """A plain number with fixed decimals."""
    return f"{x:.{digits}f}"


def num_ci(lo: float, hi: float, digits: int = 2) -> str:
    """An interval of plain numbers."""
    return f"{lo:.{digits}f} to {hi:.{digits}f}"


def count(n: int) -> str:
    """An integer with thousands separators."""
    return f"{n:,}"


def chart_style() -> dict:
    """matplotlib rc settings for all charts: seaborn's white grid, readable fonts, Agg-friendly."""
    return {
        **sns.axes_style("whitegrid"),
        **sns.plotting_context("notebook", font_scale=0.95),
        "figure.dpi": 110,
        "savefig.dpi": 110,
        "axes.titleweight": "bold",
    }


def palette(n: int) -> list:
    """n colour-blind friendly colours (seaborn 'colorblind', cycled beyond 10)."""
    return sns.color_palette("colorblind", n)


def new_figure(width: float, height: float) -> Figure:
    """A pyplot-free figure, so nothing leaks between charts or threads."""
    return Figure(figsize=(width, height), layout="constrained")


def legend_below(fig: Figure, ax) -> None:
    """One legend for the whole figure, under the panels, taken from ax."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 6), frameon=False)


def save_chart(fig: Figure, out_dir: Path, file: str, caption: str) -> Chart:
    """Write fig as out_dir/file and return its Chart block."""
    fig.savefig(out_dir / file)
    return Chart(file, caption)


def render_html(report: Report) -> str:
    """A self-contained HTML page (inline CSS; only the PNG charts are linked)."""
    body = [f"<h1>{_esc(report.title)}</h1>"]
    body += [_block_html(b) for b in report.overview]
    body.append("<h2>Summary</h2>")
    for heading, findings in report.summary:
        body.append(f"<h3>{_esc(heading)}</h3>")
        items = (f"<li><strong>{_esc(label)}</strong>{_esc(rest)}</li>" for label, rest in map(_lead, findings))
        body.append("<ul>" + "".join(items) + "</ul>")
    for section in report.sections:
        body.append(f"<h2>{_esc(section.title)}</h2>")
        body += [_block_html(b) for b in section.blocks]
    body.append("<h2>Caveats</h2>")
    body += [f"<p>{_esc(c)}</p>" for c in report.caveats]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_esc(report.title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def render_markdown(report: Report) -> str:
    """The same report as Markdown (charts as image links)."""
    lines = [f"# {report.title}", ""]
    for block in report.overview:
        lines += [_block_markdown(block), ""]
    lines += ["## Summary", ""]
    for heading, findings in report.summary:
        lines += [f"### {heading}", ""] + [_lead_markdown(*_lead(f)) for f in findings] + [""]
    for section in report.sections:
        lines += [f"## {section.title}", ""]
        for block in section.blocks:
            lines += [_block_markdown(block), ""]
    lines += ["## Caveats", ""]
    for caveat in report.caveats:
        lines += [caveat, ""]
    return "\n".join(lines)


def _lead(finding: str) -> tuple[str, str]:
    """Split a finding into its label ('Seat advantage.', 'Points:') and the rest, so the label can stand out."""
    ends = [i + 1 for i in (finding.find(". "), finding.find(": ")) if 0 < i < 90]
    return (finding[: min(ends)], finding[min(ends) :]) if ends else ("", finding)


def _lead_markdown(label: str, rest: str) -> str:
    return f"- **{label}**{rest}" if label else f"- {rest}"


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _block_html(block: Block) -> str:
    if isinstance(block, Heading):
        return f"<h3>{_esc(block.text)}</h3>"
    if isinstance(block, Chart):
        return (
            f'<figure><img src="{_esc(block.file)}" alt="{_esc(block.caption)}">'
            f"<figcaption>{_esc(block.caption)}</figcaption></figure>"
        )
    if isinstance(block, Table):
        head = "".join(f"<th>{_esc(c)}</th>" for c in block.columns)
        rows = "".join("<tr>" + "".join(f"<td>{_esc(v)}</td>" for v in row) + "</tr>" for row in block.rows)
        return (
            f"<table><caption>{_esc(block.caption)}</caption>"
            f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
        )
    return f"<p>{_esc(block)}</p>"


def _block_markdown(block: Block) -> str:
    if isinstance(block, Heading):
        return f"### {block.text}"
    if isinstance(block, Chart):
        return f"![{block.caption}]({block.file})"
    if isinstance(block, Table):
        lines = [f"*{block.caption}*", "", "| " + " | ".join(block.columns) + " |"]
        lines.append("|" + "---|" * len(block.columns))
        lines += ["| " + " | ".join(v.replace("|", "\\|") for v in row) + " |" for row in block.rows]
        return "\n".join(lines)
    return block


_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; max-width: 72rem;
       margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.5; }
h1 { border-bottom: 2px solid #444; padding-bottom: .3rem; }
h2 { margin-top: 2.5rem; border-bottom: 1px solid #bbb; }
table { border-collapse: collapse; margin: 1rem 0 1.5rem; font-size: .92rem; }
caption { text-align: left; font-weight: 600; padding-bottom: .4rem; }
th, td { border: 1px solid #ccc; padding: .25rem .6rem; text-align: right; }
th { background: #f0f0f0; }
td:first-child, th:first-child { text-align: left; }
tbody tr:nth-child(even) { background: #fafafa; }
figure { margin: 1rem 0 2rem; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: .9rem; color: #555; }
li { margin-bottom: .3rem; }
"""


def bars_with_ci(ax, categories: list[str], groups: dict[str, tuple], horizontal: bool = False) -> None:
    """Grouped bars with asymmetric 95% error bars.

    groups maps a legend label to (values, lo, hi), three arrays aligned with categories (NaN = no bar).
    """
    colours = palette(len(groups))
    width = 0.8 / len(groups)
    positions = np.arange(len(categories))
    for i, (label, (values, lo, hi)) in enumerate(groups.items()):
        values, lo, hi = (np.asarray(a, dtype=float) for a in (values, lo, hi))
        offsets = positions - 0.4 + width * (i + 0.5)
        error = np.nan_to_num([values - lo, hi - values])
        style = {
            "color": colours[i],
            "label": label,
            "ecolor": "#333",
            "capsize": 3,
            "error_kw": {"elinewidth": 1},
        }
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


def handicap_words(handicap: int) -> str:
    """0 -> 'no adjustment to', 1 -> 'adding 1 point to', -2 -> 'subtracting 2 points from'."""
    if handicap == 0:
        return "no adjustment to"
    points = f"{abs(handicap)} point{'s' if abs(handicap) > 1 else ''}"
    return f"adding {points} to" if handicap > 0 else f"subtracting {points} from"


def compensation_finding(compensation: pl.DataFrame, higher_wins: bool) -> str:
    """Plain words on the whole-point adjustment to the start player's final score that comes closest to
    fair. `compensation` has players, handicap, share, lo, hi: the start player's win share with `handicap`
    points added to their score."""
    tried = sorted(compensation["handicap"].unique().to_list())
    parts = []
    for (players,), group in sorted(compensation.partition_by("players", as_dict=True).items()):
        fair = 1 / players
        base = group.filter(pl.col("handicap") == 0).row(0, named=True)
        if base["lo"] <= fair <= base["hi"]:
            parts.append(f"at {players} players none is called for (the start player's share is not "
                         "distinguishable from fair)")
            continue
        best = group.with_columns(gap=(pl.col("share") - fair).abs()).sort("gap", pl.col("handicap").abs())
        best = best.row(0, named=True)
        ahead = base["share"] > fair
        situation = (f"the start player is {'ahead' if ahead else 'behind'} ({pct(base['share'])} against a fair "
                     f"{pct(fair)})")
        if best["handicap"] == 0:
            step = group.filter(pl.col("handicap") == (-1 if ahead == higher_wins else 1)).row(0, named=True)
            parts.append(f"at {players} players {situation}, an edge worth less than a point: "
                         f"{handicap_words(step['handicap'])} their final score would give {pct(step['share'])} "
                         f"(95% CI {pct_ci(step['lo'], step['hi'])})")
            continue
        edge = (f" (a bigger adjustment than the {tried[0]:+d} to {tried[-1]:+d} points tried may be needed)"
                if best["handicap"] in (tried[0], tried[-1]) else "")
        parts.append(f"at {players} players {situation} and {handicap_words(best['handicap'])} their final score "
                     f"gives {pct(best['share'])} (95% CI {pct_ci(best['lo'], best['hi'])}){edge}")
    direction = "highest" if higher_wins else "lowest"
    return (f"Seat compensation. The whole-point adjustment to the start player's final score that comes closest "
            f"to fair ({direction} score wins): " + "; ".join(parts) + ".")
