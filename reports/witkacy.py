"""Witkacy's own analyses: completed paintings by seat, how often players complete paintings and which ones, how
often each strategy uses each action token and what the tokens are worth (restricted play), and the Advanced
Variant against the basic game.

Witkacy rows carry `paintings` (the seat's completed copies; most copies settle a tied score), `copies_by_painting`
(its copies of each painting, in the order of the manifest's `paintings`), `actions_used` (whether it used each
action token, in the order of the manifest's `actions`: stash, solvent, correction, gift, rush), `cards_played`
(cards it added to its own collection), and per game `turns` and `deck_left` (cards left in the deck at the end).
A completed painting scores the number of its copies in all collections together. The manifest's facts give the
`paintings`, the `actions`, the `cards` in the deck and whether the game is `advanced` (the Advanced Variant: a new
card must overlap at least 2 of its 4 cells). Strategies named BASE-no-ACTION never use that action token. Games
with the same `deal` are the same shuffle under different seatings.
"""

import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GAME_KEY, Analysis, GameData, groups, mean_ci, with_all
from reports.charts import aligned, bars_with_ci, finished_chart, legend_below, new_figure, panels, save_chart
from reports.fmt import by_phrase, clear, count, listing, num, num_ci, pct, pct_ci, pp, pp_ci, spread, yes
from reports.render import Chart, Finding, est, share_ci, table
from reports.stats import ratio_ci, resampled_sums, wilson

SECTION = "completed paintings, action tokens and the Advanced Variant"
RESTRICTED = "-no-"  # "saboteur-no-gift" = saboteur that never uses the gift token
BASIC_ONLY = ("Experiments that play the Advanced Variant are left out here; it is compared with the basic game "
              "where the game's experiments are compared.")
NO_BASIC = "Every experiment here plays the Advanced Variant; this part describes the basic game."
# Advanced against basic: name -> (words, numerator, denominator), summed over the games of a deal
MEASURES = {"copies": ("completed copies per player", "copies", "seats"),
            "completed": ("players completing a painting", "completed", "seats"),
            "score": ("score per player", "score", "seats"),
            "turns": ("turns per game", "turns", "games")}


def signed(x: float, digits: int = 2) -> str:
    """A signed difference: '+1.25'."""
    return f"{x:+.{digits}f}"


def signed_ci(lo: float, hi: float) -> str:
    """An interval of signed differences: '-0.50 to +1.25'."""
    return f"{lo:+.2f} to {hi:+.2f}"


def names(data: GameData, fact: str) -> list[str]:
    """A list the manifests record (the paintings, the actions), as at the smallest player count."""
    return list(data.fact(fact, data.player_counts[0]))


def basic_rows(data: GameData) -> pl.DataFrame:
    """The rows of the experiments that play the basic rules, not the Advanced Variant."""
    return data.with_facts(data.rows, "advanced").filter(~pl.col("advanced"))


def everyone_and(rows: pl.DataFrame) -> pl.DataFrame:
    """rows twice: once as strategy 'all' (every player), once as they are."""
    return pl.concat([rows.with_columns(strategy=pl.lit("all")), rows])


def by_strength(frame: pl.DataFrame, data: GameData, *first: str) -> pl.DataFrame:
    """frame sorted by the columns `first`, then by strategy: 'all' first, then by win share as in the strategy
    section."""
    order = ["all", *data.order]
    return frame.sort(*first, pl.col("strategy").replace_strict(order, list(range(len(order))), default=len(order)))


def estimate(name: str, value: float, boot: np.ndarray) -> dict:
    """{name, name_lo, name_hi}: an estimate and the percentile interval of its bootstrap replicates."""
    lo, hi = np.nanquantile(boot, [0.025, 0.975])
    return {name: float(value), f"{name}_lo": float(lo), f"{name}_hi": float(hi)}


def ratio(name: str, numerator, denominator) -> dict:
    """{name, name_lo, name_hi}: sum(numerator) / sum(denominator), bootstrapping the paired units (None when the
    denominator sums to 0)."""
    numerator, denominator = np.asarray(numerator, float), np.asarray(denominator, float)
    if not denominator.sum():
        return dict.fromkeys((name, f"{name}_lo", f"{name}_hi"))
    lo, hi = ratio_ci(numerator, denominator)
    return {name: numerator.sum() / denominator.sum(), f"{name}_lo": lo, f"{name}_hi": hi}


def heatmap(fig, ax, grid: np.ndarray, rows: list[str], columns: list[str], label: str, top: float = 1.0) -> None:
    """Shares as a blue heat map from 0 to `top`, with their percentages written in."""
    image = ax.imshow(grid, cmap="Blues", vmin=0, vmax=top, aspect="auto")
    for (i, j), share in np.ndenumerate(grid):
        if not np.isnan(share):
            ax.text(j, i, f"{100 * share:.0f}", ha="center", va="center", fontsize="small",
                    color="white" if share > 0.6 * top else "black")
    ax.set_xticks(range(len(columns)), columns)
    ax.set_yticks(range(len(rows)), rows)
    ax.grid(False)
    fig.colorbar(image, ax=ax, shrink=0.8, format=PercentFormatter(1.0, decimals=0)).set_label(label)


# ---------------------------------------------------------------- seats


def seat_copies(data: GameData) -> dict | None:
    """Completed copies per player by seat (bootstrap means), and per game the start player's copies minus the
    mean of the other seats' (bootstrap over games), per player count."""
    rows = basic_rows(data)
    if rows.is_empty():
        return None
    by_seat = [{**key, "n": group.height, **mean_ci(group["paintings"].to_numpy(), "copies")}
               for key, group in groups(rows, ["players", "seat"])]
    seat, copies = pl.col("seat"), pl.col("paintings").cast(pl.Float64)
    games = rows.group_by(GAME_KEY).agg(players=pl.col("players").first(),
                                        gap=copies.filter(seat == 0).first() - copies.filter(seat > 0).mean())
    gaps = [{**key, "games": group.height, **mean_ci(group["gap"].to_numpy(), "gap")}
            for key, group in groups(games, ["players"])]
    return {"by_seat": pl.DataFrame(by_seat), "gap": pl.DataFrame(gaps)}


def seat_finding(result: dict, data: GameData) -> Finding:
    """Whether the start player completes more copies than the other seats of its game, per player count."""
    gap = result["gap"]
    phrases = {r["players"]: "the start player completes clearly more copies than the others" if r["gap_lo"] > 0 else
               "the start player completes clearly fewer copies than the others" if r["gap_hi"] < 0 else
               "the start player completes about as many copies as the others" for r in gap.iter_rows(named=True)}
    text = ("Who wins from which seat is in the seat advantage section above. In completed paintings, "
            f"{by_phrase(phrases, data.player_counts)} (start player's copies minus the mean of the other seats of "
            f"its game: {spread(gap['gap'], signed)}).")
    return Finding("Seats and completed paintings.", text, table(
        "", gap, ("Players", "players"), ("Games", "games", count),
        *est("Start player − others (copies)", "gap", signed, signed_ci)))


def seat_tables(result: dict, _) -> list:
    return [table("Completed copies per player by seat (0 = start player; 95% bootstrap intervals)",
                  result["by_seat"], ("Players", "players"), ("Seat", "seat"), ("Player results", "n", count),
                  *est("Copies", "copies"))]


SEAT_INTRO = ("Every player takes the same number of turns: the game ends after the turn of the player to the right "
              "of the start player. Here, the completed copies per player by seat (means with 95% bootstrap "
              "intervals), and in each game the start player's copies minus the mean of the other seats'. "
              + BASIC_ONLY)


# ---------------------------------------------------------------- completing paintings


def completion(data: GameData) -> pl.DataFrame | None:
    """Per player count and strategy ('all' = every player): the share completing at least one painting (Wilson),
    completed copies per player (bootstrap mean) and cards played per completed copy (ratio, bootstrap over
    players)."""
    rows = basic_rows(data)
    if rows.is_empty():
        return None
    out = []
    for key, group in with_all(rows):
        copies, cards = (group[c].to_numpy().astype(float) for c in ("paintings", "cards_played"))
        completed = int((copies > 0).sum())
        lo, hi = wilson(completed, group.height)
        out.append({**key, "n": group.height, "completed": completed / group.height, "completed_lo": lo,
                    "completed_hi": hi, **mean_ci(copies, "copies"), **ratio("cards_per_copy", cards, copies)})
    return pl.DataFrame(out)


def completion_finding(result: pl.DataFrame, _) -> Finding:
    """How many players complete a painting and how many copies, by player count; which strategy completes most and
    fewest."""
    overall = result.filter(pl.col("strategy") == "all").sort("players")
    per_copy = overall["cards_per_copy"].drop_nulls()
    cards = f", playing {spread(per_copy, num)} cards per copy" if len(per_copy) else ""
    text = (f"{spread(overall['completed']).capitalize()} of players complete at least one painting, and players "
            f"complete {spread(overall['copies'], num)} copies each on average{cards}, by player count.")
    strategies = result.filter(pl.col("strategy") != "all")
    if strategies["strategy"].n_unique() > 1:
        most = strategies.sort("copies", "strategy", descending=[True, False]).row(0, named=True)
        fewest = strategies.sort("copies", "strategy").row(0, named=True)
        text += (f" Of the strategies, {most['strategy']} completes the most, {num(most['copies'])} copies per "
                 f"player at {most['players']} players; {fewest['strategy']} the fewest, {num(fewest['copies'])} at "
                 f"{fewest['players']} players, where {pct(1 - fewest['completed'])} of its players complete none.")
    return Finding("Completing paintings.", text, table(
        "", overall, ("Players", "players"), *share_ci("Complete one or more", "completed", "completed_lo",
                                                      "completed_hi"),
        *est("Copies per player", "copies"), *est("Cards per copy", "cards_per_copy")))


def completion_tables(result: pl.DataFrame, data: GameData) -> list:
    return [table("Completed paintings by player count and strategy ('all' = every player; 95% intervals: Wilson for "
                  "the share, bootstrap for the means and the ratio)", by_strength(result, data, "players"),
                  ("Players", "players"), ("Strategy", "strategy"), ("Player results", "n", count),
                  *share_ci("Complete one or more", "completed", "completed_lo", "completed_hi"),
                  *est("Copies per player", "copies"), *est("Cards per copy", "cards_per_copy"))]


def completion_chart(result: pl.DataFrame, data: GameData) -> Chart:
    """Two panels of horizontal bars per strategy, one bar per player count: the share completing a painting and
    completed copies per player."""
    labels = [s for s in ["all", *data.order] if s in result["strategy"]]
    counts = result["players"].unique().sort().to_list()
    fig, axes = panels(2, 11.0, 2.2 + 0.3 * len(labels) * max(2, len(counts)), sharey=True)
    for ax, (column, xlabel) in zip(axes, [("completed", "Players completing at least one painting"),
                                           ("copies", "Completed copies per player")]):
        bars = {}
        for players in counts:
            panel = aligned(result.filter(pl.col("players") == players), "strategy", labels)
            bars[f"{players} players"] = (panel[column], panel[f"{column}_lo"], panel[f"{column}_hi"])
        bars_with_ci(ax, labels, bars, horizontal=True)
        ax.set_xlabel(xlabel)
    axes[0].set_xlim(0, 1)
    axes[0].xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    return finished_chart(fig, axes[0], f"{data.title}: completing paintings (95% intervals)",
                          data.out_dir, f"{data.slug}_completion.png",
                          "Per strategy ('all' = every player, strategies in order of win share), one bar per player "
                          "count: the share of players who complete at least one painting (left, Wilson intervals) "
                          "and the completed copies per player (right, bootstrap intervals).")


COMPLETION_INTRO = ("A painting is completed when four visible quarters of it form a 2×2 block in a collection; "
                    "a collection may hold several copies of one painting. Per player: whether they complete at least "
                    "one painting, how many copies, and the cards they added to their collection per completed copy "
                    "(the ratio of the totals). " + BASIC_ONLY)


# ---------------------------------------------------------------- which paintings


def with_painting_columns(rows: pl.DataFrame, paintings: list[str]) -> pl.DataFrame:
    """rows plus a column `copies_P` per painting P."""
    return rows.with_columns(pl.col("copies_by_painting").list.get(i).cast(pl.Int64).alias(f"copies_{p}")
                             for i, p in enumerate(paintings))


def copy_shares(units: pl.DataFrame, paintings: list[str], by: list[str]) -> pl.DataFrame:
    """Per group of `by`: completed copies, and each painting's share of them (columns P, P_lo, P_hi) with a
    bootstrap interval that resamples the units (whole games, or player results)."""
    out = []
    for key, group in groups(units, by):
        copies = group.select(f"copies_{p}" for p in paintings).to_numpy().astype(float)
        total = copies.sum(axis=1)
        record = {**key, "copies": int(total.sum())}
        for i, painting in enumerate(paintings):
            record |= ratio(painting, copies[:, i], total)
        out.append(record)
    return pl.DataFrame(out)


def painting_shares(data: GameData) -> dict | None:
    """Each painting's share of the completed copies: pooled and per player count (over games), per strategy (over
    player results)."""
    rows = basic_rows(data)
    if rows.is_empty():
        return None
    paintings = names(data, "paintings")
    wide = with_painting_columns(rows, paintings)
    games = wide.group_by(GAME_KEY).agg(pl.col("players").first(), *(pl.col(f"copies_{p}").sum() for p in paintings))
    return {"paintings": paintings, "pooled": copy_shares(games, paintings, []),
            "by_count": copy_shares(games, paintings, ["players"]),
            "by_strategy": by_strength(copy_shares(wide, paintings, ["strategy"]), data)}


def ranked_shares(row: dict, names: list[str]) -> list[dict]:
    """The shares (columns NAME, NAME_lo, NAME_hi) of one row as records, largest first; shares of nothing left out."""
    shares = [{"name": n, "share": row[n], "lo": row[f"{n}_lo"], "hi": row[f"{n}_hi"]} for n in names
              if row[n] is not None]
    return sorted(shares, key=lambda s: -s["share"])


def painting_verdict(top: dict, bottom: dict, fair: float) -> str:
    """Whether the most and least copied paintings differ clearly from an even spread."""
    if top["lo"] > fair and bottom["hi"] < fair:
        return f"players clearly favour some paintings over others (an even spread gives each {pct(fair)})"
    if top["lo"] <= fair <= bottom["hi"]:
        return f"no painting's share differs clearly from an even {pct(fair)}"
    return f"the spread is uneven, though not clearly at both ends (an even spread gives each {pct(fair)})"


def painting_finding(result: dict, _) -> Finding:
    """The most and least copied paintings against an even spread, and the strategy whose copies concentrate most
    on one painting."""
    paintings = result["paintings"]
    ranked = ranked_shares(result["pooled"].row(0, named=True), paintings)
    if not ranked:
        return Finding("Which paintings get copied.", "No player completed a painting.")
    top, bottom = ranked[0], ranked[-1]
    text = (f"{top['name']} is copied most ({pct(top['share'])} of all completed copies, 95% CI "
            f"{pct_ci(top['lo'], top['hi'])}) and {bottom['name']} least ({pct(bottom['share'])}, "
            f"{pct_ci(bottom['lo'], bottom['hi'])}): {painting_verdict(top, bottom, 1 / len(paintings))}.")
    favourites = [(r["strategy"], shares[0]) for r in result["by_strategy"].iter_rows(named=True)
                  if (shares := ranked_shares(r, paintings))]
    if len(favourites) > 1:
        strategy, favourite = max(favourites, key=lambda f: f[1]["share"])
        text += (f" The strategy whose copies concentrate most on one painting is {strategy}: "
                 f"{pct(favourite['share'])} of them are of {favourite['name']}.")
    return Finding("Which paintings get copied.", text, table("", ranked, ("Painting", "name"),
                                                              *share_ci("Share of copies")))


def share_columns(names: list[str]) -> list:
    """A column per name: its share (columns NAME, NAME_lo, NAME_hi) with the 95% interval in brackets."""
    def cell(r: dict, n: str) -> str:
        return "–" if r[n] is None else f"{pct(r[n])} ({pct_ci(r[f'{n}_lo'], r[f'{n}_hi'])})"

    return [(n, lambda r, n=n: cell(r, n)) for n in names]


def painting_tables(result: dict, _) -> list:
    paintings = result["paintings"]
    return [
        table("Each painting's share of the completed copies by player count (95% intervals in brackets resample "
              "whole games)", result["by_count"], ("Players", "players"), ("Copies", "copies", count),
              *share_columns(paintings)),
        table("Each painting's share of a strategy's completed copies, every player count together (95% intervals "
              "in brackets resample player results)", result["by_strategy"], ("Strategy", "strategy"),
              ("Copies", "copies", count), *share_columns(paintings)),
    ]


def painting_chart(result: dict, data: GameData) -> Chart:
    """Left: each painting's share of the copies, one bar per player count, with the even share dashed; right: a
    heat map of the shares by strategy."""
    paintings, by_count, by_strategy = result["paintings"], result["by_count"], result["by_strategy"]
    fig, axes = panels(2, 12.0, max(4.4, 1.6 + 0.42 * by_strategy.height), width_ratios=[1, 1.1])
    bars = {f"{r['players']} players": ([r[p] for p in paintings], [r[f"{p}_lo"] for p in paintings],
                                        [r[f"{p}_hi"] for p in paintings]) for r in by_count.iter_rows(named=True)}
    bars_with_ci(axes[0], paintings, bars)
    axes[0].axhline(1 / len(paintings), color="#555", linestyle="--", linewidth=1.2, label="even spread")
    axes[0].set(xlabel="Painting", ylabel="Share of completed copies", title="By player count")
    axes[0].yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    legend_below(fig, axes[0])
    grid = by_strategy.select(paintings).to_numpy().astype(float)
    heatmap(fig, axes[1], grid, by_strategy["strategy"].to_list(), paintings, "Share of the strategy's copies",
            max(0.01, float(np.nan_to_num(grid).max())))
    axes[1].set(xlabel="Painting", title="By strategy (all player counts)")
    fig.suptitle(f"{data.title}: which paintings get copied")
    return save_chart(fig, data.out_dir, f"{data.slug}_paintings.png",
                      "Each painting's share of all completed copies: left, one bar per player count with 95% "
                      "bootstrap intervals over games (dashed: an even spread); right, the percentage of each "
                      "strategy's copies (strategies in order of win share; intervals in the table).")


def painting_intro(result: dict, _) -> str:
    return ("A completed painting is worth as many points as there are copies of it in all collections together, "
            "so copying what others copy pays. Shares of all completed copies by painting "
            f"({listing(result['paintings'])}); an even spread gives each {pct(1 / len(result['paintings']))}. The "
            "copies of one game are tied together, so intervals resample whole games (bootstrap); by strategy they "
            "resample player results. " + BASIC_ONLY)


# ---------------------------------------------------------------- action tokens: use


def use_rates(rows: pl.DataFrame, actions: list[str], by: list[str]) -> pl.DataFrame:
    """Per group of `by`: player results, tokens used per game (bootstrap mean) and, per action, the share of games
    in which it was used (Wilson; columns ACTION, ACTION_lo, ACTION_hi)."""
    out = []
    for key, group in groups(rows, by):
        used = group["actions_used"].list.to_array(len(actions)).to_numpy().astype(float)
        record = {**key, "n": group.height, **mean_ci(used.sum(axis=1), "tokens")}
        for i, action in enumerate(actions):
            lo, hi = wilson(used[:, i].sum(), group.height)
            record |= {action: used[:, i].mean(), f"{action}_lo": lo, f"{action}_hi": hi}
        out.append(record)
    return pl.DataFrame(out)


def action_use(data: GameData) -> dict:
    """How often each strategy uses each action token, every experiment together and per player count."""
    actions, rows = names(data, "actions"), everyone_and(data.rows)
    return {"actions": actions, "pooled": by_strength(use_rates(rows, actions, ["strategy"]), data),
            "by_count": by_strength(use_rates(rows, actions, ["players", "strategy"]), data, "players")}


def use_finding(result: dict, _) -> Finding:
    """How often each action is used by every player together, and which strategy uses most and fewest tokens."""
    actions, pooled = result["actions"], result["pooled"]
    ranked = ranked_shares(pooled.filter(pl.col("strategy") == "all").row(0, named=True), actions)
    uses = listing(f"{r['name']} in {pct(r['share'])}" for r in ranked)
    text = f"All strategies together, players use {uses} of their games."
    strategies = pooled.filter(pl.col("strategy") != "all")
    if strategies.height > 1:
        most = strategies.sort("tokens", "strategy", descending=[True, False]).row(0, named=True)
        fewest = strategies.sort("tokens", "strategy").row(0, named=True)
        text += (f" Of the strategies, {most['strategy']} uses the most tokens, {num(most['tokens'])} of "
                 f"{len(actions)} a game, and {fewest['strategy']} the fewest, {num(fewest['tokens'])}.")
    return Finding("Action tokens used.", text, table("", ranked, ("Action", "name"), *share_ci("Used in")))


def use_tables(result: dict, _) -> list:
    actions = result["actions"]
    return [
        table("Share of games in which each strategy uses each action token, every player count together ('all' = "
              "every player; 95% Wilson intervals in brackets), and tokens used per game (bootstrap)",
              result["pooled"], ("Strategy", "strategy"), ("Player results", "n", count), *est("Tokens", "tokens"),
              *share_columns(actions)),
        table("The same by player count", result["by_count"], ("Players", "players"), ("Strategy", "strategy"),
              ("Player results", "n", count), *est("Tokens", "tokens"), *share_columns(actions)),
    ]


def use_chart(result: dict, data: GameData) -> Chart:
    """Heat map: the share of games in which each strategy (row) uses each action token (column)."""
    actions, pooled = result["actions"], result["pooled"]
    fig = new_figure(3.2 + 1.1 * len(actions), 1.8 + 0.42 * pooled.height)
    ax = fig.subplots()
    heatmap(fig, ax, pooled.select(actions).to_numpy().astype(float), pooled["strategy"].to_list(), actions,
            "Games in which the token is used")
    ax.set(xlabel="Action token", ylabel="Strategy")
    ax.set_title(f"{data.title}: how often each strategy uses each action token")
    return save_chart(fig, data.out_dir, f"{data.slug}_action_use.png",
                      "The percentage of its games in which each strategy uses each action token (each may be used "
                      "once a game), every player count of the experiment together; 'all' is every player, strategies "
                      "in order of win share. Intervals are in the table.")


def use_intro(result: dict, _) -> str:
    return (f"Each player holds one token of each action ({listing(result['actions'])}) and may use each once per "
            "game. The share of a strategy's games in which it used each token carries a Wilson interval; every "
            "experiment counts here.")


# ---------------------------------------------------------------- action tokens: worth


def restricted_variants(rows: pl.DataFrame) -> list[tuple[str, str, str]]:
    """(variant, base, action it never uses) for each BASE-no-ACTION strategy in rows whose BASE played too."""
    present = set(rows["strategy"].unique().to_list())
    split = [(s, *s.split(RESTRICTED, 1)) for s in sorted(present) if RESTRICTED in s]
    return [(variant, base, action) for variant, base, action in split if base in present]


def with_margin(rows: pl.DataFrame) -> pl.DataFrame:
    """rows with `margin`: the seat's score minus the mean score of the other seats of its game. What happens to
    everyone at a table (a Stash or a Gift takes a card from the deck, and the game is shorter for all) cancels."""
    others = (pl.col("score").sum().over(GAME_KEY) - pl.col("score")) / (pl.col("players") - 1)
    return rows.with_columns(margin=pl.col("score") - others)


def token_units(rows: pl.DataFrame, variant: str, base: str) -> pl.DataFrame:
    """Per experiment, player count and deal (every seating of one deal together) where either played: the seats,
    wins and points over the table (margin) of the variant (v_) and of its base (b_)."""
    sums = {f"{who}_{what}": (pl.col(column).filter(mine) if column else mine).sum().cast(pl.Float64)
            for who, mine in (("v", pl.col("strategy") == variant), ("b", pl.col("strategy") == base))
            for what, column in (("seats", None), ("wins", "win"), ("points", "margin"))}
    return (rows.filter(pl.col("strategy").is_in([variant, base])).group_by("experiment", "players", "deal")
            .agg(**sums))


def per_seat(sums: dict, who: str, what: str):
    """Wins or points per seat played, from summed units (arrays of bootstrap replicates work too)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums[f"{who}_{what}"] / sums[f"{who}_seats"]


def token_worth(units: pl.DataFrame, seed: int) -> dict:
    """One stratum: the variant's and the base's win shares (Wilson) and mean points, and what the token is worth,
    base − variant, in win share and in points (bootstrap over deals)."""
    values = units.select(pl.exclude("experiment", "players", "deal"))
    total = dict(zip(values.columns, values.to_numpy().sum(axis=0)))
    boot = dict(zip(values.columns, resampled_sums(values.to_numpy(), seed=seed).T))
    lo, hi = wilson(total["v_wins"], total["v_seats"])
    base_lo, base_hi = wilson(total["b_wins"], total["b_seats"])
    worth = {what: (per_seat(total, "b", what) - per_seat(total, "v", what),
                    per_seat(boot, "b", what) - per_seat(boot, "v", what)) for what in ("wins", "points")}
    return {"seats": int(total["v_seats"]), "share": per_seat(total, "v", "wins"), "lo": lo, "hi": hi,
            "base_share": per_seat(total, "b", "wins"), "base_lo": base_lo, "base_hi": base_hi,
            **estimate("points", per_seat(total, "v", "points"), per_seat(boot, "v", "points")),
            **estimate("base_points", per_seat(total, "b", "points"), per_seat(boot, "b", "points")),
            **estimate("win_worth", *worth["wins"]), **estimate("point_worth", *worth["points"])}


def token_values(data: GameData) -> pl.DataFrame | None:
    """What each action token is worth to its BASE, per experiment and player count where both BASE and
    BASE-no-ACTION played."""
    out, rows = [], with_margin(data.rows)
    for variant, base, action in restricted_variants(rows):
        units = token_units(rows, variant, base)
        for seed, (key, stratum) in enumerate(groups(units, ["experiment", "players"])):
            if stratum["v_seats"].sum() and stratum["b_seats"].sum():
                out.append({**key, "strategy": variant, "base": base, "action": action, **token_worth(stratum, seed)})
    return pl.DataFrame(out) if out else None


def worth_sentence(base: str, ranked: pl.DataFrame) -> str:
    """One base strategy's tokens, by points worth: their worth, the verdicts, and the most valuable in wins."""
    where = listing(f"{e} at {p} players" for e, p in ranked.select("experiment", "players").unique().sort(
        "experiment", "players").iter_rows())
    rows = ranked.to_dicts()
    worths = listing(f"{r['action']} {signed(r['point_worth'], 1)}" for r in rows)
    text = f"What each token is worth to {base} ({where}), in points over its table a game: {worths}."
    gains = [r["action"] for r in rows if r["point_worth_lo"] > 0]
    losses = [r["action"] for r in rows if r["point_worth_hi"] < 0]
    unclear = [r["action"] for r in rows if not clear(r["point_worth_lo"], r["point_worth_hi"])]
    if gains:
        text += f" Clearly worth points: {listing(gains)}."
    if losses:
        text += (f" Without {listing(losses)} {base} does clearly better: it spends "
                 f"{'that token' if len(losses) == 1 else 'those tokens'} badly.")
    if unclear:
        text += f" No clear value: {listing(unclear)}."
    best = max(rows, key=lambda r: r["win_worth"])
    return text + (f" In wins, {best['action']} is worth the most: {pp(best['win_worth'])} of win share (95% CI "
                   f"{pp_ci(best['win_worth_lo'], best['win_worth_hi'])}).")


def largest_strata(result: pl.DataFrame) -> pl.DataFrame:
    """Each variant's row from the experiment and player count where it played most, most valuable token first."""
    return (result.sort("seats", descending=True).unique("strategy", keep="first")
            .sort("point_worth", "strategy", descending=[True, False]))


def worth_finding(result: pl.DataFrame, _) -> Finding:
    """Per base strategy, what each token is worth (each variant's largest stratum)."""
    main = largest_strata(result).sort("base", maintain_order=True)
    sentences = [worth_sentence(base, group) for (base,), group in main.partition_by("base", as_dict=True,
                                                                                     maintain_order=True).items()]
    return Finding("Action tokens (what each is worth).", " ".join(sentences), table(
        "", main, ("Base", "base"), ("Token", "action"), *est("Worth in points over the table", "point_worth", signed,
                                                               signed_ci),
        *est("Worth in win share", "win_worth", pp, pp_ci)))


def worth_tables(result: pl.DataFrame, _) -> list:
    return [table("What each action token is worth: BASE against BASE-no-TOKEN (worth = base − variant; 95% "
                  "intervals: Wilson for win shares, bootstrap over deals for points and worth)",
                  result.sort("base", "experiment", "players", "point_worth", descending=[False, False, False, True]),
                  ("Experiment", "experiment"), ("Players", "players"), ("Base", "base"), ("Token", "action"),
                  ("Variant seats", "seats", count), *share_ci("Variant wins"),
                  *share_ci("Base wins", "base_share", "base_lo", "base_hi"),
                  *est("Worth (win share)", "win_worth", pp, pp_ci), *est("Variant points over table", "points"),
                  *est("Base points over table", "base_points"),
                  *est("Worth (points over table)", "point_worth", signed, signed_ci))]


def worth_chart(result: pl.DataFrame, data: GameData) -> Chart:
    """Two panels of horizontal bars per token: its worth in points and in win share, one bar per stratum."""
    main = largest_strata(result)
    order = main["strategy"].to_list()
    labels = [f"{a} ({b})" for a, b in main.select("action", "base").iter_rows()]
    strata = result.select("experiment", "players").unique().sort("experiment", "players").rows()
    fig, axes = panels(2, 11.0, 2.2 + 0.36 * len(order) * len(strata), sharey=True)
    for ax, (column, xlabel) in zip(axes, [("point_worth", "Points over the table a game: base − variant"),
                                           ("win_worth", "Win share: base − variant (pp)")]):
        bars = {}
        for experiment, players in strata:
            stratum = result.filter((pl.col("experiment") == experiment) & (pl.col("players") == players))
            panel = aligned(stratum, "strategy", order)
            bars[f"{experiment}, {players} players"] = (panel[column], panel[f"{column}_lo"], panel[f"{column}_hi"])
        bars_with_ci(ax, labels, bars, horizontal=True)
        ax.axvline(0, color="#555", linewidth=1.0)
        ax.set_xlabel(xlabel)
    axes[1].xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0, symbol=""))
    axes[0].set_title("In points over the table")
    axes[1].set_title("In win share")
    return finished_chart(fig, axes[0],
                          f"{data.title}: what each action token is worth "
                          "(BASE − BASE-no-TOKEN, 95% bootstrap intervals)",
                          data.out_dir, f"{data.slug}_action_worth.png",
                          "What each action token is worth to the strategy in brackets: its points over the table "
                          "(its score minus the mean of the other players' in the same game; left) and its win share "
                          "(right) minus those of the same strategy never using that token, over the same deals. Bars "
                          "right of zero mean the token pays; most valuable first.")


WORTH_INTRO = (
    "A BASE-no-TOKEN strategy plays like BASE but never uses that action token. What the token is worth to BASE is "
    "BASE's mean points over its table (its score minus the mean score of the other players in the same game) and "
    "its win share, minus the variant's, counted in each experiment and player count where both played, so both "
    "met the same pool of opponents on the same deals. Points over the table, not raw points: a Stash or a Gift "
    "takes one more card from the deck and shortens the game for everyone at the table, which lowers every score "
    "there, the variant's opponents' too. Win shares carry Wilson intervals; means and "
    "differences carry percentile bootstrap intervals that resample whole deals (every seating of one deal "
    "together), so the comparison stays paired.")

CAVEATS = (
    "Witkacy: a token's worth compares a strategy with its BASE-no-TOKEN variant in the same pool of opponents and "
    "deals, but not against the same opponents game by game; it measures what the token is worth to that bot's way "
    "of playing it, not to a person.",
)


# ---------------------------------------------------------------- the Advanced Variant


def rules_pair(data: GameData) -> tuple[str, str] | None:
    """(basic, advanced): the first experiment under the Advanced Variant, by name, and a basic-rules experiment
    with the same strategies."""
    rows = data.with_facts(data.rows.select("experiment", "players", "strategy"), "advanced")
    kinds = rows.group_by("experiment").agg(pool=pl.col("strategy").unique().sort().str.join(", "),
                                            advanced=pl.col("advanced").any())
    pairs = (kinds.filter(~pl.col("advanced")).join(kinds.filter(pl.col("advanced")), on="pool", suffix="_advanced")
             .sort("experiment_advanced", "experiment"))
    return None if pairs.is_empty() else (pairs["experiment"][0], pairs["experiment_advanced"][0])


def deal_sums(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and deal (every seating of one deal together): games, player results (seats), completed
    copies, players completing a painting, points and turns."""
    games = rows.group_by(GAME_KEY).agg(
        pl.col("players", "deal").first(), seats=pl.len(), copies=pl.col("paintings").cast(pl.Int64).sum(),
        completed=(pl.col("paintings") > 0).sum(), score=pl.col("score").cast(pl.Int64).sum(),
        turns=pl.col("turns").cast(pl.Int64).first())
    return games.group_by("players", "deal").agg(
        pl.len().alias("games"), *(pl.col(c).sum() for c in ("seats", "copies", "completed", "score", "turns")))


def rules_effect(units: pl.DataFrame, seed: int) -> list[dict]:
    """Each measure under the basic rules and the Advanced Variant, and the difference advanced − basic, with
    bootstrap intervals that resample the paired deals."""
    values = units.select(pl.exclude("players", "deal")).cast(pl.Float64)
    total = dict(zip(values.columns, values.to_numpy().sum(axis=0)))
    boot = dict(zip(values.columns, resampled_sums(values.to_numpy(), seed=seed).T))

    def mean(sums: dict, measure: str, rules: str):
        _, numerator, denominator = MEASURES[measure]
        return sums[numerator + rules] / sums[denominator + rules]

    return [{"measure": m, "deals": units.height, "games": int(total["games"]),
             **estimate("basic", mean(total, m, ""), mean(boot, m, "")),
             **estimate("advanced", mean(total, m, "_advanced"), mean(boot, m, "_advanced")),
             **estimate("diff", mean(total, m, "_advanced") - mean(total, m, ""),
                        mean(boot, m, "_advanced") - mean(boot, m, ""))} for m in MEASURES]


def advanced_variant(data: GameData) -> dict | None:
    """The measures of the rules pair per player count, on the deals played in both."""
    pair = rules_pair(data)
    if pair is None:
        return None
    basic, advanced = pair
    units = (deal_sums(data.rows.filter(pl.col("experiment") == basic))
             .join(deal_sums(data.rows.filter(pl.col("experiment") == advanced)), on=["players", "deal"],
                   suffix="_advanced"))
    effects = [{**key, **effect} for seed, (key, group) in enumerate(groups(units, ["players"]))
               for effect in rules_effect(group, seed)]
    return {"basic": basic, "advanced": advanced, "effects": pl.DataFrame(effects)}


def measure_columns(header: str, key: str, difference: bool = False) -> list:
    """Two columns, an estimate and its 95% interval, written as the row's measure asks: a share in per cent (a
    difference in percentage points), anything else as a number (a difference signed)."""
    def formats(r: dict) -> tuple:
        share = r["measure"] == "completed"
        if difference:
            return (pp, pp_ci) if share else (signed, signed_ci)
        return (pct, pct_ci) if share else (num, num_ci)

    return [(header, lambda r: formats(r)[0](r[key])),
            ("95% CI", lambda r: formats(r)[1](r[f"{key}_lo"], r[f"{key}_hi"]))]


def rules_clause(players: int, effects: dict[str, dict]) -> str:
    """Copies, score and turns at one player count under both rules, in words."""
    copies, score, turns = effects["copies"], effects["score"], effects["turns"]
    return (f"at {players} players, players complete {num(copies['advanced'])} copies each instead of "
            f"{num(copies['basic'])} ({signed(copies['diff'])}, 95% CI "
            f"{signed_ci(copies['diff_lo'], copies['diff_hi'])}), "
            f"score {num(score['advanced'], 1)} points instead of {num(score['basic'], 1)} and play "
            f"{num(turns['advanced'], 1)} turns a game instead of {num(turns['basic'], 1)}")


def direction(diffs: pl.DataFrame, lower: str, higher: str, neither: str) -> str:
    """`lower` if every difference is clearly below zero, `higher` if every one is clearly above, else `neither`."""
    if (diffs["diff_hi"] < 0).all():
        return lower
    return higher if (diffs["diff_lo"] > 0).all() else neither


def advanced_finding(result: dict, data: GameData) -> Finding:
    """Whether the Advanced Variant makes completing paintings harder, and how scores and game length change."""
    effects = result["effects"]
    by_count = {p: {r["measure"]: r for r in g.iter_rows(named=True)}
                for (p,), g in sorted(effects.partition_by("players", as_dict=True).items())}
    verdict = direction(effects.filter(pl.col("measure") == "copies"),
                        "makes completing paintings harder, as the rulebook intends",
                        "makes completing paintings easier, against the rulebook's intent",
                        "does not clearly change how many paintings players complete")
    length = direction(effects.filter(pl.col("measure") == "turns"), "games get shorter", "games get longer",
                       "game length does not change clearly")
    turns = effects.filter(pl.col("measure") == "turns")["diff"]
    text = (f"The Advanced Variant {verdict} ({result['advanced']} against {result['basic']}, on the same deals): "
            f"{'; '.join(rules_clause(p, e) for p, e in by_count.items())}. {length.capitalize()} "
            f"({listing(signed(d) for d in turns)} turns a game).")
    return Finding("The Advanced Variant.", text, table(
        "", effects, ("Players", "players"), ("Measure", lambda r: MEASURES[r["measure"]][0]),
        measure_columns("Basic", "basic")[0], measure_columns("Advanced", "advanced")[0],
        *measure_columns("Difference", "diff", difference=True)))


def advanced_tables(result: dict, _) -> list:
    return [table(f"{result['basic']} (basic rules) against {result['advanced']} (Advanced Variant) on the same deals "
                  "(difference = advanced − basic; 95% bootstrap intervals resample deals)", result["effects"],
                  ("Players", "players"), ("Measure", lambda r: MEASURES[r["measure"]][0]), ("Deals", "deals", count),
                  *measure_columns("Basic", "basic"), *measure_columns("Advanced", "advanced"),
                  *measure_columns("Difference", "diff", difference=True),
                  ("Clear?", ("diff_lo", "diff_hi"), lambda lo, hi: yes(clear(lo, hi))))]


def advanced_chart(result: dict, data: GameData) -> Chart:
    """One panel per measure: the basic rules and the Advanced Variant side by side, per player count."""
    effects = result["effects"]
    counts = effects["players"].unique().sort().to_list()
    fig, axes = panels(len(MEASURES), 3.0 * len(MEASURES) + 0.8, 4.2)
    for ax, (measure, (words, _, _)) in zip(axes, MEASURES.items()):
        panel = aligned(effects.filter(pl.col("measure") == measure), "players", counts)
        bars_with_ci(ax, [str(p) for p in counts], {
            f"basic ({result['basic']})": (panel["basic"], panel["basic_lo"], panel["basic_hi"]),
            f"advanced ({result['advanced']})": (panel["advanced"], panel["advanced_lo"], panel["advanced_hi"])})
        ax.set(title=words[0].upper() + words[1:], xlabel="Players")
        if measure == "completed":
            ax.set_ylim(0, 1)
            ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    return finished_chart(fig, axes[0],
                          f"{data.title}: the Advanced Variant against the basic rules (95% bootstrap intervals)",
                          data.out_dir, f"{data.slug}_advanced.png",
                          f"{result['basic']} (basic rules) and {result['advanced']} (Advanced Variant: a new card "
                          "must overlap at least 2 of its 4 cells) on the same deals, per player count: completed "
                          "copies per player, the share of players completing a painting, score per player and turns "
                          "per game.")


def advanced_intro(result: dict, _) -> str:
    return (f"{result['advanced']} plays the Advanced Variant (a new card must overlap at least 2 of its 4 cells with "
            f"the collection), {result['basic']} the basic rules, with the same strategies. Deals with the same number "
            "are paired (the same shuffle when the experiments share a seed), and only deals played in both count; "
            "intervals resample whole deals, every seating of a deal together (bootstrap).")


ANALYSES = [
    Analysis("Seats and completed paintings", seat_copies, intro=SEAT_INTRO, tables=seat_tables, finding=seat_finding,
             absent=NO_BASIC),
    Analysis("Completing paintings", completion, intro=COMPLETION_INTRO, chart=completion_chart,
             tables=completion_tables, finding=completion_finding, absent=NO_BASIC),
    Analysis("Which paintings get copied", painting_shares, intro=painting_intro, chart=painting_chart,
             tables=painting_tables, finding=painting_finding, absent=NO_BASIC),
    Analysis("Action tokens: how often they are used", action_use, intro=use_intro, chart=use_chart,
             tables=use_tables, finding=use_finding),
    Analysis("Action tokens: what each is worth", token_values, intro=WORTH_INTRO, chart=worth_chart,
             tables=worth_tables, finding=worth_finding, caveats=CAVEATS,
             absent="No restricted strategies (BASE-no-TOKEN, e.g. saboteur-no-gift) played beside their BASE in "
                    "these experiments. Run experiments/witkacy_restricted.toml to measure what each action token is "
                    "worth."),
]
COMPARED = [  # across the game's experiments, each number from its own experiment
    Analysis("The Advanced Variant against the basic rules", advanced_variant, intro=advanced_intro,
             chart=advanced_chart, tables=advanced_tables, finding=advanced_finding,
             absent="No pair of experiments with the same strategies under the basic rules and the Advanced Variant. "
                    "Run witkacy_basic and witkacy_advanced to compare them."),
]
