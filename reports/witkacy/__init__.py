"""Witkacy's own analyses: completed paintings by seat, how often players complete paintings and which ones, how
often each strategy uses each action token and what the tokens are worth (restricted play), and the Advanced
Variant against the basic game.

Witkacy rows carry `paintings` (the seat's completed copies; most copies settle a tied score), `copies_by_painting`
(its copies of each painting, in the order of the manifest's `paintings`), `actions_used` (whether it used each
action token, in the order of the manifest's `actions`: stash, solvent, correction, gift, rush), `cards_played`
(cards it added to its own collection), and per game `turns` and `deck_left` (cards left in the deck at the end).
A completed painting scores the number of its copies in all collections together. The manifest's facts give the
`paintings`, the `actions`, the `cards` in the deck and whether the game is `advanced` (the Advanced Variant: a new
card must overlap at least 2 of its 4 cells). Strategies named BASE-no-ACTION never use that action token. Games
with the same `deal` are the same shuffle under different seatings, so every interval here is clustered by whole deals
(matches in match mode), as reports/stats.py does: cluster-robust intervals over the per-deal sums of what it counts.

Each analysis lives in its own module; what they share is in common.py.
"""

from reports.spec import GameReport
from reports.witkacy.actions import ACTION_USE
from reports.witkacy.advanced import ADVANCED
from reports.witkacy.completion import COMPLETION
from reports.witkacy.paintings import PAINTINGS
from reports.witkacy.seats import SEATS
from reports.witkacy.worth import TOKEN_WORTH

REPORT = GameReport(
    analyses=(SEATS, COMPLETION, PAINTINGS, ACTION_USE, TOKEN_WORTH),
    compared=(ADVANCED,),  # across the game's experiments, each number from its own experiment
)
