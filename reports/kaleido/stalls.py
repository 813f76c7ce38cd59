"""Stalls: how often the rules stall, who wins a stalled game, and the stall rate of games with and without the
strategies that leave boards unplaced. A stall ends and scores a game where every hole is full and nobody with
tiles has a board left; its `stalled` column is the same on every row of the game."""

import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import Analysis, GameData, record
from reports.charts import aligned, bars_with_ci, panels, save_chart
from reports.findings import select
from reports.fmt import at_counts, count, listing, num, pct, pct_ci, spread
from reports.generic.ladder import games_of_kind, rung_name
from reports.render import Chart, Finding, share_ci, table
from reports.spec import Measure, measure_records, measure_table, measured, per_game

KEEPS = 0.005  # a strategy leaves boards unplaced if, at some player count, more of its players end so than this
STALLED = Measure("rate", "Stalled", pl.col("stalled"), metric="stall_rate", share=True)
KEPT = Measure("kept", "Board left unplaced", pl.col("boards_placed") < pl.col("boards_each"),
               metric="board_unplaced_share", share=True)


def with_stuck(rows: pl.DataFrame) -> pl.DataFrame:
    """rows (with the `tiles_each` fact) plus `left` (tiles still in hand: a full game's tiles minus turns) and
    `stuck` (a stalled game's player who still held tiles)."""
    left = pl.max_horizontal(pl.col("tiles_each").cast(pl.Int64) - pl.col("turns").cast(pl.Int64), pl.lit(0))
    return rows.with_columns(left=left).with_columns(stuck=pl.col("stalled") & (pl.col("left") > 0))


def stall_rates(rows: pl.DataFrame) -> pl.DataFrame:
    """Per experiment and player count: share of games that stalled (rate with its cluster-robust interval), and in
    those games the share of players left holding tiles and their mean tiles in hand."""
    by = ("experiment", "players")
    games = per_game(with_stuck(rows), stalled=pl.col("stalled").any(), stuck=pl.col("stuck").sum(),
                      left=pl.col("left").filter(pl.col("stuck")).sum())
    counts = games.group_by(by).agg(stalls=pl.col("stalled").sum(), stuck=pl.col("stuck").sum(),
                                    left=pl.col("left").sum(),
                                    seats=(pl.col("players").cast(pl.Int64) * pl.col("stalled")).sum())
    return (measured(games, (STALLED,), by, everyone=False).join(counts, on=by, maintain_order="left")
            .with_columns(stuck_share=pl.col("stuck") / pl.col("seats"),
                          left_per_stuck=pl.col("left") / pl.col("stuck")))


def rule_holes(numbers: list[dict]) -> tuple[str, list[dict]]:
    """The overview's rule holes: what a stall is, in one line, and the stall rate of every experiment at every
    player count (the stall finding's stall_rate records), the games that stalled as `count`."""
    definition = ("A game stalls when every hole is full and no player with tiles left can open one: the rulebook "
                  "says nothing more, so the simulation ends the game there and scores it.")
    return definition, [{**r, "count": r["stalls"]} for r in select(numbers, metric="stall_rate")]


def part_rates(parts: pl.DataFrame, value: pl.Expr, within: list[str], names: tuple[str, ...]) -> pl.DataFrame:
    """Per group of `within`, for each NAME of `names`, over the rows whose `part` is NAME: NAME_n (their number),
    NAME (the mean of value) and NAME_lo, NAME_hi (its cluster-robust interval); a part without rows has NAME_n 0
    and nulls."""
    found = measured(parts, (Measure("rate", "", value),), [*within, "part"], everyone=False)
    out = parts.select(within).unique()
    for name in names:
        out = out.join(found.filter(pl.col("part") == name).select(
            *within, **{f"{name}_n": "n", name: "rate", f"{name}_lo": "rate_lo", f"{name}_hi": "rate_hi"}),
            on=within, how="left")
    return out.with_columns(pl.col(f"{name}_n").fill_null(0) for name in names).sort(within)


STALL_PARTS = {"stuck": pl.col("stalled") & pl.col("stuck"), "free": pl.col("stalled") & ~pl.col("stuck"),
               "start_stalled": (pl.col("seat") == 0) & pl.col("stalled"),
               "start_done": (pl.col("seat") == 0) & ~pl.col("stalled")}  # the players stall_winners compares


def stall_winners(rows: pl.DataFrame, by: tuple[str, ...] = ("players",)) -> pl.DataFrame:
    """Per group (default: player count): in stalled games, the win share of players left
    holding tiles and of the others; and the start player's win share in stalled and in completed games
    (part_rates: cluster-robust intervals). `by` must include "players"."""
    rows = with_stuck(rows)
    parts = pl.concat([rows.filter(mask).with_columns(part=pl.lit(name)) for name, mask in STALL_PARTS.items()])
    return part_rates(parts, pl.col("win"), list(by), tuple(STALL_PARTS)).with_columns(
        fair=1 / pl.col("players"), stalled_games=pl.col("start_stalled_n"))


def stall_split(games: pl.DataFrame, by: list[str], split: pl.Expr, names: tuple[str, str]) -> pl.DataFrame:
    """Per group of games: the stall rate where `split` holds and where it does not, named by `names`
    (part_rates)."""
    parts = games.with_columns(part=pl.when(split).then(pl.lit(names[0])).otherwise(pl.lit(names[1])))
    return part_rates(parts, pl.col("stalled"), by, names)


def stalls_by_strategy(rows: pl.DataFrame) -> pl.DataFrame:
    """Per experiment, player count and strategy: the stall rate of games with and without it at the table
    (cluster-robust intervals); only where some games of that experiment and player count lack it."""
    games = per_game(rows, stalled=pl.col("stalled").any(), strategies=pl.col("strategy").unique())
    out = []
    for strategy in sorted(rows["strategy"].unique()):
        played = rows.filter(pl.col("strategy") == strategy)["experiment"].unique().to_list()
        present = pl.col("strategies").list.contains(strategy)
        mine = games.filter(pl.col("experiment").is_in(played))
        out.append(stall_split(mine, ["experiment", "players"], present, ("with", "without"))
                   .filter((pl.col("with_n") > 0) & (pl.col("without_n") > 0)).with_columns(strategy=pl.lit(strategy)))
    found = pl.concat(out, how="diagonal_relaxed")
    return found.sort("experiment", "players", "strategy") if found.height else pl.DataFrame()


def board_keepers(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and strategy: the share of its player results that end with a board unplaced (the
    `boards_each` fact; kept, kept_lo, kept_hi: a cluster-robust interval); `keeps` marks a strategy that does so
    in more than KEEPS of them at some player count."""
    return (measured(rows, (KEPT,), everyone=False).with_columns(keeps=(pl.col("kept") > KEEPS).any().over("strategy"))
            .sort("players", "kept", "strategy"))


def stall_lineups(rows: pl.DataFrame, keepers: pl.DataFrame) -> pl.DataFrame:
    """Per experiment and player count: the stall rate of games whose every seat plays a strategy that does not leave
    boards unplaced (board_keepers), and of games with a seat whose strategy does."""
    keep = keepers.filter(pl.col("keeps"))["strategy"].unique().to_list()
    games = per_game(rows, stalled=pl.col("stalled").any(), placers=(~pl.col("strategy").is_in(keep)).all())
    return stall_split(games, ["experiment", "players"], pl.col("placers"), ("placers", "keepers"))


def stalls(data: GameData) -> dict:
    rows = data.with_facts(data.rows, "tiles_each", "boards_each")
    keepers = board_keepers(rows)
    return {"rates": stall_rates(rows), "winners": stall_winners(rows),
            "by_experiment": stall_winners(rows, ("experiment", "players")), "by_strategy": stalls_by_strategy(rows),
            "keepers": keepers, "lineups": stall_lineups(rows, keepers), "tiles": tiles_phrase(data)}


def tiles_phrase(data: GameData) -> str:
    """'12 tiles each at 3 players, 11 at 4 and 5 and 22 at 2' from the `tiles_each` fact."""
    tiles: dict[int, list[int]] = {}
    for players in data.player_counts:
        tiles.setdefault(data.fact("tiles_each", players), []).append(players)
    return listing(f"{n} tiles each at {at_counts(counts)}" for n, counts in tiles.items())


def stall_intro(result: dict, _) -> str:
    return ("The rules stall when every hole is full and every player who still has tiles has placed all their "
            "boards: nobody can open a hole again, and the rulebook would skip turns for ever. The simulation ends the "
            "game there and scores it as usual. A player is 'stuck' if they still held tiles when it stalled (a full "
            f"game places {result['tiles']}, as the manifest records). Stall rates are per game; their intervals, like "
            "every other here, are clustered by deal (every seating of one deal together).")


def stall_finding(result: dict, data: GameData) -> Finding:
    """How often the rules stall, who wins a stalled game, and what the games say about strategies that leave boards
    unplaced: all from the numbers. The stall_rate records are also the overview's rule holes."""
    # the rates' "stuck" counts the stuck players; the winners' is their win share
    rates = result["rates"].drop("stuck").sort("players").join(result["winners"], on="players", maintain_order="left")
    numbers = stall_records(rates, data)
    if not rates["stalls"].sum():
        return Finding("Stalls.", "No game stalls, at any player count.", numbers=tuple(numbers))
    largest, rest = rates.row(-1, named=True), rates.head(-1)
    text = f"The rules stall in {pct(largest['rate'])} of {largest['players']}-player games"
    if rest.height:
        text += f" and in {spread(rest['rate'])} at {at_counts(rest['players'])}"
    keepers, keeper_numbers = keeper_sentence(result["keepers"], result["lineups"], data)
    text += stuck_sentence(rates) + f". {keepers}."
    return Finding("Stalls.", text, table("", rates, ("Players", "players"), ("Games", "games", count),
                                          *STALLED.columns(), *rate_cells("stuck", "Stuck players win"),
                                          *rate_cells("free", "Others in stalled games win")),
                   tuple(numbers + keeper_numbers))


def stuck_sentence(rates: pl.DataFrame) -> str:
    """In stalled games, the win share of the players left holding tiles against the others', where both exist."""
    both = rates.filter((pl.col("stuck_n") > 0) & (pl.col("free_n") > 0))
    if both.is_empty():
        return ""
    lower = both.filter(pl.col("stuck_hi") < pl.col("free_lo"))["players"].to_list()
    several = both.height > 1
    apart = ("intervals apart" + (" at every player count with both" if several else "") if len(lower) == both.height
             else f"clearly lower at {at_counts(lower)} only" if lower else "not clearly lower at any player count")
    return (f"; in stalled games the players left holding tiles win {spread(both['stuck'])} of the time, against "
            f"{spread(both['free'])} for the players of the same games who had placed all their tiles"
            f"{', by player count' if several else ''} ({apart})")


def keeper_sentence(keepers: pl.DataFrame, lineups: pl.DataFrame, data: GameData) -> tuple[str, list[dict]]:
    """Which strategies end games with a board unplaced, and the stall rate of games without one at the table
    against games with one, where the experiment has both kinds; with the records of the numbers it states."""
    keep, place = keepers.filter(pl.col("keeps")), keepers.filter(~pl.col("keeps"))
    if keep.is_empty():
        most = keepers.sort("kept").tail(1)
        return (f"No strategy here ends more than {pct(most['kept'][0])} of its games with a board unplaced",
                unplaced_records(most, data))
    names = keep["strategy"].unique(maintain_order=True)
    held = (f"{listing(names)} {'end' if len(names) > 1 else 'ends'} {spread(keep['kept'])} of "
            f"{'their' if len(names) > 1 else 'its'} games with a board unplaced"
            + (", by player count" if keep["players"].n_unique() > 1 else ""))
    both = lineups.filter((pl.col("placers_n") > 0) & (pl.col("keepers_n") > 0))
    if both.is_empty():
        return (f"Every game here seats a strategy that ends some games with a board unplaced ({held}), so these games "
                "cannot show how often the rules stall without one" if not lineups["placers_n"].sum() else
                f"No player count here has games both with and without such a strategy ({held})",
                unplaced_records(keep, data))
    apart_at = both.filter(pl.col("placers_hi") < pl.col("keepers_lo"))["players"].to_list()
    several = both.height > 1
    apart = ("intervals apart" + (" at every player count" if several else "") if len(apart_at) == both.height else
             f"intervals apart at {at_counts(apart_at)} only" if apart_at else "intervals not apart")
    return (f"Games with only {listing(place['strategy'].unique(maintain_order=True))} at the table stall in "
            f"{spread(both['placers'])} of games, against {spread(both['keepers'])} of the games that seat a "
            f"strategy ending some games with a board unplaced{', by player count' if several else ''} ({held}; "
            f"{apart})", unplaced_records(keep, data) + lineup_records(both, data))


def stall_records(rates: pl.DataFrame, data: GameData) -> list[dict]:
    """Per player count: the stall rate (the overview's rule holes) and, in stalled games, the win share of the
    players left holding tiles and of the others."""
    return measure_records(data, rates, (STALLED,), stalls="stalls") + [
        record(data, r["players"], "stalled_win_share", r[name], r[f"{name}_lo"], r[f"{name}_hi"], r["stalled_games"],
               "cluster_t", held_tiles=name == "stuck", players_counted=r[f"{name}_n"])
        for r in rates.iter_rows(named=True) for name in ("stuck", "free") if r[f"{name}_n"]]


def unplaced_records(keepers: pl.DataFrame, data: GameData) -> list[dict]:
    """Per row of board_keepers: the strategy's share of player results with a board unplaced."""
    return measure_records(data, keepers, (KEPT,), strategy="strategy", player_results="n")


def lineup_records(lineups: pl.DataFrame, data: GameData) -> list[dict]:
    """Per row of stall_lineups: the stall rate of games whose every seat places all its boards, and of the rest."""
    return [record(data, r["players"], "lineup_stall_rate", r[name], r[f"{name}_lo"], r[f"{name}_hi"], r[f"{name}_n"],
                   "cluster_t", every_seat_places_its_boards=name == "placers")
            for r in lineups.iter_rows(named=True) for name in ("placers", "keepers")]


def rate_cells(name: str, label: str) -> list:
    """Two columns: a rate and its interval, '–' where it rests on nothing."""
    return [(label, lambda r: pct(r[name]) if r[f"{name}_n"] else "–"),
            ("95% CI", lambda r: pct_ci(r[f"{name}_lo"], r[f"{name}_hi"]) if r[f"{name}_n"] else "–")]


def lineup_table(lineups: pl.DataFrame, caption: str):
    return table(caption, lineups, ("Experiment", "experiment"), ("Players", "players"),
                 ("Games of placers only", "placers_n", count),
                 ("Stalled", ("placers", "placers_lo", "placers_hi"), lambda s, lo, hi: f"{pct(s)} ({pct_ci(lo, hi)})"),
                 ("Games with another strategy", "keepers_n", count),
                 ("Stalled", ("keepers", "keepers_lo", "keepers_hi"), lambda s, lo, hi: f"{pct(s)} ({pct_ci(lo, hi)})"))


def stall_tables(result: dict, _) -> list:
    placers = listing(result["keepers"].filter(~pl.col("keeps"))["strategy"].unique(maintain_order=True)) or \
        "no strategy does"
    out = [
        table("How often the rules stall, per experiment and player count", result["rates"],
              ("Experiment", "experiment"), ("Players", "players"), ("Games", "games", count),
              *STALLED.columns(),
              ("Players stuck in a stalled game", lambda r: pct(r["stuck_share"]) if r["stalls"] else "–"),
              ("Tiles left per stuck player", lambda r: num(r["left_per_stuck"], 1) if r["stuck"] else "–")),
        table("Who wins when the rules stall, per experiment and player count (fair share 1/P)",
              result["by_experiment"], ("Experiment", "experiment"), ("Players", "players"),
              ("Stalled games", "stalled_games", count), ("Fair share", "fair", pct),
              *rate_cells("stuck", "Stuck players win"), *rate_cells("free", "Others in stalled games win"),
              *rate_cells("start_stalled", "Start player wins, stalled games"),
              *rate_cells("start_done", "Start player wins, completed games")),
    ]
    if not result["by_strategy"].is_empty():
        out.append(table("Stall rate of games with and without each strategy at the table (only where some games lack "
                         "it)", result["by_strategy"], ("Experiment", "experiment"), ("Players", "players"),
                         ("Strategy", "strategy"), ("Games with it", "with_n", count),
                         *share_ci("Stalled", "with", "with_lo", "with_hi"), ("Games without", "without_n", count),
                         *share_ci("Stalled", "without", "without_lo", "without_hi")))
    return [*out, lineup_table(result["lineups"], f"Stall rate of games of placers only (every seat's strategy "
                                                  f"places all its boards: {placers}) and of games with another "
                                                  "strategy at the table (one that ends some games with a board "
                                                  "unplaced)"),
            measure_table("How often each strategy ends a game with a board unplaced", result["keepers"], (KEPT,),
                          ("Players", "players"), ("Strategy", "strategy"), ("Player results", "n", count))]


def stall_chart(result: dict, data: GameData) -> Chart:
    """Left: stall rate per player count, one bar per experiment. Right: in stalled games, the win share of
    the players left holding tiles and of the others, with the fair share marked."""
    rates, winners = result["rates"], result["winners"]
    counts = rates["players"].unique().sort().to_list()
    categories = [str(p) for p in counts]
    fig, (left, right) = panels(2, 11.0, 4.6)
    bars = {}
    for experiment in rates["experiment"].unique().sort().to_list():
        panel = aligned(rates.filter(pl.col("experiment") == experiment), "players", counts)
        bars[experiment] = (panel["rate"], panel["rate_lo"], panel["rate_hi"])
    bars_with_ci(left, categories, bars)
    left.set_ylim(0, min(1.0, 1.15 * float(rates["rate_hi"].max()) + 0.02))
    left.set(xlabel="Players", ylabel="Games that stall", title="How often the rules stall")
    left.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    left.legend(loc="upper left", frameon=False, fontsize="small")
    panel = aligned(winners, "players", counts)
    bars_with_ci(right, categories, {
        "players left holding tiles": (panel["stuck"], panel["stuck_lo"], panel["stuck_hi"]),
        "players who placed all their tiles": (panel["free"], panel["free_lo"], panel["free_hi"])})
    for i, players in enumerate(counts):
        right.plot([i - 0.45, i + 0.45], [1 / players] * 2, color="#555", linestyle="--", linewidth=1.2,
                   label="fair share 1/P" if i == 0 else None)
    right.set_ylim(0, 1.05)
    right.set(xlabel="Players", ylabel="Win share in stalled games", title="Who wins a stalled game")
    right.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    right.legend(loc="upper right", frameon=False, fontsize="small")
    fig.suptitle(f"{data.title}: stalls (95% intervals clustered by deal)")
    return save_chart(fig, data.out_dir, f"{data.slug}_stalls.png",
                      "Left: share of games in which every hole filled while everyone still holding tiles had placed "
                      "all their boards, per player count. Right: in those games, "
                      "the win share of the players left holding tiles and of the others; dashes mark the fair share "
                      "1/P. Missing bars: no such games or players.")




ANALYSIS = Analysis("Stalls", stalls, intro=stall_intro, chart=stall_chart, tables=stall_tables, finding=stall_finding)


def ladder_stalls(data: GameData) -> pl.DataFrame | None:
    """Per player count and rung of a skill ladder's symmetric games (every seat at that rung): the stall rate with
    its cluster-robust interval. The heuristics' stalls come from their habit of holding boards back: do stronger
    players stall the rules less?"""
    rows = games_of_kind(data, "symmetric")
    if rows is None:
        return None
    games = per_game(rows, stalled=pl.col("stalled").any(), rung=pl.col("rung").first())
    return measured(games, (STALLED,), ["players", "rung"], everyone=False).with_columns(strategy=rung_name(data))


def ladder_stall_finding(rates: pl.DataFrame, data: GameData) -> Finding:
    numbers = [record(data, r["players"], "ladder_stall_rate", r["rate"], r["rate_lo"], r["rate_hi"], r["games"],
                      r["method"], strategy=r["strategy"], rung=r["rung"]) for r in rates.iter_rows(named=True)]
    parts = [f"at {players} players in " + listing(rung_rate(r) for r in group.sort("rung").iter_rows(named=True))
             for (players,), group in sorted(rates.partition_by("players", as_dict=True).items())]
    return Finding("Stalls along the ladder.", "With every seat at one rung, the rules stall " + "; ".join(parts)
                   + ".", table("", rates, ("Players", "players"), ("Rung", "strategy"), ("Games", "games", count),
                                *STALLED.columns()), tuple(numbers))


def rung_rate(rate: dict) -> str:
    return f"{pct(rate['rate'])} ({pct_ci(rate['rate_lo'], rate['rate_hi'])}) at {rate['strategy']}"


LADDER = Analysis("Stalls along the skill ladder", ladder_stalls, finding=ladder_stall_finding)
