"""Build the balance report: read Parquet results and their manifests, run the analyses, write index.html,
summary.md and PNG charts.

Every game gets the generic analyses (reports/generic.py), from its rows and manifest alone. A game with its own
analyses lists them in reports/<game>.py, found by the game's name (SECTION, ANALYSES and optional OPTIONS for the
generic ones). Reports read Parquet and the manifest only: they import no rules, engines or strategies.
"""

import os
import secrets
import shutil
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType

import matplotlib
import polars as pl
from joblib import Parallel, delayed

from reports import generic
from reports.analysis import GAME_KEY, GameData, Section, run_section
from reports.charts import chart_style
from reports.fmt import count, yes
from reports.load import ResultsError, load_results
from reports.render import Report, render_html, render_markdown, table

GENERAL_CAVEATS = [
    "Bots are not people. Every number here describes scripted heuristics playing each other; human players adapt, "
    "bluff, make mistakes and read the table, so a balance problem the bots show is a lead to test at the table, not "
    "a verdict.",
    "Intervals are 95% intervals that cover sampling noise only, not modelling choices. Shares of victory count a "
    "k-way tie as 1/k of a win; the Wilson interval is derived for whole successes, so on fractional tie shares it is "
    "an approximation (a close one when ties are rare). Rows from the same game are not independent, so intervals "
    "that pool several seats of one game (strategies appearing twice in a game, head-to-head meetings) are somewhat "
    "too narrow.",
    "All experiments found under the results folder are pooled. If they ran different rules or components, point "
    "the report at one experiment folder at a time.",
]


REPORT_FILES = (".html", ".md", ".png")  # what a report folder holds


def build_report(results_dir: Path, out_dir: Path) -> Path:
    """Analyse every experiment under results_dir and write the report into out_dir.

    results_dir is one experiment folder (manifest.json + parts/*.parquet) or a folder of them.
    Writes out_dir/index.html, out_dir/summary.md and PNG charts; returns the path of index.html. The report is
    written into a temporary folder beside out_dir and moved into place only when whole, so a failed report leaves
    out_dir as it was; an existing out_dir is replaced, and only if it holds nothing but a report.
    Raises ResultsError when there are no results or the results are inconsistent, or out_dir cannot be used."""
    given, out_dir = Path(out_dir), Path(os.path.abspath(out_dir))
    results_dir = Path(results_dir)
    rows, manifests = load_results(results_dir)
    check_results(rows)
    check_report_folder(out_dir)
    created = make_parents(out_dir)
    staging = out_dir.with_name(f".{out_dir.name}.{secrets.token_hex(4)}.tmp")
    try:
        staging.mkdir()
        report = assemble_report(rows, manifests, staging)
        (staging / "summary.md").write_text(render_markdown(report), encoding="utf-8")
        (staging / "index.html").write_text(render_html(report), encoding="utf-8")
        move_into_place(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        remove_empty(created)
        raise
    return given / "index.html"


def check_report_folder(out_dir: Path) -> None:
    """ResultsError unless out_dir is new, empty or an earlier report, and not where this process stands."""
    here = Path.cwd().resolve()
    if out_dir.resolve() in (here, *here.parents):
        raise ResultsError(f"--out {out_dir} is the current folder or holds it; name a folder for the report")
    if not out_dir.is_dir():
        return
    strays = sorted(p.name for p in out_dir.iterdir() if not p.is_file() or p.suffix not in REPORT_FILES)
    if strays:
        raise ResultsError(f"--out {out_dir} holds {strays[0]!r}, which is no part of a report, and a report replaces "
                           "its folder; choose another --out")


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
    out_dir.rename(old)
    try:
        staging.rename(out_dir)
    except BaseException:
        old.rename(out_dir)
        raise
    shutil.rmtree(old)


def check_results(rows: pl.DataFrame) -> None:
    """Raise ResultsError unless every game has one row per seat and its win shares sum to 1."""
    games = rows.group_by(GAME_KEY).agg(seats=pl.len(), players=pl.col("players").first(), win=pl.col("win").sum())
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


def game_data(rows: pl.DataFrame, manifests: list[dict], out_dir: Path) -> list[GameData]:
    """One GameData per game in the rows, with the manifests of its experiments, in order of title."""
    out = []
    for game in rows["game"].unique().to_list():
        mine = [m for m in manifests if m["game"] == game]
        out.append(GameData(game, rows.filter(pl.col("game") == game), mine, out_dir, options(game)))
    return sorted(out, key=lambda d: d.title)


def own_analyses(game: str) -> ModuleType | None:
    """reports/<game>.py, the game's own analyses, if it has any."""
    name = f"reports.{game}"
    if not game.isidentifier() or find_spec(name) is None:
        return None
    return import_module(name)


def options(game: str) -> dict:
    """The game's options for the generic analyses (its module's OPTIONS), if any."""
    return getattr(own_analyses(game), "OPTIONS", {})


def assemble_report(rows: pl.DataFrame, manifests: list[dict], out_dir: Path) -> Report:
    """Run every analysis, draw the charts into out_dir and collect the report. The games are analysed side by
    side, one worker process each (up to the cores)."""
    sections, summary = [], []
    caveats = list(GENERAL_CAVEATS) + incomplete_experiment_caveats(manifests)
    games = game_data(rows, manifests, out_dir)
    jobs = min(len(games), os.cpu_count() or 1)
    if jobs > 1:
        analysed = Parallel(n_jobs=jobs, backend="loky")(delayed(game_sections)(data) for data in games)
    else:
        analysed = [game_sections(data) for data in games]
    for data, parts in zip(games, analysed, strict=True):
        summary.append((data.title, [c for s in parts for c in s.headline], [f for s in parts for f in s.findings]))
        caveats += [c for s in parts for c in s.caveats]
        sections += parts
    overview = [f"{count(rows.select(GAME_KEY).unique().height)} simulated games ({count(rows.height)} player "
                f"results) from {len(manifests)} experiment(s). Every rate carries a 95% confidence interval.",
                experiments_table(rows, manifests)]
    return Report("Balance report: " + ", ".join(d.title for d in games), overview, summary, sections, caveats)


def game_sections(data: GameData) -> list[Section]:
    """A game's sections: seat advantage, strategy strength, and its own analyses if it has any."""
    with matplotlib.rc_context(chart_style()):
        parts = [run_section(f"{data.title}: seat advantage", generic.SEATS, data),
                 run_section(f"{data.title}: strategy strength", generic.STRATEGIES, data)]
        if (module := own_analyses(data.name)) is not None:
            parts.append(run_section(f"{data.title}: {module.SECTION}", module.ANALYSES, data))
    return parts


def experiments_table(rows: pl.DataFrame, manifests: list[dict]):
    """One line per experiment: game, player counts, games, seed, config hash, completeness."""
    sizes = rows.group_by("experiment").agg(games=pl.col("game_id").n_unique(),
                                            players=pl.col("players").unique().sort())
    by_name = {r["experiment"]: r for r in sizes.iter_rows(named=True)}
    records = [{**m, **by_name.get(str(m["experiment"]), {"games": 0, "players": []})} for m in manifests]
    return table("Experiments", records, ("Experiment", "experiment"), ("Game", "game"),
                 ("Players", "players", lambda p: ", ".join(map(str, p))), ("Games", "games", count),
                 ("Seed", lambda m: str(m.get("seed", "?"))), ("Config hash", "config_hash", lambda h: str(h)[:12]),
                 ("Complete", "complete", yes))


def incomplete_experiment_caveats(manifests: list[dict]) -> list[str]:
    """A caveat for every experiment whose manifest says it did not finish."""
    return [f"Experiment {m['experiment']!r} has not finished; it contributes the games completed so far."
            for m in manifests if not m.get("complete")]
