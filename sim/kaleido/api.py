"""Kaleido (Japon Brand, 2014): fill triangular holes on hexagonal boards, win board majorities, turn the
boards you score to set up end-game hexagons. The rules side of the game contract (sim/game.py).

The trace (`atelier play kaleido --json`) holds, besides the header every game has: `colors` (each seat's
colours), `events` (the game in order, below), `boards` (the final table: id, q, r, rot, slots by local
slot), `endgame` (each scored hexagon's boards and points), `stalled`, `scores` and `winners`. Events:
- `turn` {turn, seat, color}: a turn starts; `turn` counts turns from 0, passes and skips included, and
  `color` is the colour the seat places in it. Every turn starts with one; the turn's other events follow,
  up to the next `turn` event;
- `tile` {seat, color, board, slot, white}: a tile in a hole (`white`: one of the seat's white tiles);
- `board` {seat, board, q, r}: a board from the seat's stock, joined to the table at axial (q, r);
- `score` {board, points}: a board just filled scores (points by colour, only those who score);
- `rotate` {board, steps}: the mover turns a board just scored by `steps` (1-5) steps; no event when it is
  left as it is;
- `pass` {seat}: the seat is out of coloured tiles and passes;
- `skip` {seat}: every hole is full and the seat has no board left, so its turn is skipped;
- `stall` {seat}: every hole is full at the start of the seat's turn and nobody who still holds tiles has a
  board left: no turn can ever open a hole again, so the game ends here (`stalled` is true) and is scored.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.errors import IllegalMove
from sim.game import GameRules, standings_lines
from sim.kaleido import engine, reference
from sim.kaleido.rules import COLORS, PLAYER_COUNTS, STARTING_BOARDS, WHITE, Deal, Params, deal, facts


def _fill_name(fill) -> str | None:
    return None if fill is None else "white" if fill == WHITE else COLORS[fill]


def record(params: Params, one: Deal, game: reference.Game) -> dict:
    """The one game of a deal, finished by the reference, as auditable data (see the module docstring)."""
    result = game.result
    return {
        "colors": [[COLORS[c] for c in range(params.colours) if params.owner(c) == s] for s in range(params.players)],
        "events": game.events,
        "boards": [{"id": b.id, "q": b.q, "r": b.r, "rot": b.rot, "slots": [_fill_name(f) for f in b.slots]}
                   for b in game.boards],
        "endgame": game.hexagons,
        "stalled": game.stalled,
        "scores": result.scores,
        "winners": result.winners,
    }


class Replayer:
    """A reference decider that plays the choices a trace's events record, as the engine's codes. Its `turn`
    events mark where each turn's choices begin, so a choice is never taken for one of another turn."""

    def __init__(self, events: list[dict]):
        self.turns: dict[int, list[dict]] = {}  # turn -> its tile, board and rotate events, in order
        choices: list[dict] = []  # choices before the first `turn` event belong to no turn
        for event in events:
            if event["type"] == "turn":
                choices = self.turns.setdefault(event["turn"], [])
            elif event["type"] in ("tile", "board", "rotate"):
                choices.append(event)

    def _take(self, game, wanted) -> dict | None:
        """The turn's next recorded choice if `wanted(event)`; it is then used up."""
        left = self.turns.get(game.turn, [])
        return left.pop(0) if left and wanted(left[0]) else None

    def __call__(self, game: reference.Game, phase: str, options: list[int]) -> int:
        if phase == "tile":
            event = self._take(game, lambda e: e["type"] == "tile" and not e["white"])
            if event is None or (event["board"], event["slot"]) not in game.empty_holes():
                raise IllegalMove("trace", f"turn {game.turn} records no tile in an empty hole")
            return 6 * event["board"] + event["slot"]
        if phase == "rotate":
            event = self._take(game, lambda e: e["type"] == "rotate" and e["board"] == game.asking)
            return 0 if event is None else event["steps"]  # a board left as it is has no event
        event = self._take(game, lambda e: e["type"] == "board" or (e["type"] == "tile" and e["white"]))
        if event is None:
            return 0  # no additional action
        option = ("board", event["q"], event["r"]) if event["type"] == "board" else \
            ("white", event["board"], event["slot"])
        if option not in reference.extra_options(game, phase):
            raise IllegalMove("trace", f"{phase} extra action {option} at turn {game.turn} is not allowed")
        return reference.encode_extras(game, [option])[0]

    def check_used_up(self) -> None:
        for turn, left in self.turns.items():
            if left:
                raise IllegalMove("trace", f"turn {turn} records {left[0]}, which the rules never asked for")


def replay(record: dict) -> list[int]:
    """A trace's choices replayed through the reference; the scores it gives."""
    params = Params(**record["params"])
    replayer = Replayer(record["events"])
    game = reference.play(params, deal(params, np.random.default_rng(0), 1), replayer)  # the deal draws nothing
    replayer.check_used_up()
    return reference.scores(game)


def narrate(record: dict) -> str:
    """Tell a traced game event by event."""
    names = record["strategies"]
    lines = [f"Kaleido, {record['players']} players, seed {record['seed']}"]
    lines += [f"  seat {s} ({names[s]}) plays {', '.join(c)}" for s, c in enumerate(record["colors"])]
    lines.append("  starting boards " + " and ".join(f"{b} at ({q}, {r})" for b, (q, r) in enumerate(STARTING_BOARDS)))
    for event in record["events"]:
        kind = event["type"]
        if kind == "turn":
            lines.append(f"Turn {event['turn'] + 1}: seat {event['seat']} ({names[event['seat']]}), {event['color']}")
        elif kind == "tile":
            what = "a white tile" if event["white"] else f"a {event['color']} tile"
            lines.append(f"  seat {event['seat']} puts {what} in board {event['board']}, slot {event['slot']}")
        elif kind == "board":
            lines.append(f"  seat {event['seat']} places board {event['board']} at ({event['q']}, {event['r']})")
        elif kind == "score":
            points = ", ".join(f"{c} {p}" for c, p in event["points"].items()) or "nobody"
            lines.append(f"  board {event['board']} is full and scores: {points}")
        elif kind == "rotate":
            lines.append(f"  board {event['board']} is turned {event['steps']} step(s)")
        elif kind == "pass":
            lines.append(f"  seat {event['seat']} is out of tiles and passes")
        elif kind == "skip":
            lines.append(f"  every hole is full and seat {event['seat']} has no board left: the turn is skipped")
        elif kind == "stall":
            lines.append("The game stalls: every hole is full and nobody with tiles has a board left.")
    lines.append("End-game hexagons:")
    for hexagon in record["endgame"]:
        points = ", ".join(f"{c} {p}" for c, p in hexagon["points"].items()) or "nobody"
        lines.append(f"  boards {hexagon['boards']}: {points}")
    lines += standings_lines(record["scores"], record["winners"])
    return "\n".join(lines)


def unseen(params: Params, dealt: Deal, seat: int, rng: np.random.Generator) -> Deal:
    """The deal itself: Kaleido hides nothing, every game starts from the same table."""
    return dealt


RULES = GameRules(
    name="kaleido", title="Kaleido", player_counts=PLAYER_COUNTS, lowest_wins=False, params=Params,
    summary=("place coloured tiles in hexagonal boards, score majorities when a board fills, turn scored boards "
             "for end-game hexagons; most points wins (2 players: two colours each)"),
    columns={"midgame_points": pl.Int32, "endgame_points": pl.Int32, "boards_placed": pl.Int8, "whites_used": pl.Int8,
             "turns": pl.Int8, "stalled": pl.Boolean, "board_q": pl.List(pl.Int8), "board_r": pl.List(pl.Int8)},
    engine=engine, reference=reference, deal=deal, record=record, replay=replay, narrate=narrate, facts=facts,
    unseen=unseen,
)
