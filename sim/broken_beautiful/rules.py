"""Broken and Beautiful: constants, component data, Params, the deal and the "Pottery Scores" table.

Rulebook: ../shared/rules/broken_and_beautiful.txt. Component data the rulebook leaves out (counts,
patterns, values) come from components.toml, which a designer can copy and edit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

import numpy as np

from sim.errors import AtelierError
from sim.game import read_toml

PLAYER_COUNTS = (2, 3, 4)
DEFAULT_COMPONENTS = Path(__file__).with_name("components.toml")

TYPES = ("cup", "saucer", "plate", "bowl", "tea_jar", "vase", "teapot", "tray", "box", "gold")
CUP, SAUCER, PLATE, BOWL, TEA_JAR, VASE, TEAPOT, TRAY, BOX, GOLD = range(len(TYPES))
POTTERY = TYPES[: TEAPOT + 1]  # breakable, and patterned (trays and boxes too, under `trays_boxes_patterned`)
SCORED = TYPES[: BOX + 1]  # the types with a points column; gold cards are always sold

INTACT, BROKEN, REPAIRED = 0, 1, 2  # condition of a card in a collection
CONDITIONS = ("intact", "broken", "repaired")
SUPPLY_RULES = ("partial", "unlimited")

# What a components file may hold, so that no dtype overflows: card ids, values and patterns are int8; ingots
# and the supply are int16 (a seat's ingots stay below MAX_SUPPLY + MAX_CARDS * MAX_VALUE = 26,129, the
# supply above -16,129); points are int32 (with every scoring number at most MAX_POINTS, a seat holding all
# the cards scores under 10^8).
MAX_CARDS, MAX_VALUE, MAX_SUPPLY, MAX_POINTS = 127, 127, 10_000, 1000
LISTS = ("cup", "saucer", "vase")  # the scoring entries that are lists of numbers


@dataclass(frozen=True)
class Params:
    """What a Broken and Beautiful experiment may vary."""

    players: int = field(default=3, metadata={"help": "number of players, 2-4"})
    components: str = field(
        default="", metadata={"file": DEFAULT_COMPONENTS,
                               "help": "path to an alternative components TOML; empty = the default set"}
    )
    supply_shortfall: str = field(
        default="partial",
        metadata={"help": "when the supply cannot pay a whole sale (the rulebook is silent): 'partial' = the "
                          "seller takes what is left; 'unlimited' = the bank never runs out"},
    )
    new_player_ingots: int = field(
        default=0, metadata={"help": "ingots each player takes from the supply at setup ('New Player' rule)",
                             "range": (0, MAX_SUPPLY)}
    )
    tie_items_count_broken: bool = field(
        default=True,
        metadata={"help": "the second tie-breaker, 'most items overall', counts broken items too"},
    )
    trays_boxes_patterned: bool = field(
        default=True,
        metadata={"help": "serving trays and storage boxes carry a pattern (spread over the patterns like "
                          "pottery), so a teapot counts them: 'Elements of a Card' shows a pattern on every card "
                          "and excepts only gold cards; off: they carry none and no teapot counts them"},
    )

    def validate(self) -> None:
        if self.supply_shortfall not in SUPPLY_RULES:
            raise AtelierError(f"parameter 'supply_shortfall' must be one of {', '.join(SUPPLY_RULES)}")
        if self.new_player_ingots * self.players > self.kit.supply:
            raise AtelierError("parameter 'new_player_ingots' must be between 0 and supply / players")

    @property
    def kit(self) -> Components:
        """The components: card catalog, supply and scoring numbers."""
        return load_components(self.components, self.trays_boxes_patterned)


class Scoring(NamedTuple):
    cup: tuple[int, int]
    saucer: tuple[int, int]
    plate_pair: int
    plate_repaired: int
    bowl_repaired: int
    tea_jar_most: int
    tea_jar_repaired: int
    vase: tuple[int, ...]
    vase_repaired: int
    teapot_repaired: int
    tray: int
    box_cap: int


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: load_components caches each file's set
class Components:
    """The card catalog, by card id: cards are numbered type by type in the order of TYPES."""

    supply: int
    patterns: int
    type: np.ndarray  # (C,) int8 index into TYPES
    pattern: np.ndarray  # (C,) int8, -1 for cards without a pattern
    value: np.ndarray  # (C,) int8 sale value = repair cost
    scoring: Scoring

    @property
    def size(self) -> int:
        return len(self.type)

    def draft_size(self, players: int) -> int:
        """Starting a Round: two cards per player, plus one."""
        return 2 * players + 1

    def rounds(self, players: int) -> int:
        """Ending the Game: rounds go on while a full draft can be dealt."""
        return self.size // self.draft_size(players)

    def catalog(self) -> list[dict]:
        return [{"id": c, "type": TYPES[t], "pattern": int(p) if p >= 0 else None, "value": int(v)}
                for c, (t, p, v) in enumerate(zip(self.type, self.pattern, self.value))]


@lru_cache(maxsize=16)
def load_components(path: str = "", trays_boxes_patterned: bool = True) -> Components:
    file = Path(path) if path else DEFAULT_COMPONENTS
    data = read_toml(file, "components file")

    def whole(name: str, value, low: int, high: int) -> int:
        if type(value) is not int or not low <= value <= high:
            raise AtelierError(f"components file {file}: '{name}' must be a whole number from {low} to {high}, "
                               f"got {value!r}")
        return value

    try:
        types, scoring = data["types"], data["scoring"]
        unknown = set(types) - set(TYPES)
        if unknown:
            raise ValueError(f"unknown card type {sorted(unknown)[0]!r}")
        kinds = [types.get(name, {}) for name in TYPES]
        counts = [whole(f"types.{name}.count", k.get("count", 0), 0, MAX_CARDS) for name, k in zip(TYPES, kinds)]
        values = [whole(f"types.{name}.value", k.get("value", 0), 0, MAX_VALUE) for name, k in zip(TYPES, kinds)]
        patterns = whole("patterns", data["patterns"], 1, MAX_CARDS)
        supply = whole("supply", data["supply"], 0, MAX_SUPPLY)
        sc = Scoring(**{key: tuple(whole(f"scoring.{key}", v, int(key == "saucer"), MAX_POINTS) for v in value)
                        if key in LISTS else whole(f"scoring.{key}", value, 0, MAX_POINTS)
                        for key, value in scoring.items()})
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise AtelierError(f"components file {file} is malformed: {err}") from None
    if not 1 <= sum(counts) <= MAX_CARDS:
        raise AtelierError(f"components file {file} must hold at least 1 and at most {MAX_CARDS} cards")
    if len(sc.cup) != 2 or len(sc.saucer) != 2 or not sc.vase:
        raise AtelierError(f"components file {file}: scoring needs cup and saucer as [unbroken, repaired] "
                           "and at least one vase entry")
    kind = np.repeat(np.arange(len(TYPES)), counts).astype(np.int8)
    index = np.concatenate([np.arange(n) for n in counts])
    last_patterned = BOX if trays_boxes_patterned else TEAPOT
    pattern = np.where(kind <= last_patterned, index % patterns, -1).astype(np.int8)
    return Components(supply, patterns, kind, pattern, np.array(values, np.int8)[kind], sc)


def facts(params: Params) -> dict:
    """What the report needs to know of these rules, recorded in the manifest (reports import no rules)."""
    return {"types": list(SCORED), "rounds": params.kit.rounds(params.players), "supply": params.kit.supply}


class Deal(NamedTuple):
    """n games' random set-up, batch axis first."""

    order: np.ndarray  # (n, C) int8: card ids from the top of the deck


def deal(params: Params, rng: np.random.Generator, n: int) -> Deal:
    """Shuffle the deck for n games. Seat 0 holds the first player marker in round 1; the rulebook picks that
    player by who last washed the dishes (Setup), which is as good as random."""
    return Deal(rng.random((n, params.kit.size)).argsort(axis=1).astype(np.int8))


class Tally(NamedTuple):
    """What each collection holds, by the counts that scoring needs. Leading axes are free, e.g. (B, P)."""

    whole: np.ndarray  # (..., T) unbroken (intact or repaired) cards of each type
    repaired: np.ndarray  # (..., T) repaired cards of each type
    broken: np.ndarray  # (..., T) broken cards of each type
    pattern: np.ndarray  # (..., K) unbroken cards of each pattern
    teapots: np.ndarray  # (..., K) unbroken teapots of each pattern
    teapots_repaired: np.ndarray  # (..., K) repaired teapots of each pattern


def tally(owner: np.ndarray, cond: np.ndarray, players: int, comp: Components) -> Tally:
    """Count the collections of a batch: owner (B, C) seat or -1, cond (B, C) -> Tally with axes (B, P, .).

    One seat at a time, so that the temporaries are (B, C) masks rather than (B, P, C) ones: this runs at every
    decision, and large short-lived arrays cost page faults whenever the allocator hands their memory back."""
    columns, parts = _count_columns(comp)
    counts = np.empty((len(owner), players, sum(m.shape[1] for m in columns)), np.float32)
    masks = (cond != BROKEN, cond == REPAIRED, cond == BROKEN)
    for seat in range(players):
        mine = owner == seat
        at = 0
        for mask, by in zip(masks, columns):
            np.matmul((mine & mask).astype(np.float32), by, out=counts[:, seat, at : at + by.shape[1]])
            at += by.shape[1]
    counts = counts.astype(np.int32)
    return Tally(*(counts[..., part] for part in parts))


@lru_cache(maxsize=16)
def _count_columns(comp: Components) -> tuple[tuple[np.ndarray, ...], tuple[slice, ...]]:
    """(C, .) float32 indicators that count a collection's cards: unbroken cards by type, by pattern and as
    teapots of each pattern; repaired cards by type and as teapots of each pattern; broken cards by type. And
    where each field of the Tally lies among their columns."""
    by_type = np.eye(len(TYPES), dtype=np.float32)[comp.type]  # (C, T)
    by_pattern = (comp.pattern[:, None] == np.arange(comp.patterns)).astype(np.float32)  # (C, K)
    teapot = by_pattern * (comp.type == TEAPOT)[:, None]
    columns = (np.concatenate([by_type, by_pattern, teapot], axis=1), np.concatenate([by_type, teapot], axis=1),
               by_type)
    t, k = len(TYPES), comp.patterns
    ends = np.cumsum([0, t, k, k, t, k, t]).tolist()  # whole, pattern, teapots, repaired, teapots repaired, broken
    whole, pattern, teapots, repaired, teapots_repaired, broken = (slice(a, b) for a, b in pairwise(ends))
    return columns, (whole, repaired, broken, pattern, teapots, teapots_repaired)


def points(t: Tally, ingots: np.ndarray, rival_tea_jars: np.ndarray, comp: Components) -> np.ndarray:
    """The "Pottery Scores" table: (..., len(SCORED)) points by type. Broken cards count for nothing.

    rival_tea_jars: the most unbroken tea jars any other player holds, broadcastable to ingots."""
    s = comp.scoring
    whole, rep = t.whole, t.repaired
    out = np.zeros((*ingots.shape, len(SCORED)), np.int32)
    out[..., CUP], out[..., SAUCER] = _cups_and_saucers(whole[..., CUP], rep[..., CUP], whole[..., SAUCER],
                                                        rep[..., SAUCER], s, comp)
    out[..., PLATE] = whole[..., PLATE] // 2 * s.plate_pair + s.plate_repaired * rep[..., PLATE]
    out[..., BOWL] = whole[..., BOWL] ** 2 + s.bowl_repaired * rep[..., BOWL]
    jars = whole[..., TEA_JAR]
    out[..., TEA_JAR] = np.where((jars > 0) & (jars >= rival_tea_jars), s.tea_jar_most, 0) \
        + s.tea_jar_repaired * rep[..., TEA_JAR]
    vase_table = np.array(s.vase)
    out[..., VASE] = vase_table[np.minimum(whole[..., VASE], len(vase_table) - 1)] + s.vase_repaired * rep[..., VASE]
    teapot_weight = t.teapots + (s.teapot_repaired - 1) * t.teapots_repaired
    out[..., TEAPOT] = (t.pattern * teapot_weight).sum(axis=-1)
    out[..., TRAY] = s.tray * whole[..., TRAY]
    out[..., BOX] = whole[..., BOX] * np.minimum(ingots, s.box_cap)
    return out


def _cups_and_saucers(cups, cups_repaired, saucers, saucers_repaired, s: Scoring, comp: Components):
    """Cups and saucers pair freely at the end; the best pairing puts the most valuable cups with the
    strongest saucers (rearrangement inequality). Returns (cup face values, extra points from saucers)."""
    face = np.zeros(cups.shape, np.int32)
    extra = np.zeros(cups.shape, np.int32)
    cup_order = _best_first(cups, cups_repaired, *s.cup)
    saucer_order = _best_first(saucers, saucers_repaired, *s.saucer)
    for j in range(int((comp.type == CUP).sum())):  # j-th most valuable cup
        value = _jth(j, cups, *cup_order, absent=0)
        multiplier = _jth(j, saucers, *saucer_order, absent=1)
        face += value
        extra += value * (multiplier - 1)
    return face, extra


def _best_first(total, repaired, unbroken_value: int, repaired_value: int):
    """(how many of the better kind, better value, worse value), whichever of repaired or unbroken is better."""
    if repaired_value >= unbroken_value:
        return repaired, repaired_value, unbroken_value
    return total - repaired, unbroken_value, repaired_value


def _jth(j: int, total, better, better_value: int, worse_value: int, absent: int):
    """The value of the j-th best item, sorted best first; `absent` past the last one."""
    return np.where(j < better, better_value, np.where(j < total, worse_value, absent))
