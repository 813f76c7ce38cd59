"""Witkacy: constants, the deck, Params and the set-up (the deal).

Rulebook: ../shared/rules/witkacy.txt. Components (sim/witkacy/cards.toml, made by docs/witkacy_deck.py):
- Five paintings A-E, each a 2 x 2 grid of quarters UL, UR (the upper half) and LL, LR (the lower half). A
  fragment is written "A.UL" and coded 4 painting + quarter (UL 0, UR 1, LL 2, LR 3).
- 55 double-sided cards. A side is a 2 x 2 grid, rows top to bottom: fronts show upper quarters only, backs
  lower quarters only. On each side one row holds a whole half of a painting P in place; the other row one
  quarter of each of two other paintings. Cards never rotate.
- Side codes: 0 front, 1 back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

from sim.errors import AtelierError
from sim.game import read_toml
from sim.kernel import kernel

PLAYER_COUNTS = (2, 3, 4)
PAINTINGS = "ABCDE"
QUARTERS = ("UL", "UR", "LL", "LR")
CARDS = 55
FRONT, BACK = 0, 1
SIDES = ("front", "back")
DISPLAY = 2  # face-up cards beside the deck
ACTIONS = ("stash", "solvent", "correction", "gift", "rush")  # one token each, once per game
DEFAULT_DECK = Path(__file__).with_name("cards.toml")

# The questions of a turn, in the order they come (reference.py tells each), with the kind of decision each is.
PHASES = {"search": "search", "action": "action", "stash_draw": "stash_draw", "stash_discard": "stash_discard",
          "solvent": "solvent", "gift": "gift", "gift_where": "where", "gift_z": "z", "expand": "expand",
          "where": "where", "z": "z", "expand_again": "expand", "where_again": "where", "z_again": "z",
          "rush_draw": "rush_draw"}
CYCLE = ("start", *PHASES, "end")  # a turn: "start" ends the games whose last round is over, "end" counts the turn
# Their numbered options; a question with a single option is not asked.
DECK = 2  # search, stash_draw, rush_draw and gift: display slot 0 or 1, or DECK, the deck's top card
NO_ACTION = 0  # action: NO_ACTION or 1 + an index in ACTIONS
STASH, SOLVENT, CORRECTION, GIFT, RUSH = (1 + ACTIONS.index(a) for a in ACTIONS)
HAND = 4  # stash_discard: a position in the hand. A turn ends with the hand it began with, one card more after a
# Rush that keeps its second card (rush_both = 'optional', once a game): 1 or 2 cards, 3 after the Search, 4 after a
# Stash's draw, before its discard
RETURNS = 4 * CARDS  # set-up: after this many cards shuffled back in one deal, a clashing card is kept
MAX_STACK = CARDS  # solvent: MAX_STACK * owner + a position in the owner's stack, bottom first
# gift: 6 * owner + 2 * source (a display slot, or DECK) + side; expand: 2 * hand position + side, or KEEP
KEEP = 2 * HAND  # expand_again with rush_both = 'optional': the second card stays in the hand
WINDOW = CARDS + 2  # where: WINDOW * (row - top + 1) + (col - left + 1), top and left the smallest row and col of
# the collection's cards (a collection of n cards spans n rows, so every card overlapping it fits)
# z: the position in the stack, 0 (under everything) to the stack's size (on top)


def width(kind: str, players: int) -> int:
    """How many options a question of this kind numbers."""
    return {"search": 3, "action": 1 + len(ACTIONS), "stash_draw": 3, "stash_discard": HAND,
            "solvent": MAX_STACK * players, "gift": 6 * players, "expand": 2 * HAND + 1, "where": WINDOW * WINDOW,
            "z": MAX_STACK + 1, "rush_draw": 3}[kind]


def spot_code(top: int, left: int, row: int, col: int) -> int:
    """The `where` option of a card's top-left cell (row, col) beside a collection whose cards' smallest row and
    col are top and left."""
    return WINDOW * (row - top + 1) + (col - left + 1)


def spot_of(top: int, left: int, code: int) -> tuple[int, int]:
    return top - 1 + code // WINDOW, left - 1 + code % WINDOW


@dataclass(frozen=True)
class Params:
    """What a Witkacy experiment may vary."""

    players: int = field(default=3, metadata={"help": "number of players, 2-4"})
    advanced: bool = field(default=False, metadata={
        "help": "the Advanced Variant: at least 2 of a new card's 4 cells must overlap the collection"})
    entirely: str = field(default="collection", metadata={
        "help": "'not permitted to place a card so that it lies entirely on top of or under the cards already "
                "added' (without Correction): all its 4 cells covered by the collection's cards together "
                "('collection'), or lying in the very place of one of them ('card')"})
    start_distinct: str = field(default="painting", metadata={
        "help": "'painting': no two starting collection cards show a half of the same painting (the rulebook's "
                "'a half of a painting that already lies at the start'); 'half': only the same half is redrawn"})
    stash_draw: str = field(default="any", metadata={
        "help": "Stash's 'draw a card': any available card, a display card or the deck's top, as the Search it "
                "repeats before the expansion ('any'), or the deck's top card ('deck'; a display card only when the "
                "deck is empty)"})
    rush_draw: str = field(default="deck", metadata={
        "help": "Rush's 'at the end of the turn, draw a card': the deck's top card, a blind refill of the hand after "
                "the expansion ('deck'; a display card only when the deck is empty), or any available card ('any')"})
    rush_both: str = field(default="forced", metadata={
        "help": "Rush's 'you may play both cards from your hand': a Rush plays both ('forced'), or the player may "
                "keep the second ('optional')"})
    gift_from: str = field(default="display", metadata={
        "help": "Gift's 'one card from the middle of the table': a display card ('display'), or a display card or "
                "the deck's top card, which lies in the middle too ('display_and_deck')"})
    end_count: str = field(default="deck_and_display", metadata={
        "help": "the game ends after the round in which the cards available to draw are fewer than the players: "
                "'deck_and_display' counts both, 'deck' the deck only"})
    deck: str = field(default="", metadata={"file": DEFAULT_DECK,
                                            "help": "path to another deck TOML; empty = sim/witkacy/cards.toml"})

    def validate(self) -> None:
        for name, allowed in (("entirely", ("collection", "card")), ("start_distinct", ("painting", "half")),
                              ("stash_draw", ("any", "deck")),
                              ("rush_draw", ("deck", "any")), ("rush_both", ("forced", "optional")),
                              ("gift_from", ("display", "display_and_deck")),
                              ("end_count", ("deck_and_display", "deck"))):
            if getattr(self, name) not in allowed:
                raise AtelierError(f"parameter '{name}' must be {' or '.join(repr(a) for a in allowed)}, "
                                   f"got {getattr(self, name)!r}")
        load_deck(self.deck)

    @property
    def cards(self) -> np.ndarray:
        """(55, 2, 2, 2) int8: each card's fragment codes by side, row and column."""
        return load_deck(self.deck)


def fragment_code(text: str) -> int:
    """"A.UL" -> 4 * painting + quarter."""
    painting, dot, quarter = text.partition(".")
    if not dot or painting not in PAINTINGS or quarter not in QUARTERS or len(painting) != 1:
        raise ValueError(f"not a fragment: {text!r}")
    return 4 * PAINTINGS.index(painting) + QUARTERS.index(quarter)


def fragment_name(code: int) -> str:
    return f"{PAINTINGS[code // 4]}.{QUARTERS[code % 4]}"


@lru_cache(maxsize=16)
def load_deck(path: str = "") -> np.ndarray:
    """Read a deck file (`[[card]] front = [[f, f], [f, f]] back = [[f, f], [f, f]]`) and check its structure:
    55 distinct cards; each side's fragments upper (front) or lower (back) only, one row a whole half of a
    painting in place, the other one quarter of each of two other paintings."""
    file = Path(path) if path else DEFAULT_DECK
    data = read_toml(file, "deck file")
    try:
        cards = np.array([[[[fragment_code(f) for f in row] for row in card[side]] for side in SIDES]
                          for card in data["card"]], np.int8)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise AtelierError(f"deck file {file} is malformed: {err}") from None
    if cards.shape != (CARDS, 2, 2, 2):
        raise AtelierError(f"deck file {file} must hold {CARDS} cards of two 2 x 2 sides, got {len(cards)} cards")
    if len({card.tobytes() for card in cards}) != CARDS:
        raise AtelierError(f"deck file {file} holds the same card twice")
    for card, sides in enumerate(cards):
        for side, grid in enumerate(sides):
            problem = side_problem(grid, side)
            if problem:
                raise AtelierError(f"deck file {file}: card {card}'s {SIDES[side]} {problem}")
    cards.flags.writeable = False
    return cards


def side_problem(grid: np.ndarray, side: int) -> str:
    """What is wrong with one side's 2 x 2 fragment codes, or ''."""
    quarters = grid % 4
    if ((quarters >= 2) != bool(side)).any():
        return "must show only " + ("lower (LL, LR)" if side else "upper (UL, UR)") + " quarters"
    halves = [r for r in range(2) if grid[r, 0] // 4 == grid[r, 1] // 4 and quarters[r, 0] % 2 == 0
              and quarters[r, 1] % 2 == 1]
    if len(halves) != 1:
        return "must hold one row with a whole half of a painting, left quarter then right"
    half, mixed = grid[halves[0]] // 4, grid[1 - halves[0]] // 4
    if mixed[0] == mixed[1] or half[0] in mixed:
        return "must hold, beside the half, quarters of two other paintings"
    return ""


class Deal(NamedTuple):
    """n games' set-up (rulebook, Setup), seats already rotated so that seat 0 is the first player."""

    deck: np.ndarray  # (n, 55) int8: the cards left in the deck after the set-up, top first, -1 after the last
    up: np.ndarray  # (n, 55) int8: the side facing up of each card (by card id)
    start: np.ndarray  # (n, P) int8: each seat's starting collection card (placed at row 0, col 0, side up)
    hand: np.ndarray  # (n, P) int8: each seat's card in hand
    display: np.ndarray  # (n, 2) int8: the two display cards, showing the side that was face down in the deck
    shuffled: np.ndarray  # (n, 55) int8: the deck before the set-up, top first (for the trace)
    dealt: np.ndarray  # (n, 2 * P + RETURNS, 3) int8: every card drawn at set-up, in order: seat, card, what became
    # of it (0 collection, 1 hand, 2 returned to the deck), -1 rows after the last


def deal(params: Params, rng: np.random.Generator, n: int) -> Deal:
    """Setup: about half the cards turned over (27 of 55) and shuffled in; from seat 0 on, each seat draws a
    collection card and a hand card, a collection card showing a half already at another seat's start being
    shuffled back (same side up) and replaced; then two cards turned over into the display."""
    order = rng.permuted(np.tile(np.arange(CARDS, dtype=np.int8), (n, 1)), axis=1)
    flipped = rng.permuted(np.tile(np.arange(CARDS) < CARDS // 2, (n, 1)), axis=1)
    returns = rng.random((n, RETURNS))  # where each returned card goes back into the deck
    halves = _showing(params.cards)
    by_painting = params.start_distinct == "painting"
    deck, up, start, hand, display, dealt = _set_up(order, flipped.astype(np.int8), returns, halves, params.players,
                                                   by_painting)
    return Deal(deck, up, start, hand, display, order, dealt)


def half_row(grid: np.ndarray) -> int:
    """The row of a (checked) side that holds the whole half: its two fragments are of one painting."""
    return 0 if grid[0, 0] // 4 == grid[0, 1] // 4 else 1


def _showing(cards: np.ndarray) -> np.ndarray:
    """(55, 2) the half each side shows: 2 * painting + (0 upper, 1 lower)."""
    out = np.zeros((CARDS, 2), np.int8)
    for card in range(CARDS):
        for side in range(2):
            grid = cards[card, side]
            out[card, side] = 2 * (grid[half_row(grid), 0] // 4) + side
    return out


@kernel
def _set_up(order, flipped, returns, halves, players, by_painting):
    n = order.shape[0]
    deck = np.full((n, CARDS), -1, np.int8)
    up = np.zeros((n, CARDS), np.int8)
    start = np.zeros((n, players), np.int8)
    hand = np.zeros((n, players), np.int8)
    display = np.zeros((n, DISPLAY), np.int8)
    dealt = np.full((n, 2 * players + returns.shape[1], 3), -1, np.int8)  # each seat's two, and the returns
    pile = np.empty(CARDS, np.int64)
    for g in range(n):
        for i in range(CARDS):
            pile[i] = order[g, i]
            up[g, order[g, i]] = flipped[g, i]
        top, size, logged, used = 0, CARDS, 0, 0
        for seat in range(players):
            while True:  # the collection card
                card = pile[top]
                top += 1
                shown = halves[card, up[g, card]]
                clash = False
                for other in range(seat):
                    theirs = halves[start[g, other], up[g, start[g, other]]]
                    clash |= (shown // 2 == theirs // 2) if by_painting else (shown == theirs)
                clash &= used < returns.shape[1]  # never loops on: after that many returns a card is kept
                dealt[g, logged, 0], dealt[g, logged, 1], dealt[g, logged, 2] = seat, card, 2 if clash else 0
                logged += 1
                if not clash:
                    start[g, seat] = card
                    break
                # shuffled back: to a random place among the cards left in the deck
                left = size - top
                at = top + int(returns[g, used % returns.shape[1]] * (left + 1))
                used += 1
                for i in range(top - 1, at - 1):
                    pile[i] = pile[i + 1]
                pile[at - 1] = card
                top -= 1
            card = pile[top]
            top += 1
            hand[g, seat] = card
            dealt[g, logged, 0], dealt[g, logged, 1], dealt[g, logged, 2] = seat, card, 1
            logged += 1
        for slot in range(DISPLAY):  # turned over: the side that was face down shows
            card = pile[top]
            top += 1
            display[g, slot] = card
            up[g, card] = 1 - up[g, card]
        for i in range(top, size):
            deck[g, i - top] = pile[i]
    return deck, up, start, hand, display, dealt


def facts(params: Params) -> dict:
    """What the report needs to know of these rules, recorded in the manifest (reports import no rules)."""
    return {"paintings": list(PAINTINGS), "actions": list(ACTIONS), "cards": CARDS, "advanced": params.advanced}
