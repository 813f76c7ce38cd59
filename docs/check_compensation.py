"""Re-score every compensation of a report from the Parquet parts alone, with code of its own (issue 30, must show).

For every record of metric `compensation` in REPORT/findings.json, the games of its experiment at its player
count are read from RESULTS (the finished parts the manifest lists; the manifest's `lowest_wins` and
`tie_breakers`), each seat's score gets its points in its favour, ties on score go to the tie-breaker columns (the
most wins), then to the record's tie order (the first seat listed wins), and the seats still level share the win.
Every seat's win share then gets a 95% percentile cluster-bootstrap interval over deals (matches in match mode).
A row prints whether every seat's interval holds 1/P; the script exits 1 if a record that says `evens` fails it.
Nothing of reports/ is imported. Run from the project root:

    .venv/bin/python docs/check_compensation.py RESULTS REPORT
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import polars as pl

RESAMPLES = 2000
BLOCK = 250  # resamples drawn at once


def experiments(results: Path) -> dict[str, tuple[Path, dict]]:
    """Every experiment under RESULTS: its folder and manifest, by name."""
    out = {}
    for manifest_file in sorted(results.rglob("manifest.json")):
        manifest = json.loads(manifest_file.read_text())
        out[manifest["experiment"]] = (manifest_file.parent, manifest)
    return out


def games_of(folder: Path, manifest: dict, players: int) -> pl.DataFrame:
    """The finished rows of one experiment at one player count."""
    files = sorted((folder / "parts").rglob("*.parquet"))
    if sorted(file.stem for file in files) != sorted(manifest["finished"]):
        sys.exit(f"{folder}: the parts on disk are not the finished ones its manifest lists")
    rows = pl.read_parquet(files, hive_partitioning=True)  # game and players are in the parts' paths
    return rows.filter(pl.col("players") == players)


def shares(rows: pl.DataFrame, compensation: dict, manifest: dict) -> pl.DataFrame:
    """game_id, seat, cluster and win (1/k for each of k seats level at the top) under the compensation."""
    sign = -1 if manifest["lowest_wins"] else 1
    points = pl.Series("points", compensation["points"], pl.Float64)
    order = compensation["tie_order"]
    standing = pl.Series("standing", [0] * len(points) if order is None else
                         [len(order) - order.index(seat) for seat in range(len(points))], pl.Int64)
    seats = pl.DataFrame({"seat": range(len(points)), "points": points, "standing": standing}).with_columns(
        pl.col("seat").cast(rows.schema["seat"]))
    cluster = "match_id" if "match_id" in rows.columns and rows["match_id"].null_count() == 0 else "deal"
    keys = ["total", *manifest.get("tie_breakers", []), "standing"]
    scored = rows.join(seats, on="seat").with_columns(total=sign * pl.col("score") + pl.col("points"),
                                                      cluster=pl.col(cluster))
    top = scored.sort(["game_id", *keys], descending=[False] + [True] * len(keys)).group_by("game_id").first()
    leading = scored.join(top.select("game_id", *[pl.col(k).alias(f"top_{k}") for k in keys]), on="game_id")
    level = pl.all_horizontal(*[pl.col(k) == pl.col(f"top_{k}") for k in keys])
    return leading.with_columns(win=level.cast(pl.Float64) / level.cast(pl.Float64).sum().over("game_id")).select(
        "game_id", "seat", "cluster", "win")


def intervals(won: pl.DataFrame, players: int, seed: int = 1) -> np.ndarray:
    """(P, 2) percentile bootstrap intervals of every seat's win share, resampling clusters."""
    per_cluster = won.pivot(on="seat", index=["game_id", "cluster"], values="win").group_by("cluster").agg(
        games=pl.len(), **{str(s): pl.col(str(s)).sum() for s in range(players)}).sort("cluster")
    sums = per_cluster.select("games", *[str(s) for s in range(players)]).to_numpy().astype(float)
    rng = np.random.default_rng(seed)
    count = len(sums)
    ratios = []
    for start in range(0, RESAMPLES, BLOCK):
        weights = rng.multinomial(count, np.full(count, 1 / count), size=min(BLOCK, RESAMPLES - start))
        totals = weights @ sums
        ratios.append(totals[:, 1:] / totals[:, :1])
    return np.quantile(np.concatenate(ratios), [0.025, 0.975], axis=0).T


def check(results: Path, report: Path) -> int:
    found = experiments(results)
    findings = json.loads((report / "findings.json").read_text())
    records = [r for r in findings["records"] if r["metric"] == "compensation"]
    failed = 0
    for record in records:
        folder, manifest = found[record["experiment"]]
        players = record["players"]
        won = shares(games_of(folder, manifest, players), record, manifest)
        share = won.group_by("seat").agg(pl.col("win").mean()).sort("seat")["win"].to_numpy()
        bounds = intervals(won, players)
        holds = all(lo <= 1 / players <= hi for lo, hi in bounds)
        failed += record["evens"] and not holds
        seats = ", ".join(f"{100 * s:.1f}% ({100 * lo:.1f}–{100 * hi:.1f})" for s, (lo, hi) in zip(share, bounds))
        verdict = "every interval holds 1/P" if holds else "some interval misses 1/P"
        claim = {True: "evens", False: "does not even", None: "not judged"}[record["evens"]]
        print(f"{record['experiment']} at {players}: points {record['points']}, tie order {record['tie_order']} "
              f"({claim}): {seats}: {verdict}{'  FAILED' if record['evens'] and not holds else ''}")
    print(f"{len(records)} compensations checked, {failed} that claim to even the game fail")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: check_compensation.py RESULTS REPORT")
    sys.exit(check(Path(sys.argv[1]), Path(sys.argv[2])))
