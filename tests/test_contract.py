"""The game contract, checked over every registered game: a new game is covered with no new test code.

Each test is parametrized from the registered games (tests/declared.py: the shipped ones and the test games) and
uses only what the contract offers (GameRules, the steppable engine, the Catalogue), never a game's own modules.
The generic properties live here once: a batch plays like its games one at a time, a State copied mid-game
continues the same, a trace replays to the engine's scores, and the golden playthroughs in tests/playthroughs/
replay exactly.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import sys
from pathlib import Path

import fakegame
import numpy as np
import polars as pl
import pytest
from declared import NAMES
from playback import assert_playout_is_stepping

from sim import registry
from sim.errors import AtelierError, IllegalMove
from sim.experiment import build_experiment
from sim.game import Decision, Outcome, games_of, list_column, play, ragged_column, take
from sim.registry import get_game
from sim.runner import Chunk, play_chunk

PLAYTHROUGHS = Path(__file__).parent / "playthroughs"
ALL = [*NAMES, "dice"]  # dice: the test game, registered by its fixture with one line, like any new game
pytestmark = pytest.mark.usefixtures("dice")
ENGINE_SCHEMA = {"experiment": pl.String, "config_hash": pl.String, "game": pl.String, "players": pl.Int8,
                 "game_id": pl.Int64, "deal": pl.Int32, "lineup": pl.Int32, "seat": pl.Int8, "player": pl.Int8,
                 "strategy": pl.String, "score": pl.Int32, "rank": pl.Int8, "win": pl.Float32}


def strategies(name: str) -> list[str]:
    """The bench strategy and, where the catalogue lists whole strategies, a second one to mix lineups."""
    catalogue = get_game(name).players
    whole = [s for s in catalogue.strategies if " " not in s and s.islower()]  # not patterns such as search@N
    return [catalogue.bench, *[s for s in whole if s != catalogue.bench][:1]]


def lineups(name: str, players: int, games: int, rng: np.random.Generator) -> np.ndarray:
    return rng.choice(strategies(name), size=(games, players))


def every_lineup(name: str, players: int, games: int, rng: np.random.Generator) -> np.ndarray:
    """Seats drawn from every whole strategy of the catalogue (not its parts, such as Kintsugi's policies, nor its
    patterns, such as BASE-no-TYPE), or the bench strategy where it lists none."""
    catalogue = get_game(name).players
    whole = [s for s in catalogue.strategies if " " not in s and s.islower()] or [catalogue.bench]
    return rng.choice(whole, size=(games, players))


def simulate(name: str, players: int, seed: int, games: int = 24) -> dict:
    spec = get_game(name)
    rng = np.random.default_rng(seed)
    seated = lineups(name, players, games, rng)
    return spec.simulate(spec.make_params(players, {}), seated, np.arange(games) // 2,
                         np.random.SeedSequence(seed, spawn_key=(0,)), np.random.SeedSequence(seed, spawn_key=(1,)))


def experiment(name: str, players: int):
    """A tiny experiment of this game, as the runner sees it."""
    return build_experiment({"game": name, "players": players, "games": 16, "seed": 3, "chunk": 16,
                             "seats": [get_game(name).players.bench] * players}, default_name="contract")


def the_fewest_and_the_most(name: str) -> tuple[int, ...]:
    counts = get_game(name).rules.player_counts
    return tuple(sorted({counts[0], counts[-1]}))


@pytest.mark.parametrize("name", ALL)
def test_the_result_columns_follow_the_declared_schema(name: str) -> None:
    spec = get_game(name)
    players = spec.rules.player_counts[0]
    exp = experiment(name, players)
    frame = play_chunk(exp, spec, Chunk(players, 0, 0, exp.deals[players]))
    assert dict(frame.schema) == {**ENGINE_SCHEMA, **spec.rules.columns}
    assert frame.height == 16 * players
    columns = simulate(name, players, 1)
    assert set(columns) - set(ENGINE_SCHEMA) == set(spec.rules.columns)
    for column, dtype in spec.rules.columns.items():
        values = pl.Series(column, columns[column])
        assert values.cast(dtype).cast(values.dtype).equals(values), f"{column} does not fit {dtype}"


@pytest.mark.parametrize("name", ALL)
def test_win_shares_sum_to_one_and_ranks_run_from_one(name: str) -> None:
    for players in get_game(name).rules.player_counts:
        columns = simulate(name, players, players)
        frame = pl.DataFrame({k: v for k, v in columns.items() if k in ENGINE_SCHEMA})
        per_game = frame.group_by("game").agg(pl.col("win").sum(), pl.col("rank").min().alias("best"),
                                              pl.col("rank").max().alias("worst"), pl.len())
        assert np.allclose(per_game["win"].to_numpy(), 1.0)
        assert (per_game["best"] == 1).all() and (per_game["worst"] <= players).all()
        assert (per_game["len"] == players).all()


@pytest.mark.parametrize("name", ALL)
def test_the_same_seed_gives_the_same_data(name: str) -> None:
    players = get_game(name).rules.player_counts[-1]
    one, two = (pl.DataFrame(simulate(name, players, 5)) for _ in range(2))
    assert one.equals(two)
    other = pl.DataFrame(simulate(name, players, 6))
    assert not one.equals(other)


@pytest.mark.parametrize("name", ALL)
def test_a_batch_plays_exactly_like_its_games_played_one_at_a_time(name: str) -> None:
    """Lockstep must not leak between games: each game of a batch, played alone with the answers it was asked
    for, ends in the same State with the same Outcome."""
    spec = get_game(name)
    for players in the_fewest_and_the_most(name):
        params, rng = spec.make_params(players, {}), np.random.default_rng(players)
        deal, log = spec.rules.deal(params, rng, 12), []
        batch = spec.play(params, deal, every_lineup(name, players, 12, rng), rng,
                          listen=lambda decision, choice, log=log: log.append((decision.asked.copy(), choice.copy())))
        together = dict(batched_arrays(batch.state, 12))
        for g in range(12):
            answers = iter([int(choice[g]) for asked, choice in log if asked[g]])
            alone = play(spec.rules.engine, params, take(deal, [g]), scripted(answers), rng)
            assert next(answers, None) is None, f"game {g} was asked fewer questions alone"
            for field, value in batched_arrays(alone, 1):
                assert np.array_equal(value[0], together[field][g]), (players, g, field)
            assert_same_outcome(spec.rules.engine.outcome(params, alone), batch.outcome, slice(g, g + 1))


def scripted(answers):
    """A choose callback giving the next answer wherever the one game is asked."""
    return lambda decision, rng: np.array([next(answers) if decision.asked[0] else 0])


def batched_arrays(state, batch: int) -> list[tuple[str, np.ndarray]]:
    """(name, array) for every array of a State (and of the named tuples it holds) with one row per game, but those
    of the question being asked (`State.QUESTION`)."""
    found, question = [], getattr(type(state), "QUESTION", ())
    for field, value in (state._asdict() if isinstance(state, tuple) else vars(state)).items():
        if field in question:
            continue
        if isinstance(value, np.ndarray) and value.ndim and len(value) == batch:
            found.append((field, value))
        elif isinstance(value, tuple) and hasattr(value, "_asdict"):
            found += [(f"{field}.{inner}", array) for inner, array in batched_arrays(value, batch)]
    return found


def assert_same_outcome(part: Outcome, batch: Outcome, games: slice | np.ndarray) -> None:
    """The Outcome of some games played apart (in the order `games` names them, repeats allowed) equals theirs in
    the batch: standings and every own column."""
    index = np.arange(len(batch.scores))[games]
    for field in ("scores", "rank", "win"):
        assert np.array_equal(getattr(part, field), getattr(batch, field)[index]), field
    players = part.scores.shape[1]
    rows = (index[:, None] * players + np.arange(players)).ravel()
    for column, values in part.columns.items():
        if isinstance(values, pl.Series):
            assert values.equals(batch.columns[column].gather(rows)), column
        else:
            assert np.array_equal(values, batch.columns[column][index]), column


def played_part_way(name: str, seed: int, games: int, part: float):
    """(engine, params, the State after `part` of the decisions, the choices left, the whole batch's Outcome) of a
    batch at the most players, its choices recorded."""
    spec = get_game(name)
    engine, players = spec.rules.engine, spec.rules.player_counts[-1]
    params, rng = spec.make_params(players, {}), np.random.default_rng(seed)
    deal, choices = spec.rules.deal(params, rng, games), []
    whole = spec.play(params, deal, lineups(name, players, games, rng), rng,
                      listen=lambda decision, choice: choices.append(choice))
    state, done = engine.init(params, deal), int(len(choices) * part)
    for choice in choices[:done]:
        state = engine.step(params, state, choice)
    return engine, params, state, choices[done:], whole.outcome


@pytest.mark.parametrize("name", ALL)
def test_a_state_copied_mid_game_continues_like_the_uninterrupted_game(name: str) -> None:
    """A search player's rollouts start from kept States: a deep copy continues exactly like the original."""
    engine, params, state, rest, whole = played_part_way(name, 11, 12, 1 / 2)
    for start in (state, copy.deepcopy(state)):
        current = start
        for choice in rest:
            assert not engine.terminal(params, current)
            current = engine.step(params, current, choice)
        assert engine.terminal(params, current)
        assert_same_outcome(engine.outcome(params, current), whole, slice(None))


@pytest.mark.parametrize("name", ALL)
def test_a_states_games_taken_in_any_order_play_on_like_those_games(name: str) -> None:
    """A search player plays each game's options as games of one batch (sim.game.games_of): mid-game, the games of
    a State taken shuffled and some twice, answered as their originals are, end as those games end."""
    engine, params, state, rest, whole = played_part_way(name, 12, 10, 1 / 3)
    order = np.random.default_rng(12).permutation(10)
    taken = np.concatenate([order, order[:4]])  # every game, some twice: each question is asked as in the batch
    current = games_of(state, taken)
    for choice in rest:
        current = engine.step(params, current, choice[taken])
    assert engine.terminal(params, current)
    assert_same_outcome(engine.outcome(params, current), whole, taken)


PLAYED_OUT = [name for name in NAMES if get_game(name).players.uniform]  # declared: the engine has random_playout


@pytest.mark.parametrize("name", PLAYED_OUT)
@pytest.mark.parametrize("stepped", [0, 7])
def test_a_random_playout_plays_the_games_stepping_random_players_plays(name: str, stepped: int) -> None:
    """engine.random_playout from the set-up, or after some questions, then stepped on to the end, against stepping
    a table of the catalogue's uniform random players all the way: the same final State, the same rng state after."""
    for players in the_fewest_and_the_most(name):
        assert_playout_is_stepping(name, get_game(name).make_params(players, {}), players, stepped)


FUSED = [(name, strategy) for name in NAMES for strategy in get_game(name).players.fused]


@pytest.mark.parametrize(("name", "strategy"), FUSED)
@pytest.mark.parametrize("stepped", [0, 7])
def test_a_fused_playout_plays_the_games_stepping_its_strategy_plays(name: str, strategy: str, stepped: int) -> None:
    """A strategy's compiled playout (Catalogue.fused) from the set-up, or after some questions, then stepped on to
    the end, against stepping a table of that strategy all the way: the same final State, the same rng state."""
    for players in the_fewest_and_the_most(name):
        assert_playout_is_stepping(name, get_game(name).make_params(players, {}), players, stepped, strategy=strategy)


R, G = "random_playout", "greedy_playout"


@pytest.mark.parametrize(("name", "lineup", "playout", "played_out"), [
    ("witkacy", ["random"] * 3, R, True), ("witkacy", ["random", "random", "completer"], R, False),
    ("witkacy", ["random", "random-no-gift", "random"], R, False), ("kintsugi", ["random+uniform"] * 3, R, True),
    ("kintsugi", ["random+uniform", "random+tracker", "random+uniform"], R, False),  # the tracker watches
    ("broken_beautiful", ["random"] * 3, R, True),
    ("broken_beautiful", ["random", "random-no-cup", "random"], R, False),
    ("broken_beautiful", ["greedy"] * 3, G, True),
    ("broken_beautiful", ["greedy", "greedy-no-cup", "greedy"], G, False),
    ("kaleido", ["random"] * 3, R, True), ("kaleido", ["random", "greedy", "random"], R, False),
    ("kaleido", ["greedy"] * 3, G, True), ("kaleido", ["greedy", "majority", "greedy"], G, False),
    ("kaleido", ["greedy", "random", "greedy"], G, False),
    ("kunst_stuecke", ["random"] * 3, R, True), ("kunst_stuecke", ["random", "planner", "random"], R, False)])
def test_only_a_table_its_playout_plays_alone_is_played_out(monkeypatch, name, lineup, playout, played_out) -> None:
    """A table of uniform random players only is played out by engine.random_playout, of one fused strategy only by
    its playout (Catalogue.fused); any other table steps."""
    spec = get_game(name)
    engine, calls = spec.rules.engine, []
    play_out = getattr(engine, playout)
    monkeypatch.setattr(engine, playout, lambda *args: calls.append(1) or play_out(*args))
    params = spec.make_params(3, {})
    spec.play(params, spec.rules.deal(params, np.random.default_rng(0), 4), np.array([lineup] * 4),
              np.random.default_rng(1))
    assert bool(calls) == played_out


@pytest.mark.parametrize("name", ALL)
def test_a_trace_narrates_and_replays_through_the_reference_to_the_engines_scores(name: str) -> None:
    spec = get_game(name)
    for players in the_fewest_and_the_most(name):
        params = spec.make_params(players, {})
        seated = [strategies(name)[s % len(strategies(name))] for s in range(players)]
        for seed in (4, 5):
            trace = json.loads(json.dumps(spec.trace(params, seated, seed)))
            assert (trace["game"], trace["players"], trace["seed"], trace["strategies"]) == (name, players, seed,
                                                                                             seated)
            assert spec.rules.narrate(trace).strip()
            played = spec.deal_and_play(params, seated, seed)
            assert list(spec.rules.replay(trace)) == played.outcome.scores[0].tolist()


@pytest.mark.parametrize("name", NAMES)
def test_the_golden_playthrough_replays_exactly(name: str) -> None:
    """tests/playthroughs/<game>.json, written once by `atelier play --json`: the same command must print the same
    trace, so that a rule drift which the self-consistent tests above cannot see breaks this one. After a change of
    rules that is meant, write the file anew with the command it records (see tests/playthroughs/README.md)."""
    golden = json.loads((PLAYTHROUGHS / f"{name}.json").read_text(encoding="utf-8"))
    spec = get_game(name)
    params = spec.make_params(golden["players"], {k: v for k, v in golden["params"].items() if k != "players"})
    assert json.loads(json.dumps(spec.trace(params, golden["strategies"], golden["seed"]))) == golden
    played = spec.deal_and_play(params, golden["strategies"], golden["seed"])
    assert list(spec.rules.replay(golden)) == played.outcome.scores[0].tolist()


@pytest.mark.parametrize("name", ALL)
def test_an_unknown_strategy_is_refused(name: str) -> None:
    with pytest.raises(AtelierError, match="no-such-player"):
        get_game(name).check_strategy("no-such-player")


class Crooked:
    """Answers every decision with a choice no rule allows."""

    def __init__(self, name: str, games: np.ndarray):
        self.name, self.n = name, len(games)

    def __getattr__(self, kind: str):
        return lambda observation, rng: np.full(self.n, 10**6)


@pytest.mark.parametrize("name", ALL)
def test_an_illegal_choice_is_named(name: str) -> None:
    spec = get_game(name)
    players = spec.rules.player_counts[0]
    params = spec.make_params(players, {})

    def make(strategy, *, seat, params, games, secret):
        return Crooked(strategy, games) if strategy == "crooked" else spec.players.make(
            strategy, seat=seat, params=params, games=games, secret=secret)

    seated = np.array([["crooked"] * players, [spec.players.bench] * players] * 3)
    deal = spec.rules.deal(params, np.random.default_rng(0), 6)
    with pytest.raises(IllegalMove, match="strategy 'crooked' returned an illegal move"):
        spec.play(params, deal, seated, np.random.default_rng(0), players=dataclasses.replace(spec.players, make=make))


class Mute:
    """A player that answers no decision: it has no method for any kind."""

    def __init__(self, name: str):
        self.name = name


def test_a_strategy_without_an_answer_to_a_decision_is_named() -> None:
    spec = get_game("dice")
    params = spec.make_params(2, {})

    def make(strategy, *, seat, params, games, secret):
        return Mute(strategy) if seat == 1 else fakegame.Player(strategy, games)

    with pytest.raises(AtelierError, match=r"^strategy 'keep' has no method reroll\(observation, rng\)"):
        spec.play(params, spec.rules.deal(params, np.random.default_rng(0), 2), np.array([["keep", "keep"]] * 2),
                  np.random.default_rng(0), players=dataclasses.replace(spec.players, make=make))


@pytest.mark.parametrize("name", ALL)
def test_the_manifest_facts_are_plain_data(name: str) -> None:
    rules = get_game(name).rules
    for players in rules.player_counts:
        facts = rules.facts(rules.make_params(players, {}))
        assert json.loads(json.dumps(facts)) == facts and facts


def test_list_columns_hold_their_rows_empty_ones_too() -> None:
    rows = np.array([[True, False], [False, False]])
    assert list_column("x", rows).to_list() == [[True, False], [False, False]]
    offsets, values = np.array([0, 2, 2, 3]), np.array([4, 5, 6], dtype=np.int8)
    ragged = ragged_column("y", offsets, values)
    assert ragged.to_list() == [[4, 5], [], [6]] and ragged.dtype == pl.List(pl.Int8)
    with pytest.raises(TypeError, match="booleans"):
        ragged_column("z", offsets, values > 4)


def test_a_game_pickles_as_its_modules() -> None:
    spec = get_game("dice")
    assert pickle.loads(pickle.dumps(spec)).modules == spec.modules


def difference(one, other, path: str) -> str | None:
    """The first place where two observations differ (arrays, dicts, named tuples, dataclasses, plain values; not
    the strategies' scratch `memo`), or None."""
    if isinstance(one, np.ndarray) or isinstance(other, np.ndarray):
        return None if np.array_equal(np.asarray(one), np.asarray(other)) else path
    if (isinstance(one, tuple) and hasattr(one, "_asdict")) or (dataclasses.is_dataclass(one)
                                                                  and not isinstance(one, type)):
        one, other = fields(one), fields(other)
    if isinstance(one, dict):
        if not isinstance(other, dict) or one.keys() != other.keys():
            return path
        return next((found for key in one if key != "memo" and (found := difference(one[key], other[key],
                                                                                     f"{path}.{key}"))), None)
    if isinstance(one, list | tuple):
        if len(one) != len(other):
            return path
        return next((found for k, (a, b) in enumerate(zip(one, other)) if (found := difference(a, b, f"{path}[{k}]"))),
                    None)
    return None if type(one) is type(other) and one == other else path


def revealed(rules, one: Decision, other: Decision) -> bool:
    """Whether the two observations differ in a field through which the rules show a seat hidden information."""
    mine, theirs = (fields(d.observation) for d in (one, other))
    return any(difference(mine[name], theirs[name], name) for name in rules.reveals)


def fields(observation) -> dict:
    """An observation's parts by name: a dict, a named tuple or a dataclass."""
    if isinstance(observation, dict):
        return observation
    return observation._asdict() if isinstance(observation, tuple) else vars(observation)


class Echo:
    """A seat of the redealt game that answers what the seat chose in the original game (`answer`)."""

    def __init__(self, name: str):
        self.name, self.answer = name, None

    def __getattr__(self, kind: str):
        return lambda observation, rng: self.answer


def peek(spec, params, lineup: list[str], seat: int, seed: int) -> str | None:
    """Where `seat` sees or chooses differently between the deal of `seed` and that deal with what it cannot see
    redealt (GameRules.unseen), played in lockstep: the other seats make in the redealt game the choices they made in
    the original, so that their choices show nothing of what they know, and every decision's strategies draw from
    a generator of its own. Until the rules reveal some of the redealt information to the seat (one of the
    observation fields the rules declare in `reveals` differs) or the games go different ways (another decision is
    asked, another seat's choice is not allowed), the seat's observation, legal options and choices must be the
    same. None if they are: the seat saw only what it may."""
    rng = np.random.default_rng(seed)
    deal = spec.rules.deal(params, rng, 1)
    deals = (deal, spec.rules.unseen(params, deal, seat, rng))
    engine, (table, redealt) = spec.rules.engine, (spec.table(params, np.array([lineup]), one) for one in deals)
    echoes = [Echo(lineup[other]) for other in range(params.players)]
    redealt.seats = [players if other == seat else [(slice(None), echoes[other])]
                     for other, players in enumerate(redealt.seats)]
    states, n = [engine.init(params, one) for one in deals], 0
    while not any(engine.terminal(params, state) for state in states):
        one, other = (engine.decision(params, state) for state in states)
        if (one.kind, one.seat) != (other.kind, other.seat) or (one.seat == seat and revealed(spec.rules, one, other)):
            return None
        chosen = table.choose(one, np.random.default_rng([seed, n]))
        echoes[one.seat].answer = chosen
        try:
            chosen_other = redealt.choose(other, np.random.default_rng([seed, n]))
        except IllegalMove:
            return None
        found = one.seat == seat and (difference(one.observation, other.observation, "observation")
                                      or difference(one.legal, other.legal, "legal")
                                      or difference(chosen, chosen_other, "choice"))
        if found:
            return f"seat {seat} ({lineup[seat]}) at decision {n} ({one.kind}): its {found} differs"
        states, n = [engine.step(params, states[0], chosen), engine.step(params, states[1], chosen_other)], n + 1
    return None


@pytest.mark.parametrize("name", ALL)
def test_a_strategy_sees_only_what_its_seat_may(name: str) -> None:
    """Each seat plays a deal and the same deal with what it cannot see redealt (the other seats' private parts, the
    face-down order), with the same lineup and draws: until the rules show it some of that, its observations, its
    legal options and its strategy's choices are the same."""
    spec = get_game(name)
    for players in the_fewest_and_the_most(name):
        params = spec.make_params(players, {})
        for seed in (0, 1):
            lineup = list(every_lineup(name, players, 1, np.random.default_rng(seed))[0])
            for seat in range(players):
                assert peek(spec, params, lineup, seat, seed) is None


def test_a_seat_shown_the_face_down_dice_is_caught(monkeypatch) -> None:
    """The check above fails for a game whose observation shows every spare die, which lie face down."""
    decide = fakegame.decision

    def leaking(params, state):
        asked = decide(params, state)
        return dataclasses.replace(asked, observation={**asked.observation, "spares": state.deal.spare})

    monkeypatch.setattr(fakegame, "decision", leaking)
    spec = get_game("dice")
    found = peek(spec, spec.make_params(3, {}), ["keep"] * 3, 0, 0)
    assert found == "seat 0 (keep) at decision 0 (reroll): its observation.spares differs"


class Psychic:
    """Rerolls where its spare die is lower than its die, reading the spares it was handed as its secret."""

    def __init__(self, name: str, seat: int, secret: np.ndarray):
        self.name, self.seat, self.spares = name, seat, secret

    def reroll(self, view: dict, rng: np.random.Generator) -> np.ndarray:
        return (self.spares[:, self.seat] < view["die"]).astype(int)


def test_a_strategy_handed_another_seats_secret_is_caught() -> None:
    """The check above fails for a strategy that chooses by what its seat may not know: a game handing every seat
    all the spare dice as its secret, and a strategy that reads them."""
    spec = get_game("dice")

    def every_spare(state) -> np.ndarray:
        return np.repeat(state.deal.spare[:, None], state.deal.spare.shape[1], axis=1)

    def psychic(name: str, *, seat: int, params, games, secret: np.ndarray) -> Psychic:
        return Psychic(name, seat, secret)

    cheat = dataclasses.replace(spec, rules=dataclasses.replace(spec.rules, private=every_spare),
                                players=dataclasses.replace(spec.players, make=psychic))
    found = [peek(cheat, spec.make_params(2, {}), ["psychic"] * 2, 0, seed) for seed in range(8)]
    assert "seat 0 (psychic) at decision 0 (reroll): its choice differs" in found


FAKEGAME = Path(fakegame.__file__).read_text(encoding="utf-8").replace('name="dice"', 'name="broken"')


@pytest.fixture
def broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Registers as 'broken' a copy of the dice game (tests/fakegame.py) with one text replaced."""
    modules = []

    def register(old: str, new: str) -> None:
        assert old in FAKEGAME
        module = f"brokengame{len(modules)}"
        (tmp_path / f"{module}.py").write_text(FAKEGAME.replace(old, new, 1), encoding="utf-8")
        modules.append(module)
        monkeypatch.setitem(registry.GAMES, "broken", (module, module))

    monkeypatch.syspath_prepend(str(tmp_path))
    yield register
    for module in modules:
        sys.modules.pop(module, None)


@pytest.mark.parametrize(("old", "new", "problem"), [
    ("def terminal(params", "def terminated(params", r"engine\.terminal\(params, state\) is missing"),
    ("def terminal(params: Params, state", "def terminal(state", r"engine\.terminal must take \(params, state\)"),
    ("def question(", "def ask(", r"reference\.question\(game, phase, options\) is missing"),
    ("narrate=narrate, ", "", r"narrate\(record\) is missing"),
    ("unseen=unseen, ", "unseen=facts, ", r"unseen must take \(params, deal, seat, rng\)"),
    ("engine=engine, ", "", "its RULES declare no engine"),
    ("RULES = game.GameRules(", "RULEZ = game.GameRules(", "RULES must be a sim.game.GameRules, got NoneType"),
    ('name="broken"', 'name="dice"', "its RULES are named 'dice'"),
    ('"low": pl.Int64}', '"low": "Int64"}', "result column 'low' declares 'Int64', not a polars type"),
    ("PLAYERS = Catalogue(", "PLAYERS = (", "PLAYERS must be a Catalogue"),
    ('STRATEGIES, "chase"', 'STRATEGIES, "chess"', "its bench strategy is refused: unknown strategy 'chess'"),
    ("games, secret) -> Player:", "games) -> Player:",
     r"PLAYERS\.make must take \(strategy, \*, seat, params, games, secret\)"),
    ("make_player, check_strategy)", "make_player, check_strategy, uniform=frozenset({'random'}))",
     r"engine\.random_playout\(params, state, rng\) is missing"),
])
def test_a_game_off_the_contract_is_refused_at_load_in_one_line(broken, old: str, new: str, problem: str) -> None:
    broken(old, new)
    with pytest.raises(AtelierError, match=f"^game 'broken': {problem}") as refused:
        get_game("broken")
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(("old", "new", "problem"), [
    ('"low": pl.Int64}', '"low": pl.Int64, "high": pl.Int64}',
     "result column 'high' is declared, but the engine's Outcome has none"),
    ('"low": state.final.min(axis=1)}', '"low": state.final.min(axis=1), "high": state.final.max(axis=1)}',
     "the engine gives result column 'high', which its RULES do not declare"),
    ('"dealt": pl.Int64', '"dealt": pl.Boolean', "result column 'dealt' .* does not fit its declared Boolean"),
    ('"low": pl.Int64}', '"low": pl.List(pl.Int8)}', "result column 'low' .* does not fit its declared List"),
])
def test_a_result_column_off_the_declared_ones_is_named_in_one_line(broken, old: str, new: str, problem: str) -> None:
    broken(old, new)
    spec = get_game("broken")
    exp = experiment("broken", 2)
    with pytest.raises(AtelierError, match=f"^game 'broken': {problem}") as refused:
        play_chunk(exp, spec, Chunk(2, 0, 0, exp.deals[2]))
    assert "\n" not in str(refused.value)
