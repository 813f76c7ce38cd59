"""Witkacy, one game at a time, written to be read beside the rulebook (the batched engine is to come).

A turn (Course of Play) asks its player, in this order; a question with a single answer is not asked:
1. search: a display slot (0, 1) or the deck (DECK); skipped when nothing is left to draw;
2. action: NO_ACTION or one of the unused tokens (rules.ACTIONS) whose action is possible now, with its own
   questions: stash_draw and stash_discard; solvent (whose collection, which card); gift (which display card, to
   whom, where); rush (two expansions, then rush_draw);
3. expand: a hand card, its side and its place (Placed, z); skipped with an empty hand.
The game ends after the last seat's turn in the round in which fewer cards than players are left to draw.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from sim.errors import IllegalMove
from sim.witkacy import collection as col
from sim.witkacy.collection import Collection, Placed
from sim.witkacy.rules import ACTIONS, SIDES, Deal, Params

DECK = 2  # search: the deck's top card (0 and 1 are the display slots)
NO_ACTION = 0  # action: none; 1 + index in ACTIONS otherwise


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
    correction: bool = False  # this turn's expansion may lie entirely on or under the collection

    @property
    def seat(self) -> int:
        return self.turn % self.params.players

    def available(self) -> int:
        shown = sum(card is not None for card in self.display)
        return len(self.deck) + (shown if self.params.end_count == "deck_and_display" else 0)


def new_game(params: Params, one: Deal) -> Game:
    players = params.players
    deck = [int(c) for c in one.deck[0] if c >= 0]
    game = Game(params, params.cards, deck, {c: int(one.up[0, c]) for c in range(len(one.up[0]))},
                [int(c) for c in one.display[0]],
                [[Placed(int(one.start[0, s]), int(one.up[0, one.start[0, s]]), 0, 0)] for s in range(players)],
                [[int(one.hand[0, s])] for s in range(players)], tokens=[list(ACTIONS) for _ in range(players)])
    return game


# ---------------------------------------------------------------------------------------------- drawing


def sources(game: Game) -> list[int]:
    """Where a card can be drawn from: the display slots holding a card, and the deck if it holds any."""
    return [slot for slot, card in enumerate(game.display) if card is not None] + ([DECK] if game.deck else [])


def draw(game: Game, source: int) -> dict:
    """Search: a display card (its slot refilled by turning the deck's top card over), or the deck's top card."""
    if source == DECK:
        card = game.deck.pop(0)
        game.hands[game.seat].append(card)
        return {"from": "deck", "card": card}
    card = game.display[source]
    game.hands[game.seat].append(card)
    game.display[source] = None
    if game.deck:  # turned over: it shows the side that was face down
        refill = game.deck.pop(0)
        game.up[refill] = 1 - game.up[refill]
        game.display[source] = refill
    return {"from": "display", "slot": source, "card": card}


# ---------------------------------------------------------------------------------------------- questions


class Decider(Protocol):
    def search(self, game: Game, options: list[int]) -> int: ...
    def action(self, game: Game, options: list[int]) -> int: ...
    def stash_draw(self, game: Game, options: list[int]) -> int: ...
    def stash_discard(self, game: Game, options: list[int]) -> int: ...
    def solvent(self, game: Game, options: list[tuple[int, int]]) -> tuple[int, int]: ...
    def gift(self, game: Game, options: list[tuple[int, int, Placed, int]]) -> tuple[int, int, Placed, int]: ...
    def expand(self, game: Game, options: list[tuple[Placed, int]]) -> tuple[Placed, int]: ...
    def rush_draw(self, game: Game, options: list[int]) -> int: ...


def _asked(name: str, choice, options: list, game: Game):
    if choice not in options:
        raise IllegalMove("reference", f"{name} choice {choice} at turn {game.turn} is not allowed by the rules")
    return choice


def expansions(game: Game, correction: bool) -> list[tuple[Placed, int]]:
    """Collection Expansion: any hand card, on either side, wherever the overlap rule allows."""
    mine = game.collections[game.seat]
    return [option for card in game.hands[game.seat]
            for option in col.placements(mine, card, game.params.advanced, correction)]


def solvent_options(game: Game) -> list[tuple[int, int]]:
    """(owner, stack position) of every card Solvent may remove."""
    return [(owner, i) for owner, stack in enumerate(game.collections) for i in col.removals(stack, game.cards)]


def gift_options(game: Game) -> list[tuple[int, int, Placed, int]]:
    """(display slot, opponent, placed, z) of every way to give a display card."""
    out = []
    for slot, card in enumerate(game.display):
        if card is None:
            continue
        for owner in range(game.params.players):
            if owner != game.seat:
                out += [(slot, owner, placed, z)
                        for placed, z in col.gifts(game.collections[owner], card, game.cards, game.params.advanced)]
    return out


def action_options(game: Game) -> list[int]:
    """NO_ACTION, and each unused token whose action is possible now."""
    possible = {"stash": lambda: bool(sources(game)), "solvent": lambda: bool(solvent_options(game)),
                "correction": lambda: True, "gift": lambda: bool(gift_options(game)),
                "rush": lambda: len(game.hands[game.seat]) >= 2}  # asked only for the tokens left
    return [NO_ACTION] + [1 + ACTIONS.index(a) for a in game.tokens[game.seat] if possible[a]()]


def _place(game: Game, decider: Decider, correction: bool) -> dict | None:
    options = expansions(game, correction)
    if not options:
        return None
    placed, z = _asked("expand", decider.expand(game, options), options, game)
    game.hands[game.seat].remove(placed.card)
    game.collections[game.seat] = col.added(game.collections[game.seat], placed, z)
    return {"card": placed.card, "side": SIDES[placed.side], "row": placed.row, "col": placed.col, "z": z}


def play_turn(game: Game, decider: Decider) -> None:
    """Search, an optional action, then Collection Expansion (Rush expands twice and draws afterwards)."""
    record: dict = {"seat": game.seat, "search": None, "action": None, "placements": []}
    options = sources(game)
    if options:
        source = options[0] if len(options) == 1 else _asked("search", decider.search(game, options), options, game)
        record["search"] = draw(game, source)
    options = action_options(game)
    choice = NO_ACTION if options == [NO_ACTION] else _asked("action", decider.action(game, options), options, game)
    correction = False
    if choice != NO_ACTION:
        kind = ACTIONS[choice - 1]
        game.tokens[game.seat].remove(kind)
        record["action"] = {"kind": kind}
        if kind == "stash":
            options = sources(game)
            record["action"]["drew"] = draw(game, _asked("stash_draw", decider.stash_draw(game, options), options,
                                                         game))
            hand = game.hands[game.seat]
            discarded = _asked("stash_discard", decider.stash_discard(game, hand), hand, game)
            hand.remove(discarded)
            record["action"]["discarded"] = discarded
        elif kind == "solvent":
            options = solvent_options(game)
            owner, i = _asked("solvent", decider.solvent(game, options), options, game)
            removed = game.collections[owner].pop(i)
            record["action"].update(owner=owner, card=removed.card)
        elif kind == "correction":
            correction = True
        elif kind == "gift":
            options = gift_options(game)
            slot, owner, placed, z = _asked("gift", decider.gift(game, options), options, game)
            game.display[slot] = None
            if game.deck:
                refill = game.deck.pop(0)
                game.up[refill] = 1 - game.up[refill]
                game.display[slot] = refill
            game.collections[owner] = col.added(game.collections[owner], placed, z)
            record["action"].update(owner=owner, slot=slot, card=placed.card, side=SIDES[placed.side],
                                    row=placed.row, col=placed.col, z=z)
        elif kind == "rush":
            for _ in range(2):
                if (placement := _place(game, decider, False)) is not None:
                    record["placements"].append(placement)
            options = [DECK] if game.deck and game.params.rush_draw == "deck" else sources(game)
            drew = None
            if options:
                source = options[0] if len(options) == 1 else _asked("rush_draw", decider.rush_draw(game, options),
                                                                     options, game)
                drew = draw(game, source)
            record["action"]["drew"] = drew
    if choice == NO_ACTION or ACTIONS[choice - 1] != "rush":
        if game.hands[game.seat] and (placement := _place(game, decider, correction)) is not None:
            record["placements"].append(placement)
    record["display_after"] = [None if c is None else [c, SIDES[game.up[c]]] for c in game.display]
    game.turns.append(record)
    game.last_round |= game.available() < game.params.players
    game.turn += 1


def over(game: Game) -> bool:
    """End of the Game: after the last seat's turn in the round in which fewer cards than players were left."""
    return game.last_round and game.seat == 0


def play(params: Params, one: Deal, decider: Decider) -> Game:
    game = new_game(params, one)
    while not over(game):
        play_turn(game, decider)
    return game
