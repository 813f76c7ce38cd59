"""What turning scored boards is worth: rotator against greedy in the same games, paired over deals."""

import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GAME_KEY, Analysis, GameData, groups, record
from reports.charts import aligned, bars_with_ci, finished_chart, panels
from reports.fmt import by_phrase, count, effect, listing, num, pp, pp_ci, spread
from reports.render import Chart, Finding, est, share_ci, table
from reports.stats import clustered, paired_mean_intervals

ROTATOR, BASE = "rotator", "greedy"  # rotator plays exactly like greedy but turns the boards it scores
IS_ROTATOR, IS_BASE = pl.col("strategy") == ROTATOR, pl.col("strategy") == BASE
COMPARED = {"diff": "win", "end_diff": "endgame_points", "mid_diff": "midgame_points"}  # ROTATOR − BASE in a column
RECORDED = (("rotation_win_share_difference", "diff"), ("rotation_endgame_points_difference", "end_diff"),
            ("rotation_midgame_points_difference", "mid_diff"))


def rotation_value(rows: pl.DataFrame) -> pl.DataFrame:
    """Per experiment and player count, over the games with both ROTATOR and BASE at the table: each one's
    win share and mean end-game points, and the differences ROTATOR − BASE in win share, end-game and mid-game
    points, all with cluster-robust intervals over deals (all seatings of one game index; the differences paired);
    the games, deals and ROTATOR's seats counted, and who else sat at those tables (rotation_company)."""
    both = rows.filter(IS_ROTATOR.any().over(GAME_KEY) & IS_BASE.any().over(GAME_KEY))
    if both.is_empty():
        return pl.DataFrame()
    by = ["experiment", "players"]
    win, end = pl.col("win"), pl.col("endgame_points")
    sides = clustered(both, {"share": (win * IS_ROTATOR, IS_ROTATOR), "base_share": (win * IS_BASE, IS_BASE),
                             "end": (end * IS_ROTATOR, IS_ROTATOR), "base_end": (end * IS_BASE, IS_BASE)}, by)
    differences = pl.DataFrame([{**key, **paired(stratum)} for key, stratum in groups(both, by)])
    sizes = both.group_by(by).agg(deals=pl.col("deal").n_unique(), rot_seats=IS_ROTATOR.sum())
    return (sides.drop("method").join(differences, on=by, maintain_order="left")
            .join(sizes, on=by, maintain_order="left")
            .join(rotation_company(both), on=by, how="left", maintain_order="left"))


def paired(stratum: pl.DataFrame) -> dict[str, float]:
    """ROTATOR − BASE in every COMPARED column, with its interval (paired_cluster_t over the stratum's deals)."""
    out = {}
    for name, column in COMPARED.items():
        estimate, lo, hi = (float(x[2]) for x in paired_mean_intervals(stratum, pl.col(column), IS_ROTATOR, IS_BASE))
        out |= {name: estimate, f"{name}_lo": lo, f"{name}_hi": hi}
    return out


def rotation_company(both: pl.DataFrame) -> pl.DataFrame:
    """Per experiment and player count, over the games with both ROTATOR and BASE: `one_each` (every such game
    seats exactly one of each) and `others` (the other strategies at those tables, sorted)."""
    others = (both.filter(~IS_ROTATOR & ~IS_BASE).group_by("experiment", "players")
              .agg(others=pl.col("strategy").unique().sort()))
    seated = both.group_by(*GAME_KEY, "players").agg(one_each=(IS_ROTATOR.sum() == 1) & (IS_BASE.sum() == 1))
    return (seated.group_by("experiment", "players").agg(pl.col("one_each").all())
            .join(others, on=["experiment", "players"], how="left")
            .with_columns(others=pl.col("others").fill_null(pl.lit([], dtype=pl.List(pl.String)))))


def rotation(data: GameData) -> pl.DataFrame | None:
    value = rotation_value(data.rows)
    return None if value.is_empty() else value


def company_phrase(r: dict) -> str:
    """Who else sat at the tables where ROTATOR met BASE."""
    if r["others"]:
        return f"with the other seats taken from {listing(r['others'])}"
    return "the two alone" if r["one_each"] else "only the two (one of them at several seats)"


def signed(x: float) -> str:
    return f"{x:+.1f}"


def rotation_finding(rotation: pl.DataFrame, data: GameData) -> Finding:
    """What turning scored boards is worth at each player count, in the games where ROTATOR met BASE; who else sat
    at those tables."""
    rotation = rotation.sort("players")
    company = by_phrase({r["players"]: company_phrase(r) for r in rotation.iter_rows(named=True)}, data.player_counts)
    text = (f"Turning scored boards is worth {spread(rotation['diff'].to_list(), pp)} win share and "
            f"{spread(rotation['end_diff'].to_list(), signed)} end-game points per player, by player "
            f"count, measured as {ROTATOR} against {BASE} in the games where both played: {company}")
    effects = {(effect(r["diff_lo"], r["diff_hi"], r["diff"]), r["diff"] > 0) for r in rotation.iter_rows(named=True)}
    if len(effects) == 1 and next(iter(effects))[0] != "unclear":
        size, more = next(iter(effects))
        text += (f"; {ROTATOR} wins {'clearly' if size == 'clear' else 'slightly (under 1 pp)'} "
                 f"{'more' if more else 'less'} often at every player count")
    largest_mid = float(rotation["mid_diff"].abs().max())
    if largest_mid < 0.25 * float(rotation["end_diff"].abs().min()):
        text += (f". The points difference lies in the end-game hexagons: mid-game points differ by at most "
                 f"{num(largest_mid)} per player")
    return Finding("Rotation.", text + ".", table(
        "", rotation, ("Players", "players"), ("Games", "games", count),
        *est("Win share difference", "diff", pp, pp_ci), ("End-game points difference", "end_diff", signed),
        ("95% CI", ("end_diff_lo", "end_diff_hi"), lambda lo, hi: f"{lo:+.1f} to {hi:+.1f}")),
        tuple(rotation_records(rotation, data)))


def rotation_records(rotation: pl.DataFrame, data: GameData) -> list[dict]:
    """Per player count, ROTATOR − BASE in the games with both: win share, end-game and mid-game points."""
    return [record(data, r["players"], metric, r[key], r[f"{key}_lo"], r[f"{key}_hi"], r["games"],
                   "paired_cluster_t", strategy=ROTATOR, against=BASE)
            for r in rotation.iter_rows(named=True) for metric, key in RECORDED]


def rotation_table(rotation: pl.DataFrame, _) -> list:
    interval = ("95% CI", lambda lo, hi: f"{lo:+.2f} to {hi:+.2f}")
    return [table(f"{ROTATOR} against {BASE} in the same games (difference = {ROTATOR} − {BASE}; intervals clustered "
                  "by deal)", rotation, ("Experiment", "experiment"), ("Players", "players"),
                  ("Games", "games", count), *share_ci(f"{ROTATOR} wins", "share", "share_lo", "share_hi"),
                  *share_ci(f"{BASE} wins", "base_share", "base_share_lo", "base_share_hi"),
                  *est("Difference", "diff", pp, pp_ci),
                  (f"End-game points {ROTATOR} / {BASE}", lambda r: f"{num(r['end'], 1)} / {num(r['base_end'], 1)}"),
                  ("Difference", "end_diff", lambda x: f"{x:+.2f}"),
                  (interval[0], ("end_diff_lo", "end_diff_hi"), interval[1]),
                  ("Mid-game difference", "mid_diff", lambda x: f"{x:+.2f}"),
                  (interval[0], ("mid_diff_lo", "mid_diff_hi"), interval[1]))]


def rotation_chart(rotation: pl.DataFrame, data: GameData) -> Chart:
    """Two panels of horizontal bars per player count, one bar per experiment: the win-share difference
    and the end-game points difference, rotator − greedy, with 95% cluster-robust intervals over deals."""
    counts = rotation["players"].unique().sort().to_list()
    experiments = rotation["experiment"].unique().sort().to_list()
    fig, axes = panels(2, 10.0, 2.2 + 0.3 * len(counts) * max(2, len(experiments)), sharey=True)
    for ax, (column, xlabel) in zip(axes, [("diff", f"Win share: {ROTATOR} − {BASE} (pp)"),
                                           ("end_diff", f"End-game points: {ROTATOR} − {BASE}")]):
        bars = {}
        for experiment in experiments:
            panel = aligned(rotation.filter(pl.col("experiment") == experiment), "players", counts)
            bars[experiment] = (panel[column], panel[f"{column}_lo"], panel[f"{column}_hi"])
        bars_with_ci(ax, [f"{p} players" for p in counts], bars, horizontal=True)
        ax.axvline(0, color="#555", linewidth=1.0)
        ax.set_xlabel(xlabel)
        ax.set_xlim(left=min(0.0, float(rotation[f"{column}_lo"].min()) * 1.1))
    axes[0].xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0, symbol=""))
    axes[0].set_title("Win share")
    axes[1].set_title("End-game points per player")
    return finished_chart(fig, axes[-1],
                          f"{data.title}: what turning scored boards is worth "
                          f"({ROTATOR} − {BASE}, 95% intervals clustered by deal)",
                          data.out_dir, f"{data.slug}_rotation.png",
                          f"{ROTATOR} minus {BASE} in the games where both played: the difference in win share "
                          "(percentage points) and in end-game points per player, per player count, one bar per "
                          "experiment. Bars right of zero mean turning boards pays.")


INTRO = (
    f"{ROTATOR} plays exactly like {BASE} but turns every board it scores to set up end-game hexagons, so the "
    "difference between the two is what rotation is worth. Only games with both at the table count, so both meet "
    "the same opponents in the same games. Win shares are per seat played; their intervals and those of the "
    f"differences ({ROTATOR} − {BASE}) are cluster-robust intervals over whole deals, i.e. every "
    "seating of one game index together, so the comparison stays paired. In an experiment whose pool is just the "
    "two they are alone at the table under every seating; in a tournament they also meet the other strategies.")

ANALYSIS = Analysis(f"How much rotation is worth: {ROTATOR} against {BASE}", rotation, intro=INTRO,
                    chart=rotation_chart, tables=rotation_table, finding=rotation_finding,
                    absent=f"{INTRO} No game in these data has both {ROTATOR} and {BASE} at the table. Run "
                           "experiments/kaleido_rotation.toml to measure what turning scored boards is worth.")
