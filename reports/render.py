"""Report building blocks (tables, charts, findings, sections, pages) and the HTML and Markdown renderers: an
HTML page for the overview and one per game, and summary.md with the answers."""

import html
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import polars as pl

from reports.fmt import num, num_ci, pct, pct_ci


@dataclass(frozen=True)
class Link:
    """A table cell whose `text` links to `href` (an anchor of the page), followed by plain `tail`."""
    text: str
    href: str
    tail: str = ""


Cell = str | Link


@dataclass(frozen=True)
class Table:
    """A table of already formatted cells. Shown, it leaves out the columns whose every cell is the same and folds
    away when long, unless it is shown `whole`."""
    caption: str
    columns: list[str]
    rows: list[list[Cell]]
    whole: bool = False


@dataclass(frozen=True)
class Chart:
    """A PNG written next to the report, `width` × `height` pixels (0: not known), shown at that natural size."""
    file: str
    caption: str
    width: int = 0
    height: int = 0


@dataclass(frozen=True)
class Heading:
    """A sub-heading inside a section."""
    text: str


@dataclass(frozen=True)
class Finding:
    """One answer for the summary: a bold label, one or two sentences, and the numbers in a small table beside it.
    `numbers` are the records (reports.analysis.record) of every number the sentences and the table state: they are
    what findings.json holds."""
    label: str
    text: str
    table: Table | None = None
    numbers: tuple[dict, ...] = ()


@dataclass(frozen=True)
class Row:
    """Blocks side by side where the page is wide enough, one under the other where it is not; `kind` names a style
    of the page's CSS ('lead': a chart with its caption beside it; 'glance': the overview's compact table)."""
    blocks: tuple
    kind: str = ""


@dataclass(frozen=True)
class Fold:
    """Blocks folded away under a one-line summary (closed, on screen and in print)."""
    summary: str
    blocks: tuple


@dataclass(frozen=True)
class Glossary:
    """Terms and their one-line descriptions, each term an anchor (`id`) that links can point to."""
    caption: str
    entries: tuple  # (id, term, description)


Block = str | Table | Chart | Heading | Row | Fold | Glossary
FOLD_ROWS = 12  # a longer table is folded away, one click from view


@dataclass
class Section:
    """One part of the report: its content, its findings for the summary, its headline charts and its caveats."""
    title: str
    blocks: list[Block] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    headline: list[Chart] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)


@dataclass
class Page:
    """One page of the report: its opening (what the first screen shows), then its sections."""
    file: str  # "index.html" for the overview, "<game>.html" for a game
    title: str
    opening: list[Block]
    sections: list[Section] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)
    provenance: list[Block] = field(default_factory=list)  # where the numbers come from: in the HTML page only


@dataclass
class Report:
    """The whole report, ready to render: the overview page first, then a page per game."""
    title: str
    pages: list[Page]


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


def outline(page: Page) -> list[tuple[int, str]]:
    """Every heading of a page in order, as (level, text): the levels and texts both renderers write."""
    heads = []
    for section in page.sections:
        heads += [(2, section.title)] + [(3, b.text) for b in section.blocks if isinstance(b, Heading)]
    return [*heads, *([(2, "Where the numbers come from")] if page.provenance else []),
            *([(2, "Caveats")] if page.caveats else [])]


def render_html(page: Page, report: Report) -> str:
    """A self-contained HTML page (inline CSS; only the PNG charts are linked), with links to the other pages.
    A section shows its findings and headline charts; its other tables and charts sit folded below them."""
    heads = outline(page)
    anchors = iter(slugs(text for _, text in heads))

    def heading(level: int, text: str) -> str:
        return f'<h{level} id="{next(anchors)}">{_esc(text)}</h{level}>'

    body = [_nav_html(page, report), f"<h1>{_esc(page.title)}</h1>", *map(_block_html, page.opening)]
    if len(page.sections) > 1:
        body.append(_toc_html([h for h in heads if h[0] == 2]))
    for section in page.sections:
        body.append(heading(2, section.title))
        body += [_finding_html(f) for f in section.findings]
        if section.headline:
            body.append('<div class="headline">' + "".join(map(_block_html, section.headline)) + "</div>")
        details = [heading(3, b.text) if isinstance(b, Heading) else _block_html(b) for b in section.blocks]
        if details:
            body.append("<details><summary>Every table and chart of this experiment</summary>"
                        + "\n".join(details) + "</details>")
    if page.provenance:
        body.append('<section class="provenance">' + heading(2, "Where the numbers come from")
                    + "<details><summary>The simulated games and every experiment's seed and config hash</summary>"
                    + "\n".join(map(_block_html, page.provenance)) + "</details></section>")
    if page.caveats:
        body.append(heading(2, "Caveats"))
        body += [f"<p>{_esc(c)}</p>" for c in page.caveats]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_esc(page.title)}</title>\n<style>{_CSS}</style>\n</head>\n"
        + ('<body class="overview">\n' if page.file == "index.html" else "<body>\n")
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def render_markdown(report: Report) -> str:
    """The report's answers as Markdown: the overview page's opening, then each game's findings by experiment
    (the tables and charts behind them, and the experiments' seeds, are in the HTML pages). Every number it states
    is in findings.json."""
    overview, *games = report.pages
    lines = [f"# {_md_heading(report.title)}", "", "Every number below, with its interval and method: findings.json. "
             f"The experiments, their seeds and config hashes: [{overview.file}]({overview.file}).", ""]
    for block in overview.opening:
        lines += [_block_markdown(block), ""]
    for page in games:
        lines += [f"## {_md_heading(page.title)}", "", f"Every table and chart: [{page.file}]({page.file})", ""]
        for section in page.sections:
            lines += [f"### {_md_heading(section.title)}", ""]
            for finding in section.findings:
                lines += [f"- **{finding.label}** {finding.text}", ""]
                if finding.table:
                    lines += ["  " + line if line else "" for line in _table_markdown(finding.table).splitlines()]
                    lines.append("")
    lines += ["## Caveats", ""] + [line for caveat in overview.caveats for line in (caveat, "")]
    return "\n".join(lines)


def _md_heading(text: str) -> str:
    """Text read from results (a question, a title) as one line of a Markdown heading that shows it as written: its
    line breaks as spaces, and the characters that would make HTML, links, emphasis or code escaped."""
    return re.sub(r"([\\`*\[\]<>#|&]|(?<!\w)_|_(?!\w))", r"\\\1", " ".join(text.split()))


def _nav_html(page: Page, report: Report) -> str:
    links = [f"<strong>{_esc(p.title)}</strong>" if p is page else f'<a href="{_esc(p.file)}">{_esc(p.title)}</a>'
             for p in report.pages]
    return '<nav class="pages">' + " · ".join(links) + "</nav>"


def _toc_html(heads: list[tuple[int, str]]) -> str:
    items = "".join(f'<li><a href="#{slug}">{_esc(text)}</a></li>'
                    for (_, text), slug in zip(heads, slugs(t for _, t in heads)))
    return f'<nav class="toc"><ul>{items}</ul></nav>'


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _finding_html(finding: Finding) -> str:
    text = f"<p><strong>{_esc(finding.label)}</strong> {_esc(finding.text)}</p>"
    return f'<div class="finding">{text}{_block_html(finding.table) if finding.table else ""}</div>'


def _block_html(block: Block) -> str:
    if isinstance(block, Heading):
        return f"<h3>{_esc(block.text)}</h3>"
    if isinstance(block, Chart):
        size = f' width="{block.width}" height="{block.height}"' if block.width and block.height else ""
        return (
            f'<figure><a href="{_esc(block.file)}"><img src="{_esc(block.file)}" alt="{_esc(block.caption)}"{size}>'
            f"</a><figcaption>{_esc(block.caption)}</figcaption></figure>"
        )
    if isinstance(block, Row):
        parts = "".join(f"<div>{_block_html(b)}</div>" for b in block.blocks)
        return f'<div class="row {block.kind}">{parts}</div>'
    if isinstance(block, Fold):
        return f"<details><summary>{_esc(block.summary)}</summary>{''.join(map(_block_html, block.blocks))}</details>"
    if isinstance(block, Glossary):
        entries = "".join(f'<dt id="{_esc(anchor)}">{_esc(term)}</dt><dd>{_esc(text)}</dd>'
                          for anchor, term, text in block.entries)
        return f'<div class="glossary"><p class="caption">{_esc(block.caption)}</p><dl>{entries}</dl></div>'
    if isinstance(block, Table):
        block = varying(block)
        head = "".join(f"<th>{_esc(c)}</th>" for c in block.columns)
        rows = "".join("<tr>" + "".join(f"<td>{_cell_html(v)}</td>" for v in row) + "</tr>" for row in block.rows)
        caption = f"<caption>{_esc(block.caption)}</caption>" if block.caption else ""
        html_table = f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
        if len(block.rows) > FOLD_ROWS and not block.whole:
            label = f"{_esc(block.caption or 'Table')} ({len(block.rows)} rows)"
            return f"<details><summary>{label}</summary>{html_table}</details>"
        return html_table
    return f"<p>{_esc(block)}</p>"


def _cell_html(cell: Cell) -> str:
    if isinstance(cell, Link):
        return f'<a href="{_esc(cell.href)}">{_esc(cell.text)}</a>{_esc(cell.tail)}'
    return _esc(cell)


def _cell_markdown(cell: Cell) -> str:
    text = cell.text + cell.tail if isinstance(cell, Link) else cell
    return text.replace("|", "\\|")


def varying(table: Table) -> Table:
    """The table without the columns whose every cell is the same (a table of two or more rows)."""
    if len(table.rows) < 2 or table.whole:
        return table
    keep = [i for i in range(len(table.columns)) if len({row[i] for row in table.rows}) > 1] or [0]
    return Table(table.caption, [table.columns[i] for i in keep], [[row[i] for i in keep] for row in table.rows])


def _table_markdown(table: Table) -> str:
    table = varying(table)
    lines = [f"*{table.caption}*", ""] if table.caption else []
    lines += ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(map(_cell_markdown, row)) + " |" for row in table.rows]
    return "\n".join(lines)


def _block_markdown(block: Block) -> str:
    if isinstance(block, Heading):
        return f"### {block.text}"
    if isinstance(block, Chart):
        return f"![{block.caption}]({block.file})"
    if isinstance(block, Table):
        return _table_markdown(block)
    if isinstance(block, Row):
        return "\n\n".join(map(_block_markdown, block.blocks))
    if isinstance(block, Fold):
        return "\n\n".join([f"*{block.summary}*", *map(_block_markdown, block.blocks)])
    if isinstance(block, Glossary):
        return "\n".join([f"*{block.caption}*", "", *(f"- **{term}**: {text}" for _, term, text in block.entries)])
    return block


_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; max-width: 84rem;
       margin: .8rem auto; padding: 0 1rem; color: #222; line-height: 1.4; }
h1 { font-size: 1.45rem; border-bottom: 2px solid #444; padding-bottom: .2rem; margin: .4rem 0 .5rem; }
h2 { margin-top: 2.2rem; border-bottom: 1px solid #bbb; }
p { margin: .45rem 0; overflow-wrap: anywhere; }
nav.pages { font-size: .9rem; color: #555; } nav.pages a { color: #1f5fa8; }
table { border-collapse: collapse; margin: .8rem 0 1.2rem; font-size: .9rem; max-width: 100%; }
caption { text-align: left; font-weight: 600; padding-bottom: .4rem; }
th, td { border: 1px solid #ccc; padding: .25rem .55rem; text-align: left; overflow-wrap: break-word; }
th { background: #f0f0f0; }
tbody tr:nth-child(even) { background: #fafafa; }
figure { margin: 1rem 0 1.6rem; max-width: 100%; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { font-size: .9rem; color: #555; } li { margin-bottom: .2rem; }
details { margin: .6rem 0 1rem; } summary { cursor: pointer; color: #1f5fa8; font-weight: 600; }
.toc ul { margin: .2rem 0; columns: 2; } .toc li { margin-bottom: .1rem; }
.headline figure { margin: .5rem 0; }
.finding { display: flex; flex-wrap: wrap; gap: 0 1.5rem; align-items: flex-start; border-top: 1px solid #eee; }
.finding p { flex: 1 1 26rem; margin: .6rem 0; } .finding table { margin: .6rem 0; font-size: .85rem; }
.finding > table { max-width: 100%; }
.row { display: flex; flex-wrap: wrap; gap: 0 2rem; align-items: flex-start; }
.row > div { min-width: 0; max-width: 100%; flex: 0 1 auto; } .row > div:last-child { flex: 1 1 20rem; }
.row figure { margin: .3rem 0; }
.lead figure { display: flex; flex-wrap: wrap; gap: .3rem 2rem; align-items: flex-start; }
.lead figcaption { flex: 1 1 18rem; color: #222; }
.glance table { font-size: .8rem; line-height: 1.3; margin: .3rem 0 .8rem; }
.glance td, .glance th { padding: .1rem .4rem; }
.glance td:nth-child(-n+6) { white-space: nowrap; }  /* game to worst seat: short, kept whole */
.glossary dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; font-size: .9rem; }
.glossary dt { font-weight: 600; } .glossary dd { margin: 0; overflow-wrap: anywhere; }
.glossary .caption { font-weight: 600; }
.verdict-fair { color: #2a7a2a; } .verdict-unfair { color: #a33; }
@media print {
  @page { size: A4; margin: 10mm; }
  @page overview { size: A4 landscape; margin: 5mm 8mm; }
  body { max-width: none; margin: 0; padding: 0; font-size: 8pt; line-height: 1.2; }
  nav, summary, details:not([open]), .glossary, .provenance { display: none; }
  h1 { font-size: 12pt; } h2 { font-size: 11pt; margin-top: .6rem; break-after: avoid; } h3 { font-size: 10pt; }
  p { margin: .3rem 0; }
  a { color: inherit; text-decoration: none; }
  table, .glance table, .finding table { font-size: 8pt; margin: .3rem 0; }  /* no printed text under 8 pt */
  th, td, .glance td, .glance th { padding: 0 .25rem; }
  figure, tr, .finding p { break-inside: avoid; } figure { margin: .3rem 0; } figure img { border: none; }
  .headline { display: flex; flex-wrap: wrap; gap: 0 .4rem; align-items: flex-start; }
  .headline figure { width: min-content; }
  .headline img { zoom: .7; max-width: none; }  /* charts.PRINT_WIDTH: their smallest text (11 pt) prints at 8.8 pt */
  .lead img { zoom: .66; }  /* 8.3 pt */
  .lead figure { gap: .2rem 1rem; } .lead figcaption { flex-basis: 11rem; font-size: 8pt; }
  .glance table { font-size: 8pt; line-height: 1.05; } .overview h2 { margin: .2rem 0 0; font-size: 10pt; }
  .overview p { margin: .15rem 0; }
  body.overview { page: overview; }  /* its table is wide: the overview prints across one A4 page */
  figcaption { font-size: 8pt; } .finding p { flex-basis: 22rem; margin: .3rem 0; }
}
"""
