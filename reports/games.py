"""Each game's declared report, found by the game's name: reports/<game>/ declares REPORT (reports/spec.GameReport),
so that a new game's report is its own package and no line elsewhere. A game with no such package gets the generic
analyses alone."""

from importlib import import_module
from importlib.util import find_spec

from reports.spec import GameReport


def game_report(game: str) -> GameReport:
    """The game's declared report; an empty one (the generic analyses alone) where reports/ has none. `game` is a
    name games have (sim.dataset.GAME_NAME): no dots, no path."""
    if find_spec(f"reports.{game}") is None:
        return GameReport()
    report = getattr(import_module(f"reports.{game}"), "REPORT", None)
    if not isinstance(report, GameReport):
        raise LookupError(f"reports.{game} is no game's report")
    return report


def known(game: str) -> bool:
    """Whether the report can take the game: reports/ has its declared report, or no module of its name."""
    try:
        game_report(game)
    except LookupError:
        return False
    return True
