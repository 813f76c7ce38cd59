"""Kintsugi's own analyses: guessing accuracy, guesses that changed the winner, win share by secret colour, and
matches.

Kintsugi rows carry `color` (secret colour, an index into the manifest's `colours` fact), `pieces` (score before
guessing), `guess` (colour guessed for the next seat), `guess_correct` and `target_color`; strategies are named
"policy+guesser", e.g. "camouflage@0.8+bayes". The manifest's `guess_chance` fact is a blind guess's chance.

Every interval is cluster-robust over deals (matches in match mode), reports.stats.paired_ratio: the games of
one deal share its colours and tiles, and the guesses of one game its board, so neither is independent.
"""

import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GAME_KEY, Analysis, GameData, groups, record
from reports.charts import aligned, bars_with_ci, finished_chart, panels
from reports.findings import select
from reports.fmt import at_counts, by_phrase, count, listing, num, pct, pct_ci, pp, seat_name, spread
from reports.render import Chart, Finding, est, share_ci, table
from reports.spec import GameReport
from reports.stats import cluster_columns, cluster_unit, clustered_method, paired_ratio

MATCH_KEY = ["experiment", "players", "lineup", "match_id"]  # one match: its games under one seating
ONE = pl.lit(1.0)  # the weight of a share per row


# ---------------------------------------------------------------- intervals


def with_policy_and_guesser(rows: pl.DataFrame) -> pl.DataFrame:
    """Split "policy+guesser" into two columns (a knob such as "@0.8" stays with its part)."""
    parts = pl.col("strategy").str.split("+")
    return rows.with_columns(policy=parts.list.first(), guesser=parts.list.last())


def with_target_policy(rows: pl.DataFrame) -> pl.DataFrame:
    """Each row joined with the placement policy of the player it guessed: the next seat in the same game."""
    targets = rows.select(*GAME_KEY, pl.col("seat").alias("target_seat"), pl.col("policy").alias("target_policy"))
    return rows.with_columns(target_seat=(pl.col("seat") + 1) % pl.col("players")).join(
        targets, on=[*GAME_KEY, "target_seat"])


def guess_accuracy(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Share of correct guesses per group, with its cluster-robust interval (clustered), the games it rests on
    and the mean chance level of its guesses (a `guess_chance` column; 1/3 without one). `by` may include
    "target_policy"."""
    if "target_policy" in by:
        rows = with_target_policy(rows)
    chance = pl.col("guess_chance").mean() if "guess_chance" in rows.columns else pl.lit(1 / 3)
    counts = rows.group_by(by).agg(guesses=pl.len(), correct=pl.col("guess_correct").sum(), chance=chance)
    accuracy = paired_ratio(rows, pl.col("guess_correct"), ONE, by).select(*by, "lo", "hi", "games",
                                                                          accuracy="estimate")
    pooled = "" if "players" in by else ", pooled over player counts"
    method = clustered_method(rows, f"correct guesses / guesses{pooled}")
    return counts.join(accuracy, on=by, nulls_equal=True).with_columns(method=pl.lit(method)).sort(by)


def accuracy_records(data: GameData, accuracy: pl.DataFrame, *about: str) -> list[dict]:
    """A guess_accuracy record per row of a guess_accuracy frame with a players column, naming the columns
    `about` (guesser, target_policy) it is about; `games` counts the games whose guesses it rests on."""
    return [record(data, r["players"], "guess_accuracy", r["accuracy"], r["lo"], r["hi"], r["games"], r["method"],
                   **{k: r[k] for k in about}, chance=r["chance"], guesses=r["guesses"])
            for r in accuracy.iter_rows(named=True)]


def numbers(data: GameData) -> list[dict]:
    """The overview's Kintsugi numbers: how often a guess, any guesser's, names the left neighbour's colour."""
    return accuracy_records(data, guess_accuracy(data.with_facts(data.rows, "guess_chance"), ["players"]))


def key_finding(numbers: list[dict], players: int) -> str | None:
    """The overview's line for Kintsugi: guessing accuracy over every guesser against chance."""
    found = [r for r in select(numbers, metric="guess_accuracy", players=players) if "guesser" not in r]
    if not found:
        return None
    r = found[0]
    return (f"guesses name the neighbour's colour {pct(r['estimate'])} of the time ({pct_ci(r['low'], r['high'])}), "
            f"chance {pct(r['chance'])}")


def winner_changes(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count: the share of games whose winner set differs from the winners by pieces alone (rate, lo,
    hi), overall and among games with at least one correct guess (rate_correct, lo_correct, hi_correct), each with
    its cluster-robust interval; the method."""
    games = (rows.with_columns(pieces_winner=pl.col("pieces") == pl.col("pieces").min().over(GAME_KEY),
                               actual_winner=pl.col("win") > 0)
             .group_by(GAME_KEY).agg(pl.col(*cluster_columns(rows)).first(),
                                     any_correct=pl.col("guess_correct").any(),
                                     changed=(pl.col("pieces_winner") != pl.col("actual_winner")).any()))
    changes = (games.group_by("players").agg(games=pl.len(), changed=pl.col("changed").sum(),
                                             with_correct=pl.col("any_correct").sum()).sort("players"))
    overall = paired_ratio(games, pl.col("changed"), ONE, ["players"]).select("players", "lo", "hi", rate="estimate")
    among = paired_ratio(games, pl.col("changed"), pl.col("any_correct"), ["players"]).select(
        "players", rate_correct="estimate", lo_correct="lo", hi_correct="hi")
    return (changes.join(overall, on="players").join(among, on="players")
            .with_columns(method=pl.lit(clustered_method(games, "games whose winners changed / games"))))


def chance_verdict(lo: float, hi: float, chance: float) -> str:
    """Where a 95% interval lies relative to the chance level."""
    return "above chance" if lo > chance else "below chance" if hi < chance else "not distinguishable from chance"


def chance_label(data: GameData) -> str:
    """The chance level for headers: one value, or the range over player counts."""
    values = sorted(set(data.facts["guess_chance"].to_list()))
    return pct(values[0]) if len(values) == 1 else f"{pct(values[0])}–{pct(values[-1])}"


def guessing(data: GameData) -> dict:
    rows = with_policy_and_guesser(data.with_facts(data.rows, "guess_chance"))
    return {"rows": rows, "by_target": guess_accuracy(rows, ["guesser", "target_policy"]),
            "by_guesser": guess_accuracy(rows, ["guesser"]), "per_count": guess_accuracy(rows, ["players", "guesser"]),
            "panels": guess_accuracy(rows, ["players", "guesser", "target_policy"]), "changes": winner_changes(rows)}


def guessing_intro(_, data: GameData) -> str:
    return ("At the end each player guesses the secret colour of the player to their left (the next seat). "
            f"Chance is {chance_label(data)}: a guesser knows its own colour and rules it out. Accuracy is shown "
            "against the placement policy of the player being guessed: a low bar means the guesser names that policy's "
            "colour less often.")


def guesser_phrase(accuracy: pl.DataFrame) -> str:
    """One guesser's accuracy against chance: with its interval at one player count, as a range over several."""
    guesser = accuracy["guesser"][0]
    if accuracy.height == 1:
        r = accuracy.row(0, named=True)
        return (f"{guesser} is right {pct(r['accuracy'])} of the time (95% CI {pct_ci(r['lo'], r['hi'])}, "
                f"{chance_verdict(r['lo'], r['hi'], r['chance'])})")
    verdicts = {r["players"]: chance_verdict(r["lo"], r["hi"], r["chance"]) for r in accuracy.iter_rows(named=True)}
    return f"{guesser} is right {spread(accuracy['accuracy'])} of the time, by player count ({by_phrase(verdicts, ())})"


def reading_extremes(panels: pl.DataFrame) -> list[tuple[dict, dict]]:
    """Per player count, the placement policies one guesser reads least and most often; none where it meets one."""
    out = []
    for _, group in groups(panels, ["players"]):
        ranked = group.sort("accuracy")
        if ranked.height > 1:
            out.append((ranked.row(0, named=True), ranked.row(-1, named=True)))
    return out


def reading_sentence(extremes: list[tuple[dict, dict]]) -> str:
    """Whether a guesser reads one placement policy's colour clearly more often than another's, from the policies
    it reads least and most often at each player count."""
    guesser = extremes[0][0]["guesser"]
    clear_at = [low["players"] for low, high in extremes if low["hi"] < high["lo"]]
    if not clear_at:
        return f"No placement policy's colour is read clearly more often than another's by {guesser}."
    if len({(low["target_policy"], high["target_policy"]) for low, high in extremes}) > 1:
        return f"Which placement policy {guesser} reads least and most often depends on the player count."
    low, high = extremes[0]
    lows, highs = [lo["accuracy"] for lo, _ in extremes], [hi["accuracy"] for _, hi in extremes]
    several = len(extremes) > 1
    apart = ("intervals apart" + (" at every player count" if several else "") if len(clear_at) == len(extremes)
             else f"intervals apart at {at_counts(clear_at)} only")
    return (f"Of the placement policies, {guesser} reads {high['target_policy']}'s colour most often and "
            f"{low['target_policy']}'s least often ({spread(highs)} against {spread(lows)}"
            f"{', by player count' if several else ''}; {apart}).")


def guessing_finding(result: dict, data: GameData) -> Finding:
    """How accurate each guesser is against chance at each player count, which placement policy the most accurate
    guesser reads most and least often, and how often a correct guess changes the winner; accuracy and winner
    changes per player count in the table."""
    per_count, changes = result["per_count"], result["changes"]
    order = per_count.group_by("guesser").agg(pl.col("accuracy").mean()).sort("accuracy", "guesser",
                                                                                descending=[True, False])["guesser"]
    text = (f"Against a chance level of {chance_label(data)}, "
            + "; ".join(guesser_phrase(per_count.filter(pl.col("guesser") == g)) for g in order) + ".")
    extremes = reading_extremes(result["panels"].filter(pl.col("guesser") == order[0]))
    by_count = ", by player count" if changes.height > 1 else ""
    if extremes:
        text += " " + reading_sentence(extremes)
    text += f" A correct guess changes the winner in {spread(changes['rate'].to_list())} of games{by_count}."
    rows = [{"players": r["players"], "rate": r["rate"], "lo": r["lo"], "hi": r["hi"],
             **{g: per_count.filter((pl.col("players") == r["players"]) & (pl.col("guesser") == g)).to_dicts()
                for g in order}} for r in changes.iter_rows(named=True)]
    accuracy = [(f"{g} right", lambda r, g=g: f"{pct(r[g][0]['accuracy'])} ({pct_ci(r[g][0]['lo'], r[g][0]['hi'])})"
                 if r[g] else "–") for g in order]
    read = pl.DataFrame([r for pair in extremes for r in pair]) if extremes else per_count.clear()
    numbers = (accuracy_records(data, per_count, "guesser")
               + accuracy_records(data, read, "guesser", "target_policy") + winner_change_records(data, changes))
    return Finding("Guessing accuracy.", text, table("", rows, ("Players", "players"), *accuracy,
                                                     *share_ci("Winner changed by a guess", "rate")), tuple(numbers))


def winner_change_records(data: GameData, changes: pl.DataFrame) -> list[dict]:
    """Per player count, the share of games whose winners differ from the winners by pieces alone."""
    return [record(data, r["players"], "winner_changed_share", r["rate"], r["lo"], r["hi"], r["games"], r["method"],
                   changed=r["changed"])
            for r in changes.iter_rows(named=True)]


def guessing_tables(result: dict, data: GameData) -> list:
    vs = f"vs chance ({chance_label(data)})"
    combined = pl.concat([result["by_guesser"].with_columns(players=pl.lit("all")),
                          result["per_count"].with_columns(pl.col("players").cast(pl.String))], how="diagonal")
    return [
        table("Guessing accuracy by guesser and by the placement policy of the target", result["by_target"],
              ("Guesser", "guesser"), ("Target's policy", "target_policy"), ("Guesses", "guesses", count),
              *share_ci("Correct", "accuracy"), (vs, lambda r: pp(r["accuracy"] - r["chance"])),
              ("Verdict", lambda r: chance_verdict(r["lo"], r["hi"], r["chance"]))),
        table("Guessing accuracy by guesser and player count", combined.sort("guesser"), ("Guesser", "guesser"),
              ("Players", "players"), ("Guesses", "guesses", count), *share_ci("Correct", "accuracy"),
              (vs, lambda r: pp(r["accuracy"] - r["chance"]))),
    ]


def guess_accuracy_chart(result: dict, data: GameData) -> Chart:
    """Grouped bars: accuracy of each guesser against each target policy, one panel per player count."""
    accuracy = result["panels"]
    policies = accuracy["target_policy"].unique().sort().to_list()
    guessers = accuracy["guesser"].unique().sort().to_list()
    counts = data.player_counts
    fig, axes = panels(len(counts), max(4.0, 1.2 * len(policies)) * len(counts) + 0.6, 4.6, sharey=True)
    for ax, players in zip(axes, counts):
        groups = {}
        for guesser in guessers:
            bars = aligned(accuracy.filter((pl.col("players") == players) & (pl.col("guesser") == guesser)),
                           "target_policy", policies)
            groups[guesser] = (bars["accuracy"], bars["lo"], bars["hi"])
        bars_with_ci(ax, policies, groups)
        chance = data.fact("guess_chance", players)
        ax.axhline(chance, color="#555", linestyle="--", linewidth=1.2, label=f"chance ({pct(chance)})")
        ax.set(title=f"{players} players", xlabel="Placement policy of the player guessed")
        ax.set_ylim(0, 1.05)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes[0].set_ylabel("Correct guesses")
    return finished_chart(fig, axes[-1],
                          f"{data.title}: guessing accuracy against the target's placement policy "
                          f"(95% intervals clustered by {cluster_unit(data.rows)})",
                          data.out_dir, f"{data.slug}_guess_accuracy.png",
                          "Share of correct colour guesses by guesser (bar colour) against the placement policy of "
                          "the player guessed, one panel per player count; the dashed line is chance.")


def winner_change_table(changes: pl.DataFrame, _) -> list:
    """Games decided by the guessing phase, per player count."""
    return [table("Games whose winners differ from the winners by pieces alone", changes, ("Players", "players"),
                  ("Games", "games", count), *share_ci("Winner changed", "rate"),
                  ("Games with a correct guess", "with_correct", count),
                  ("Changed among those", lambda r: pct(r["rate_correct"]) if r["with_correct"] else "–"),
                  ("95% CI", lambda r: pct_ci(r["lo_correct"], r["hi_correct"]) if r["with_correct"] else "–"))]


def colour_win_shares(data: GameData) -> pl.DataFrame:
    """Win share by secret colour and player count, with its cluster-robust interval, the games the colour was
    held in and the colour's name from the facts."""
    rows = (data.with_facts(data.rows, "colours")
            .with_columns(colour=pl.col("colours").list.get(pl.col("color").cast(pl.Int64), null_on_oob=True)
                          .fill_null(pl.col("color").cast(pl.String))))
    shares = paired_ratio(rows, pl.col("win"), ONE, ["players", "color"]).select(
        "players", "color", "games", "lo", "hi", share="estimate")
    about = rows.group_by("players", "color").agg(pieces=pl.col("pieces").mean(), colour=pl.col("colour").first())
    return shares.join(about, on=["players", "color"]).with_columns(fair=1 / pl.col("players")).sort("players",
                                                                                                   "color")


def colour_table(shares: pl.DataFrame, _) -> list:
    return [table("Win share by secret colour, with the mean number of pieces before guessing", shares,
                  ("Players", "players"), ("Colour", "colour"), ("Games", "games", count), *share_ci("Win share"),
                  ("Fair share", "fair", pct), ("Mean pieces", "pieces", num))]


def match_totals(data: GameData) -> pl.DataFrame | None:
    """One row per complete match and player: the total score, the player's share of the match win (the lowest, or
    for a game where the highest score wins the highest, total wins; a k-way tie gives each 1/k), the seat it held in
    the match's first game and that game's id (`game_id`, which names the match); None without matches."""
    rows = data.rows
    if "match_id" not in rows.columns or not rows["match_id"].drop_nulls().len():
        return None
    sign = 1 if data.lowest_wins else -1
    return (rows.filter(pl.col("match_id").is_not_null()).group_by(*MATCH_KEY, "player")
            .agg(total=pl.col("score").sum(), games=pl.len(), strategy=pl.col("strategy").first(),
                 first_seat=pl.col("seat").sort_by("game_id").first(), game_id=pl.col("game_id").min())
            .filter(pl.col("games") == pl.col("players")).sort(*MATCH_KEY, "player")  # sums in one order
            .with_columns(best=sign * pl.col("total") == (sign * pl.col("total")).min().over(MATCH_KEY))
            .with_columns(win=pl.col("best").cast(pl.Float64) / pl.col("best").sum().over(MATCH_KEY)))


def match_standings(totals: pl.DataFrame) -> pl.DataFrame:
    """Per player count and strategy: the matches it played, its match win share and its mean match total, each
    with its cluster-robust interval over matches; best share first."""
    by = ["players", "strategy"]
    shares = paired_ratio(totals, pl.col("win"), ONE, by).select(*by, "lo", "hi", "method", share="estimate")
    means = paired_ratio(totals, pl.col("total"), ONE, by).select(*by, total="estimate", total_lo="lo", total_hi="hi")
    return (totals.group_by(by).agg(matches=pl.len()).join(shares, on=by).join(means, on=by)
            .with_columns(fair=1 / pl.col("players")).sort("players", "share", descending=[False, True]))


def first_seat_shares(totals: pl.DataFrame) -> pl.DataFrame:
    """Per player count and the seat held in a match's first game: the share of matches won from it, with its
    cluster-robust interval over matches, the matches and the fair share."""
    return (paired_ratio(totals, pl.col("win"), ONE, ["players", "first_seat"])
            .select("players", "lo", "hi", "method", seat="first_seat", share="estimate", matches="games")
            .with_columns(fair=1 / pl.col("players")))


def matches(data: GameData) -> dict | None:
    """The match standings by strategy and by the seat held in the match's first game; None without matches."""
    totals = match_totals(data)
    return None if totals is None else {"strategies": match_standings(totals), "first_seat": first_seat_shares(totals)}


def match_lineup(data: GameData) -> str:
    """Who sits at a match: the whole pool when it has as many strategies as seats, else a choice from it."""
    pool = data.rows["strategy"].unique(maintain_order=True).to_list()
    seats = data.player_counts
    if len(seats) == 1 and len(pool) == seats[0]:
        return f"every match seats {listing(pool)}"
    return f"each match seats strategies of the pool {listing(pool)}"


def match_leaders(matches: pl.DataFrame) -> list[tuple[dict, dict | None]]:
    """Per player count, the strategy with the largest match win share and the runner-up (None without one)."""
    out = []
    for _, group in groups(matches, ["players"]):
        ranked = group.sort("share", "strategy", descending=[True, False])
        out.append((ranked.row(0, named=True), ranked.row(1, named=True) if ranked.height > 1 else None))
    return out


def match_phrase(leader: dict, runner_up: dict | None) -> str:
    """The leader's match win share at one player count, against the runner-up's and the fair share."""
    text = f"at {leader['players']} players {leader['strategy']} wins {pct(leader['share'])} of its matches"
    if runner_up is not None:
        ahead = "clearly more than" if leader["lo"] > runner_up["hi"] else "not clearly more than"
        text += f", {ahead} {runner_up['strategy']} ({pct(runner_up['share'])})"
    fair = "clearly above" if leader["lo"] > leader["fair"] else "not clearly above"
    return text + f", and {fair} the fair share of {pct(leader['fair'])}"


def first_seat_phrase(seats: pl.DataFrame) -> str:
    """At one player count: the match win share from each seat of a match's first game against the fair share, and
    whether starting that game pays, costs or neither, as the intervals say; another seat beyond fair is named."""
    seats = seats.sort("seat")
    start, *rest = seats.iter_rows(named=True)
    fair = start["fair"]
    shares = [f"the player who starts a match's first game wins {pct(start['share'])} of the matches "
              f"({pct_ci(start['lo'], start['hi'])})"]
    shares += [f"{seat_name(r['seat'])}{' of that game' if i == 0 else ''} "
               f"{pct(r['share'])} ({pct_ci(r['lo'], r['hi'])})" for i, r in enumerate(rest)]
    verdict = ("still pays" if start["lo"] > fair else "costs" if start["hi"] < fair else
               "neither clearly pays nor clearly costs")
    text = (f"at {start['players']} players {listing(shares)}, against a fair share of {pct(fair)}: starting the "
            f"first game of a match {verdict}")
    for side, beyond in (("more", lambda r: r["lo"] > fair), ("less", lambda r: r["hi"] < fair)):
        names = [f"Player {r['seat'] + 1}" for r in rest if beyond(r)]
        if names:
            wins = "wins" if len(names) == 1 else "win"
            text += f", and {listing(names)} of that game {wins} clearly {side} than fair"
    return text


def first_seat_sentence(first_seat: pl.DataFrame) -> str:
    """The match win share by the seat held in a match's first game, per player count."""
    text = "; ".join(first_seat_phrase(group) for _, group in groups(first_seat, ["players"]))
    return text[0].upper() + text[1:] + "."


def match_finding(result: dict, data: GameData) -> Finding:
    """The strongest strategy over full matches at each player count, against the runner-up and the fair share; and
    whether starting a match's first game still pays: the match win share by the seat held in that game."""
    leaders = match_leaders(result["strategies"])
    text = (f"Over full matches (each player starts once, the {'lowest' if data.lowest_wins else 'highest'} total "
            f"wins; {match_lineup(data)}), " + "; ".join(match_phrase(*pair) for pair in leaders) + ". "
            + first_seat_sentence(result["first_seat"]))
    rows = [{**leader, **{f"second_{k}": (runner_up or {}).get(k) for k in ("strategy", "share", "lo", "hi")}}
            for leader, runner_up in leaders]
    numbers = [record(data, r["players"], "match_win_share", r["share"], r["lo"], r["hi"], r["matches"] * r["players"],
                      f"match wins / matches; {r['method']} over matches", strategy=r["strategy"], matches=r["matches"],
                      fair=r["fair"]) for pair in leaders for r in pair if r is not None]
    numbers += [record(data, r["players"], "match_win_share_by_first_seat", r["share"], r["lo"], r["hi"],
                       r["matches"] * r["players"], f"match wins / matches; {r['method']} over matches", seat=r["seat"],
                       matches=r["matches"], fair=r["fair"]) for r in result["first_seat"].iter_rows(named=True)]
    return Finding("Matches.", text, table("", rows, ("Players", "players"), ("Strongest", "strategy"),
                                           ("Matches", "matches", count), *share_ci("Match win share"),
                                           ("Runner-up", "second_strategy"),
                                           *share_ci("Its share", "second_share", "second_lo", "second_hi"),
                                           ("Fair share", "fair", pct)), tuple(numbers))


def match_table(result: dict, _) -> list:
    return [table("Match results by strategy (ties share the match win; 95% intervals clustered by match)",
                  result["strategies"], ("Players", "players"), ("Strategy", "strategy"),
                  ("Matches", "matches", count), *share_ci("Match win share"), ("Fair share", "fair", pct),
                  *est("Mean total", "total")),
            table("Match win share by the seat held in the match's first game (Player 1 starts it)",
                  result["first_seat"], ("Players", "players"), ("Player in the first game", "seat", seat_name),
                  ("Matches", "matches", count), *share_ci("Match win share"), ("Fair share", "fair", pct))]


def chance_caveat(_, data: GameData) -> list[str]:
    return [f"Guessing chance level ({chance_label(data)}) assumes colours are dealt uniformly at random without "
            "replacement and that a guesser rules out its own colour and nothing else; a guesser that did not even "
            f"rule out its own colour would be at {pct(1 / len(data.fact('colours', data.player_counts[0])))}. "
            "Accuracy above chance comes from reading the board."]


ANALYSES = [
    Analysis("Guessing accuracy", guessing, intro=guessing_intro, chart=guess_accuracy_chart,
             tables=guessing_tables, finding=guessing_finding, caveats=chance_caveat,
             leading_only=True),
    Analysis("Did a correct guess change the winner?", lambda data: winner_changes(data.rows),
             tables=winner_change_table,
             intro="Winners recomputed from the pieces alone (before any guess is scored) compared with the actual "
                   "winners. A difference means the guessing phase decided the game."),
    Analysis("Win share by secret colour", colour_win_shares, tables=colour_table),
    Analysis("Matches", matches, tables=match_table, finding=match_finding,
             intro="The rulebook recommends a match of as many games as players, each player starting once; the "
                   "lowest total score wins and ties share. Only complete matches are counted."),
]


REPORT = GameReport(analyses=tuple(ANALYSES), numbers=numbers, key_finding=key_finding)
