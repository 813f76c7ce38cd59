"""Kunst Stücke's report, declared: which target tiles come true (by size and by score space), how winning goes
with the chips spent and with the timing of the first look, discards, and across experiments what the chips sweep
shows. Each finding speaks of one player count at a time (each plays its own Params) and carries the records of its
numbers.

Kunst Stücke rows carry `targets_taken`, `targets_correct`, `target_points` (the score), `chips_left`, `discards`,
`first_look` (the turn of the seat's first look, 0-based over every player's turns; -1 if it never looked),
`aimed_sizes` (its tiles' sizes in space order, 6 meaning 6+), and for each of the five spaces of its score board
`space_sizes` (the size of the tile there, 0 if empty) and `space_correct`. The manifest's facts give `pieces_each`
(a game lasts players × pieces_each turns), `chips` (each player's at the start) and `spaces` (each space's bonus).
Shares of wins and of tiles carry cluster-robust intervals over deals (matches in match mode): the players and the
tiles of one deal are not independent. Game-wide measures and helpers are in `common`.
"""

from dataclasses import replace

from reports.kunst_stuecke import chips_sweep, discards, looks, spending, targets
from reports.spec import GameReport

CAVEATS = (
    "Kunst Stücke: the target tiles of one game share a board and plans; the shares of tiles that come true are "
    "clustered by deal, so those tiles count together.",
    "Kunst Stücke: the chips spent, the timing of the first look and which tile goes on which space are choices the "
    "strategies make, so the win shares by spending and by timing, and the tile shares by space, describe the "
    "players who make those choices, not what the choices cause; the chips sweep compares the same strategies "
    "under different chips.",
)

ANALYSES = [
    replace(targets.TARGETS, caveats=CAVEATS),
    spending.SPENDING.analysis(),
    looks.LOOKS.analysis(),
    discards.DISCARDS.analysis(),
]
COMPARED = [chips_sweep.SWEEP_ANALYSIS]  # across the game's experiments, each number from its own experiment

REPORT = GameReport(analyses=tuple(ANALYSES), compared=tuple(COMPARED))
