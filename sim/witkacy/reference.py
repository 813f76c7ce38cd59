"""Witkacy, one game at a time, written to be read beside the rulebook. The batched engine (engine.py) asks the
same questions in the same order with the same numbered options (rules.PHASES and the numbering beside it).

A turn (Course of Play) asks its player, in this order; a question with a single option is not asked:
1. search: a display slot or the deck; skipped when nothing is left to draw;
2. action: none, or one of the unused tokens whose action is possible now, with its own questions:
   - Stash: stash_draw (as search, or the deck's top with stash_draw = 'deck'), then stash_discard (a hand
     position);
   - Solvent: solvent (whose collection, which card);
   - Correction: none; this turn's expansion may then lie entirely on or under the collection;
   - Gift: gift (to whom, which display card or with gift_from = 'display_and_deck' the deck's top, which side
     up), then gift_where and gift_z (as where and z);
   - Rush: two expansions (expand, where, z, then expand_again, where_again, z_again; with rush_both =
     'optional', expand_again may KEEP the second card), then rush_draw;
3. Collection Expansion, but after a Rush: expand (a hand card and its side), where (its top-left cell) and z (its
   place in the stack); skipped with an empty hand.
The game ends after the last seat's turn in the round in which fewer cards than players are left to draw.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.game import Decider, Decision, checked, legal_row
from sim.witkacy import collection as col
from sim.witkacy.collection import Collection, Placed
from sim.witkacy.engine import Observation
from sim.witkacy.rules import (
    ACTIONS,
    DECK,
    HAND,
    KEEP,
    MAX_STACK,
    NO_ACTION,
    PHASES,
    SIDES,
    Deal,
    Params,
    spot_code,
    spot_of,
    width,
)


@dataclass
class Pending:
    """The card being laid: into whose collection, which card, which side up, from where (a hand position, or a
    display slot for a Gift), and once chosen its top-left cell."""

    owner: int
    card: int
    side: int
    source: int
    row: int | None = None
    col: int | None = None


@dataclass
class Game:
    params: Params
    cards: np.ndarray
    deck: list[int]  # top first
    up: dict[int, int]  # the side facing up of each card in the deck (and shown, for the display)
    display: list[int | None]
    collections: list[Collection]
    hands: list[list[int]]
    tokens: list[list[str]] = field(default_factory=list)  # each seat's unused actions
    turn: int = 0
    last_round: bool = False  # fewer cards than players were left to draw during this round
    turns: list[dict] = field(default_factory=list)
    action: int = NO_ACTION  # this turn's
    pending: Pending | None = None
    played: list[int] = field(default_factory=list)  # cards each seat added to its own collection

    @property
    def seat(self) -> int:
        return self.turn % self.params.players

    def available(self) -> int:
        shown = sum(card is not None for card in self.display)
        return len(self.deck) + (shown if self.params.end_count == "deck_and_display" else 0)


def new_game(params: Params, one: Deal) -> Game:
    players = params.players
    return Game(params, params.cards, [int(c) for c in one.deck[0] if c >= 0],
                {c: int(one.up[0, c]) for c in range(len(one.up[0]))}, [int(c) for c in one.display[0]],
                [[Placed(int(one.start[0, s]), int(one.up[0, one.start[0, s]]), 0, 0)] for s in range(players)],
                [[int(one.hand[0, s])] for s in range(players)], tokens=[list(ACTIONS) for _ in range(players)],
                played=[0] * players)


def _ask(game: Game, decider: Decider, phase: str, options: list[int]) -> int:
    """The decider's answer to one question (a single option is not asked), if the rules allow it."""
    if len(options) == 1:
        return options[0]
    return checked(decider(game, phase, options), options, phase, f"at turn {game.turn}")


# ---------------------------------------------------------------------------------------------- drawing


def sources(game: Game) -> list[int]:
    """Where a card can be drawn from: the display slots holding a card, and the deck if it holds any."""
    return [slot for slot, card in enumerate(game.display) if card is not None] + ([DECK] if game.deck else [])


def drawable(game: Game, reading: str) -> list[int]:
    """What Stash and Rush may draw (stash_draw, rush_draw): any source ('any'), or the deck's top card, a display
    card only when the deck is empty ('deck')."""
    return [DECK] if game.deck and reading == "deck" else sources(game)


def draw(game: Game, source: int) -> dict:
    """Search: a display card (its slot refilled by turning the deck's top card over), or the deck's top card."""
    if source == DECK:
        card = game.deck.pop(0)
        game.hands[game.seat].append(card)
        return {"from": "deck", "card": card}
    card = game.display[source]
    game.hands[game.seat].append(card)
    refill(game, source)
    return {"from": "display", "slot": source, "card": card}


def refill(game: Game, slot: int) -> None:
    """The deck's top card turned over into an emptied display slot: it shows the side that was face down."""
    game.display[slot] = None
    if game.deck:
        card = game.deck.pop(0)
        game.up[card] = 1 - game.up[card]
        game.display[slot] = card


# ---------------------------------------------------------------------------------------------- laying cards


def lay(game: Game, decider: Decider, phases: tuple[str, str], pending: Pending, correction: bool, keep: bool):
    """Ask where the pending card goes and its place in the stack (phases: the where and z questions), then add
    it. `keep` (a Gift): only where every completed painting stays complete."""
    game.pending = pending
    stack = game.collections[pending.owner]
    top, left = col.corner(stack)
    spots = col.spots(stack, game.params.advanced, correction, game.params.entirely)
    if keep:
        spots = [s for s in spots if next(col.depths(stack, Placed(pending.card, pending.side, *s), game.cards,
                                                     keep), None) is not None]
    pending.row, pending.col = spot_of(top, left, _ask(game, decider, phases[0],
                                                       [spot_code(top, left, *s) for s in spots]))
    placed = Placed(pending.card, pending.side, pending.row, pending.col)
    z = _ask(game, decider, phases[1], list(col.depths(stack, placed, game.cards, keep)))
    game.collections[pending.owner] = col.added(stack, placed, z)
    game.pending = None
    return {"card": placed.card, "side": SIDES[placed.side], "row": placed.row, "col": placed.col, "z": z}


def expand(game: Game, decider: Decider, again: bool, correction: bool) -> dict | None:
    """Collection Expansion: a hand card on the side of the player's choice, where the overlap rule allows."""
    hand, suffix = game.hands[game.seat], "_again" if again else ""
    if not hand:
        return None
    keep = [KEEP] if again and game.params.rush_both == "optional" else []
    choice = _ask(game, decider, "expand" + suffix, [2 * i + s for i in range(len(hand)) for s in range(2)] + keep)
    if choice == KEEP:
        return None
    position, side = divmod(choice, 2)
    placement = lay(game, decider, ("where" + suffix, "z" + suffix), Pending(game.seat, hand[position], side,
                                                                            position), correction, keep=False)
    hand.pop(position)
    game.played[game.seat] += 1
    return placement


# ---------------------------------------------------------------------------------------------- actions


def solvent_options(game: Game) -> list[int]:
    """MAX_STACK * owner + stack position of every card Solvent may remove."""
    return [MAX_STACK * owner + i for owner, stack in enumerate(game.collections)
            for i in col.removals(stack, game.cards)]


def gift_cards(game: Game) -> dict[int, int]:
    """The cards of the middle of the table a Gift may take, by source: the display's (slot 0, 1) and, with
    gift_from = 'display_and_deck', the deck's top card (DECK)."""
    cards = {slot: card for slot, card in enumerate(game.display) if card is not None}
    if game.deck and game.params.gift_from == "display_and_deck":
        cards[DECK] = game.deck[0]
    return cards


def gift_options(game: Game, first: bool = False) -> list[int]:
    """6 * opponent + 2 * source + side of every way to give a card (`first`: stop at the first)."""
    out = []
    for owner in range(game.params.players):
        for source, card in gift_cards(game).items():
            for side in range(2):
                if owner != game.seat and _gift_fits(game, owner, Placed(card, side, 0, 0)):
                    out.append(6 * owner + 2 * source + side)
                    if first:
                        return out
    return out


def _gift_fits(game: Game, owner: int, card: Placed) -> bool:
    stack = game.collections[owner]
    return any(next(col.depths(stack, card._replace(row=r, col=c), game.cards, keep=True), None) is not None
               for r, c in col.spots(stack, game.params.advanced, False, game.params.entirely))


def action_options(game: Game) -> list[int]:
    """NO_ACTION, and each unused token whose action is possible now."""
    possible = {"stash": lambda: bool(sources(game)),
                "solvent": lambda: any(next(col.removals(s, game.cards), None) is not None for s in game.collections),
                "correction": lambda: True, "gift": lambda: bool(gift_options(game, first=True)),
                "rush": lambda: len(game.hands[game.seat]) >= 2}
    return [NO_ACTION] + [1 + i for i, a in enumerate(ACTIONS) if a in game.tokens[game.seat] and possible[a]()]


def act(game: Game, decider: Decider, kind: str, record: dict) -> None:
    """The action's own questions and effects (all but Correction's, which is the expansion's)."""
    action = record["action"] = {"kind": kind}
    if kind == "stash":
        action["drew"] = draw(game, _ask(game, decider, "stash_draw", drawable(game, game.params.stash_draw)))
        hand = game.hands[game.seat]
        action["discarded"] = hand.pop(_ask(game, decider, "stash_discard", list(range(len(hand)))))
    elif kind == "solvent":
        owner, i = divmod(_ask(game, decider, "solvent", solvent_options(game)), MAX_STACK)
        action.update(owner=owner, card=game.collections[owner].pop(i).card)
    elif kind == "gift":
        owner, rest = divmod(_ask(game, decider, "gift", gift_options(game)), 6)
        source, side = divmod(rest, 2)
        placement = lay(game, decider, ("gift_where", "gift_z"), Pending(owner, gift_cards(game)[source], side,
                                                                        source), correction=False, keep=True)
        if source == DECK:
            game.deck.pop(0)
            action.update({"from": "deck", "owner": owner}, **placement)
        else:
            refill(game, source)
            action.update(owner=owner, slot=source, **placement)
    elif kind == "rush":
        for again in (False, True):
            if (placement := expand(game, decider, again, correction=False)) is not None:
                record["placements"].append(placement)
        options = drawable(game, game.params.rush_draw)
        action["drew"] = draw(game, _ask(game, decider, "rush_draw", options)) if options else None


# ---------------------------------------------------------------------------------------------- the turn


def play_turn(game: Game, decider: Decider) -> None:
    """Search, an optional action, then Collection Expansion (Rush expands twice and draws afterwards)."""
    record: dict = {"seat": game.seat, "search": None, "action": None, "placements": []}
    options = sources(game)
    if options:
        record["search"] = draw(game, _ask(game, decider, "search", options))
    game.action = _ask(game, decider, "action", action_options(game))
    kind = ACTIONS[game.action - 1] if game.action != NO_ACTION else None
    if kind is not None:
        game.tokens[game.seat].remove(kind)
        act(game, decider, kind, record)
    if kind != "rush" and (placement := expand(game, decider, False, kind == "correction")) is not None:
        record["placements"].append(placement)
    record["display_after"] = [None if c is None else [c, SIDES[game.up[c]]] for c in game.display]
    game.turns.append(record)
    game.last_round |= game.available() < game.params.players
    game.turn += 1
    game.action = NO_ACTION


def over(game: Game) -> bool:
    """End of the Game: after the last seat's turn in the round in which fewer cards than players were left."""
    return game.last_round and game.seat == 0


def play(params: Params, one: Deal, decider: Decider) -> Game:
    game = new_game(params, one)
    while not over(game):
        play_turn(game, decider)
    return game


def scores(game: Game) -> list[int]:
    return col.scores(game.collections, game.cards)[0]


# ---------------------------------------------------------------------------------------------- the engine's questions


def question(game: Game, phase: str, options: list[int]) -> Decision:
    """The question as the engine asks it, with its Decision and Observation, on a batch of one."""
    legal = legal_row(options, width(PHASES[phase], game.params.players))
    return Decision(PHASES[phase], game.seat, legal, np.ones(1, bool), observation(game, phase, legal),
                    f"({phase}) at turn {game.turn}")


def observation(game: Game, phase: str, legal: np.ndarray):
    """The engine's Observation of the game for its mover, on a batch of one."""
    players, cards = game.params.players, game.cards
    stack = np.full((1, players, MAX_STACK, 4), -1, np.int8)
    for owner, collection in enumerate(game.collections):
        stack[0, owner, : len(collection)] = collection
    hand = np.full((1, HAND), -1, np.int8)
    hand[0, : len(game.hands[game.seat])] = game.hands[game.seat]
    display = np.array([[-1 if c is None else c for c in game.display]], np.int8)
    shown = np.array([[-1 if c is None else game.up[c] for c in game.display]], np.int8)
    top = np.full((1, 2, 2), -1, np.int8)
    if game.deck:
        top[0] = cards[game.deck[0], game.up[game.deck[0]]]
    tokens = np.array([[[a in game.tokens[s] for a in ACTIONS] for s in range(players)]])
    pending = np.full((1, 4), -1, np.int16)
    spot = np.zeros((1, 2), np.int16)
    if game.pending is not None:
        p = game.pending
        pending[0] = p.owner, p.card, p.side, p.source
        spot[0] = (p.row, p.col) if p.row is not None else (0, 0)
    copies = np.array([[col.copies_by_painting(c, cards) for c in game.collections]], np.int8)
    return Observation(phase, game.seat, game.turn, stack, np.array([[len(c) for c in game.collections]], np.int16),
                       copies, hand, display, shown, np.array([len(game.deck)], np.int16), top, tokens,
                       np.array([game.action], np.int8), pending, spot, legal, np.ones(1, bool), game.params, cards)
