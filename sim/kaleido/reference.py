"""Kaleido, one game at a time, written to be read next to the rulebook (../shared/rules/kaleido.txt).

The oracle for the batched engine (tests replay the engine's decisions here), the player of `atelier play`'s
trace and the baseline of `atelier bench`. Geometry as in rules.py: axial coordinates, triangle k of a board
faces its neighbour in direction k, local slot s sits at triangle (s + rot) % 6.

`play(params, one, decider)` asks every decision as `decider(game, phase, options)` (sim/game.py), with the
engine's phases and action codes: the additional action in phase "forced", "before" or "after" (codes
`encode_extras`), the tile in phase "tile" (hole 6 * board + slot), and the turn of a board just scored in phase
"rotate" (0-5 steps; the board is `game.asking`). `question` puts the same question as the engine's Decision,
so that the batched strategies play here too (sim.game.Asker); tests hand in scripted deciders.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.game import Decider, Decision, checked, evolve, legal_row
from sim.kaleido import engine
from sim.kaleido.rules import COLORS, DIRECTIONS, EMPTY, STARTING_BOARDS, WHITE, Deal, Params, majority

Hole = tuple[int, int]  # (board id, local slot)


@dataclass
class Board:
    id: int
    q: int
    r: int
    rot: int = 0
    slots: list = field(default_factory=lambda: [None] * 6)  # by local slot: a colour, WHITE or None
    scored: bool = False

    def triangle(self, k: int):
        """What fills physical triangle k (the one facing the neighbour in direction k)."""
        return self.slots[(k - self.rot) % 6]

    @property
    def full(self) -> bool:
        return all(s is not None for s in self.slots)


@dataclass
class Game:
    params: Params
    boards: list[Board]
    tiles: list[int]  # coloured tiles left, per colour
    whites: list[int]  # white tiles left, per seat
    stock: list[int]  # boards left, per seat
    midgame: list[int]  # points per colour from boards scored during play
    endgame: list[int]  # points per colour from end-game hexagons
    turn: int = 0  # turns so far, passes and skips included
    stalled: bool = False
    events: list[dict] = field(default_factory=list)
    hexagons: list[dict] = field(default_factory=list)
    boards_placed: list[int] = field(default_factory=list)  # per seat
    whites_used: list[int] = field(default_factory=list)
    turns_played: list[int] = field(default_factory=list)
    # The turn in progress: whether the mover has taken the additional action, and the boards scored this
    # turn that the mover has yet to be offered to turn, lowest id first.
    extra_taken: bool = False
    pending: list[int] = field(default_factory=list)
    asking: int = -1  # the board the mover is being asked to turn (phase "rotate"), -1 otherwise
    result: Result | None = None  # the final standing, once `play` has ended and scored the game

    @property
    def seat(self) -> int:
        """Players take turns clockwise from the starting player."""
        return self.turn % self.params.players

    @property
    def colour(self) -> int:
        """The colour the player to move places. In the 2-player variant a player "cannot put 2 tiles of
        the same color successively", so their two colours alternate with the tiles they have placed."""
        if not self.params.two_colour:
            return self.seat
        mine = [c for c in range(self.params.colours) if self.params.owner(c) == self.seat]
        return mine[self.turns_played[self.seat] % 2]  # turns in which the player placed a tile

    def at(self, q: int, r: int) -> Board | None:
        return next((b for b in self.boards if (b.q, b.r) == (q, r)), None)

    def empty_holes(self) -> list[Hole]:
        return [(b.id, s) for b in self.boards for s in range(6) if b.slots[s] is None]

    def board_spots(self) -> list[tuple[int, int]]:
        """Empty honeycomb cells sharing at least one side with a board on the table."""
        taken = {(b.q, b.r) for b in self.boards}
        spots = {(b.q + int(dq), b.r + int(dr)) for b in self.boards for dq, dr in DIRECTIONS}
        return sorted(spots - taken)

    @property
    def over(self) -> bool:
        """End of Game: every player has run out of coloured tiles (or the rules have stalled)."""
        return self.stalled or all(t == 0 for t in self.tiles)


def new_game(params: Params, one: Deal) -> Game:
    """Set-up: two starting boards side by side; each player's tiles, white tiles and boards. Every game starts
    alike: the deal `one` holds nothing the game needs."""
    boards = [Board(i, q, r) for i, (q, r) in enumerate(STARTING_BOARDS)]
    players, colours = params.players, params.colours
    return Game(params, boards, [params.tiles] * colours, [params.whites_each] * players,
                [params.boards_each] * players, [0] * colours, [0] * colours,
                boards_placed=[0] * players, whites_used=[0] * players, turns_played=[0] * players)


def play_turn(game: Game, decider: Decider) -> None:
    """One turn (Turn Sequence): a tile (necessary), one additional action just before or after it (a white
    tile or a board), scoring of every board just filled, and the right to turn those boards."""
    colour, seat = game.colour, game.seat
    game.events.append({"type": "turn", "turn": game.turn, "seat": seat, "color": COLORS[colour]})
    game.extra_taken = False
    if game.tiles[colour] == 0:  # "A player who has run out of tiles must pass their turn"
        game.events.append({"type": "pass", "seat": seat})
        game.turn += 1
        return
    if not game.empty_holes():
        if game.stock[seat] == 0:
            if all(game.stock[game.params.owner(c)] == 0 for c, t in enumerate(game.tiles) if t > 0):
                game.stalled = True  # nobody who still has tiles can ever open a hole again
                game.events.append({"type": "stall", "seat": seat})
                return
            game.events.append({"type": "skip", "seat": seat})  # "the player's turn will be skipped"
            game.turn += 1
            return
        _extra(game, decider, "forced")  # all holes full: "must place an additional game board before"
    else:
        _extra(game, decider, "before")
    board, slot = divmod(_ask(game, decider, "tile", [6 * b + s for b, s in game.empty_holes()]), 6)
    _fill(game, board, slot, colour, white=False)
    game.tiles[colour] -= 1
    if not game.extra_taken:
        _extra(game, decider, "after")
    for board in [b for b in game.boards if b.full and not b.scored]:
        _score_board(game, board)
    while game.pending:  # lowest id first; "the order does not make any difference"
        board = game.boards[game.pending[0]]
        game.asking = board.id
        steps = _ask(game, decider, "rotate", list(range(6)))
        game.asking = -1
        game.pending.pop(0)
        if steps:
            board.rot = (board.rot + steps) % 6
            game.events.append({"type": "rotate", "board": board.id, "steps": steps})
    game.turns_played[seat] += 1
    game.turn += 1


def _ask(game: Game, decider: Decider, phase: str, options: list[int]) -> int:
    """Every question of the game: the decider's choice among the engine's codes `options`, which the rules allow."""
    return checked(decider(game, phase, options), options, phase, f"at turn {game.turn}")


def _extra(game: Game, decider: Decider, when: str) -> None:
    """The additional action: a white tile in an empty hole, or a board joined to the table by a side."""
    options = extra_options(game, when)
    codes = encode_extras(game, options)
    choice = options[codes.index(_ask(game, decider, when, codes))]
    if choice is None:
        return
    game.extra_taken = True
    kind, *where = choice
    seat = game.seat
    if kind == "white":
        _fill(game, *where, colour=WHITE, white=True)
        game.whites[seat] -= 1
        game.whites_used[seat] += 1
    else:
        q, r = where
        board = Board(len(game.boards), q, r)
        game.boards.append(board)
        game.stock[seat] -= 1
        game.boards_placed[seat] += 1
        game.events.append({"type": "board", "seat": seat, "board": board.id, "q": q, "r": r})


def _fill(game: Game, board: int, slot: int, colour: int, white: bool) -> None:
    target = game.boards[board]
    assert target.slots[slot] is None, "a hole can hold only one tile"
    target.slots[slot] = colour
    game.events.append({"type": "tile", "seat": game.seat, "color": "white" if white else COLORS[colour],
                        "board": board,
                        "slot": slot, "white": white})


def score_counts(game: Game, fills) -> list[int]:
    """Coloured tiles of each colour among `fills`; white tiles never count."""
    return [sum(1 for f in fills if f == c) for c in range(game.params.colours)]


def _score_board(game: Game, board: Board) -> None:
    """Scoring: a board whose six holes are all occupied scores by the majority rule."""
    points = majority(np.array(score_counts(game, board.slots)), game.params).tolist()
    for c, p in enumerate(points):
        game.midgame[c] += p
    board.scored = True
    game.pending.append(board.id)
    game.events.append({"type": "score", "board": board.id,
                        "points": {COLORS[c]: p for c, p in enumerate(points) if p}})


def hexagon_triples(game: Game) -> list[tuple[tuple[Board, int], ...]]:
    """Every corner where three boards meet: X with neighbours Y (direction k) and Z (direction k+1).
    Returns ((X, k), (Y, k+2), (Z, k+4)): each board with the first of its two triangles in the hexagon."""
    seen, triples = set(), []
    for x in game.boards:
        for k in range(6):
            y = game.at(x.q + int(DIRECTIONS[k][0]), x.r + int(DIRECTIONS[k][1]))
            z = game.at(x.q + int(DIRECTIONS[(k + 1) % 6][0]), x.r + int(DIRECTIONS[(k + 1) % 6][1]))
            if y and z and frozenset((x.id, y.id, z.id)) not in seen:
                seen.add(frozenset((x.id, y.id, z.id)))
                triples.append(((x, k), (y, (k + 2) % 6), (z, (k + 4) % 6)))
    return triples


def endgame_scoring(game: Game) -> None:
    """End-game scoring: every hexagon of three mutually adjacent boards whose six triangles are all
    occupied scores by the majority rule; under `hexagon_needs_full_boards`, only if its three boards are full."""
    for triple in hexagon_triples(game):
        fills = [board.triangle((k + i) % 6) for board, k in triple for i in (0, 1)]
        if any(f is None for f in fills):
            continue
        if game.params.hexagon_needs_full_boards and not all(board.full for board, _ in triple):
            continue
        points = majority(np.array(score_counts(game, fills)), game.params).tolist()
        for c, p in enumerate(points):
            game.endgame[c] += p
        game.hexagons.append({"boards": sorted(b.id for b, _ in triple),
                              "points": {COLORS[c]: p for c, p in enumerate(points) if p}})


@dataclass(frozen=True)
class Result:
    colour_points: list[int]
    scores: list[int]  # per seat: the sum of its colours
    ranks: list[int]
    wins: list[float]
    winners: list[int]


def final_result(game: Game) -> Result:
    """The most points wins; tied players share the victory. In the 2-player variant a player adds up
    the points of both colours."""
    params = game.params
    colour_points = [m + e for m, e in zip(game.midgame, game.endgame)]
    scores = [sum(p for c, p in enumerate(colour_points) if params.owner(c) == seat) for seat in range(params.players)]
    best = max(scores)
    winners = [s for s in range(params.players) if scores[s] == best]
    ranks = [1 + sum(other > mine for other in scores) for mine in scores]
    wins = [1 / len(winners) if s in winners else 0.0 for s in range(params.players)]
    return Result(colour_points, scores, ranks, wins, winners)


def play(params: Params, one: Deal, decider: Decider) -> Game:
    """The one game of the deal `one`, played to its end (End of Game), then the end-game scoring and the final
    standing (`game.result`)."""
    game = new_game(params, one)
    while not game.over:
        play_turn(game, decider)
    endgame_scoring(game)
    game.result = final_result(game)
    return game


def scores(game: Game) -> list[int]:
    """The finished game's scores, one per seat."""
    return game.result.scores


def extra_options(game: Game, when: str) -> list:
    """The additional actions open now: None (no action, unless every hole is full), a white tile in an
    empty hole (before the tile, not in the last one), or a board on a free spot next to the table."""
    seat = game.seat
    holes = game.empty_holes()
    options = [] if when == "forced" else [None]
    if when != "forced" and game.whites[seat] > 0 and len(holes) >= (2 if when == "before" else 1):
        options += [("white", b, s) for b, s in holes]
    if game.stock[seat] > 0:
        options += [("board", q, r) for q, r in game.board_spots()]
    return options


def question(game: Game, phase: str, options: list[int]) -> Decision:
    """The question `phase` with the choices `options` as the engine's Decision, over a batch of one."""
    geo = engine.geometry(game.params)
    width = 6 if phase == "rotate" else geo.holes if phase == "tile" else 1 + 2 * geo.holes  # 1 + H + 6 * boards
    legal, asked = legal_row(options, width), np.ones(1, bool)
    obs = engine.Observation(phase, np.array([game.colour]), game.seat, game.turn, to_state(game, phase), geo, legal,
                             asked, np.array([game.asking]))
    kind = "extra" if phase in engine.EXTRA else phase
    return Decision(kind, game.seat, legal, asked, obs, f"({phase}) at turn {game.turn}")


def encode_extras(game: Game, options: list) -> list[int]:
    """The engine's codes of extra actions: 0 none, 1 + hole for a white tile, 1 + H + 6 b + k for a board
    next to board b in direction k, the lowest b and then k that reach the spot."""
    holes = 6 * game.params.boards
    spot_codes: dict[tuple[int, int], int] = {}
    for board in game.boards:  # in id order, so the first code to reach a spot is its lowest
        for k, (dq, dr) in enumerate(DIRECTIONS):
            spot_codes.setdefault((board.q + dq, board.r + dr), 1 + holes + 6 * board.id + k)
    return [0 if option is None else 1 + 6 * option[1] + option[2] if option[0] == "white"
            else spot_codes[option[1:]] for option in options]


def to_state(game: Game, phase: str = "start") -> engine.State:
    """The game as the engine's State for a batch of one, in `phase` of the turn: "start" between turns, or
    the phase of the decision being asked."""
    params = game.params
    geo = engine.geometry(params)
    nb = params.boards
    slots = np.full((1, nb, 6), EMPTY, np.int8)
    cell = np.full((1, nb), -1, np.int16)
    placer = np.full((1, nb), -1, np.int8)
    rot = np.zeros((1, nb), np.int8)
    scored = np.zeros((1, nb), bool)
    pending = np.zeros((1, nb), bool)
    for b in game.boards:
        slots[0, b.id] = [EMPTY if s is None else s for s in b.slots]
        cell[0, b.id] = geo.cell(b.q, b.r)
        rot[0, b.id], scored[0, b.id] = b.rot, b.scored
    passes, skips = [0] * params.players, [0] * params.players
    for event in game.events:
        if event["type"] == "board":
            placer[0, event["board"]] = event["seat"]
        elif event["type"] in ("pass", "skip"):
            (passes if event["type"] == "pass" else skips)[event["seat"]] += 1
    pending[0, game.pending] = True
    between = phase == "start"  # during a decision the mover plays: the game had not ended when the turn began

    def row(values, dtype):
        return np.array([values], dtype)

    state = engine.State(
        slots=slots, cell=cell, placer=placer, rot=rot, scored=scored, tiles=row(game.tiles, np.int8),
        whites=row(game.whites, np.int8), stock=row(game.stock, np.int8), midgame=row(game.midgame, np.int32),
        endgame=row(game.endgame, np.int32), whites_used=row(game.whites_used, np.int16),
        turns_played=row(game.turns_played, np.int16), passes=row(passes, np.int16), skips=row(skips, np.int16),
        done=np.array([between and game.over]),
        stalled=np.array([game.stalled]),
        turn_kind=np.array([engine.OVER if between and game.over else engine.PLAYS], np.int8),
        extra_taken=np.array([game.extra_taken and not between]), pending=pending,
        asked=np.array([not between]), phase=phase, turn=game.turn,
        **dict.fromkeys(("empty", "filling", "offers")))  # counted below
    return evolve(state, **engine.counted(params, state))
