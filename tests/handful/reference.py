"""Handful's scalar reference, to be read beside the rules (tests/handful/__init__.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.game import Decider, Decision, checked, legal_row

from .engine import View
from .rules import Deal, Params, leader


@dataclass
class Game:
    params: Params
    hands: list[list[int]]  # each seat's cards in hand
    trick: int = 0
    seat: int = 0  # the seat to play
    played: list[int] = field(default_factory=list)  # this trick's cards, by seat, -1 not yet
    tricks: list[int] = field(default_factory=list)  # tricks won by each seat
    plays: list[dict] = field(default_factory=list)  # every card played: trick, seat, card


def options(game: Game) -> list[int]:
    """The rule: a seat holding a card above every card played in the trick must play one of those."""
    hand = game.hands[game.seat]
    beating = [card for card in hand if card > max(game.played)]
    return sorted(beating or hand)


def play_trick(game: Game, decider: Decider) -> None:
    players = game.params.players
    game.played = [-1] * players
    for at in range(players):
        game.seat = (leader(game.params, game.trick) + at) % players
        allowed = options(game)
        card = checked(decider(game, "play", allowed), allowed, "play", f"in trick {game.trick + 1}")
        game.hands[game.seat].remove(card)
        game.played[game.seat] = card
        game.plays.append({"trick": game.trick, "seat": game.seat, "card": card})
    game.tricks[game.played.index(max(game.played))] += 1


def play(params: Params, one: Deal, decider: Decider) -> Game:
    game = Game(params, [sorted(hand) for hand in one.hands[0].tolist()], tricks=[0] * params.players)
    for trick in range(params.hand):
        game.trick = trick
        play_trick(game, decider)
    return game


def question(game: Game, phase: str, options: list[int]) -> Decision:
    hand = np.zeros((1, game.params.cards), bool)
    hand[0, game.hands[game.seat]] = True
    legal = legal_row(options, game.params.cards)
    view = View(hand, legal, np.array([game.played]), game.trick, game.seat)
    return Decision(phase, game.seat, legal, np.ones(1, bool), view, f"in trick {game.trick + 1}")


def scores(game: Game) -> list[int]:
    return game.tricks
