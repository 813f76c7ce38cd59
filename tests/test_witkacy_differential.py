"""Witkacy: the batched engine against the readable reference, question by question.

The engine plays batches with the shipped strategies; every game is then replayed through the reference, which
must ask the same questions and offer exactly the legal options the engine offered at every one, and end with the
same collections (card, side, place, stack order), hands, display, deck, unused tokens, turns and scores. A trace
must be the game the engine plays with the same seed (a batch played like its games one at a time is a contract
test, tests/test_contract.py).
"""

from __future__ import annotations

import numpy as np
import playback
import pytest

from sim.game import Outcome, play
from sim.registry import get_game
from sim.witkacy import collection as col
from sim.witkacy import engine, reference, rules
from strategies.common import Table

witkacy = get_game("witkacy")
POOL = np.array(["random", "completer", "popular", "saboteur", "saboteur-no-rush", "completer-no-stash"])
CASES = [(2, 200, 1, {}), (3, 200, 2, {}), (4, 200, 3, {}),  # players, games, seed, Params: 720 games in all
         (3, 60, 4, {"advanced": True}),
         (3, 60, 5, {"rush_draw": "any", "end_count": "deck", "start_distinct": "half", "stash_draw": "deck",
                     "gift_from": "display_and_deck", "rush_both": "optional", "entirely": "card"})]


def same_game(state: engine.State, g: int, game: reference.Game, outcome: Outcome, row: int) -> None:
    """Game g of the engine's batch (its outcome's row `row`) is the reference's game: the same collections, hands,
    display (and the side each display card shows), deck (and each card's side up), tokens, turns; and the
    outcome's scores, ranks, wins and own columns are what the reference's collections give."""
    for owner, stack in enumerate(game.collections):
        assert state.stack[g, owner, : state.size[g, owner]].tolist() == [list(p) for p in stack], (g, owner)
    assert [[c for c in hand if c >= 0] for hand in state.hand[g].tolist()] == game.hands
    assert state.display[g].tolist() == [-1 if c is None else c for c in game.display]
    assert [state.up[g, c] for c in game.display if c is not None] == [game.up[c] for c in game.display
                                                                       if c is not None]
    assert state.deck[g, state.drawn[g]: state.drawn[g] + state.left[g]].tolist() == game.deck
    assert [state.up[g, c] for c in game.deck] == [game.up[c] for c in game.deck]
    assert state.tokens[g].tolist() == [[a in tokens for a in rules.ACTIONS] for tokens in game.tokens]
    assert state.turns[g] == game.turn and state.played[g].tolist() == game.played
    same_outcome(outcome, row, game)


def same_outcome(outcome: Outcome, row: int, game: reference.Game) -> None:
    """The outcome's row against the rulebook's End of the Game read off the reference's collections: the most
    points wins, a tie goes to the most completed paintings, then the victory is shared."""
    points, paintings = col.scores(game.collections, game.cards)
    keys = list(zip(points, paintings, strict=True))
    winners = [seat for seat, key in enumerate(keys) if key == max(keys)]
    players = len(keys)
    assert outcome.scores[row].tolist() == points
    assert outcome.rank[row].tolist() == [1 + sum(other > key for other in keys) for key in keys]
    assert outcome.win[row].tolist() == [np.float32(1 / len(winners)) if seat in winners else 0 for seat in
                                         range(players)]
    seats = slice(row * players, (row + 1) * players)
    columns = outcome.columns
    assert columns["paintings"][row].tolist() == paintings
    assert columns["copies_by_painting"][seats].to_list() == [col.copies_by_painting(c, game.cards)
                                                              for c in game.collections]
    assert columns["actions_used"][seats].to_list() == [[a not in tokens for a in rules.ACTIONS]
                                                        for tokens in game.tokens]
    assert columns["cards_played"][row].tolist() == game.played
    assert columns["turns"][row] == game.turn and columns["deck_left"][row] == len(game.deck)


def replay_agrees(params, deal, lineups: np.ndarray, rng: np.random.Generator, games: list | None = None):
    """Play the batch in the engine and every game through the reference, which must ask the same questions with
    the same options and end in the same game, with the same standings and columns; the reference's games are
    added to `games`. Returns the engine's final State and the Recorder."""
    def check(state, outcome, g, game):
        same_game(state, g, game, outcome, g)
        if games is not None:
            games.append(game)

    return playback.against_reference("witkacy", params, deal, lineups, rng, check)


@pytest.mark.parametrize(("players", "games", "seed", "switches"), CASES)
def test_the_reference_offers_the_same_options_and_gives_the_same_scores(players, games, seed, switches):
    params = rules.Params(players=players, **switches)
    rng = np.random.default_rng(seed)
    deal = rules.deal(params, rng, games)
    lineups = rng.choice(POOL, size=(games, players))
    games_played = []
    state, recorder = replay_agrees(params, deal, lineups, rng, games_played)
    asked = {phase for _, phase, *_ in recorder.log}
    if not switches:  # every question was asked (a draw after a Rush is a choice only once the deck is empty), and
        assert asked >= set(rules.PHASES) - {"rush_draw"}  # every action was used
        assert (~state.tokens).any(axis=(0, 1)).all()
    if switches.get("rush_draw") == "any":
        assert "rush_draw" in asked
    from_deck = kept = 0
    for game in games_played:
        from_deck += sum((t["action"] or {}).get("from") == "deck" for t in game.turns)
        kept += sum((t["action"] or {}).get("kind") == "rush" and len(t["placements"]) == 1 for t in game.turns)
    assert (from_deck > 0) == (switches.get("gift_from") == "display_and_deck")  # Gifts from the deck's top
    assert (kept > 0) == (switches.get("rush_both") == "optional")  # a Rush that keeps its second card


@pytest.mark.parametrize("players", rules.PLAYER_COUNTS)
def test_a_trace_is_the_game_the_engine_plays_and_replays_to_its_scores(players):
    lineup = list(POOL[[3, 1, 0, 2][:players]])
    params = witkacy.make_params(players, {})
    record = witkacy.trace(params, lineup, seed=40 + players)
    rng = np.random.default_rng(40 + players)
    deal = witkacy.rules.deal(params, rng, 1)
    state = play(engine, params, deal, Table(witkacy.players, params, np.array([lineup]), None).choose, rng)
    outcome = engine.outcome(params, state)
    assert outcome.scores[0].tolist() == record["final"]["scores"]
    assert np.flatnonzero(outcome.win[0]).tolist() == record["final"]["winners"]
    for owner, stack in enumerate(record["final"]["collections"]):
        assert [[p["card"], rules.SIDES.index(p["side"]), p["row"], p["col"]] for p in stack] \
            == state.stack[0, owner, : state.size[0, owner]].tolist()
    assert witkacy.rules.replay(record) == record["final"]["scores"]
