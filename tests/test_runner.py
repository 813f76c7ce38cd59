"""Experiment files, chunking, seeding, Parquet results and resume, on the fake dice game."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from fakegame import EXPERIMENT as DICE_EXPERIMENT

from reports.load import find_experiments, load
from sim import runner
from sim.errors import AtelierError, Interrupted
from sim.experiment import deal_count, ladder_lineups, load_experiment, pool_lineups
from sim.registry import get_game

pytestmark = pytest.mark.usefixtures("dice")

BASE = 'game = "dice"\nplayers = [2, 3]\ngames = 60\nseed = 5\n'
POOL = 'pool = ["keep", "chase"]\n'


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (BASE + POOL + "games = [", "invalid TOML"),
        ('players = 2\ngames = 6\nseed = 1\n' + POOL, "missing key 'game'"),
        ('game = "dice"\nplayers = 2\ngames = 6\n' + POOL, "missing key 'seed'"),
        ('game = "dice"\ngames = 6\nseed = 1\n' + POOL, "missing key 'players'"),
        (BASE.replace("games = 60", 'games = "many"') + POOL, "'games' must be an integer, got 'many'"),
        (BASE.replace("games = 60", "games = true") + POOL, "'games' must be an integer, got True"),
        (BASE.replace("games = 60", "games = 0") + POOL, "'games' must be between 1 and 1,000,000,000,000, got 0"),
        (BASE.replace("seed = 5", "seed = -1") + POOL, "'seed' must be 0 or more"),
        (BASE.replace("[2, 3]", '[2, "3"]') + POOL, "'players' must be an integer or a list of integers"),
        (BASE.replace("[2, 3]", "5") + POOL, "5 players is not allowed; this game takes 2, 3, 4"),
        (BASE + POOL + "colour = 3\n", "unknown key 'colour'"),
        (BASE.replace('"dice"', '"chess"') + POOL, "unknown game 'chess'; known:"),
        (BASE + 'pool = ["keep", "bluff"]\n', "unknown strategy 'bluff'"),
        (BASE + 'pool = ["keep", "keep"]\n', "'pool' lists 'keep' more than once"),
        (BASE + "pool = []\n", "'pool' must be a non-empty list of strategy names"),
        (BASE + POOL + 'seats = ["keep", "chase"]\n', "exactly one of 'pool'"),
        (BASE, "exactly one of 'pool'"),
        (BASE + POOL + 'ladder = ["keep", "chase"]\n', "exactly one of 'pool'"),
        (BASE + 'ladder = ["keep"]\n', "a 'ladder' needs two rungs at least"),
        (BASE + 'ladder = ["keep", "keep"]\n', "'ladder' lists 'keep' more than once"),
        (BASE + 'seats = ["keep", "chase", "keep"]\n', "'players' must be 3, got [2, 3]"),
        (BASE + POOL + "[params]\nfaces = 3\n", "unknown parameter 'faces'"),
        (BASE + POOL + '[params]\nsides = "six"\n', "parameter 'sides' must be int"),
        (BASE + POOL + "[params]\nsides = 1\n", "parameter 'sides' must be between 2 and 1000, got 1"),
        (BASE + POOL + "params = 3\n", "'params' must be a table"),
        (BASE + POOL + 'name = "../up"\n', "name '../up' must be letters"),
        (BASE + POOL + "match = 1\n", "'match' must be true or false, got 1"),
        (BASE.replace("games = 60", "games = 5") + 'pool = ["keep", "chase", "random"]\n',
         "'games' must be at least 6 at 2 players, one deal under each of the 6 seatings; got 5"),
        (BASE.replace("games = 60", "games = 12") + 'pool = ["keep", "chase", "random"]\nmatch = true\n',
         "'games' must be at least 18 at 3 players, one match of 3 deals under each of the 6 seatings; got 12"),
    ],
)
def test_every_mistake_is_one_line_naming_the_file(write_toml, text: str, problem: str) -> None:
    path = write_toml(text)
    with pytest.raises(AtelierError) as caught:
        load_experiment(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert problem in message
    assert "\n" not in message


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(AtelierError, match="no such file"):
        load_experiment(tmp_path / "nowhere.toml")


def test_overrides_apply_before_validation(write_toml) -> None:
    path = write_toml('game = "dice"\nplayers = 2\ngames = "lots"\n' + POOL)
    experiment = load_experiment(path, games=10, seed=7)
    assert (experiment.seed, experiment.deals) == (7, {2: 5})
    assert experiment.name == "exp"


def test_pool_lineups() -> None:
    assert pool_lineups(["a", "b", "c"], 2) == (
        ("a", "b"), ("a", "c"), ("b", "a"), ("b", "c"), ("c", "a"), ("c", "b"))
    assert len(pool_lineups(["a", "b", "c", "d"], 3)) == 24
    short = pool_lineups(["a", "b"], 3)
    assert len(short) == 6
    assert all(set(lineup) == {"a", "b"} for lineup in short)
    assert pool_lineups(["a"], 2) == (("a", "a"),)


def test_ladder_lineups_every_rung_at_every_seat_then_each_rung_one_up_in_every_seat() -> None:
    assert ladder_lineups(["a", "b", "c"], 2) == (
        ("a", "a"), ("b", "b"), ("c", "c"), ("b", "a"), ("a", "b"), ("c", "b"), ("b", "c"))
    assert len(ladder_lineups(["a", "b", "c", "d"], 4)) == 4 + 3 * 4


def test_a_ladder_is_recorded_with_its_rungs_and_changes_the_hash(write_toml) -> None:
    ladder = load_experiment(write_toml(BASE.replace("[2, 3]", "2") + 'ladder = ["keep", "chase"]\n'))
    pool = load_experiment(write_toml(BASE.replace("[2, 3]", "2") + 'pool = ["keep", "chase"]\n'))
    assert ladder.ladder == ("keep", "chase") and pool.ladder == ()
    assert ladder.lineups[2] == (("keep", "keep"), ("chase", "chase"), ("chase", "keep"), ("keep", "chase"))
    assert ladder.resolved()["ladder"] == ["keep", "chase"] and "ladder" not in pool.resolved()
    assert ladder.deals == {2: 15}


def test_seats_give_one_fixed_lineup(write_toml) -> None:
    experiment = load_experiment(write_toml(BASE.replace("[2, 3]", "3") + 'seats = ["keep", "keep", "chase"]\n'))
    assert experiment.lineups == {3: (("keep", "keep", "chase"),)}
    assert experiment.deals == {3: 60}


def test_deal_count_rounds_down_and_refuses_less_than_one_deal_under_every_seating() -> None:
    assert deal_count(100, 6, 3, match=False) == 16
    assert deal_count(100, 6, 3, match=True) == 15
    assert deal_count(6, 6, 3, match=False) == 1
    assert deal_count(18, 6, 3, match=True) == 3
    with pytest.raises(AtelierError, match="at least 6 at 3 players"):
        deal_count(5, 6, 3, match=False)
    with pytest.raises(AtelierError, match="at least 18 at 3 players"):
        deal_count(17, 6, 3, match=True)


def test_config_hash_ignores_layout_but_not_content(write_toml) -> None:
    one = load_experiment(write_toml(BASE + POOL, "a"))
    reordered = 'pool = ["keep", "chase"]  # comment\nseed = 5\ngames = 60\nplayers = [3, 2]\ngame = "dice"\n'
    two = load_experiment(write_toml(reordered, "b"))
    assert len(one.config_hash) == 12
    assert int(one.config_hash, 16) >= 0
    assert one.config_hash != two.config_hash  # the default name differs: a and b
    renamed = load_experiment(write_toml('name = "a"\n' + reordered, "c"))
    assert renamed.config_hash == one.config_hash
    assert load_experiment(write_toml(BASE + POOL, "a"), seed=6).config_hash != one.config_hash
    assert load_experiment(write_toml(BASE + POOL + "[params]\nsides = 8\n", "a")).config_hash != one.config_hash
    assert load_experiment(write_toml(BASE + POOL + "match = true\n", "a")).config_hash != one.config_hash


def test_chunks_cover_every_deal_once(write_toml) -> None:
    experiment = load_experiment(write_toml(DICE_EXPERIMENT))  # 6 lineups, chunk 12: 2 deals per chunk
    chunks = list(runner.plan(experiment))
    for players in experiment.players:
        mine = [c for c in chunks if c.players == players]
        assert [c.index for c in mine] == list(range(len(mine)))
        assert [(c.start, c.stop) for c in mine] == [(d, min(d + 2, 10)) for d in range(0, 10, 2)]
    assert len({c.id for c in chunks}) == len(chunks)


def test_match_chunks_hold_whole_matches(write_toml) -> None:
    experiment = load_experiment(write_toml(DICE_EXPERIMENT + "match = true\n"))
    assert experiment.deals == {2: 10, 3: 9}
    assert runner.chunk_deals(experiment, 2) == 2
    assert runner.chunk_deals(experiment, 3) == 3


FOUR_SEATS = 'game = "dice"\nplayers = 4\ngames = 48\nseed = 5\nchunk = 10\n' \
             'pool = ["keep", "high", "chase", "random"]\n'


def test_a_deal_under_more_seatings_than_a_chunk_holds_is_split_over_chunks(write_toml, tmp_path: Path) -> None:
    experiment = load_experiment(write_toml(FOUR_SEATS))  # 24 seatings, so 2 deals; at most 10 games per chunk
    chunks = list(runner.plan(experiment))
    assert [(c.start, c.stop, c.lineups) for c in chunks] == [
        (deal, deal + 1, (first, min(first + 10, 24))) for deal in (0, 1) for first in (0, 10, 20)]
    assert [c.id for c in chunks[:3]] == ["P4-c00000-l0000", "P4-c00000-l0001", "P4-c00000-l0002"]
    assert runner.plan_summary(experiment) == {
        "4": {"deals": 2, "deals_per_chunk": 1, "chunks": 6, "lineups_per_chunk": 10}}
    frame = run_dice(write_toml, tmp_path / "out", FOUR_SEATS)
    manifest = json.loads((tmp_path / "out" / "exp" / "manifest.json").read_text())
    assert sorted(part["games"] for part in manifest["finished"].values()) == [4, 4, 10, 10, 10, 10]
    assert frame["game_id"].sort().to_list() == sorted(list(range(48)) * 4)
    assert (frame.group_by("deal", "seat").agg(pl.col("dealt").n_unique())["dealt"] == 1).all()  # one deal, all chunks
    seated = [experiment.lineups[4][lineup][player] for lineup, player in frame.select("lineup", "player").iter_rows()]
    assert frame["strategy"].to_list() == seated
    assert frame.unique(["deal", "lineup"]).height == 48


def run_dice(write_toml, out: Path, text: str = DICE_EXPERIMENT, jobs: int = 1) -> pl.DataFrame:
    """Run an experiment file quietly and load its results."""
    return load(runner.run(load_experiment(write_toml(text)), out, jobs, progress=False))


def test_rows_columns_and_ids(write_toml, tmp_path: Path) -> None:
    frame = run_dice(write_toml, tmp_path / "out")
    experiment = load_experiment(write_toml(DICE_EXPERIMENT))
    assert frame.columns[:13] == ["experiment", "config_hash", "game", "players", "game_id", "deal", "lineup",
                                  "seat", "player", "strategy", "score", "rank", "win"]
    assert frame.columns[13:] == ["dealt", "rerolled", "low"]
    assert frame.height == 2 * 60 + 3 * 60
    games = frame.unique("game_id", keep="first").sort("game_id")
    assert games["game_id"].to_list() == list(range(120))
    assert frame["player"].to_list() == frame["seat"].cast(pl.Int8).to_list()
    assert frame.filter(pl.col("players") == 3)["game_id"].min() == 60
    assert (frame["config_hash"] == experiment.config_hash).all()
    seated = [experiment.lineups[p][lineup][player]
              for p, lineup, player in frame.select("players", "lineup", "player").iter_rows()]
    assert frame["strategy"].to_list() == seated
    assert frame.group_by("game_id").agg(pl.col("win").sum())["win"].to_list() == pytest.approx([1.0] * 120)


def test_games_with_the_same_deal_share_it(write_toml, tmp_path: Path) -> None:
    frame = run_dice(write_toml, tmp_path / "out")
    dealt = frame.group_by("players", "deal", "player").agg(pl.col("dealt").n_unique())
    assert (dealt["dealt"] == 1).all()


def test_jobs_do_not_change_the_data(write_toml, tmp_path: Path) -> None:
    one = run_dice(write_toml, tmp_path / "one", jobs=1)
    two = run_dice(write_toml, tmp_path / "two", jobs=2)
    assert one["score"].n_unique() > 1
    assert one.equals(two)
    reseeded = run_dice(write_toml, tmp_path / "three", DICE_EXPERIMENT.replace("seed = 5", "seed = 6"))
    assert not one.drop("config_hash").equals(reseeded.drop("config_hash"))


def test_manifest(write_toml, tmp_path: Path) -> None:
    experiment = load_experiment(write_toml(DICE_EXPERIMENT))
    directory = runner.run(experiment, tmp_path / "out", 1, progress=False)
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["complete"] is True
    assert manifest["config_hash"] == experiment.config_hash
    assert manifest["resolved"] == json.loads(json.dumps(experiment.resolved()))
    assert list(manifest["finished"]) == sorted(c.id for c in runner.plan(experiment))
    assert manifest["plan"] == {"2": {"deals": 10, "deals_per_chunk": 2, "chunks": 5},
                                "3": {"deals": 10, "deals_per_chunk": 2, "chunks": 5}}
    assert {part["games"] for part in manifest["finished"].values()} == {12}
    assert manifest["games"] == {"2": 60, "3": 60}
    assert set(manifest["versions"]) == {"atelier", "numpy", "polars", "python"}
    assert manifest["finished_at"] is not None
    assert sorted(p.relative_to(directory) for p in (directory / "parts").rglob("*.parquet")) == [
        Path(f"parts/game=dice/players={c[1]}/{c}.parquet") for c in manifest["finished"]]


def test_the_parts_read_as_one_hive_table_with_pyarrow_pandas_polars_and_duckdb(write_toml, tmp_path: Path) -> None:
    import duckdb
    import pandas as pd
    import pyarrow.dataset

    rows = run_dice(write_toml, tmp_path / "out")
    parts = tmp_path / "out" / "exp" / "parts"
    read = {
        "pyarrow": pl.from_arrow(pyarrow.dataset.dataset(parts, partitioning="hive").to_table()),
        "pandas": pl.from_pandas(pd.read_parquet(parts)),
        "polars": pl.scan_parquet(parts / "**" / "*.parquet", hive_partitioning=True).collect(),
        "duckdb": pl.from_arrow(duckdb.sql(f"select * from read_parquet('{parts}/**/*.parquet', "
                                           "hive_partitioning = true)").arrow()),
    }
    assert set(rows["players"].unique()) == {2, 3}
    for reader, table in read.items():
        assert sorted(table.columns) == sorted(rows.columns), reader
        table = table.select(rows.columns).with_columns(pl.col("game", "players").cast(pl.String)).cast(rows.schema)
        assert table.sort("game_id", "seat").equals(rows), reader


@pytest.mark.parametrize("order", ["as played", "reversed", "interleaved"])
def test_loaded_rows_are_sorted_by_game_and_seat_whatever_the_order_of_the_parts(write_toml, tmp_path: Path,
                                                                                order: str) -> None:
    from resultsdir import write_experiment

    rows = run_dice(write_toml, tmp_path / "run")
    frames = [rows.filter(pl.col("game_id") // 20 == k) for k in range(6)]
    if order == "reversed":
        frames = frames[::-1]
    if order == "interleaved":  # a part holding games on both sides of another's, as split seatings do
        frames = [pl.concat(frames[0::2]), pl.concat(frames[1::2])]
    write_experiment(tmp_path / "out" / "exp", frames, "dice")
    assert load(tmp_path / "out" / "exp").equals(rows)


def test_results_of_the_layout_before_hive_are_read_but_not_resumed(write_toml, tmp_path: Path) -> None:
    from resultsdir import write_experiment

    rows = run_dice(write_toml, tmp_path / "hive")
    frames = [rows.filter(pl.col("players") == p) for p in (2, 3)]
    write_experiment(tmp_path / "flat" / "exp", frames, "dice", layout=None)
    assert load(tmp_path / "flat" / "exp").equals(rows)
    manifest = json.loads((tmp_path / "hive" / "exp" / "manifest.json").read_text())
    manifest.pop("layout")
    (tmp_path / "hive" / "exp" / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(AtelierError, match="laid out otherwise"):
        run_dice(write_toml, tmp_path / "hive")


PEAK_RSS = """import resource, sys
from sim.cli import app
try:
    app(sys.argv[1:])
except SystemExit as end:
    assert not end.code, end.code
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"""  # kB on Linux


def peak_memory(path: Path, out: Path) -> int:
    """The largest resident memory (bytes) of `atelier run PATH --jobs 1`: the driver plays, encodes and writes."""
    ran = subprocess.run([sys.executable, "-c", PEAK_RSS, "run", path, "--out", out, "--jobs", "1", "--quiet"],
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    return int(ran.stdout.split()[-1]) * 1024


def test_a_runs_peak_memory_does_not_grow_with_its_games(write_toml, tmp_path: Path) -> None:
    kintsugi = 'game = "kintsugi"\nplayers = 3\nseed = 7\nchunk = 2000\npool = ["random+uniform"]\n'
    small = peak_memory(write_toml(kintsugi + "games = 20000\n"), tmp_path / "small")
    large = peak_memory(write_toml(kintsugi + "games = 400000\n"), tmp_path / "large")
    held = load(tmp_path / "large" / "exp").estimated_size()  # what holding the rows would take: about 160 MB
    assert held > 100e6
    assert large - small < held / 3, (small, large)


def interrupt_after(monkeypatch: pytest.MonkeyPatch, write_toml, out: Path, parts: int) -> Path:
    """Run the dice experiment, stopping it with KeyboardInterrupt once `parts` parts are written."""
    write_part, written = runner.ResultStore.write_part, []

    def write_then_stop(store, chunk_id: str, games: int, part) -> None:
        if len(written) == parts:
            raise KeyboardInterrupt
        written.append(chunk_id)
        write_part(store, chunk_id, games, part)

    with monkeypatch.context() as patch:
        patch.setattr(runner.ResultStore, "write_part", write_then_stop)
        with pytest.raises(Interrupted, match=f"interrupted; {parts} finished part"):
            runner.run(load_experiment(write_toml(DICE_EXPERIMENT)), out, 1, progress=False)
    return out / "exp"


def test_the_manifest_is_written_at_the_start_at_the_end_and_at_a_stop_not_after_every_part(monkeypatch, write_toml,
                                                                                           tmp_path: Path) -> None:
    saved, save = [], runner.ResultStore.save
    monkeypatch.setattr(runner.results, "SAVE_EVERY", 3600.0)
    monkeypatch.setattr(runner.ResultStore, "save", lambda store: (saved.append(len(store.finished)), save(store))[1])
    whole = run_dice(write_toml, tmp_path / "whole")
    assert saved == [0, 10]
    assert len(json.loads((tmp_path / "whole" / "exp" / "manifest.json").read_text())["finished"]) == 10
    saved.clear()
    directory = interrupt_after(monkeypatch, write_toml, tmp_path / "out", parts=3)
    assert saved == [0, 3]
    assert len(json.loads((directory / "manifest.json").read_text())["finished"]) == 3
    assert run_dice(write_toml, tmp_path / "out").equals(whole)


def count_chunks_played(monkeypatch: pytest.MonkeyPatch) -> list:
    """Record every chunk that the runner plays in this process."""
    played = []
    play_chunk = runner.play_chunk

    def counting(experiment, game, chunk):
        played.append(chunk.id)
        return play_chunk(experiment, game, chunk)

    monkeypatch.setattr(runner, "play_chunk", counting)
    return played


def test_interrupted_run_resumes_to_the_same_data(monkeypatch, write_toml, tmp_path: Path) -> None:
    whole = run_dice(write_toml, tmp_path / "whole")
    directory = interrupt_after(monkeypatch, write_toml, tmp_path / "cut", parts=3)
    manifest = json.loads((directory / "manifest.json").read_text())
    assert (manifest["complete"], len(manifest["finished"])) == (False, 3)
    played = count_chunks_played(monkeypatch)
    resumed = run_dice(write_toml, tmp_path / "cut")
    assert len(played) == sum(p["chunks"] for p in manifest["plan"].values()) - 3
    assert resumed.equals(whole)


def test_missing_parts_are_played_again(monkeypatch, write_toml, tmp_path: Path) -> None:
    whole = run_dice(write_toml, tmp_path / "out")
    parts = sorted((tmp_path / "out" / "exp" / "parts").rglob("*.parquet"))
    for part in parts[-2:]:
        part.unlink()
    played = count_chunks_played(monkeypatch)
    assert run_dice(write_toml, tmp_path / "out").equals(whole)
    assert sorted(played) == [p.stem for p in parts[-2:]]


@pytest.mark.parametrize("jobs", [1, 2])
def test_failed_run_leaves_nothing(write_toml, tmp_path: Path, jobs: int) -> None:
    text = DICE_EXPERIMENT.replace('"chase"]', '"crook"]')
    with pytest.raises(AtelierError, match="strategy 'crook' returned an illegal move"):
        run_dice(write_toml, tmp_path / "out", text, jobs)
    assert not (tmp_path / "out").exists()


def test_failed_resume_keeps_earlier_parts(monkeypatch, write_toml, tmp_path: Path) -> None:
    directory = interrupt_after(monkeypatch, write_toml, tmp_path / "out", parts=2)

    def broken(experiment, module, chunk):
        raise AtelierError("engine broke")

    monkeypatch.setattr(runner, "play_chunk", broken)
    with pytest.raises(AtelierError, match="engine broke"):
        run_dice(write_toml, tmp_path / "out")
    assert len(list((directory / "parts").rglob("*.parquet"))) == 2


def test_a_different_experiment_is_refused(write_toml, tmp_path: Path) -> None:
    before = run_dice(write_toml, tmp_path / "out")
    with pytest.raises(AtelierError, match=r"holds a different experiment .*choose another --out or delete it"):
        run_dice(write_toml, tmp_path / "out", DICE_EXPERIMENT.replace("seed = 5", "seed = 6"))
    assert load(tmp_path / "out" / "exp").equals(before)


def test_a_foreign_folder_is_refused(write_toml, tmp_path: Path) -> None:
    (tmp_path / "out" / "exp").mkdir(parents=True)
    (tmp_path / "out" / "exp" / "notes.txt").write_text("mine")
    with pytest.raises(AtelierError, match="not an atelier results folder"):
        run_dice(write_toml, tmp_path / "out")
    assert (tmp_path / "out" / "exp" / "notes.txt").read_text() == "mine"


def test_match_mode_rotates_the_start_player(write_toml, tmp_path: Path) -> None:
    text = DICE_EXPERIMENT.replace("[2, 3]", "3") + "match = true\n"
    frame = run_dice(write_toml, tmp_path / "out", text)
    experiment = load_experiment(write_toml(text))
    deal, seat = frame["deal"].to_numpy(), frame["seat"].to_numpy()
    assert np.array_equal(frame["match_id"].to_numpy(), deal // 3)
    assert np.array_equal(frame["player"].to_numpy(), (seat + deal % 3) % 3)
    seated = [experiment.lineups[3][lineup][player] for lineup, player in frame.select("lineup", "player").iter_rows()]
    assert frame["strategy"].to_list() == seated
    starts = frame.filter(pl.col("seat") == 0).group_by("match_id", "lineup").agg(pl.col("player").sort())
    assert all(players == [0, 1, 2] for players in starts["player"].to_list())


def test_find_experiments(write_toml, tmp_path: Path) -> None:
    directory = runner.run(load_experiment(write_toml(DICE_EXPERIMENT)), tmp_path / "out", 1, progress=False)
    (tmp_path / "out" / "stray").mkdir()
    assert find_experiments(tmp_path / "out") == [directory]
    assert find_experiments(directory) == [directory]
    assert find_experiments(tmp_path / "nowhere") == []


KINTSUGI = ('game = "kintsugi"\nplayers = 3\ngames = 6\nseed = 1\n'
            'seats = ["random+uniform", "greedy+tracker", "random+uniform"]\n')


def test_the_schedule_warms_each_games_first_experiment_up_first_and_holds_chunks_back_until_their_warm_up(
        write_toml) -> None:
    dice, dice_again, kintsugi = (load_experiment(write_toml(text, name)) for text, name in
                                  [(DICE_EXPERIMENT, "dice"), (DICE_EXPERIMENT, "dice2"), (KINTSUGI, "k")])
    schedule = runner.Schedule([dice, dice_again, kintsugi], [{}, {}, {}], warm_up=True)
    assert drain(schedule) == [("warm", 0, None), ("warm", 2, None)]  # dice2 waits for dice's kernels
    schedule.warmed(0)
    assert drain(schedule) == [("warm", 1, None), *(("chunk", 0, chunk) for chunk in runner.plan(dice))]
    schedule.warmed(2)
    assert drain(schedule) == [("chunk", 2, chunk) for chunk in runner.plan(kintsugi)]  # dice2 is still compiling
    schedule.warmed(1)
    assert drain(schedule) == [("chunk", 1, chunk) for chunk in runner.plan(dice_again)]
    finished = {chunk.id: {} for chunk in list(runner.plan(dice))[::2]}
    cold = runner.Schedule([dice, kintsugi], [finished, {}], warm_up=False)  # no warm-up: the chunks in order
    assert drain(cold) == [("chunk", 0, c) for c in runner.plan(dice) if c.id not in finished] + \
        [("chunk", 1, chunk) for chunk in runner.plan(kintsugi)]


def drain(schedule: runner.Schedule) -> list:
    return list(iter(schedule.take, None))


def test_experiments_of_several_games_run_together_give_the_data_each_gives_alone(write_toml, tmp_path: Path) -> None:
    files = [write_toml(DICE_EXPERIMENT, "dice"), write_toml(KINTSUGI, "k")]
    together = runner.run_all([load_experiment(file) for file in files], tmp_path / "together", 2, progress=False)
    assert [p.name for p in together] == ["dice", "k"]
    for file, directory in zip(files, together, strict=True):
        alone = runner.run(load_experiment(file), tmp_path / "alone", 1, progress=False)
        assert load(directory).equals(load(alone))


def test_the_warm_up_writes_nothing_and_leaves_a_failure_to_the_run(write_toml, tmp_path: Path) -> None:
    crooked = load_experiment(write_toml(DICE_EXPERIMENT.replace('"chase"]', '"crook"]'), "dice"))
    kintsugi = load_experiment(write_toml(KINTSUGI, "k"))
    before = sorted(tmp_path.rglob("*"))
    assert runner._warm(get_game("dice"), crooked) is False
    assert runner._warm(get_game("kintsugi"), kintsugi) is True
    assert sorted(tmp_path.rglob("*")) == before
    with pytest.raises(AtelierError, match=r"strategy 'crook' returned an illegal move.*(no results were written|"
                                           r"finished part\(s\) kept in \S+/k;)"):
        runner.run_all([crooked, kintsugi], tmp_path / "out", 2, progress=False)
    assert not (tmp_path / "out" / crooked.name).exists()


def test_a_run_of_every_game_imports_neither_pandas_nor_matplotlib(write_toml, tmp_path: Path) -> None:
    """Either would add a sixth of a second or more to every run's start-up (pyarrow.array imports pandas)."""
    games = {"kintsugi": "random+uniform", "broken_beautiful": "random", "kaleido": "random",
             "kunst_stuecke": "random", "witkacy": "random"}
    paths = [write_toml(f'game = "{game}"\nplayers = 3\ngames = 4\nseed = 1\npool = ["{strategy}"]\n', game)
             for game, strategy in games.items()]
    script = PEAK_RSS.replace("resource.getrusage(resource.RUSAGE_SELF).ru_maxrss",
                              "{'pandas', 'matplotlib'} & set(sys.modules)")
    ran = subprocess.run([sys.executable, "-c", script, "run", *map(str, paths), "--out", str(tmp_path / "out"),
                          "--jobs", "1", "--quiet"], capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines()[-1] == "set()"
    assert len(list((tmp_path / "out").glob("*/manifest.json"))) == len(games)


def test_a_runs_workers_are_not_restarted_for_the_memory_their_kernels_take() -> None:
    """Where psutil is installed (dask brings it), loky would restart a worker whose memory grew by 300 MB since its
    first task, as a leak: a worker that compiled and loaded a few games' kernels, which it would load again. The
    run's workers have the check off."""
    check = "__import__('joblib.externals.loky.process_executor', fromlist=['_']).__dict__['_USE_PSUTIL']"
    with runner._workers(runner.LOKY, 1) as (executor, _):
        assert executor.submit(eval, check).result() is False
