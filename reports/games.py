"""The games whose report declares analyses of its own, each by its REPORT (reports/spec.GameReport). A game not
named here gets the generic analyses alone; a new game's report is its module and one line here."""

from reports import broken_beautiful, kaleido, kintsugi, kunst_stuecke, witkacy
from reports.spec import GameReport

REPORTS: dict[str, GameReport] = {
    "broken_beautiful": broken_beautiful.REPORT,
    "kaleido": kaleido.REPORT,
    "kintsugi": kintsugi.REPORT,
    "kunst_stuecke": kunst_stuecke.REPORT,
    "witkacy": witkacy.REPORT,
}


def game_report(game: str) -> GameReport:
    """The game's declared report; an empty one (the generic analyses alone) for a game not named here."""
    return REPORTS.get(game, GameReport())
