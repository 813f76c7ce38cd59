"""Numbers and lists in words, as every table cell and finding writes them."""

import math
from collections.abc import Iterable

UNKNOWN = "–"  # a number the data cannot give (an interval from too few deals)


def pct(x: float) -> str:
    """0.4567 -> '45.7%'."""
    return UNKNOWN if math.isnan(x) else f"{100 * x:.1f}%"


def pct_ci(lo: float, hi: float) -> str:
    """An interval of proportions: '43.2–48.1%' (more decimals where one would hide its width)."""
    if math.isnan(lo) or math.isnan(hi):
        return UNKNOWN
    digits = 1
    while digits < 3 and lo != hi and f"{100 * lo:.{digits}f}" == f"{100 * hi:.{digits}f}":
        digits += 1
    return f"{100 * lo:.{digits}f}–{100 * hi:.{digits}f}%"


def pp(x: float) -> str:
    """A signed difference of proportions in percentage points: '+4.3 pp' ('+0.0 pp', never '-0.0 pp')."""
    return f"{round(100 * x, 1) + 0.0:+.1f} pp"


def pp_ci(lo: float, hi: float) -> str:
    """An interval of differences in percentage points: '+3.1 to +5.6 pp'."""
    if math.isnan(lo) or math.isnan(hi):
        return UNKNOWN
    return f"{round(100 * lo, 1) + 0.0:+.1f} to {round(100 * hi, 1) + 0.0:+.1f} pp"


def num(x: float, digits: int = 2) -> str:
    """A plain number with fixed decimals ('–' for one the data cannot give)."""
    return UNKNOWN if math.isnan(x) else f"{x:.{digits}f}"


def num_ci(lo: float, hi: float, digits: int = 2) -> str:
    """An interval of plain numbers."""
    if math.isnan(lo) or math.isnan(hi):
        return UNKNOWN
    return f"{lo:.{digits}f} to {hi:.{digits}f}"


def p_value(p: float) -> str:
    """A p-value in three significant digits; below what a float can hold, '< 1e-300' (never a bare '0')."""
    return "< 1e-300" if p < 1e-300 else f"{p:.3g}"


def count(n: int) -> str:
    """An integer with thousands separators."""
    return f"{n:,}"


def seat_name(seat: int) -> str:
    """A seat as players name it: seat 0 (the start player) is 'Player 1', seat s is 'Player s+1'."""
    return f"Player {seat + 1}"


def yes(flag: bool) -> str:
    return "yes" if flag else "no"


def clear(lo: float, hi: float) -> bool:
    """A 95% interval that excludes zero."""
    return lo > 0 or hi < 0


NOTICEABLE_PP = 0.01  # a difference of shares under 1 pp is one a designer would not notice
NOTICEABLE_RELATIVE = 0.03  # nor one of points, copies or turns under 3% of their level


def effect(lo: float, hi: float, estimate: float, level: float | None = None) -> str:
    """How a difference with its 95% interval reads: 'clear' (the interval excludes 0 and the effect is one a
    designer would notice: 1 pp of a share, or 3% of `level`, the size of the measure, for anything else), 'tiny'
    (the interval excludes 0, the effect is smaller than that) or 'unclear' (the interval holds 0 or is unknown)."""
    if math.isnan(lo) or math.isnan(hi) or not clear(lo, hi):
        return "unclear"
    noticeable = NOTICEABLE_PP if level is None else NOTICEABLE_RELATIVE * abs(level)
    return "clear" if abs(estimate) >= noticeable else "tiny"


def listing(items: Iterable[str]) -> str:
    """['a', 'b', 'c'] -> 'a, b and c'."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""


def at_counts(counts: Iterable[int], every: Iterable[int] = ()) -> str:
    """[2, 3] -> '2 and 3 players'; every player count there is -> 'every player count'."""
    counts = sorted(counts)
    if len(counts) > 1 and counts == sorted(every):
        return "every player count"
    return listing(str(c) for c in counts) + (" player" if counts == [1] else " players")


def by_phrase(phrases: dict[int, str], every: Iterable[int]) -> str:
    """{2: 'x', 3: 'y', 4: 'y'} -> 'x at 2 players and y at 3 and 4 players'."""
    grouped: dict[str, list[int]] = {}
    for players, phrase in sorted(phrases.items()):
        grouped.setdefault(phrase, []).append(players)
    return listing(f"{phrase} at {at_counts(counts, every)}" for phrase, counts in grouped.items())


def spread(values, fmt=pct) -> str:
    """'12.0%' or '12.0% to 15.3%': the range of a measure over player counts."""
    lo, hi = fmt(min(values)), fmt(max(values))
    return lo if lo == hi else f"{lo} to {hi}"
