"""Search players (strategies/search.py), checked over every registered game where the contract allows: they read
only what their seat sees, play legal moves from any position, draw from their own stream, and beat random play."""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_contract import ALL
from test_determinize import positions

from reports.load import load
from sim.errors import AtelierError
from sim.experiment import load_experiment
from sim.game import Worlds, evolve
from sim.registry import get_game
from sim.runner import plan, play_chunk, run
from strategies import kintsugi
from strategies.kintsugi import piece_deltas
from strategies.search import Tree, _descend, knobs, margins, rows_of

pytestmark = pytest.mark.usefixtures("dice")


def searcher(spec, params, state, seat: int, name: str = "search@2"):
    secrets = spec.rules.secrets(state)
    return spec.players.make(name, seat=seat, params=params, games=slice(None),
                             secret=None if secrets is None else secrets[:, seat])


def searched_positions(name: str, seed: int, count: int = 4):
    """(params, state, decision with its worlds) at the first `count` sampled decisions a search searches."""
    spec = get_game(name)
    kinds = spec.players.searched
    found = [(params, state, evolve(asked, worlds=Worlds(spec.rules.engine, params, state)))
             for params, state, asked in positions(name, spec.rules.player_counts[0], seed)
             if (kinds is None or asked.kind in kinds) and (asked.legal[asked.asked].sum(axis=1) > 1).any()]
    return found[:count]


@pytest.mark.parametrize("strategy", ["search@2", "mcts@2"])
@pytest.mark.parametrize("name", ALL)
def test_a_search_chooses_the_same_whatever_the_hidden_truth_its_seat_cannot_tell(name: str, strategy: str) -> None:
    """The leak test: the true hidden parts swapped for another assignment the seat cannot tell from them (a world
    `determinize` draws), the same stream gives the same choices."""
    spec = get_game(name)
    engine = spec.rules.engine
    for params, state, asked in searched_positions(name, seed=3):
        other = engine.determinize(params, state, asked.seat, np.random.default_rng(42))
        swapped = evolve(asked, worlds=Worlds(engine, params, other))
        one = searcher(spec, params, state, asked.seat, strategy).decide(asked, np.random.default_rng(7))
        two = searcher(spec, params, other, asked.seat, strategy).decide(swapped, np.random.default_rng(7))
        assert np.array_equal(one, two), f"{asked.kind} at seat {asked.seat}: the choice follows the hidden truth"
        assert asked.legal[asked.asked, one[asked.asked]].all()


@pytest.mark.parametrize("cheat", ["cheat@8", "peek@8"])
def test_the_leak_test_catches_a_search_that_reads_the_truth(cheat: str) -> None:
    """`cheat` and `peek` search the true State (as `mcts` and `search`): with the truth swapped, they choose
    otherwise somewhere."""
    spec = get_game("broken_beautiful")
    engine = spec.rules.engine
    differs = []
    for params, state, asked in searched_positions("broken_beautiful", seed=3, count=8):
        other = engine.determinize(params, state, asked.seat, np.random.default_rng(42))
        choices = [searcher(spec, params, truth, asked.seat, cheat).decide(
            evolve(asked, worlds=Worlds(engine, params, truth)), np.random.default_rng(7)) for truth in (state, other)]
        differs.append(not np.array_equal(*choices))
    assert any(differs)


@pytest.mark.parametrize("strategy", ["search@4", "mcts@4"])
def test_search_beats_random_play(strategy: str) -> None:
    spec = get_game("broken_beautiful")
    params = spec.make_params(2, {})
    rng = np.random.default_rng(5)
    deal = spec.rules.deal(params, rng, 12)
    deal = type(deal)(*(np.repeat(part, 2, axis=0) for part in deal))
    lineups = np.array([[strategy, "random"], ["random", strategy]] * 12)
    win = spec.play(params, deal, lineups, rng).outcome.win
    assert (win[0::2, 0].sum() + win[1::2, 1].sum()) / 24 > 0.8


def test_a_search_leaves_the_table_stream_as_it_found_it() -> None:
    """Its rollouts draw from its own stream: the table's draws, and so every other player's, do not depend on the
    budget."""
    spec = get_game("kaleido")
    params, state, asked = searched_positions("kaleido", seed=1, count=1)[0]
    rng = np.random.default_rng(3)
    before = rng.bit_generator.state
    searcher(spec, params, state, asked.seat).decide(asked, rng)
    assert rng.bit_generator.state == before


def test_a_search_shortlists_at_most_its_width_with_the_policys_choice_first() -> None:
    spec = get_game("kaleido")
    for params, state, asked in searched_positions("kaleido", seed=2, count=6):
        player = searcher(spec, params, state, asked.seat, "search@2/3")
        player.stream = np.random.default_rng(0)
        kept = player.shortlist(asked, np.arange(len(asked.asked)))
        legal = asked.legal
        assert not (kept & ~legal).any()
        assert (kept.sum(axis=1) == np.minimum(legal.sum(axis=1), 3))[asked.asked].all()
        own = getattr(player.rest, asked.kind)(asked.observation, np.random.default_rng(0))
        assert kept[asked.asked, own[asked.asked]].all()


def test_a_decision_the_game_leaves_to_the_policy_is_the_policys() -> None:
    """Kintsugi's guesses are not searched: the search answers as its policy's guesser, without worlds."""
    spec = get_game("kintsugi")
    params, state, asked = next((p, s, a) for p, s, a in positions("kintsugi", 2, seed=4) if a.kind == "guess")
    one = searcher(spec, params, state, asked.seat, "search@4+tracker").decide(asked, np.random.default_rng(1))
    secrets = spec.rules.secrets(state)[:, asked.seat]
    two = spec.players.make("camouflage+tracker", seat=asked.seat, params=params, games=slice(None),
                            secret=secrets).guess(asked.observation, np.random.default_rng(1))
    assert np.array_equal(one, two)


@pytest.mark.parametrize(("game", "name", "expected"), [
    ("kintsugi", "search", (64, "camouflage+bayes", None)),
    ("kintsugi", "search@8/3:greedy+tracker", (8, "greedy+tracker", 3)),
    ("kintsugi", "search@8+tracker", (8, "camouflage+tracker", None)),
    ("kunst_stuecke", "search@8", (8, "planner", 4)),
    ("kunst_stuecke", "search@8/0", (8, "planner", None)),
    ("kunst_stuecke", "cheat@16:random", (16, "random", 4)),
    ("kunst_stuecke", "peek@16:random", (16, "random", 4)),
    ("kaleido", "mcts@16^1.5:rotator", (16, "rotator", None)),
])
def test_a_search_name_gives_its_knobs(game: str, name: str, expected: tuple) -> None:
    found = knobs(name, get_game(game).players)
    assert (found.budget, found.policy, found.width) == expected
    assert (found.cheats, found.tree) == (name.startswith(("cheat", "peek")), name.startswith(("cheat", "mcts")))
    assert found.exploration == (1.5 if "^" in name else 0.7)


@pytest.mark.parametrize(("name", "message"), [
    ("search@0", "knob of 'search@0' must be a number from 1 to 4096"),
    ("search@2.5", "the budget must be a whole number"),
    ("search@8/x", "the width after '/' must be a whole number"),
    ("search@8:search@4", "the rollout policy must be a scripted strategy"),
    ("search@8+bayes:greedy+bayes", "not both"),
    ("search@8^2", "only a tree search"),
    ("peek@8^2", "only a tree search"),
    ("mcts@8^x", "the exploration constant after '^' must be a number from 0 to 10"),
    ("mcts@8^1.50", "write the exploration constant as '^1.5'"),
    ("search@8:nonsense+bayes", "unknown Kintsugi policy 'nonsense'"),
])
def test_a_malformed_search_name_is_refused_in_one_line(name: str, message: str) -> None:
    with pytest.raises(AtelierError, match=re.escape(message)):
        get_game("kintsugi").check_strategy(name)


def test_a_search_cannot_play_the_scalar_reference() -> None:
    spec = get_game("broken_beautiful")
    with pytest.raises(AtelierError, match="search@2' searches the batched engine's games"):
        spec.trace(spec.make_params(2, {}), ["search@2", "random"], seed=1)


def test_a_search_experiment_gives_the_same_data_for_any_number_of_jobs(write_toml, tmp_path) -> None:
    path = write_toml('name = "s"\ngame = "broken_beautiful"\nplayers = [2]\ngames = 8\nseed = 3\nchunk = 2\n'
                      'pool = ["search@2", "greedy"]\n')
    frames = [load(run(load_experiment(path), tmp_path / str(jobs), jobs=jobs, progress=False)).sort("game_id", "seat")
              for jobs in (1, 2)]
    assert frames[0].equals(frames[1])
    assert set(frames[0]["strategy"]) == {"search@2", "greedy"}


def test_a_tree_step_tries_each_legal_option_once_before_any_twice_and_never_an_illegal_one() -> None:
    tree, legal = Tree(1, 64), np.zeros((1, 8), bool)
    legal[0, [1, 3, 4, 6, 7]] = True
    first = _descend(tree.action, tree.child, tree.visits, tree.wins, tree.available, tree.used, np.zeros(5, np.int64),
                     np.zeros(5, np.int64), np.repeat(legal, 5, axis=0), 0.7, np.random.default_rng(1).random((5, 2)))
    moved, slot, action, child, added = first
    assert moved.all() and added.all() and sorted(action) == [1, 3, 4, 6, 7] and sorted(slot) == [0, 1, 2, 3, 4]
    assert sorted(child) == [1, 2, 3, 4, 5] and tree.used[0] == 6
    tree.wins[0, 0, :5] = [1, 0, 0, 0, 0]  # the first option tried won its rollout
    moved, slot, action, _, added = _descend(
        tree.action, tree.child, tree.visits, tree.wins, tree.available, tree.used, np.zeros(3, np.int64),
        np.zeros(3, np.int64), np.repeat(legal, 3, axis=0), 0.1, np.random.default_rng(2).random((3, 2)))
    assert moved.all() and not added.any() and legal[0, action].all()
    assert slot[0] == 0, "with little exploration the option that won is tried again first"
    assert tree.visits[0, 0].sum() == 8


@pytest.mark.parametrize(("scores", "lowest", "expected"), [
    ([[10, 7, 3]], False, [[3, -3, -7]]),
    ([[5, 5, 1]], False, [[0, 0, -4]]),
    ([[2, 6]], True, [[4, -4]]),
])
def test_a_seats_margin_is_its_score_less_the_best_others(scores, lowest, expected) -> None:
    assert margins(np.array(scores), lowest).tolist() == expected


def test_a_decisions_rows_keep_what_the_strategies_worked_out_from_it_row_by_row() -> None:
    """rows_of, which shows a search's rollouts the game so far: a scratch entry of the observation along its batch
    axis (Kintsugi's piece deltas) comes with the rows, equal to working it out again from them; one that is not is
    left out."""
    spec = get_game("kintsugi")
    engine, params = spec.rules.engine, spec.make_params(3, {})
    deal = spec.rules.deal(params, np.random.default_rng(3), 5)
    state, choose = engine.init(params, deal), spec.table(params, np.full((5, 3), "greedy+bayes"), deal).choose
    for _ in range(4):
        state = engine.step(params, state, choose(engine.decision(params, state), np.random.default_rng(4)))
    public = engine.decision(params, state).public
    full, games = piece_deltas(public, params.connectivity), np.array([3, 0, 3, 1])
    public.memo["not by game"] = np.zeros(2)
    shown = rows_of(public, games)
    assert set(shown.memo) == {("deltas", params.connectivity)}
    assert np.array_equal(shown.memo[("deltas", params.connectivity)], full[games])
    assert np.array_equal(piece_deltas(rows_of(evolve(public, memo={}), games), params.connectivity), full[games])
    assert not np.array_equal(full[games], full[games[::-1]])  # the rows differ: a wrong order would be seen


def test_a_chunk_with_search_players_plays_the_same_games_twice(write_toml) -> None:
    """Witkacy's search@2 rolls out with completer players who are handed a card another chose to lay (a side with
    no laying worth keeping while the other side has one): the same chunk, played twice, gives the same rows, with
    nothing read from memory no laying was written to."""
    spec = get_game("witkacy")
    experiment = load_experiment(write_toml('game = "witkacy"\nplayers = [2]\ngames = 12\nseed = 20261205\n'
                                            'chunk = 12\nladder = ["completer", "search@2"]\n'))
    chunk = next(iter(plan(experiment)))
    assert play_chunk(experiment, spec, chunk).equals(play_chunk(experiment, spec, chunk))


@pytest.mark.parametrize("policy", ["spoiler+bayes", "greedy+tracker"])
def test_kintsugis_rollouts_start_from_what_a_shadow_table_watched_as_if_they_had_watched_the_game(
        monkeypatch, write_toml, policy: str) -> None:
    """A search's rollout players adopt what the search's shadow table of its policy made of the game so far (a
    guesser's evidence, a spoiler's belief of its critic, a tracker's reductions), instead of watching it again:
    the very games watching it again gives."""
    spec = get_game("kintsugi")
    experiment = load_experiment(write_toml(f'game = "kintsugi"\nplayers = [3]\ngames = 12\nseed = 31\nchunk = 12\n'
                                            f'pool = ["search@4:{policy}", "{policy}"]\n'))
    chunk = next(iter(plan(experiment)))
    adopted = play_chunk(experiment, spec, chunk)
    monkeypatch.delattr(kintsugi.Player, "adopt")  # the search keeps the history and replays it to every rollout
    assert play_chunk(experiment, spec, chunk).equals(adopted)
