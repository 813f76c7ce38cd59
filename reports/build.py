"""Build the balance report: read Parquet results and their manifests, run the analyses, write index.html (the
overview), a page per game, summary.md, findings.json (every number stated, as data) and PNG charts.

Every experiment is analysed on its own: a number never pools experiments. Each gets the generic analyses
(reports/generic/), from its rows and manifest alone, and its game's own, declared in the REPORT of
reports/<game>/ (reports/spec.GameReport, found by the game's name: its analyses, those across experiments, the
records its overview row states, its key finding and its rule holes). A game with several
experiments also gets them compared side by side. findings.json is the records every finding carries, and a
game's `numbers`. Reports read Parquet and the manifest only: they import no rules, engines or strategies.
"""

import fcntl
import json
import os
import re
import secrets
import shutil
import warnings
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import matplotlib
import numpy as np
import polars as pl
from joblib import Parallel, delayed
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from reports import generic
from reports.analysis import GAME_KEY, Analysis, GameData, Section, record, run_section
from reports.charts import chart_style
from reports.findings import findings_file, section_numbers
from reports.fmt import count, listing, yes
from reports.games import game_report, known
from reports.generic.ladder import is_ladder
from reports.load import ResultsError, load_results
from reports.overview import glossary, headlines, overview_opening, overview_row, rule_holes
from reports.render import Finding, Page, Report, render_html, render_markdown, table
from sim.dataset import GAME_NAME  # a game's name as the registry writes it: also its page's

GENERAL_CAVEATS = [
    "Intervals are 95% intervals that cover sampling noise only, not modelling choices. Win shares, rates, means "
    "and their differences are clustered by deal (by match in match mode): a cluster-robust standard error with a t "
    "quantile on deals − 1 degrees of freedom, and near 0% or 100% Wilson's interval on the effective sample; "
    "games of one deal are played under every seating and are not independent. A k-way tie counts 1/k of a win, "
    "summed as it is; the meetings of strategies head-to-head are clustered the same way.",
]


MARKER = ".atelier-report"  # written last into every report: the names of the files the report wrote, as JSON
PARALLEL_ROWS = 200_000  # fewer result rows are analysed in this process: starting workers would cost more


def build_report(results_dir: Path, out_dir: Path, progress: bool = False) -> Path:
    """Analyse every experiment under results_dir and write the report into out_dir.

    results_dir is one experiment folder (manifest.json + parts/*.parquet) or a folder of them.
    Writes out_dir/index.html, a page per game, summary.md, findings.json, PNG charts and, last, the MARKER that
    makes it a report; returns the path of index.html. The report is written into a temporary folder beside out_dir
    and moved into place only when whole, so a failed report leaves out_dir as it was; an existing out_dir is
    replaced, and only if it holds nothing but a report. What a killed report left beside out_dir is finished or
    undone first. `progress` shows a bar on stderr while the games are analysed.
    Raises ResultsError when there are no results or the results are inconsistent, or out_dir cannot be used."""
    given, out_dir = Path(out_dir), Path(os.path.abspath(out_dir))
    results_dir = Path(results_dir)
    check_not_here(out_dir)
    recover(out_dir)
    rows, manifests = load_results(results_dir)
    check_results(rows)
    check_games(manifests)
    check_report_folder(out_dir)
    staging = out_dir.with_name(f".{out_dir.name}.{secrets.token_hex(4)}.tmp")
    games = game_data(rows, manifests, staging)  # slices of rows: the table is held once
    del rows
    created = make_parents(out_dir)
    try:
        staging.mkdir()
        with locked(staging):
            with quiet_numpy():
                report, numbers = assemble_report(games, manifests, staging, progress)
            (staging / "summary.md").write_text(render_markdown(report), encoding="utf-8")
            for page in report.pages:
                (staging / page.file).write_text(render_html(page, report), encoding="utf-8")
            findings = findings_file(numbers, manifests)
            (staging / "findings.json").write_text(json.dumps(findings, indent=1) + "\n", encoding="utf-8")
            mark_whole(staging)
            move_into_place(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        remove_empty(created)
        raise
    return given / "index.html"


def check_not_here(out_dir: Path) -> None:
    """ResultsError if out_dir is where this process stands, or holds it."""
    here = Path.cwd().resolve()
    if out_dir.resolve() in (here, *here.parents):
        raise ResultsError(f"--out {out_dir} is the current folder or holds it; name a folder for the report")


def check_report_folder(out_dir: Path) -> None:
    """ResultsError unless out_dir is new, empty or an earlier report: its marker, and nothing but the files the
    marker names (a report replaces its folder, so anything else would be lost)."""
    if not out_dir.is_dir():
        return
    entries = sorted(out_dir.iterdir())
    if not entries:
        return
    written = report_files(out_dir)
    if written is None:
        raise ResultsError(f"--out {out_dir} holds {entries[0].name!r} and is no report (it lacks the {MARKER} file "
                           "a report writes), and a report replaces its folder; choose another --out")
    strays = [p.name for p in entries if p.name != MARKER and (p.name not in written or not plain_file(p))]
    if strays:
        raise ResultsError(f"--out {out_dir} holds {strays[0]!r}, which is no part of a report, and a report replaces "
                           "its folder; choose another --out")


def mark_whole(folder: Path) -> None:
    """Write the marker that makes folder a whole report: the names of the files in it."""
    files = sorted(p.name for p in folder.iterdir())
    (folder / MARKER).write_text(json.dumps({"atelier_report": files}) + "\n", encoding="utf-8")


def report_files(folder: Path) -> set[str] | None:
    """The files a report wrote into folder, as its marker names them; None when folder holds no readable marker."""
    try:
        files = json.loads((folder / MARKER).read_text(encoding="utf-8"))["atelier_report"]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return {f for f in files if isinstance(f, str)} if isinstance(files, list) else None


def plain_file(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def recover(out_dir: Path) -> None:
    """Finish or undo what a report killed while replacing out_dir left beside it, and remove the rest of what
    killed reports left: a whole new report (.tmp with its marker) moves in where out_dir is missing, else the report
    set aside (.old) moves back. Leftovers that a running report holds (locked) are left alone."""
    if not out_dir.parent.is_dir():
        return
    pattern = re.compile(rf"\.{re.escape(out_dir.name)}\.[0-9a-f]{{8}}\.(tmp|old)")
    found = [p for p in out_dir.parent.iterdir() if pattern.fullmatch(p.name) and p.is_dir() and not p.is_symlink()]
    with ExitStack() as locks:
        left = [p for p in found if try_lock(p, locks)]
        if not os.path.lexists(out_dir):
            whole = [p for p in left if p.suffix == ".tmp" and report_files(p) is not None]
            earlier = [p for p in left if p.suffix == ".old"]
            if whole or earlier:
                back = max(whole or earlier, key=lambda p: p.stat().st_mtime)
                back.rename(out_dir)
                left.remove(back)
        for folder in left:
            shutil.rmtree(folder)


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on folder (on the folder itself, so it follows a rename) while the block runs, so that
    another report's recovery leaves it alone."""
    handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


def try_lock(folder: Path, locks: ExitStack) -> bool:
    """Lock folder until `locks` closes, unless another process holds it."""
    try:
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False
    locks.callback(os.close, handle)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def make_parents(folder: Path) -> list[Path]:
    """Create the missing parents of `folder`; return the ones created, deepest first."""
    made: list[Path] = []
    try:
        for parent in reversed([parent for parent in folder.parents if not parent.exists()]):
            parent.mkdir()
            made.insert(0, parent)
    except OSError:
        remove_empty(made)
        raise
    return made


def remove_empty(folders: list[Path]) -> None:
    """Remove folders, deepest first, as far as they are empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def move_into_place(staging: Path, out_dir: Path) -> None:
    """Rename the finished report folder to out_dir, replacing an earlier report there."""
    if not out_dir.exists():
        staging.rename(out_dir)
        return
    old = out_dir.with_name(f".{out_dir.name}.{secrets.token_hex(4)}.old")
    with locked(out_dir):
        out_dir.rename(old)
        try:
            staging.rename(out_dir)
        except BaseException:
            old.rename(out_dir)
            raise
        shutil.rmtree(old)


def check_results(rows: pl.DataFrame) -> None:
    """Raise ResultsError unless every game has one row per seat and its win shares sum to 1."""
    games = (rows.lazy().group_by(GAME_KEY).agg(seats=pl.len(), players=pl.col("players").first(),
                                                win=pl.col("win").sum())
             .filter((pl.col("seats") != pl.col("players")) | ((pl.col("win") - 1).abs() > 1e-6))
             .collect(engine="streaming").sort(GAME_KEY))  # the wrong games only
    wrong_size = games.filter(pl.col("seats") != pl.col("players"))
    if wrong_size.height:
        first = wrong_size.row(0, named=True)
        raise ResultsError(f"{wrong_size.height} games do not have one row per seat, e.g. game {first['game_id']} of "
                           f"experiment {first['experiment']!r} has {first['seats']} rows for {first['players']} "
                           "players.")
    wrong_wins = games.filter((pl.col("win") - 1).abs() > 1e-6)
    if wrong_wins.height:
        first = wrong_wins.row(0, named=True)
        raise ResultsError(f"Win shares must sum to 1 in every game; {wrong_wins.height} games do not, e.g. game "
                           f"{first['game_id']} of experiment {first['experiment']!r} sums to {first['win']:.3f}.")


def check_games(manifests: list[dict]) -> None:
    """ResultsError unless every experiment's game is one the report knows: named as games are, which also names its
    page (not 'index'), and naming no module of the report but a game's own report (reports.games)."""
    for manifest in manifests:
        game = str(manifest["game"])
        if not GAME_NAME.fullmatch(game) or game == "index" or not known(game):
            raise ResultsError(f"experiment {manifest['experiment']!r} is of game {game!r}, which the report does not "
                               "know: a game's name is lowercase letters, digits and '_', and names no module of "
                               "reports/ but that game's own report")


def report_numbers(results_dir: Path) -> dict:
    """findings.json, every number the report states, computed without drawing a chart, the sections side by side."""
    rows, manifests = load_results(Path(results_dir))
    check_results(rows)
    check_games(manifests)
    games = game_data(rows, manifests, Path("."))
    del rows
    with quiet_numpy():
        sections = analysed(games, draw=False)
        numbers = [game_numbers(name, experiments, sections[name]) for name, experiments in games.items()]
    return findings_file([n for game in numbers for n in game], manifests)


def game_data(rows: pl.DataFrame, manifests: list[dict], out_dir: Path) -> dict[str, list[GameData]]:
    """Per game, in order of title: one GameData per experiment, the headline ones first, then by name."""
    rows_of = by_experiment(rows)
    out: dict[str, list[GameData]] = {}
    for manifest in manifests:
        if manifest["experiment"] in rows_of:
            data = GameData(manifest["game"], rows_of[manifest["experiment"]], [manifest], out_dir)
            out.setdefault(data.name, []).append(data)
    for experiments in out.values():
        experiments.sort(key=lambda d: (not d.headline, d.experiment))
    return dict(sorted(out.items(), key=lambda item: item[1][0].title))


def by_experiment(rows: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """Each experiment's rows: a slice of rows, not a copy, where its rows lie together (as results load)."""
    runs = rows.select(pl.col("experiment").rle()).unnest("experiment")
    if runs["value"].is_unique().all():
        starts = runs["len"].cum_sum() - runs["len"]
        return {name: rows.slice(start, length) for name, start, length in zip(runs["value"], starts, runs["len"])}
    return {name: frame for (name,), frame in rows.partition_by("experiment", as_dict=True).items()}


def game_numbers(game: str, experiments: list[GameData], sections: list[Section]) -> list[dict]:
    """Every number the game's findings state, and those its overview rows state (the game's own `numbers`)."""
    own = game_report(game).numbers
    return section_numbers(sections) + [n for data in experiments if not is_ladder(data)
                                        for n in (own(data) if own else [])]


def assemble_report(games: dict[str, list[GameData]], manifests: list[dict], out_dir: Path, progress: bool = False
                    ) -> tuple[Report, list[dict]]:
    """Run every analysis of every game's experiments (game_data: their charts go to its out_dir), draw the
    overview's chart into out_dir and collect the pages and the numbers. The sections (one per experiment, one per
    game comparing its experiments) are analysed side by side, one worker process per core, the largest first;
    `progress` shows a bar on stderr."""
    sections = analysed(games, progress)
    pages, numbers, overview_rows, holes = [], [], [], {}
    for name, experiments in games.items():
        page, game_numbers_, game_rows = game_page(name, experiments, sections[name])
        pages.append(page)
        numbers += game_numbers_
        overview_rows += game_rows
        holes[page.title] = rule_holes(page.title, experiments, game_numbers_, game_report(name))
    glossaries = [g for experiments in games.values() for g in glossary(experiments[0])]
    with matplotlib.rc_context(chart_style()):
        opening = overview_opening(overview_rows, holes, glossaries, out_dir)
    caveats = GENERAL_CAVEATS + incomplete_experiment_caveats(manifests)
    sizes = experiment_sizes(games)
    played = f"{count(sum(s['games'] for s in sizes.values()))} simulated games from {len(manifests)} experiment(s)."
    overview = Page("index.html", "Balance report: " + ", ".join(d[0].title for d in games.values()), opening,
                    caveats=caveats, provenance=[played, experiments_table(sizes, manifests)])
    return Report(overview.title, [overview, *pages]), numbers


def analysed(games: dict[str, list[GameData]], progress: bool = False, draw: bool = True) -> dict[str, list[Section]]:
    """Every game's sections (section_units), computed side by side; `draw` False draws no chart."""
    plan = {name: section_units(name, experiments) for name, experiments in games.items()}
    for data in (d for units in plan.values() for d in units):
        data.draw = draw
    done = iter(run_units([(name, data) for name, units in plan.items() for data in units], progress))
    return {name: [next(done) for _ in units] for name, units in plan.items()}


def run_units(units: list[tuple[str, GameData]], progress: bool) -> list[Section]:
    """Each unit's section, in the order of units, computed and drawn in worker processes (the largest first) when
    there are PARALLEL_ROWS rows or more. The bar counts analyses: in this process each as it ends, so that a report
    of one large experiment moves too; in workers a unit's all at once."""
    largest_first = sorted(range(len(units)), key=lambda k: -units[k][1].rows.height)
    sizes = [len(unit_analyses(*unit)[1]) for unit in units]
    rows = sum(data.rows.height for _, data in units)
    jobs = min(len(units), os.cpu_count() or 1) if rows >= PARALLEL_ROWS else 1
    columns = (TextColumn("report"), BarColumn(bar_width=20), MofNCompleteColumn(), TextColumn("analyses"),
               TimeElapsedColumn())
    console = Console(stderr=True)
    out: dict[int, Section] = {}
    with Progress(*columns, console=console, disable=not (progress and console.is_terminal)) as bar:
        task = bar.add_task("report", total=sum(sizes))
        if jobs > 1:
            work = (delayed(drawn_section)(*units[k]) for k in largest_first)
            done = Parallel(n_jobs=jobs, backend="loky", return_as="generator")(work)
        else:
            done = (drawn_section(*units[k], lambda: bar.advance(task)) for k in largest_first)
        for k, section in zip(largest_first, done):
            out[k] = section
            if jobs > 1:
                bar.advance(task, sizes[k])
    return [out[k] for k in range(len(units))]


def drawn_section(name: str, data: GameData, analysed: Callable[[], None] | None = None) -> Section:
    """A unit's section with its charts drawn in the report's style; `analysed()` after each analysis."""
    with matplotlib.rc_context(chart_style()), quiet_numpy():
        return section_of(name, data, analysed)


@contextmanager
def quiet_numpy() -> Iterator[None]:
    """Silence numpy's warnings about empty or non-finite values (an interval of one game, an all-NaN column): the
    report shows such a number as '–', and the warnings would only clutter stderr."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def game_page(name: str, experiments: list[GameData], sections: list[Section]) -> tuple[Page, list[dict], list[dict]]:
    """A game's page (a section per experiment, then the experiments compared), its numbers and its overview rows."""
    numbers = game_numbers(name, experiments, sections)
    title = experiments[0].title
    opening = [f"{title}: {len(experiments)} experiment(s), each answering its own question below, each from its "
               "own games. Every table and chart of an experiment is one click away, under its findings."]
    caveats = list(dict.fromkeys(c for section in sections for c in section.caveats))  # each once
    rows = [overview_row(data, players, numbers, game_report(name)) for players, data in headlines(experiments).items()]
    return Page(f"{name}.html", title, opening, sections, caveats), numbers, rows


def section_units(name: str, experiments: list[GameData]) -> list[GameData]:
    """What a game's sections are made of: each experiment, then, when there are several besides its skill ladders,
    all of those (data whose `experiment` is None), to be compared."""
    for data in headlines(experiments).values():
        data.leading = True
    comparable = [data for data in experiments if not is_ladder(data)]  # a ladder's rungs are never pooled
    for data in comparable:
        data.alone = len(comparable) == 1
    if len(comparable) < 2:
        return list(experiments)
    everything = GameData(name, pl.concat([d.rows for d in comparable], how="diagonal_relaxed"),
                          [m for d in comparable for m in d.manifests], experiments[0].out_dir,
                          draw=experiments[0].draw)
    return [*experiments, everything]


def section_of(name: str, data: GameData, analysed: Callable[[], None] | None = None) -> Section:
    """The section of one experiment, what was played first, or of a game's experiments compared."""
    title, analyses = unit_analyses(name, data)
    section = run_section(title, analyses, data, analysed)
    if data.experiment is not None:
        section.findings.insert(0, what_was_played(data))
    return section


def unit_analyses(name: str, data: GameData) -> tuple[str, list[Analysis]]:
    """A section's heading and analyses: an experiment's question, then the generic and the game's analyses (a skill
    ladder's own, rung by rung, in place of those that would pool its rungs); or the game's experiments compared."""
    own = game_report(name)
    if data.experiment is None:
        return f"{data.title}: the experiments compared", [*generic.COMPARED, *own.compared]
    if is_ladder(data):
        return data.question, [*generic.LADDER, *own.ladder]
    return data.question, [*generic.SEATS, *generic.STRATEGIES, *own.analyses, *(own.compared if data.alone else ())]


def what_was_played(data: GameData) -> Finding:
    """The experiment's games at each player count and its strategies."""
    games = data.rows.group_by("players").agg(games=pl.col("game_id").n_unique()).sort("players")
    counts = [f"{count(g)} games at {p} players" if i == 0 else f"{count(g)} at {p}"
              for i, (p, g) in enumerate(games.iter_rows())]
    numbers = [record(data, p, "games", g, g, g, g, "count") for p, g in games.iter_rows()]
    return Finding("What was played.", f"Experiment {data.experiment}: {listing(counts)}; strategies "
                   f"{data.pools()[data.experiment]}.", numbers=tuple(numbers))


def experiment_sizes(games: dict[str, list[GameData]]) -> dict[str, dict]:
    """Per experiment: its games and its player counts."""
    return {d.experiment: {"games": d.rows["game_id"].n_unique(), "players": d.player_counts}
            for experiments in games.values() for d in experiments}


def experiments_table(sizes: dict[str, dict], manifests: list[dict]):
    """One line per experiment: game, player counts, games, seed, config hash, completeness."""
    records = [{**m, **sizes.get(str(m["experiment"]), {"games": 0, "players": []})} for m in manifests]
    return table("Experiments", records, ("Experiment", "experiment"), ("Game", "game"),
                 ("Players", "players", lambda p: ", ".join(map(str, p))), ("Games", "games", count),
                 ("Seed", lambda m: str(m.get("seed", "?"))), ("Config hash", "config_hash", lambda h: str(h)[:12]),
                 ("Complete", "complete", yes))


def incomplete_experiment_caveats(manifests: list[dict]) -> list[str]:
    """A caveat for every experiment whose manifest says it did not finish."""
    return [f"Experiment {m['experiment']!r} has not finished; it contributes the games completed so far."
            for m in manifests if not m.get("complete")]
