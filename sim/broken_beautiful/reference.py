"""Broken and Beautiful, one game at a time, written to be read next to the rulebook
(../shared/rules/broken_and_beautiful.txt).

The oracle for the batched engine (tests replay the engine's decisions here), the player of `atelier play`
and the baseline of `atelier bench`. Every decision is asked of a decider (sim/game.py) as (game, phase,
options), the options being the engine's action codes; `question` puts it as the engine's Decision over a batch
of one, so the batched strategies play here too. Its scoring is written out afresh from the "Pottery Scores"
table rather than shared with the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.broken_beautiful.engine import KEEP, SELL, Observation
from sim.broken_beautiful.rules import BROKEN, INTACT, REPAIRED, TYPES, Deal, Params
from sim.game import Decider, Decision, checked, legal_row

POTTERY = {"cup", "saucer", "plate", "bowl", "tea_jar", "vase", "teapot"}


@dataclass
class Asking:
    """What a question needs to know beyond (game, phase, options): who decides, and the drafting area."""

    seat: int
    dealt: list[int]  # the round's dealt cards, in dealt order: a draft's options are slots of this list
    is_open: list[bool]  # per dealt card: still in the drafting area
    card: int = -1  # keep: the card just drafted
    repairs: list[int] | None = None  # repair: the repairs each player made this round
    free: bool = False  # repair: a gold card showed, so each player's first repair this round is free


@dataclass
class Game:
    params: Params
    deck: list[int]  # card ids, top first
    collections: list[dict[int, int]]  # per seat: card id -> INTACT, BROKEN or REPAIRED
    ingots: list[int]
    supply: int
    round: int = 0  # rounds finished
    log: list[dict] = field(default_factory=list)  # one entry per round, for the trace
    asking: Asking | None = None  # scratch: the question being asked, set just before asking

    @property
    def players(self) -> int:
        return len(self.ingots)

    @property
    def first(self) -> int:
        """The first player marker starts at seat 0 and passes clockwise (to the left) every round."""
        return self.round % self.players

    def kind(self, card: int) -> str:
        return TYPES[self.params.kit.type[card]]

    def value(self, card: int) -> int:
        return int(self.params.kit.value[card])

    def pattern(self, card: int) -> int:
        return int(self.params.kit.pattern[card])


def new_game(params: Params, one: Deal) -> Game:
    """Setup: the deal's shuffled deck, the ingots in the supply; each new player takes params.new_player_ingots."""
    players = params.players
    return Game(params, [int(c) for c in one.order[0]], [{} for _ in range(players)],
                [params.new_player_ingots] * players, params.kit.supply - params.new_player_ingots * players)


def draft_size(game: Game) -> int:
    """Starting a Round: two cards per player, plus one."""
    return 2 * game.players + 1


def over(game: Game) -> bool:
    """Ending the Game: when a full draft can no longer be dealt."""
    return len(game.deck) < draft_size(game)


def snake(game: Game) -> list[int]:
    """Drafting: the first player, then to the left around the table, then back, first player last."""
    seats = [(game.first + i) % game.players for i in range(game.players)]
    return seats + seats[::-1]


def repair_cost(game: Game, card: int, repairs_done: int, free: bool) -> int:
    """Repairing Pottery: the card's value; each additional item this round costs one more ingot per item
    already fixed; with a gold card showing, the first item each player fixes this round costs nothing."""
    if free and repairs_done == 0:
        return 0
    return game.value(card) + repairs_done


def play_round(game: Game, decider: Decider) -> None:
    """One round: deal, snake draft, breakage, repairs; the first player marker then passes on."""
    dealt = game.deck[: draft_size(game)]
    del game.deck[: draft_size(game)]
    entry = {"first": game.first, "dealt": list(dealt), "picks": [], "repairs": []}
    area = list(dealt)  # the drafting area, in dealt order; taken cards leave it
    for seat in snake(game):
        is_open = [card in area for card in dealt]
        slot = _ask(game, decider, "draft", [s for s, here in enumerate(is_open) if here], Asking(seat, dealt, is_open))
        card = dealt[slot]
        area.remove(card)
        gold = game.kind(card) == "gold"  # Choices After Drafting: a gold card must be sold
        keep = _ask(game, decider, "keep", [SELL] if gold else [SELL, KEEP],
                    Asking(seat, dealt, [c in area for c in dealt], card=card)) == KEEP
        entry["picks"].append({"seat": seat, "card": card, "action": "keep" if keep else "sell",
                               "ingots_gained": 0 if keep else sell(game, seat, card)})
        if keep:
            game.collections[seat][card] = INTACT
    (leftover,) = area
    top = game.deck[0] if game.deck else None
    entry.update({"deck_top": top, "leftover": leftover})
    entry["broken"], free = pottery_breaks(game, leftover, top)
    entry["free_repair"] = free
    entry["repairs"] = repair_pottery(game, decider, dealt, free)
    entry.update({"ingots": list(game.ingots), "supply": game.supply})
    game.log.append(entry)
    game.round += 1


def sell(game: Game, seat: int, card: int) -> int:
    """Sell for Gold: take the card's value in ingots from the supply. If the supply runs short, the seller
    takes what is left (supply_shortfall = partial), or the bank pays in full anyway (unlimited)."""
    paid = game.value(card)
    if game.params.supply_shortfall == "partial":
        paid = min(paid, max(game.supply, 0))
    game.supply -= paid
    game.ingots[seat] += paid
    return paid


def pottery_breaks(game: Game, leftover: int, top: int | None) -> tuple[list[int], bool]:
    """Pottery Breaks: all unbroken (never repaired) cards in every collection whose type matches the
    leftover card or the card on top of the deck break. Trays and boxes break nothing; a gold card breaks
    nothing but grants a free repair. An empty deck shows no card."""
    showing = [leftover] + ([top] if top is not None else [])
    kinds = {game.kind(c) for c in showing} & POTTERY
    broken = []
    for collection in game.collections:
        for card, state in collection.items():
            if state == INTACT and game.kind(card) in kinds:
                collection[card] = BROKEN
                broken.append(card)
    return sorted(broken), any(game.kind(c) == "gold" for c in showing)


def repair_pottery(game: Game, decider: Decider, dealt: list[int], free: bool) -> list[dict]:
    """In turn from the first player, each player fixes one broken item or passes, until all players
    pass in turn."""
    done = [0] * game.players
    repairs = []
    passing = game.params.kit.size  # the choice after the last card
    while True:
        someone_fixed = False
        for k in range(game.players):
            seat = (game.first + k) % game.players
            options = {card: repair_cost(game, card, done[seat], free)
                       for card, state in game.collections[seat].items() if state == BROKEN}
            affordable = {card: cost for card, cost in options.items() if cost <= game.ingots[seat]}
            card = _ask(game, decider, "repair", [*sorted(affordable), passing],
                        Asking(seat, dealt, [False] * len(dealt), repairs=list(done), free=free))
            if card == passing:
                continue
            cost = affordable[card]
            game.ingots[seat] -= cost
            game.supply += cost
            game.collections[seat][card] = REPAIRED
            done[seat] += 1
            repairs.append({"seat": seat, "card": card, "cost": cost})
            someone_fixed = True
        if not someone_fixed:
            return repairs


def points_by_type(game: Game, seat: int) -> dict[str, int]:
    """The Pottery Scores table for one collection. Broken pottery is worthless and counts for nothing."""
    s = game.params.kit.scoring
    mine = {card: state for card, state in game.collections[seat].items() if state != BROKEN}

    def cards(kind: str, state: int | None = None) -> list[int]:
        return [c for c, st in mine.items() if game.kind(c) == kind and state in (None, st)]

    def count(kind: str, state: int | None = None) -> int:
        return len(cards(kind, state))

    cup_values = sorted((s.cup[1] if mine[c] == REPAIRED else s.cup[0] for c in cards("cup")), reverse=True)
    multipliers = sorted((s.saucer[1] if mine[c] == REPAIRED else s.saucer[0] for c in cards("saucer")),
                         reverse=True)
    # Cups and saucers pair freely: the best cups go with the strongest saucers; each saucer multiplies one cup.
    paired = list(zip(cup_values, multipliers))
    tea_jars = [sum(1 for c, st in col.items() if game.kind(c) == "tea_jar" and st != BROKEN)
                for col in game.collections]
    vases = count("vase")
    teapots = 0
    for pot in cards("teapot"):
        matching = sum(1 for c in mine if game.pattern(c) == game.pattern(pot))
        teapots += matching * (s.teapot_repaired if mine[pot] == REPAIRED else 1)
    return {
        "cup": sum(cup_values),
        "saucer": sum(cup * (m - 1) for cup, m in paired),
        "plate": count("plate") // 2 * s.plate_pair + s.plate_repaired * count("plate", REPAIRED),
        "bowl": count("bowl") * count("bowl") + s.bowl_repaired * count("bowl", REPAIRED),
        "tea_jar": (s.tea_jar_most if 0 < tea_jars[seat] == max(tea_jars) else 0)
                   + s.tea_jar_repaired * count("tea_jar", REPAIRED),
        "vase": s.vase[min(vases, len(s.vase) - 1)] + s.vase_repaired * count("vase", REPAIRED),
        "teapot": teapots,
        "tray": s.tray * count("tray"),
        "box": count("box") * min(game.ingots[seat], s.box_cap),
    }


@dataclass(frozen=True)
class Result:
    points: list[dict[str, int]]
    scores: list[int]
    repaired: list[int]
    items: list[int]
    ranks: list[int]
    wins: list[float]
    winners: list[int]


def final_result(game: Game) -> Result:
    """Most points wins; ties go to most repaired items, then most items overall; then the win is shared."""
    points = [points_by_type(game, seat) for seat in range(game.players)]
    scores = [sum(p.values()) for p in points]
    repaired = [sum(1 for st in col.values() if st == REPAIRED) for col in game.collections]
    items = [sum(1 for st in col.values() if st != BROKEN or game.params.tie_items_count_broken)
             for col in game.collections]
    keys = list(zip(scores, repaired, items))
    best = max(keys)
    winners = [seat for seat in range(game.players) if keys[seat] == best]
    ranks = [1 + sum(other > mine for other in keys) for mine in keys]
    wins = [1 / len(winners) if seat in winners else 0.0 for seat in range(game.players)]
    return Result(points, scores, repaired, items, ranks, wins, winners)


def scores(game: Game) -> list[int]:
    return final_result(game).scores


def play(params: Params, one: Deal, decider: Decider) -> Game:
    """Play the one game of a deal, asking `decider` for every decision."""
    game = new_game(params, one)
    while not over(game):
        play_round(game, decider)
    return game


def _ask(game: Game, decider: Decider, phase: str, options: list[int], asking: Asking) -> int:
    """The one place the reference asks: every answer, whoever gives it, must be one the rules allow."""
    game.asking = asking
    return checked(decider(game, phase, options), options, phase, f"in round {game.round + 1}")


def question(game: Game, phase: str, options: list[int]) -> Decision:
    """The question being asked (`game.asking`) as the engine asks it, over a batch of one."""
    width = {"draft": len(game.asking.dealt), "keep": 2, "repair": game.params.kit.size + 1}[phase]
    obs = observation(game, phase, legal_row(options, width))
    return Decision(phase, obs.seat, obs.legal, np.ones(1, bool), obs, f"in round {game.round + 1}")


def observation(game: Game, decision: str, legal: np.ndarray) -> Observation:
    """The table as a batch of one, with the question being asked (`game.asking`) and its legal mask (1, width),
    so the batched strategies can play here too."""
    asking = game.asking
    size = game.params.kit.size
    owner = np.full((1, size), -1, np.int8)
    cond = np.zeros((1, size), np.int8)
    for s, collection in enumerate(game.collections):
        for c, state in collection.items():
            owner[0, c], cond[0, c] = s, state
    rounds = size // draft_size(game)
    return Observation(
        decision=decision, seat=asking.seat, round=game.round, first=game.first, owner=owner, cond=cond,
        ingots=np.array([game.ingots], np.int16), supply=np.array([game.supply], np.int16),
        draft=np.array([asking.dealt], np.intp), open=np.array([asking.is_open], bool),
        deck_top=np.array([game.deck[0] if game.deck else -1], np.intp), rounds_left=rounds - game.round - 1,
        card=np.array([asking.card], np.intp), repairs=np.array([asking.repairs or [0] * game.players], np.int16),
        free=np.array([asking.free]), legal=legal,
    )
