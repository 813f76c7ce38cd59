"""Broken and Beautiful's report: the first player marker, points by card type, breakage and repair, ingots and
storage boxes, and restricted play (strategies that never keep one card type, against their unrestricted base).

Rows carry `rounds`, `ingots`, `repaired`, `broken`, `items` and `points_TYPE` for each scored type (they sum to
`score`); the manifest's facts give the scored `types` and the `rounds` per player count. Strategies are named
`base[@knob][-no-TYPE]`, e.g. "greedy", "hater@3", "greedy-no-teapot". Every interval is cluster-robust over deals
(matches in match mode): the games of one deal share its cards, so they are not independent."""

from reports.broken_beautiful.card_types import CARD_TYPES
from reports.broken_beautiful.collection import BREAKAGE, INGOTS
from reports.broken_beautiful.marker import MARKER
from reports.broken_beautiful.restricted_play import RESTRICTED
from reports.spec import GameReport

REPORT = GameReport(analyses=(MARKER, CARD_TYPES, BREAKAGE.analysis(), INGOTS.analysis(), RESTRICTED))
