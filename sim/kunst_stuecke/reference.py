"""Kunst Stücke, one game at a time, written to be read beside the rulebook. The batched twin is engine.py; the
tests replay its games through this file and require the same legal moves and the same scores.

A turn asks its player these questions, in this order, each as `decider(game, phase, options)` (the options
numbered as in the engine, the phase the engine observation's: look_before, keep_before, slide_before,
slide_to_before, play, place, look_after, keep_after, slide_after, slide_to_after); the stack looked through and
the piece to slide or place are `Game.looking` and `Game.moving`. A question with one possible answer (no look
possible, no slide possible) is not asked:
1. look: a stack to look through, 0-4, or NO_LOOK (Drawing target tiles: "before or after placing"); after a
   look, keep: which of the stack's tiles to keep and on which free space, 5 * tile index + space;
2. slide: a piece on the board to slide, or STOP; after a piece, slide_to: the anchor it ends on. Asked again
   until the player stops or can slide no more (Sliding Shapes: "before placement, afterwards, or both");
3. play: a piece of the supply to place (its id), or DISCARD + id to discard it; after a piece to place,
   place: side^2 * orientation + anchor (side = Params.board);
4. look, if the player has not looked this turn, and slides again.

Reading of the contact rule (Sliding Shapes): a slid piece that started the turn against its own colour must
end the turn against its own colour, "although this need not be the original shape". With Params.contact
"turn" (the default) it is judged at the end of the turn, whatever mended the contact: slides may come "before
placement, afterwards, or before and after", so a slide may part such a piece from its colour and a later slide
or the placement bring it back. Each move is planned so that the turn can still end legally (the rulebook's
hint: "plan the move in your head"): a slide, a placement or a discard may leave pieces parted only where one
more action brings them all back -- the placement still to come, or one more slide for a chip (`can_end`) --
and the player may stop sliding after the placement only when none is parted. So no turn is ever left without
a legal end, and every turn still ends (each slide costs a chip). With "slide", every slide must leave every
such piece slid so far against its own colour: a contact broken and mended later is refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from sim.game import Decider, Decision, checked, legal_row
from sim.kunst_stuecke.engine import Observation
from sim.kunst_stuecke.rules import (
    DISCARD,
    GONE,
    MOST_SIZE,
    NO_LOOK,
    PIECES,
    SPACE_STRIDE,
    STACK_TILES,
    STACKS,
    STOP,
    TILES,
    Deal,
    Params,
    colour_of,
    shape_of,
    tile_parts,
)

STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))
CORNERS = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def neighbours_of(side: int, steps=STEPS) -> list[list[int]]:
    """The squares, numbered side row + col, that share an edge with each square (or, with CORNERS, a corner)."""
    return [[(r + dr) * side + c + dc for dr, dc in steps if 0 <= r + dr < side and 0 <= c + dc < side]
            for r, c in (divmod(square, side) for square in range(side * side))]


@dataclass(frozen=True)
class Laid:
    """A shape in one orientation."""

    offsets: tuple[int, ...]  # its squares from the anchor, side row + col
    anchors: tuple[int, ...]  # the anchors at which it lies wholly on the board
    inside: frozenset[int]  # the same, for lookups


def laid(cells: list[tuple[int, int]], side: int) -> Laid:
    height, width = 1 + max(r for r, _ in cells), 1 + max(c for _, c in cells)
    spots = tuple(row * side + col for row in range(side - height + 1) for col in range(side - width + 1))
    return Laid(tuple(side * r + c for r, c in cells), spots, frozenset(spots))


@dataclass
class Game:
    params: Params
    shapes: list[list[Laid | None]]  # shapes[shape][orientation]; None for an orientation that repeats a lower one
    supply: list[list[int]]  # each seat's pieces not yet placed or discarded, in the order dealt
    stacks: list[list[int]]  # the target tiles left in each stack, top first
    board: list[int]  # the piece on each square side row + col, -1 empty
    neighbours: list[list[int]]  # neighbours_of(side)
    abutting: list[list[int]]  # the squares a placed piece abuts others on: the neighbours, corners too with "corner"
    where: dict[int, tuple[int, int]] = field(default_factory=dict)  # piece on the board -> (orientation, anchor)
    chips: list[int] = field(default_factory=list)
    spaces: list[list[int | None]] = field(default_factory=list)  # each seat's tile on each score space
    seen: list[list[dict]] = field(default_factory=list)  # each seat's looks: turn, stack and the tiles in it
    discards: list[int] = field(default_factory=list)
    first_look: list[int] = field(default_factory=list)  # the turn of each seat's first look, -1 for none
    turn: int = 0
    turns: list[dict] = field(default_factory=list)  # the trace's turns
    # The turn in progress:
    half: str = "before"  # before or after the piece is placed or discarded
    looked: bool = False
    slid: dict[int, int] = field(default_factory=dict)  # piece -> slides this turn
    placed: int = -1  # the piece placed this turn
    start_contact: dict[int, bool] = field(default_factory=dict)  # piece -> against its own colour at turn start
    must_touch: set[int] = field(default_factory=set)  # slid pieces that must end the turn against own colour
    # The question being asked, beyond its options (for `question` and the deciders):
    looking: int = -1  # the stack looked through, when keep is asked
    moving: int = -1  # the piece chosen to slide or to place, when slide_to or place is asked

    @property
    def seat(self) -> int:
        return self.turn % self.params.players

    @property
    def over(self) -> bool:
        return not any(self.supply)


def new_game(params: Params, one: Deal) -> Game:
    players, geo = params.players, params.geometry
    side = params.board
    shapes = [[laid([(int(r), int(c)) for r, c in geo.cells[s, o, : geo.size[s]]], side) if geo.distinct[s, o]
               else None for o in range(params.orientations)] for s in range(len(geo.size))]
    return Game(params, shapes, [list(map(int, one.supply[0, s])) for s in range(players)],
                [list(map(int, stack)) for stack in one.stacks[0]], [-1] * params.squares, neighbours_of(side),
                [edges + corners for edges, corners in zip(neighbours_of(side), neighbours_of(side, CORNERS))]
                if params.placement_contact == "corner" else neighbours_of(side),
                chips=[params.chips] * players,
                spaces=[[None] * len(params.spaces) for _ in range(players)], seen=[[] for _ in range(players)],
                discards=[0] * players, first_look=[-1] * players)


# ---------------------------------------------------------------------------------------------- geometry


def anchors(game: Game, piece: int, orientation: int) -> tuple[int, ...]:
    """The anchors at which the piece, laid in this orientation, lies wholly on the board."""
    return game.shapes[shape_of(piece)][orientation].anchors


def squares(game: Game, piece: int, orientation: int, anchor: int) -> list[int]:
    """The squares a piece covers laid in `orientation` with its top-left corner on `anchor` (one of anchors)."""
    return [anchor + offset for offset in game.shapes[shape_of(piece)][orientation].offsets]


def fits(game: Game, cells: list[int], moving: int = -1) -> bool:
    """On empty squares (or on the squares of the piece being moved)."""
    return all(game.board[square] in (-1, moving) for square in cells)


def neighbours(game: Game, cells: list[int], moving: int = -1) -> set[int]:
    """The pieces that share an edge with these squares (the piece being moved excepted)."""
    return {game.board[n] for square in cells for n in game.neighbours[square]} - {-1, moving}


def touches_own(game: Game, piece: int) -> bool:
    """Whether a piece on the board abuts a piece of its own colour."""
    orientation, anchor = game.where[piece]
    return any(colour_of(p) == colour_of(piece) for p in neighbours(game, squares(game, piece, orientation, anchor),
                                                                     piece))


# ---------------------------------------------------------------------------------------------- placing


def may_lie(game: Game, piece: int, cells: list[int]) -> bool:
    """Placing Shapes: on empty squares of the board, abutting no piece at all, or at least one of its own
    colour (and then other colours too); abutting is sharing an edge (or a corner, with placement_contact
    "corner")."""
    if not fits(game, cells):
        return False
    abutted = {game.board[n] for square in cells for n in game.abutting[square]} - {-1}
    touching = {colour_of(p) for p in abutted}
    return not touching or colour_of(piece) in touching


def ways_to_lie(game: Game, piece: int) -> Iterator[int]:
    """The options where a piece may lie, in order: side^2 * orientation + anchor, each distinct way to lie once
    (an orientation that lays the shape like a lower one, or a turned one without Params.rotate, is skipped)."""
    for orientation, shape in enumerate(game.shapes[shape_of(piece)]):
        if shape:
            for anchor in shape.anchors:
                board = game.board  # most anchors fail on their first taken square: no list built for them
                if all(board[anchor + offset] == -1 for offset in shape.offsets) and \
                        may_lie(game, piece, squares(game, piece, orientation, anchor)):
                    yield game.params.squares * orientation + anchor


def ways_to_place(game: Game, piece: int) -> Iterator[int]:
    """Where the piece may be laid: where it may lie, and after which the turn can still end legally (can_end)."""
    if not parted(game):  # a placement never parts a piece from its colour
        yield from ways_to_lie(game, piece)
        return
    if all(colour_of(p) != colour_of(piece) for p in game.must_touch) and not can_end(game, placement_to_come=False):
        return  # it can neither mend a bound piece nor help a slide to: no slide mends them now, none will
    for option in ways_to_lie(game, piece):
        with tried_placement(game, piece, option):
            ends = can_end(game, placement_to_come=False)
        if ends:
            yield option


def placements(game: Game, piece: int) -> list[int]:
    return list(ways_to_place(game, piece))


def play_options(game: Game) -> list[int]:
    """Each piece of the supply may be placed (if it can lie anywhere) or discarded ("If it is not possible
    to place a shape anywhere on the board, or if the player chooses to not lay it on the board"); but where
    slid pieces are parted from their colour (contact "turn"), only so that the turn can still end legally."""
    mine = sorted(game.supply[game.seat])
    placeable = [p for p in mine if next(ways_to_place(game, p), None) is not None]
    return placeable + ([DISCARD + p for p in mine] if can_end(game, placement_to_come=False) else [])


def place(game: Game, piece: int, option: int) -> None:
    orientation, anchor = divmod(option, game.params.squares)
    cells = squares(game, piece, orientation, anchor)
    for square in cells:
        game.board[square] = piece
    game.where[piece] = (orientation, anchor)
    game.supply[game.seat].remove(piece)
    game.placed = piece
    if game.params.contact_from_placement:  # it "starts the turn" where it was placed
        game.start_contact[piece] = touches_own(game, piece)
    _act(game, {"act": "place", "piece": piece, "rotation": orientation % 4, "mirror": orientation >= 4,
                "cells": [list(divmod(square, game.params.board)) for square in cells]})


def discard(game: Game, piece: int) -> None:
    game.supply[game.seat].remove(piece)
    game.discards[game.seat] += 1
    _act(game, {"act": "discard", "piece": piece})


# ---------------------------------------------------------------------------------------------- sliding


def reachable(game: Game, piece: int) -> Iterator[int]:
    """The anchors a piece can slide to: the translations where it fits that are connected to where it lies by
    unit steps up, down, left and right (never through or onto another piece, never off the board), its own
    place excepted; in the order found."""
    orientation, start = game.where[piece]
    inside, side = game.shapes[shape_of(piece)][orientation].inside, game.params.board
    seen, todo = {start}, [start]
    while todo:
        row, col = divmod(todo.pop(), side)
        for dr, dc in STEPS:
            anchor = (row + dr) * side + col + dc
            if (0 <= col + dc < side and anchor in inside and anchor not in seen
                    and fits(game, squares(game, piece, orientation, anchor), piece)):
                seen.add(anchor)
                todo.append(anchor)
                yield anchor


def _move(game: Game, piece: int, anchor: int) -> None:
    orientation, old = game.where[piece]
    for square in squares(game, piece, orientation, old):
        game.board[square] = -1
    for square in squares(game, piece, orientation, anchor):
        game.board[square] = piece
    game.where[piece] = (orientation, anchor)


def parted(game: Game) -> list[int]:
    """The pieces slid this turn that must end it against their own colour and touch none of it now."""
    return sorted(p for p in game.must_touch if not touches_own(game, p))


def can_end(game: Game, placement_to_come: bool) -> bool:
    """Sliding Shapes: whether the turn can still end with every piece slid this turn that started it against its
    own colour against its own colour again: none is parted now, or (contact "turn") one more action brings every
    parted piece back -- the placement, if still to come, or one more slide."""
    apart = parted(game)
    if not apart:
        return True
    return game.params.contact == "turn" and (
        (placement_to_come and placement_mends(game, apart)) or slide_mends(game, apart))


def placement_mends(game: Game, apart: list[int]) -> bool:
    """One piece of the mover's, of the parted pieces' colour (so they must share one), can be laid against every
    parted piece."""
    colours = {colour_of(p) for p in apart}
    return len(colours) == 1 and any(
        colour_of(piece) in colours and any(
            set(apart) <= neighbours(game, squares(game, piece, *divmod(option, game.params.squares)))
            for option in ways_to_lie(game, piece))
        for piece in game.supply[game.seat])


def slide_mends(game: Game, apart: list[int]) -> bool:
    """One more slide, for a chip, leaves no piece parted: a piece of their colour slid against every parted
    piece but itself (it may be one of them, with slide_again), parting no other."""
    for piece in slidable(game):
        others = set(apart) - {piece}
        if any(colour_of(p) != colour_of(piece) for p in others):
            continue
        orientation = game.where[piece][0]
        for anchor in reachable(game, piece):
            if others <= neighbours(game, squares(game, piece, orientation, anchor), piece):
                with tried_slide(game, piece, anchor):
                    if not parted(game):
                        return True
    return False


@contextmanager
def tried_slide(game: Game, piece: int, anchor: int):
    """The game as if the piece had slid to anchor, for a chip; as it was afterwards."""
    start, chips, slid, bound = game.where[piece][1], list(game.chips), dict(game.slid), set(game.must_touch)
    _slid(game, piece, anchor)
    try:
        yield
    finally:
        _move(game, piece, start)
        game.chips, game.slid, game.must_touch = chips, slid, bound


@contextmanager
def tried_placement(game: Game, piece: int, option: int):
    """The game as if the piece had been laid as option; as it was afterwards. Unlike `place`, it does not bind the
    piece to its colour (contact_from_placement), and need not: the one slide that may follow it (can_end) mends a
    parted piece by ending against it, so a slide of this piece ends against its own colour all the same."""
    cells = squares(game, piece, *divmod(option, game.params.squares))
    placed = game.placed
    for square in cells:
        game.board[square] = piece
    game.where[piece], game.placed = divmod(option, game.params.squares), piece
    try:
        yield
    finally:
        for square in cells:
            game.board[square] = -1
        del game.where[piece]
        game.placed = placed


def ways_to_slide(game: Game, piece: int) -> Iterator[int]:
    """Where a piece may slide now: reachable, and after which the turn can still end legally (can_end)."""
    for anchor in reachable(game, piece):  # the board is back as it was whenever the search resumes
        with tried_slide(game, piece, anchor):
            ends = can_end(game, placement_to_come=game.half == "before")
        if ends:
            yield anchor


def destinations(game: Game, piece: int) -> list[int]:
    return sorted(ways_to_slide(game, piece))


def slidable(game: Game) -> list[int]:
    """The pieces that may slide now, wherever they could go: a slide costs a chip, a piece slides once a turn
    (unless slide_again), and the piece placed this turn only with slide_placed."""
    if game.chips[game.seat] == 0:
        return []
    again, placed = game.params.slide_again, -1 if game.params.slide_placed else game.placed
    return [p for p in sorted(game.where) if (again or p not in game.slid) and p != placed]


def slide_options(game: Game) -> list[int]:
    """Pieces that may slide now and have somewhere to go; and STOP, unless the placement is made and a piece is
    still parted from its colour (the turn may not end so)."""
    stop = [STOP] if game.half == "before" or not parted(game) else []
    return [p for p in slidable(game) if next(ways_to_slide(game, p), None) is not None] + stop


def slide(game: Game, piece: int, anchor: int) -> None:
    _slid(game, piece, anchor)
    orientation = game.where[piece][0]
    cells = [list(divmod(square, game.params.board)) for square in squares(game, piece, orientation, anchor)]
    _act(game, {"act": "slide", "piece": piece, "cells": cells})


def _slid(game: Game, piece: int, anchor: int) -> None:
    """The piece moved to anchor for a chip; bound to end the turn against its colour if it started against it."""
    _move(game, piece, anchor)
    game.chips[game.seat] -= 1
    game.slid[piece] = game.slid.get(piece, 0) + 1
    if game.start_contact.get(piece, False):
        game.must_touch.add(piece)


# ---------------------------------------------------------------------------------------------- targets


def look_options(game: Game) -> list[int]:
    """Stacks the player may look through now: one look a turn, a free space on the score board, and a stack
    that still holds tiles; NO_LOOK always."""
    if game.looked or None not in game.spaces[game.seat]:
        return [NO_LOOK]
    return [s for s in range(STACKS) if game.stacks[s]] + [NO_LOOK]


def keep_options(game: Game, stack: int) -> list[int]:
    free = [j for j, tile in enumerate(game.spaces[game.seat]) if tile is None]
    return [SPACE_STRIDE * i + j for i in range(len(game.stacks[stack])) for j in free]


def keep(game: Game, stack: int, option: int) -> None:
    index, space = divmod(option, SPACE_STRIDE)
    tile = game.stacks[stack].pop(index)  # the rest go back face down
    game.spaces[game.seat][space] = tile
    _act(game, {"act": "target", "stack": stack, "tile": list(tile_parts(tile)), "space": space})


# ---------------------------------------------------------------------------------------------- a turn, a game


def _ask(game: Game, decider: Decider, phase: str, options: list[int]) -> int:
    """The decider's answer to one question (phase: the engine observation's), if the rules allow it."""
    return checked(decider(game, phase, options), options, phase, f"at turn {game.turn}")


def _act(game: Game, action: dict) -> None:
    game.turns[-1]["actions"].append(action)


def _look(game: Game, decider: Decider) -> None:
    """A look (look_before or look_after), asked only where one is possible; then which tile to keep (keep_...)."""
    if (options := look_options(game)) == [NO_LOOK]:
        return
    stack = _ask(game, decider, f"look_{game.half}", options)
    if stack == NO_LOOK:
        return
    game.looked = True
    game.seen[game.seat].append({"turn": game.turn, "stack": stack, "tiles": list(game.stacks[stack])})
    if game.first_look[game.seat] < 0:
        game.first_look[game.seat] = game.turn
    game.looking = stack
    keep(game, stack, _ask(game, decider, f"keep_{game.half}", keep_options(game, stack)))
    game.looking = -1


def _slides(game: Game, decider: Decider) -> None:
    """Slides (slide_before or slide_after, then slide_to_...), asked for as long as the player wants to and can
    slide a piece."""
    while (options := slide_options(game)) != [STOP]:
        piece = _ask(game, decider, f"slide_{game.half}", options)
        if piece == STOP:
            return
        game.moving = piece
        slide(game, piece, _ask(game, decider, f"slide_to_{game.half}", destinations(game, piece)))
        game.moving = -1


def play_turn(game: Game, decider: Decider) -> None:
    """Course of play: place or discard one shape; slide and look for a target before or after it."""
    game.turns.append({"seat": game.seat, "actions": []})
    game.half, game.looked, game.slid, game.must_touch, game.placed = "before", False, {}, set(), -1
    game.start_contact = {p: touches_own(game, p) for p in game.where}
    _look(game, decider)
    _slides(game, decider)
    choice = _ask(game, decider, "play", play_options(game))
    if choice >= DISCARD:
        discard(game, choice - DISCARD)
    else:
        game.moving = choice
        place(game, choice, _ask(game, decider, "place", placements(game, choice)))
        game.moving = -1
    game.half = "after"
    if not game.looked:
        _look(game, decider)
    _slides(game, decider)
    game.turn += 1


# ---------------------------------------------------------------------------------------------- scoring


def blocks(game: Game) -> list[tuple[int, int]]:
    """Every block: a maximal set of same-coloured pieces joined by shared edges, as (colour, pieces), in order of
    each block's lowest piece id."""
    out, seen = [], set()
    for first in sorted(game.where):
        if first in seen:
            continue
        group, todo = set(), [first]
        while todo:
            piece = todo.pop()
            if piece in group:
                continue
            group.add(piece)
            orientation, anchor = game.where[piece]
            todo += [p for p in neighbours(game, squares(game, piece, orientation, anchor), piece)
                     if colour_of(p) == colour_of(first)]
        seen |= group
        out.append((colour_of(first), len(group)))
    return out


def scores(game: Game) -> list[int]:
    """Scoring: a tile is correct when a block of its colour has exactly its number of pieces (6+: six or more);
    it scores its number plus its space's bonus, once."""
    found = blocks(game)
    points = []
    for spaces in game.spaces:
        total = 0
        for space, tile in enumerate(spaces):
            if tile is None:
                continue
            colour, size = tile_parts(tile)
            if any(c == colour and (n == size or (size == MOST_SIZE and n >= MOST_SIZE)) for c, n in found):
                total += size + game.params.spaces[space]
        points.append(total)
    return points


def play(params: Params, one: Deal, decider: Decider) -> Game:
    """A whole game: turns in seat order until every supply is empty (Game End)."""
    game = new_game(params, one)
    while not game.over:
        play_turn(game, decider)
    return game


# ---------------------------------------------------------------------------------------------- the engine's questions


def kind_of(phase: str) -> str:
    """A question's kind (the Decision's): its phase without _before or _after."""
    return phase.removesuffix("_before").removesuffix("_after")


def width(game: Game, kind: str) -> int:
    """How many options a question of this kind numbers."""
    squares = game.params.squares
    return {"look": STACKS + 1, "keep": STACK_TILES * SPACE_STRIDE, "slide": PIECES + 1, "slide_to": squares,
            "play": 2 * PIECES, "place": game.params.orientations * squares}[kind]


def question(game: Game, phase: str, options: list[int]) -> Decision:
    """The question as the engine asks it, with its Decision and Observation, on a batch of one."""
    kind = kind_of(phase)
    legal = legal_row(options, width(game, kind))
    obs = observation(game, phase, legal, game.stacks[game.looking] if kind == "keep" else (),
                      game.moving if kind in ("slide_to", "place") else -1)
    return Decision(kind, game.seat, legal, obs.asked, obs, f"({phase}) at turn {game.turn}")


def observation(game: Game, phase: str, legal: np.ndarray, looking_at=(), piece: int = -1) -> Observation:
    """The engine's Observation of the game for its mover, on a batch of one."""
    seat, players = game.seat, game.params.players
    orient, anchor = np.full((1, PIECES), -1, np.int8), np.zeros((1, PIECES), np.int16)
    for p, (o, a) in game.where.items():
        orient[0, p], anchor[0, p] = o, a
    owner = np.full((1, PIECES), -1, np.int8)
    for s, pieces in enumerate(game.supply):
        owner[0, pieces] = s
    seen = np.full((1, TILES), -1, np.int8)
    for look in game.seen[seat]:
        seen[0, seen[0] == look["stack"]] = GONE
        seen[0, look["tiles"]] = look["stack"]
    spaces = np.array([[[-1 if t is None else t for t in row] for row in game.spaces]], np.int8)
    looking = np.full((1, STACK_TILES), -1, np.int8)
    looking[0, : len(looking_at)] = looking_at
    return Observation(phase, seat, game.turn, np.array([game.board], np.int8), orient, anchor, owner,
                       np.array([game.chips], np.int16).reshape(1, players),
                       np.array([[len(stack) for stack in game.stacks]]), spaces >= 0, spaces[:, seat], seen, looking,
                       np.array([piece]), legal, np.array([True]), game.params)
