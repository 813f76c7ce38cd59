"""Kunst Stücke: constants, the shapes, Params, the deal, and the geometry both engines share.

Rulebook: ../shared/rules/kunst_stuecke.txt. Encodings (the trace uses the same):
- The board is N x N squares (Params.board, 18 by default): `row` 0..N-1 from top to bottom, `col` 0..N-1 from
  left to right.
- Piece p (0..59) has colour p // 12 and shape p % 12 (shapes.toml: cells [row, col] from the top-left corner
  of the shape's bounding box).
- An orientation is o = 4 m + k: numpy.fliplr of the shape's cell mask when m = 1 (only with Params.mirror),
  then numpy.rot90 by k quarter turns, counter-clockwise with row 0 at the top (k = 0 only without
  Params.rotate).
- A placement or slide destination is an anchor a = N row + col: the square of the oriented shape's bounding
  box's top-left corner.
- A target tile is t = 6 colour + (size - 1), for sizes 1..6; size 6 means "6+".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

from sim.errors import AtelierError
from sim.game import read_toml

PLAYER_COUNTS = (2, 3, 4, 5)
COLORS = ("red", "yellow", "green", "blue", "purple")
SHAPES = 12  # shapes per colour
PIECES = len(COLORS) * SHAPES
SIZES = (5, 8)  # the fewest and most squares a shape may cover; connected, a shape spans at most 8 rows or cols
BOARD_RANGE = (SIZES[1], 32)  # the longest shape fits; the kernels' bit rows (int64) hold up to 62 columns
CONTACT_RULES = ("turn", "slide")
PLACEMENT_CONTACTS = ("edge", "corner")
DEALT = {2: 26, 3: 18, 4: 13, 5: 11}  # Preparation: pieces per player
STACKS, STACK_TILES = 5, 6  # five face-down stacks of six target tiles
TILES = len(COLORS) * STACK_TILES  # one tile per colour and size 1..5, 6+
MOST_SIZE = 6  # the "6+" tile
DEFAULT_SHAPES = Path(__file__).with_name("shapes.toml")
# The numbered options of each question a turn asks (reference.py and engine.py ask the same).
NO_LOOK = STACKS  # look: a stack 0-4, or none now
GONE = STACKS  # seen: a tile the seat saw in a stack and found gone from it at a later look of that stack
STOP = PIECES  # slide: a piece on the board, or no more slides
DISCARD = PIECES  # play: a piece to place (its id), or DISCARD + id to discard it
SPACE_STRIDE = 5  # keep: SPACE_STRIDE * tile index in the stack + space; place: Params.squares * orientation + anchor
SCORE_RANGE = (0, 1000)


@dataclass(frozen=True)
class Params:
    """What a Kunst Stücke experiment may vary."""

    players: int = field(default=3, metadata={"help": "number of players, 2-5"})
    chips: int = field(default=10, metadata={"help": "chips each player starts with; a slide costs one",
                                             "range": (0, 1000)})
    spaces: tuple = field(default=(15, 10, 10, 5, 5),
                          metadata={"help": "the bonus of each of the five spaces of a score board"})
    mirror: bool = field(
        default=False,
        metadata={"help": "the rulebook's 'all pieces lie in the same direction' is read as aligned to the grid, "
                          "and pieces are one-sided (4 orientations); on: a piece may also be laid mirrored"})
    slide_again: bool = field(
        default=False,
        metadata={"help": "'for every individual shape that you slide, you must give up one chip' is read as: a "
                          "piece slides at most once per turn; on: it may slide again, for another chip (one chip "
                          "a shape with free slides after it is not offered: it would leave a turn unbounded)"})
    contact: str = field(
        default="turn",
        metadata={"help": "when the contact rule ('must also end the turn in contact with a shape of its own color') "
                          "is judged: 'turn': at the end of the turn, whatever mended a broken contact (a later "
                          "slide, before or after placing, or the placement), each move leaving the turn one action "
                          "from ending legally (a turn that would need two more actions at once to mend its contacts "
                          "is refused, a limit of ours); 'slide': after every slide, for every piece slid so far"})
    contact_from_placement: bool = field(
        default=True,
        metadata={"help": "a piece placed this turn and then slid 'starts the turn' where it was placed: placed "
                          "against its own colour, it must end the turn against its own colour; off: exempt"})
    placement_contact: str = field(
        default="edge",
        metadata={"help": "what 'abut' means when placing: 'edge': sharing an edge, as the rulebook defines contact "
                          "for sliding and blocks; 'corner': meeting at a corner counts too (a piece that only "
                          "touches another colour corner to corner is then not free)"})
    rotate: bool = field(
        default=True,
        metadata={"help": "'all pieces lie in the same direction' is read as aligned to the grid: a piece may be "
                          "laid turned by quarter turns; off: read literally, every piece lies as the shapes file "
                          "draws it"})
    slide_placed: bool = field(
        default=True,
        metadata={"help": "the piece placed this turn may slide in the same turn (slides may come 'afterwards'); "
                          "off: only pieces that lay on the board when the turn began slide"})
    board: int = field(default=18, metadata={
        "help": "the side of the square board in squares (ours: the rulebook gives no size)", "range": BOARD_RANGE})
    shapes: str = field(default="", metadata={
        "file": DEFAULT_SHAPES, "help": "path to another shapes TOML; empty = sim/kunst_stuecke/shapes.toml"})

    def validate(self) -> None:
        if len(self.spaces) != len(DEFAULT_SPACES) or not all(
                isinstance(v, int) and not isinstance(v, bool) and SCORE_RANGE[0] <= v <= SCORE_RANGE[1]
                for v in self.spaces):
            raise AtelierError(f"parameter 'spaces' must be {len(DEFAULT_SPACES)} whole numbers from "
                               f"{SCORE_RANGE[0]} to {SCORE_RANGE[1]}, got {list(self.spaces)}")
        if self.contact not in CONTACT_RULES:
            raise AtelierError(f"parameter 'contact' must be one of {', '.join(CONTACT_RULES)}, got {self.contact!r}")
        if self.placement_contact not in PLACEMENT_CONTACTS:
            raise AtelierError(f"parameter 'placement_contact' must be one of {', '.join(PLACEMENT_CONTACTS)}, "
                               f"got {self.placement_contact!r}")
        if not BOARD_RANGE[0] <= self.board <= BOARD_RANGE[1]:
            raise AtelierError(f"parameter 'board' must be between {BOARD_RANGE[0]} and {BOARD_RANGE[1]}, "
                               f"got {self.board}")
        load_shapes(self.shapes)

    @property
    def squares(self) -> int:
        return self.board * self.board

    @property
    def dealt(self) -> int:
        return DEALT[self.players]

    @property
    def orientations(self) -> int:
        return 8 if self.mirror else 4

    @property
    def geometry(self) -> Geometry:
        return geometry(self.shapes, self.mirror, self.rotate)


DEFAULT_SPACES = Params.__dataclass_fields__["spaces"].default


@lru_cache(maxsize=16)
def load_shapes(path: str = "") -> tuple[tuple[str, np.ndarray], ...]:
    """Read a shapes file: `[[shape]] name = "..." cells = [[row, col], ...]`. Checks that there are 12 shapes of 5
    to 8 distinct squares each, anchored at row 0 and col 0, connected, and no two alike under rotation and
    mirroring. Returns (name, cells (k, 2) int64) per shape."""
    file = Path(path) if path else DEFAULT_SHAPES
    data = read_toml(file, "shapes file")
    entries = data.get("shape")
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise AtelierError(f"shapes file {file} is malformed: it must hold [[shape]] tables")
    shapes = tuple(_read_shape(file, i, entry) for i, entry in enumerate(entries))
    if len(shapes) != SHAPES:
        raise AtelierError(f"shapes file {file} must hold {SHAPES} shapes, got {len(shapes)}")
    forms: dict[bytes, str] = {}
    for name, cells in shapes:
        what = f"shapes file {file}: shape {name}"
        if not SIZES[0] <= len(cells) <= SIZES[1]:
            raise AtelierError(f"{what} must list {SIZES[0]} to {SIZES[1]} cells as [row, col]")
        if len({tuple(c) for c in cells.tolist()}) != len(cells):
            raise AtelierError(f"{what} has overlapping cells")
        if cells.min(axis=0).tolist() != [0, 0]:
            raise AtelierError(f"{what} must start at row 0 and col 0 (the top-left corner of its bounding box)")
        if not connected(cells):
            raise AtelierError(f"{what} is not connected: its cells must join edge to edge")
        for form in all_forms(mask_of(cells)):
            if form in forms:
                raise AtelierError(f"{what} is the same shape as {forms[form]}, turned or mirrored")
            forms[form] = name
    return shapes


def _read_shape(file: Path, index: int, entry: dict) -> tuple[str, np.ndarray]:
    """One [[shape]] table: its name and its cells, each a [row, col] pair of whole numbers (not booleans, not
    decimals, not strings: TOML would let them through, and numpy would turn them into numbers)."""
    name = str(entry.get("name", index))
    cells = entry.get("cells")
    whole = isinstance(cells, list) and all(
        isinstance(cell, list) and len(cell) == 2 and all(type(v) is int and abs(v) < 2**31 for v in cell)
        for cell in cells)
    if not whole:
        raise AtelierError(f"shapes file {file}: shape {name} must list its cells as [row, col] pairs of whole "
                           f"numbers, got {cells!r}")
    return name, np.array(cells, dtype=np.int64).reshape(-1, 2)


def mask_of(cells: np.ndarray) -> np.ndarray:
    """The (h, w) bool mask of cells."""
    mask = np.zeros(cells.max(axis=0) + 1, bool)
    mask[cells[:, 0], cells[:, 1]] = True
    return mask


def oriented(mask: np.ndarray, orientation: int) -> np.ndarray:
    """The mask laid in orientation o = 4 m + k: fliplr if m, then rot90 by k."""
    return np.rot90(np.fliplr(mask) if orientation >= 4 else mask, orientation % 4)


def all_forms(mask: np.ndarray) -> set[bytes]:
    """Every rotation and mirror image of a mask, as comparable keys."""
    return {repr((form.shape, form.tobytes())).encode() for form in (oriented(mask, o) for o in range(8))}


def connected(cells: np.ndarray) -> bool:
    """Whether the cells join into one group through shared edges."""
    left, seen, todo = {tuple(c) for c in cells.tolist()}, set(), [tuple(cells[0].tolist())]
    while todo:
        r, c = todo.pop()
        if (r, c) in seen:
            continue
        seen.add((r, c))
        todo += [n for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)) if n in left]
    return len(seen) == len(left)


@dataclass(frozen=True)
class Geometry:
    """Every shape in every orientation, for both engines. Orientations that lay a shape exactly like a lower
    one (a symmetric shape turned) are not `distinct`: each different placement is offered once."""

    cells: np.ndarray  # (12, O, 8, 2) int64: squares of shape s in orientation o from the anchor, padded with 0
    size: np.ndarray  # (12,) squares per shape
    extent: np.ndarray  # (12, O, 2) height and width of the oriented shape
    distinct: np.ndarray  # (12, O) bool: the first orientation that lays the shape this way (and one allowed)
    names: tuple[str, ...]


@lru_cache(maxsize=16)
def geometry(path: str = "", mirror: bool = False, rotate: bool = True) -> Geometry:
    shapes = load_shapes(path)
    count = 8 if mirror else 4
    cells = np.zeros((SHAPES, count, SIZES[1], 2), np.int64)
    extent = np.zeros((SHAPES, count, 2), np.int64)
    distinct = np.zeros((SHAPES, count), bool)
    for s, (_, shape) in enumerate(shapes):
        seen = set()
        for o in range(count):
            mask = oriented(mask_of(shape), o)
            rows, cols = np.nonzero(mask)  # row-major: the same order in both engines
            cells[s, o, : len(rows)] = np.stack([rows, cols], axis=1)
            extent[s, o] = mask.shape
            key = (mask.shape, mask.tobytes())
            distinct[s, o] = key not in seen and (rotate or o % 4 == 0)
            seen.add(key)
    size = np.array([len(shape) for _, shape in shapes])
    for array in (cells, extent, distinct, size):
        array.flags.writeable = False
    return Geometry(cells, size, extent, distinct, tuple(name for name, _ in shapes))


def colour_of(piece: int) -> int:
    return piece // SHAPES


def shape_of(piece: int) -> int:
    return piece % SHAPES


def tile_of(colour: int, size: int) -> int:
    """The target tile of a colour and size 1..6 (6 = 6+)."""
    return STACK_TILES * colour + size - 1


def tile_parts(tile: int) -> tuple[int, int]:
    """(colour, size) of a target tile; size 6 means 6+."""
    return tile // STACK_TILES, tile % STACK_TILES + 1


class Deal(NamedTuple):
    """n games' set-up, both hidden parts included."""

    supply: np.ndarray  # (n, P, K) int8: the pieces dealt to each seat, in the order drawn
    stacks: np.ndarray  # (n, 5, 6) int8: the target tiles of each stack, top first


def deal(params: Params, rng: np.random.Generator, n: int) -> Deal:
    """Preparation: the 60 pieces shuffled and dealt K per player in seat order (the rest leave the game); the
    30 target tiles shuffled into five stacks of six."""
    pieces = rng.permuted(np.tile(np.arange(PIECES, dtype=np.int8), (n, 1)), axis=1)
    supply = pieces[:, : params.players * params.dealt].reshape(n, params.players, params.dealt)
    tiles = rng.permuted(np.tile(np.arange(TILES, dtype=np.int8), (n, 1)), axis=1)
    return Deal(supply, tiles.reshape(n, STACKS, STACK_TILES))


def facts(params: Params) -> dict:
    """What the report needs to know of these rules, recorded in the manifest (reports import no rules)."""
    return {"colours": list(COLORS), "pieces_each": params.dealt, "chips": params.chips,
            "spaces": list(params.spaces), "shapes": list(params.geometry.names)}
