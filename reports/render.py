"""Report building blocks (tables, charts, findings, sections), number formats, chart helpers, and the HTML and
Markdown renderers (both with a table of contents that links to every heading)."""

import html
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import polars as pl

from reports.fmt import num, num_ci, pct, pct_ci


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


@dataclass(frozen=True)
class Finding:
    """One answer for the summary: a bold label, one or two sentences, and the numbers in a small table beside it."""
    label: str
    text: str
    table: Table | None = None


Block = str | Table | Chart | Heading


@dataclass
class Section:
    """One part of the report: its content, its findings for the summary, its headline charts and its caveats."""
    title: str
    blocks: list[Block] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    headline: list[Chart] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)


@dataclass
class Report:
    """The whole report, ready to render."""
    title: str
    overview: list[Block]
    summary: list[tuple[str, list[Chart], list[Finding]]]  # (game title, headline charts, findings) per game
    sections: list[Section]
    caveats: list[str]


# ---------------------------------------------------------------- tables from column specs

Column = tuple  # (header, key | (keys...) | callable(row), format=str)


def table(caption: str, rows: pl.DataFrame | Iterable[dict], *columns: Column) -> Table:
    """A Table from records and a column spec: each column is (header, key, format); key names a field, a tuple of
    fields passed to format together (an interval), or a function of the record. A missing (None) value shows '–'."""
    records = rows.iter_rows(named=True) if isinstance(rows, pl.DataFrame) else rows
    return Table(caption, [c[0] for c in columns], [[_cell(r, *c) for c in columns] for r in records])


def _cell(record: dict, header: str, key, fmt: Callable = str) -> str:
    if callable(key):
        return fmt(key(record))
    values = [record[k] for k in (key if isinstance(key, tuple) else (key,))]
    return "–" if any(v is None for v in values) else fmt(*values)


def est(header: str, key: str, fmt: Callable = num, interval: Callable = num_ci, lo: str = "", hi: str = "") -> list:
    """Two columns: an estimate and its 95% interval (fields key_lo and key_hi unless lo and hi are given)."""
    return [(header, key, fmt), ("95% CI", (lo or f"{key}_lo", hi or f"{key}_hi"), interval)]


def share_ci(header: str, key: str = "share", lo: str = "lo", hi: str = "hi") -> list:
    """A proportion and its Wilson interval."""
    return est(header, key, pct, pct_ci, lo, hi)


# ---------------------------------------------------------------- rendering


def slugs(titles: Iterable[str]) -> list[str]:
    """GitHub-style heading anchors, numbered -1, -2 ... on repeats, so the same links work in HTML and Markdown."""
    seen: dict[str, int] = {}
    out = []
    for title in titles:
        base = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(base if n == 0 else f"{base}-{n}")
    return out


def outline(report: Report) -> list[tuple[int, str]]:
    """Every heading of the report in order, as (level, text): the levels and texts both renderers write."""
    heads = [(2, "Summary")] + [(3, title) for title, _, _ in report.summary]
    for section in report.sections:
        heads += [(2, section.title)] + [(3, b.text) for b in section.blocks if isinstance(b, Heading)]
    return [*heads, (2, "Caveats")]


def render_html(report: Report) -> str:
    """A self-contained HTML page (inline CSS; only the PNG charts are linked)."""
    heads = outline(report)
    anchors = iter(slugs(text for _, text in heads))

    def heading(level: int, text: str) -> str:
        return f'<h{level} id="{next(anchors)}">{_esc(text)}</h{level}>'

    body = [f"<h1>{_esc(report.title)}</h1>", *map(_block_html, report.overview), _toc_html(heads)]
    body.append(heading(2, "Summary"))
    for title, charts, findings in report.summary:
        body += [heading(3, title), '<div class="headline">' + "".join(map(_block_html, charts)) + "</div>"]
        body += [_finding_html(f) for f in findings]
    for section in report.sections:
        body.append(heading(2, section.title))
        body += [heading(3, b.text) if isinstance(b, Heading) else _block_html(b) for b in section.blocks]
    body.append(heading(2, "Caveats"))
    body += [f"<p>{_esc(c)}</p>" for c in report.caveats]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_esc(report.title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def render_markdown(report: Report) -> str:
    """The same report as Markdown (charts as image links, each summary table under its finding)."""
    heads = outline(report)
    lines = [f"# {report.title}", ""]
    for block in report.overview:
        lines += [_block_markdown(block), ""]
    lines += ["## Contents", ""]
    anchors = slugs(text for _, text in heads)
    lines += [f"{'  ' * (level - 2)}- [{text}](#{slug})" for (level, text), slug in zip(heads, anchors)]
    lines += ["", "## Summary", ""]
    for title, charts, findings in report.summary:
        lines += [f"### {title}", ""] + [line for c in charts for line in (_block_markdown(c), "")]
        for finding in findings:
            lines += [f"- **{finding.label}** {finding.text}", ""]
            if finding.table:
                lines += ["  " + line if line else "" for line in _table_markdown(finding.table).splitlines()] + [""]
    for section in report.sections:
        lines += [f"## {section.title}", ""]
        for block in section.blocks:
            lines += [_block_markdown(block), ""]
    lines += ["## Caveats", ""]
    for caveat in report.caveats:
        lines += [caveat, ""]
    return "\n".join(lines)


def _toc_html(heads: list[tuple[int, str]]) -> str:
    items, depth = [], 2
    for (level, text), slug in zip(heads, slugs(t for _, t in heads)):
        if level > depth:
            items.append("<ul>")
        elif level < depth:
            items.append("</ul></li>")
        elif items:
            items.append("</li>")
        items.append(f'<li><a href="#{slug}">{_esc(text)}</a>')
        depth = level
    closing = "</li></ul></li>" if depth > 2 else "</li>"
    return '<nav class="toc"><h2>Contents</h2><ul>' + "".join(items) + closing + "</ul></nav>"


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _finding_html(finding: Finding) -> str:
    text = f"<p><strong>{_esc(finding.label)}</strong> {_esc(finding.text)}</p>"
    return f'<div class="finding">{text}{_block_html(finding.table) if finding.table else ""}</div>'


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
        caption = f"<caption>{_esc(block.caption)}</caption>" if block.caption else ""
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
    return f"<p>{_esc(block)}</p>"


def _table_markdown(table: Table) -> str:
    lines = [f"*{table.caption}*", ""] if table.caption else []
    lines += ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(v.replace("|", "\\|") for v in row) + " |" for row in table.rows]
    return "\n".join(lines)


def _block_markdown(block: Block) -> str:
    if isinstance(block, Heading):
        return f"### {block.text}"
    if isinstance(block, Chart):
        return f"![{block.caption}]({block.file})"
    if isinstance(block, Table):
        return _table_markdown(block)
    return block


_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; max-width: 72rem;
       margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.5; }
h1 { border-bottom: 2px solid #444; padding-bottom: .3rem; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #bbb; }
table { border-collapse: collapse; margin: 1rem 0 1.5rem; font-size: .92rem; }
caption { text-align: left; font-weight: 600; padding-bottom: .4rem; }
th, td { border: 1px solid #ccc; padding: .25rem .6rem; text-align: right; } th { background: #f0f0f0; }
td:first-child, th:first-child { text-align: left; } tbody tr:nth-child(even) { background: #fafafa; }
figure { margin: 1rem 0 2rem; } figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: .9rem; color: #555; } li { margin-bottom: .3rem; }
.toc ul { margin: .2rem 0; } .toc li { margin-bottom: .1rem; } .toc h2 { border: none; }
.headline { display: flex; flex-wrap: wrap; gap: 1rem; } .headline figure { flex: 1 1 30rem; margin: .5rem 0; }
.finding { display: flex; flex-wrap: wrap; gap: 0 1.5rem; align-items: flex-start; border-top: 1px solid #eee; }
.finding p { flex: 1 1 22rem; margin: .6rem 0; } .finding table { margin: .6rem 0; font-size: .85rem; }
"""
