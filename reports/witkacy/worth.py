"""Action tokens: what each is worth to a strategy, BASE against BASE-no-TOKEN on the same deals (restricted play,
reports/restricted.py), in win share and in points over the table."""

import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GAME_KEY, Analysis, GameData, record
from reports.charts import aligned, bars_with_ci, finished_chart, panels
from reports.fmt import clear, count, listing, num, pct, pp, pp_ci, spread
from reports.render import Chart, Finding, est, table
from reports.restricted import make_up, met_records, pairs, win_difference
from reports.stats import paired_mean_intervals
from reports.witkacy.common import signed, signed_ci

TOKEN = "TOKEN"  # whom a variant met is recorded by its kind: "saboteur-no-TOKEN"


def with_margin(rows: pl.DataFrame) -> pl.DataFrame:
    """rows with `margin`: the seat's score minus the mean score of the other seats of its game. What happens to
    everyone at a table (a Stash, a Gift or a Rush takes one card more from the deck or the display, and the game
    may end sooner for all) cancels."""
    others = (pl.col("score").sum().over(GAME_KEY) - pl.col("score")) / (pl.col("players") - 1)
    return rows.with_columns(margin=pl.col("score") - others)


def win_worth(stratum: pl.DataFrame, variant: str, base: str) -> dict:
    """What the token is worth in win share, base − variant: restricted.win_difference (variant − base, paired over
    deals, with the unpaired Newcombe interval), turned round."""
    wins = win_difference(stratum, variant, base)
    return {"games": wins["games"], "deals": wins["clusters"], "games_a": wins["games_a"], "games_b": wins["games_b"],
            "share": wins["share_a"], "base_share": wins["share_b"], "win_worth": -wins["estimate"],
            "win_worth_lo": -wins["hi"], "win_worth_hi": -wins["lo"], "win_worth_lo_unpaired": -wins["hi_unpaired"],
            "win_worth_hi_unpaired": -wins["lo_unpaired"], "win_worth_width_ratio": wins["width_ratio"],
            "win_worth_games_factor": wins["games_factor"], "win_method": wins["method"],
            "win_method_unpaired": wins["method_unpaired"]}


def point_worth(stratum: pl.DataFrame, variant: str, base: str) -> dict:
    """The base's and the variant's mean points over the table, and base − variant, each with its cluster-robust
    interval over the same deals (stats.paired_mean_intervals)."""
    means, lo, hi = paired_mean_intervals(stratum, pl.col("margin"), pl.col("strategy") == base,
                                          pl.col("strategy") == variant)
    return {k: float(x) for key, m, low, high in zip(("base_points", "points", "point_worth"), means, lo, hi)
            for k, x in ((key, m), (f"{key}_lo", low), (f"{key}_hi", high))}


def token_values(data: GameData) -> pl.DataFrame | None:
    """What each action token is worth to its BASE, per experiment and player count where both BASE and
    BASE-no-ACTION played, and whom the two sides met."""
    out = [{**key, "strategy": variant, "base": base, "action": action,
            "seats": int(stratum["strategy"].eq(variant).sum()), **win_worth(stratum, variant, base),
            **point_worth(stratum, variant, base), **make_up(stratum, variant, base)}
           for key, stratum, variant, base, action in pairs(with_margin(data.rows))]
    return pl.DataFrame(out) if out else None


def worth_sentence(base: str, ranked: pl.DataFrame) -> str:
    """One base strategy's tokens, by points worth: their worth, the verdicts, the most valuable in wins, and whom
    the base and its variants met."""
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
        one = len(losses) == 1
        text += (f" {listing(losses).capitalize()} clearly cost{'s' if one else ''} {base} points, as this bot plays "
                 f"{'it' if one else 'them'}.")
    if unclear:
        text += f" No clear worth in points: {listing(unclear)}."
    best = max(rows, key=lambda r: r["win_worth"])
    return text + (f" In win share, {best['action']} is worth the most: {pp(best['win_worth'])} (95% CI "
                   f"{pp_ci(best['win_worth_lo'], best['win_worth_hi'])} paired over deals; unpaired "
                   f"{pp_ci(best['win_worth_lo_unpaired'], best['win_worth_hi_unpaired'])}). The two sides met "
                   f"different opponents: {pct(rows[0]['variants_met'])} of {base}'s opponent seats held its "
                   f"variants, while each variant's held {base} in {spread([r['base_met'] for r in rows])} and other "
                   f"variants in {spread([r['others_met'] for r in rows])}.")


def largest_strata(result: pl.DataFrame) -> pl.DataFrame:
    """Each variant's row from the experiment and player count where it played most, most valuable token first."""
    return (result.sort("seats", "experiment", "players", descending=[True, False, False])
            .unique("strategy", keep="first").sort("point_worth", "strategy", descending=[True, False]))


def worth_finding(result: pl.DataFrame, data: GameData) -> Finding:
    """Per base strategy, what each token is worth (each variant's largest stratum)."""
    main = largest_strata(result).sort("base", maintain_order=True)
    sentences = [worth_sentence(base, group) for (base,), group in main.partition_by("base", as_dict=True,
                                                                                     maintain_order=True).items()]
    return Finding("Action tokens (what each is worth).", " ".join(sentences), table(
        "", main, ("Base", "base"), ("Token", "action"), *est("Worth in points over the table", "point_worth", signed,
                                                               signed_ci),
        *est("Worth in win share", "win_worth", pp, pp_ci),
        ("Unpaired 95% CI", ("win_worth_lo_unpaired", "win_worth_hi_unpaired"), pp_ci),
        ("Unpaired needs × the games", "win_worth_games_factor", lambda f: num(f, 1))),
        tuple(worth_numbers(main, data)))


def worth_numbers(result: pl.DataFrame, data: GameData) -> list[dict]:
    """Each token's worth in win share (with both sides' shares and the unpaired interval) and in points over the
    table, and whom each side met."""
    out = []
    for r in result.iter_rows(named=True):
        about = {"experiment": r["experiment"], "strategy": r["strategy"], "base": r["base"], "action": r["action"]}
        unpaired = {"low_unpaired": r["win_worth_lo_unpaired"], "high_unpaired": r["win_worth_hi_unpaired"],
                    "width_ratio": r["win_worth_width_ratio"], "games_factor": r["win_worth_games_factor"],
                    "method_unpaired": r["win_method_unpaired"]}
        out += [record(data, r["players"], "token_worth_win_share", r["win_worth"], r["win_worth_lo"],
                       r["win_worth_hi"], r["games"], r["win_method"], **about, share_base=r["base_share"],
                       share_variant=r["share"], **unpaired),
                record(data, r["players"], "token_worth_points", r["point_worth"], r["point_worth_lo"],
                       r["point_worth_hi"], r["games"], "paired_cluster_t", **about, points_base=r["base_points"],
                       points_variant=r["points"]),
                *met_records(data, r, TOKEN)]
    return out


def worth_tables(result: pl.DataFrame, _) -> list:
    return [table("What each action token is worth: BASE against BASE-no-TOKEN (worth = base − variant; 95% "
                  "intervals: paired, cluster-robust over deals; unpaired: Newcombe), and whom the variant met",
                  result.sort("base", "experiment", "players", "point_worth", descending=[False, False, False, True]),
                  ("Players", "players"), ("Base", "base"), ("Token", "action"), ("Variant seats", "seats", count),
                  ("Variant wins", "share", pct), ("Base wins", "base_share", pct),
                  *est("Worth (win share)", "win_worth", pp, pp_ci),
                  ("Unpaired 95% CI", ("win_worth_lo_unpaired", "win_worth_hi_unpaired"), pp_ci),
                  ("Variant points over table", "points", signed), ("Base points over table", "base_points", signed),
                  *est("Worth (points over table)", "point_worth", signed, signed_ci),
                  ("Variant's opponents: base", "base_met", pct),
                  ("Variant's opponents: other variants", "others_met", pct))]


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
                          "(BASE − BASE-no-TOKEN, 95% paired intervals over deals)",
                          data.out_dir, f"{data.slug}_action_worth.png",
                          "What each action token is worth to the strategy in brackets: its points over the table "
                          "(its score minus the mean of the other players' in the same game; left) and its win share "
                          "(right) minus those of the same strategy never using that token, over the same deals. Bars "
                          "right of zero: the strategy does better with the token; most valuable first.")
WORTH_INTRO = (
    "A BASE-no-TOKEN strategy plays like BASE but never uses that action token. What the token is worth to BASE is "
    "BASE's win share and its mean points over its table (its score minus the mean score of the other players in "
    "the same game), minus the variant's, in each experiment and player count where both played, on the same deals. "
    "Both face the rest of the pool, which is not the same field for both: BASE never meets itself, and a variant "
    "meets BASE in only some of its opponent seats (the finding gives the make-up). "
    "Points over the table, not raw points: a Stash, a Gift and a Rush each take one card more from the deck or the "
    "display (Solvent and Correction take none), so the game may end sooner for everyone at the table; subtracting "
    "the table's mean cancels what falls on all its players. Both differences carry a paired cluster-robust interval: "
    "intervals are clustered by deal (every seating of one deal together; matches in match mode), the same deals for "
    "both sides, and a k-way tie's 1/k of a win is summed as it is. Beside the win share's interval stands the "
    "unpaired one (Newcombe), as if every game were independent.")

CAVEATS = (
    "Witkacy: a token's worth compares a strategy with its BASE-no-TOKEN variant on the same deals of one pool, each "
    "facing the rest of that pool, so not the same opponents; it measures what the token is worth to that bot's way "
    "of playing it in that field, not to a person.",
)

TOKEN_WORTH = Analysis(
    "Action tokens: what each is worth", token_values, intro=WORTH_INTRO, chart=worth_chart, tables=worth_tables,
    finding=worth_finding, caveats=CAVEATS,
    absent="No restricted strategies (BASE-no-TOKEN, e.g. saboteur-no-gift) played beside their BASE in these "
           "experiments. Run experiments/witkacy_restricted.toml to measure what each action token is worth.")
