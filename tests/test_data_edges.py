"""Data at the edges of what validation allows, written to a file, plays alike in both engines (hypothesis).

Hypothesis writes Kintsugi decks, Broken and Beautiful components files and Kaleido's scoring Params with the
extremes validation accepts (the fewest and most cards, the largest values, supply, patterns and scoring
numbers, the points' limits) mixed with values between; the game's make_params reads them, the batched engine
plays a game with the shipped strategies, and the reference replays the engine's choices: both must ask the
same questions and end with the same scores. Only the generic contract is used to play (tests/playback.py).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from playback import play_batch

from sim.broken_beautiful import rules as bb
from sim.broken_beautiful.checks import components_toml, largest_components, smallest_components
from sim.game import take
from sim.kaleido import rules as kaleido
from sim.kintsugi import rules as kintsugi
from sim.kintsugi.checks import deck_toml
from sim.registry import get_game

EDGES = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
POOLS = {"kintsugi": ["camouflage+bayes", "greedy+tracker", "spoiler+uniform", "random+bayes"],
         "broken_beautiful": ["greedy", "random", "collector", "banker", "hater"],
         "kaleido": ["greedy", "random", "majority", "rotator", "hoarder"]}


def edge_int(low: int, high: int):
    """An integer from low to high, the ends drawn as often as all the values between."""
    return st.one_of(st.sampled_from([low, high]), st.integers(low, high))


@st.composite
def kintsugi_decks(draw) -> tuple[int, dict, str]:
    size = draw(edge_int(2, kintsugi.MAX_CARDS))
    colours = st.integers(0, kintsugi.N_COLORS - 1)
    layouts = draw(st.lists(st.lists(st.lists(colours, min_size=2, max_size=2), min_size=2, max_size=2),
                            min_size=size, max_size=size))
    players = draw(st.sampled_from(kintsugi.PLAYER_COUNTS))
    return players, {"connectivity": draw(st.sampled_from([4, 8]))}, deck_toml(layouts)


@st.composite
def components(draw) -> tuple[int, dict, str]:
    cards = draw(edge_int(1, bb.MAX_CARDS))
    kinds = draw(st.lists(st.sampled_from(bb.TYPES), min_size=cards, max_size=cards))
    values = {name: draw(edge_int(0, bb.MAX_VALUE)) for name in bb.TYPES}
    types = {name: (kinds.count(name), values[name]) for name in bb.TYPES if name in kinds}
    points = st.integers(0, bb.MAX_POINTS)
    scoring = {key: draw(edge_int(0, bb.MAX_POINTS)) for key in bb.Scoring._fields if key not in bb.LISTS}
    scoring |= {"cup": draw(st.lists(points, min_size=2, max_size=2)),
                "saucer": draw(st.lists(edge_int(1, bb.MAX_POINTS), min_size=2, max_size=2)),
                "vase": draw(st.lists(edge_int(0, bb.MAX_POINTS), min_size=1, max_size=6))}
    supply = draw(edge_int(0, bb.MAX_SUPPLY))
    players = draw(st.sampled_from(bb.PLAYER_COUNTS))
    overrides = {"supply_shortfall": draw(st.sampled_from(bb.SUPPLY_RULES)),
                 "new_player_ingots": draw(edge_int(0, supply // players)),
                 "tie_items_count_broken": draw(st.booleans())}
    return players, overrides, components_toml(supply, draw(edge_int(1, bb.MAX_CARDS)), types, scoring)


@st.composite
def kaleido_points(draw) -> tuple[int, dict, None]:
    low, high = kaleido.POINTS
    overrides = {key: draw(edge_int(low, high)) for key in ("first", "second", "tie_pool", "monochrome")}
    overrides["monochrome_with_white"] = draw(st.booleans())
    return draw(st.sampled_from(kaleido.PLAYER_COUNTS)), overrides, None


class Replay:
    """A reference `choose` that answers with the engine's recorded choices for one game, in order, checking that
    the reference asks the same kind of question of the same seat."""

    def __init__(self, choices: list[tuple[str, int, np.ndarray]], g: int):
        self.left, self.g = list(choices), g

    def __call__(self, decision, rng) -> np.ndarray:
        assert self.left, f"the reference asks a {decision.kind} the engine never asked"
        kind, seat, choice = self.left.pop(0)
        assert (decision.kind, decision.seat) == (kind, seat)
        return np.array([choice[self.g]])


def play_both(name: str, players: int, overrides: dict, data: str | None, field: str, seed: int) -> None:
    """Params from the data file, then each game of a small deal with the engine (alone in its batch, so every
    question the engine asks is that game's) and the engine's choices replayed through the reference."""
    spec = get_game(name)
    with tempfile.TemporaryDirectory() as folder:
        if data is not None:
            path = Path(folder) / "data.toml"
            path.write_text(data)
            overrides = {**overrides, field: str(path)}
        params = spec.make_params(players, overrides)
        rng = np.random.default_rng(seed)
        deal = spec.rules.deal(params, rng, 2)
        lineups = rng.choice(POOLS[name], size=(2, players))
        for g in range(2):
            one = take(deal, [g])
            played = play_batch(name, params, one, lineups[g:g + 1], rng)
            replay = Replay(played.choices, 0)
            reference = spec.rules.reference
            scores = reference.scores(spec.rules.play_reference(params, one, replay, np.random.default_rng(0)))
            assert not replay.left, f"the engine asked {len(replay.left)} questions the reference did not"
            assert list(scores) == played.outcome.scores[0].tolist()


@EDGES
@given(kintsugi_decks(), st.integers(0, 2**16))
def test_kintsugi_decks_at_the_edges_play_alike_in_both_engines(case, seed) -> None:
    play_both("kintsugi", *case, "deck", seed)


@EDGES
@given(components(), st.integers(0, 2**16))
def test_broken_beautiful_components_at_the_edges_play_alike_in_both_engines(case, seed) -> None:
    play_both("broken_beautiful", *case, "components", seed)


@EDGES
@given(kaleido_points(), st.integers(0, 2**16))
def test_kaleido_points_at_their_limits_play_alike_in_both_engines(case, seed) -> None:
    play_both("kaleido", *case, "", seed)


def test_the_named_edges_are_accepted_and_play_alike(tmp_path: Path) -> None:
    """The smallest and largest decks and components files, explicitly (hypothesis may not draw both ends)."""
    play_both("kintsugi", 4, {}, deck_toml([[[0, 1], [2, 3]]] * 2), "deck", 1)
    play_both("kintsugi", 2, {}, deck_toml([[[c % 4, (c + 1) % 4], [3, 0]] for c in range(64)]), "deck", 2)
    play_both("broken_beautiful", 4, {"new_player_ingots": 2500}, components_toml(**largest_components()),
              "components", 3)
    play_both("broken_beautiful", 2, {}, components_toml(**smallest_components()), "components", 4)
