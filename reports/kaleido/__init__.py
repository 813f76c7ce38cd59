"""Kaleido's report, declared: mid-game against end-game points, what turning scored boards is worth (rotator
against greedy on the same games), stalls, boards and white tiles, and where boards end up.

Kaleido rows carry `midgame_points` (boards scored during play), `endgame_points` (end-game hexagons; the two sum
to `score`), `boards_placed`, `whites_used`, `turns` (turns in which the player placed a tile) and `stalled` (the
same on every row of a game: every hole was full and nobody with tiles had a board left, so the game was ended and
scored there); newer results also carry `board_q` / `board_r`, the axial position of every board the seat placed.
The manifest's facts give the colours in play, `tiles_each` (tiles a player places in a full game), `boards_each`,
`whites_each` and the `starting_boards`. Games with the same `deal` are the same game under different seatings.

Every interval is cluster-robust over deals (matches in match mode): the games of one deal share its random
numbers, and the rows of one game its board, so neither is independent.
"""

from dataclasses import replace

from reports.kaleido import boards, points, rotation, stalls, usage
from reports.spec import GameReport

CAVEATS = (
    "Kaleido: a strategy's means (points, boards, white tiles) pool the tables it sat at within one experiment, "
    "whatever company it had there; the rotation comparison sets rotator against greedy on the same games.",
    "Kaleido: stalled and completed games may differ in who sat where (stalls may come with particular strategies "
    "and seatings), so the start player's share in stalled against completed games describes what happened rather "
    "than what the stall caused; the stuck-against-others comparison is within the same games.",
    "Kaleido: 'stuck' players are those whose tiles placed fall short of a full game's, as the manifest's "
    "`tiles_each` fact gives it for each experiment and player count.",
)

REPORT = GameReport(
    analyses=(replace(points.SPLIT, caveats=CAVEATS).analysis(), points.COMEBACKS.analysis(), rotation.ANALYSIS,
              stalls.ANALYSIS, usage.USAGE.analysis(), boards.MAP, boards.SEATS),
    rule_holes=stalls.rule_holes,
    ladder=(stalls.LADDER,),
)
