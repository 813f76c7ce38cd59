"""Kintsugi, one game at a time, written to be read next to the rulebook (../shared/rules/kintsugi.txt).

The oracle for the batched engine (tests replay the engine's choices here), the narrator of `atelier play`
and the baseline of `atelier bench`. Coordinates: the starting card's top-left cell is (0, 0); rows grow
downward; a rotation is a number of quarter turns counter-clockwise, as numpy.rot90.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from sim.errors import IllegalMove
from sim.game import Decider, Decision, checked, legal_row
from sim.kintsugi.engine import EMPTY, GuessView, Observation
from sim.kintsugi.rules import (
    ACTION_OFFSET,
    ACTION_ROTATION,
    COLORS,
    N_ACTIONS,
    N_COLORS,
    N_ROTATIONS,
    OFFSETS,
    Deal,
    Params,
)

Cell = tuple[int, int]


class Placement(NamedTuple):
    row: int  # top-left cell of the card
    col: int
    rotation: int  # quarter turns counter-clockwise


def rotate(layout, quarter_turns: int) -> list[list[int]]:
    """Turn a 2x2 layout counter-clockwise: [[a, b], [c, d]] -> [[b, d], [a, c]]."""
    for _ in range(quarter_turns % 4):
        (a, b), (c, d) = layout
        layout = [[b, d], [a, c]]
    return [list(row) for row in layout]


def cells(placement: Placement) -> list[Cell]:
    return [(placement.row + i, placement.col + j) for i in (0, 1) for j in (0, 1)]


@dataclass
class Game:
    params: Params
    order: list[int]  # card ids from the top of the deck
    colors: list[int]  # secret colour of each seat; seat 0 is the start player
    table: dict[Cell, int] = field(default_factory=dict)  # the colour showing at every covered cell
    placements: list[Placement] = field(default_factory=list)  # the starting card first
    guesses: list[int] = field(default_factory=list)  # the colour each seat named for its left neighbour, in seat order
    guessing: int = 0  # scratch: the seat asked to guess, set just before asking

    @property
    def turn(self) -> int:
        return len(self.placements) - 1

    @property
    def over(self) -> bool:
        """Game End: no more cards remain to be drawn."""
        return len(self.placements) == len(self.order)

    @property
    def seat_to_move(self) -> int:
        """The start player goes first, then each player to the left in turn."""
        return self.turn % len(self.colors)

    @property
    def card_in_hand(self) -> list[list[int]]:
        return self.params.cards[self.order[len(self.placements)]].tolist()


def new_game(params: Params, one: Deal) -> Game:
    """Setup: the top card of the deal's shuffled deck is the starting card, laid face up."""
    game = Game(params, [int(c) for c in one.order[0]], [int(c) for c in one.colors[0]])
    _lay(game, params.cards[game.order[0]].tolist(), Placement(0, 0, 0))
    return game


def _lay(game: Game, layout, placement: Placement) -> None:
    turned = rotate(layout, placement.rotation)
    for (row, col), colour in zip(cells(placement), [c for line in turned for c in line]):
        game.table[row, col] = colour
    game.placements.append(placement)


def legal_placements(game: Game) -> list[Placement]:
    """How to Play: the card must completely cover one fragment of the previous card and no more.
    Cards sit on the grid, so only positions overlapping the previous card need checking."""
    previous = game.placements[-1]
    under = set(cells(previous))
    legal = []
    for row in range(previous.row - 1, previous.row + 2):
        for col in range(previous.col - 1, previous.col + 2):
            for rotation in range(N_ROTATIONS):
                placement = Placement(row, col, rotation)
                if len(under & set(cells(placement))) == 1:
                    legal.append(placement)
    return legal


def place(game: Game, placement: Placement, who: str = "reference") -> None:
    """Draw the top card and lay it as `placement`."""
    if placement not in legal_placements(game):
        raise IllegalMove(who, f"{placement} does not cover exactly one fragment of the previous card")
    _lay(game, game.card_in_hand, placement)


def neighbours(cell: Cell, connectivity: int) -> list[Cell]:
    row, col = cell
    steps = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    if connectivity == 8:  # gold lacquer joins fragments corner to corner
        steps += [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    return [(row + dr, col + dc) for dr, dc in steps]


def pieces(game: Game) -> list[int]:
    """A piece is a contiguous group of visible fragments of one colour. Counted by flood fill."""
    counts = [0] * len(COLORS)
    seen: set[Cell] = set()
    for start, colour in game.table.items():
        if start in seen:
            continue
        counts[colour] += 1
        seen.add(start)
        frontier = [start]
        while frontier:
            for nb in neighbours(frontier.pop(), game.params.connectivity):
                if nb not in seen and game.table.get(nb) == colour:
                    seen.add(nb)
                    frontier.append(nb)
    return counts


@dataclass(frozen=True)
class Result:
    pieces: list[int]  # visible pieces of each colour
    guesses: list[int]
    correct: list[bool]
    scores: list[int]
    ranks: list[int]
    wins: list[float]
    winners: list[int]


def final_result(game: Game) -> Result:
    return settle(pieces(game), game.colors, game.guesses)


def scores(game: Game) -> list[int]:
    return final_result(game).scores


def settle(count: list[int], colors: list[int], guesses) -> Result:
    """Scoring: your pieces; minus your left neighbour's pieces if you guessed their colour.
    Lowest score wins; tied players share the victory."""
    players = len(colors)
    own = [count[colour] for colour in colors]
    correct = [int(guesses[s]) == colors[(s + 1) % players] for s in range(players)]
    scores = [own[s] - (own[(s + 1) % players] if correct[s] else 0) for s in range(players)]
    best = min(scores)
    winners = [s for s in range(players) if scores[s] == best]
    ranks = [1 + sum(other < mine for other in scores) for mine in scores]
    wins = [1 / len(winners) if s in winners else 0.0 for s in range(players)]
    return Result(count, [int(g) for g in guesses], correct, scores, ranks, wins, winners)


def candidates(game: Game) -> list[Placement]:
    """The engine's action encoding: action = 4 * offset + rotation, offsets as in rules.OFFSETS."""
    previous = game.placements[-1]
    return [Placement(previous.row + int(OFFSETS[spot][0]), previous.col + int(OFFSETS[spot][1]), int(rotation))
            for spot, rotation in zip(ACTION_OFFSET, ACTION_ROTATION)]


def board_array(game: Game) -> np.ndarray:
    """The table as the engine lays it out, for a batch of one: (1, H, W), the starting card's top-left at
    (shift, shift)."""
    shift = len(game.order)  # room for a walk of every card in any direction, plus a border
    board = np.full((1, 2 * shift + 2, 2 * shift + 2), EMPTY, np.int8)
    for (row, col), colour in game.table.items():
        board[0, row + shift, col + shift] = colour
    return board


def observation(game: Game) -> Observation:
    """The table as a batch of one, so the batched strategies can play here too."""
    shift = len(game.order)
    board = board_array(game)
    previous = game.placements[-1]
    legal = legal_placements(game)
    return Observation(
        seat=game.seat_to_move,
        turn=game.turn,
        board=board,
        pos=np.array([[previous.row + shift, previous.col + shift]], np.int16),
        offsets=OFFSETS,
        layouts=np.array([[rotate(game.card_in_hand, r) for r in range(N_ROTATIONS)]], np.int8),
        spot=ACTION_OFFSET,
        rotation=ACTION_ROTATION,
        legal=np.array([[p in legal for p in candidates(game)]]),
        laid=np.array([game.order[: game.turn + 1]], np.int8),
        color=np.array([game.colors[game.seat_to_move]], np.int8),
    )


def _ask(game: Game, decider: Decider, phase: str, options: list[int], where: str) -> int:
    """The one place the reference asks: every answer, whoever gives it, must be one the rules allow."""
    return checked(decider(game, phase, options), options, phase, where)


def play(params: Params, one: Deal, decider: Decider) -> Game:
    """Play the one game of a deal, asking `decider` for every placement (an action code, as the engine's) and
    then each seat's guess (a colour)."""
    game = new_game(params, one)
    while not game.over:
        legal = legal_placements(game)
        options = [action for action, placement in enumerate(candidates(game)) if placement in legal]
        action = _ask(game, decider, "place", options, f"at turn {game.turn}")
        place(game, candidates(game)[action])
    for seat in range(params.players):
        game.guessing = seat
        game.guesses.append(_ask(game, decider, "guess", list(range(N_COLORS)), f"by seat {seat}"))
    return game


def question(game: Game, phase: str, options: list[int]) -> Decision:
    """The question as the engine asks it, over a batch of one: a placement, or the guessing seat's guess."""
    one = np.ones(1, bool)
    if phase == "place":
        obs = observation(game)
        return Decision("place", obs.seat, legal_row(options, N_ACTIONS), one, obs, f"at turn {obs.turn}",
                        public=replace(obs, color=None))
    legal = legal_row(options, N_COLORS)
    view = GuessView(game.guessing, board_array(game), legal, np.array([game.order], np.int8),
                     np.array([game.colors[game.guessing]], np.int8))
    return Decision("guess", game.guessing, legal, one, view)


def board_text(game: Game, mark_last: bool = True) -> str:
    """The table as letters (B Y W R), '.' where no card lies; the newest card in lower case."""
    newest = set(cells(game.placements[-1])) if mark_last and game.turn > 0 else set()
    rows = [r for r, _ in game.table]
    cols = [c for _, c in game.table]
    lines = []
    for r in range(min(rows), max(rows) + 1):
        line = ""
        for c in range(min(cols), max(cols) + 1):
            colour = game.table.get((r, c))
            letter = "." if colour is None else COLORS[colour][0].upper()
            line += letter.lower() if (r, c) in newest else letter
        lines.append(line)
    return "\n".join(lines)
