"""Each game's trace read as an outside checker would: from the trace alone (`atelier play GAME --json`) and the
rulebooks (../shared/rules/), never from the games' code, derive the scores, ranks, win shares, winners and the
game's own result columns.

`read(trace)` returns a Reading. Ranks are 1 = best, tied seats sharing the better rank; a win share is 1/k for
each of k seats tied for first, after the rulebook's tie-breaks. Where the trace records what the game did (a
board scored, the pieces counted, pottery broken), the reading recomputes it and raises AssertionError on any
difference, naming it. What the trace cannot give is listed in `UNREAD` with the reason.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# game -> column -> why the trace cannot give it: every rule's result column of the five games can be read; what
# the players write of their own (Table.written) is no rule's outcome.
BELIEF = "what the player's guesser believed, which the players write; the trace records choices, not beliefs"
UNREAD: dict[str, dict[str, str]] = {"kintsugi": {"belief": BELIEF, "belief_entropy": BELIEF}}


@dataclass(frozen=True)
class Reading:
    scores: list[int]
    rank: list[int]
    win: list[float]
    winners: list[int]
    columns: dict[str, list]  # column -> one value per seat (a per-game column repeats its value on every seat)


def standings(keys: list[tuple], scores: list[int], columns: dict[str, list]) -> Reading:
    """A Reading from each seat's key, compared whole (larger is better: the score, then the tie-breaks)."""
    best = max(keys)
    winners = [s for s, key in enumerate(keys) if key == best]
    rank = [1 + sum(other > mine for other in keys) for mine in keys]
    win = [1 / len(winners) if s in winners else 0.0 for s in range(len(keys))]
    return Reading(scores, rank, win, winners, columns)


def read(trace: dict) -> Reading:
    return READERS[trace["game"]](trace)


def data_file(trace: dict, key: str, package: str, default: str) -> dict:
    """The game's data file the trace's params name (the shipped one when empty), read as TOML."""
    path = trace["params"][key] or ROOT / "sim" / package / default
    return tomllib.loads(Path(path).read_text(encoding="utf-8"))


def majority(counts: dict[str, int], first: int, second: int, tie_pool: int, monochrome: int,
             holes: int, white_fills: bool) -> dict[str, int]:
    """Kaleido's scoring of one board or hexagon (Scoring): counts of coloured tiles (white never counts). The
    most tiles: `first`; the second most: `second`, split rounded down on a tie; a tie for first splits
    `tie_pool` rounded down and nobody else scores; all six holes of one colour: `monochrome` (with
    `white_fills`, one colour and white tiles also count as all six)."""
    present = {c: n for c, n in counts.items() if n > 0}
    if not present:
        return {}
    top = max(present.values())
    leaders = [c for c, n in present.items() if n == top]
    if len(leaders) > 1:
        return {c: tie_pool // len(leaders) for c in leaders}
    (leader,) = leaders
    rest = {c: n for c, n in present.items() if c != leader}
    if not rest and (top == holes or white_fills):
        return {leader: monochrome}
    points = {leader: first}
    if rest:
        runner = max(rest.values())
        seconds = [c for c, n in rest.items() if n == runner]
        points |= {c: second // len(seconds) for c in seconds}
    return points


# ------------------------------------------------------------------------------------------------ Kintsugi


def _kintsugi(trace: dict) -> Reading:
    """Rulebook: each card must cover exactly one fragment of the previous card; a piece is a group of visible
    fragments of one colour, joined corner to corner too (connectivity 8, or 4 by the switch); your score is
    your pieces, minus your left neighbour's (the next seat: play proceeds to the left) if you named their
    colour; the lowest score wins, ties share."""
    players, cards, colors = trace["players"], trace["cards"], trace["colors"]
    table: dict[tuple[int, int], int] = {}
    previous = None
    for turn, laid in enumerate([trace["start"], *trace["placements"]]):
        cells = [(laid["row"] + i, laid["col"] + j) for i in (0, 1) for j in (0, 1)]
        if previous is not None:
            assert laid["seat"] == (turn - 1) % players, f"turn {turn} is seat {laid['seat']}'s"
            assert len(set(cells) & set(previous)) == 1, f"turn {turn} does not cover exactly one fragment"
        layout = np.rot90(np.array(cards[laid["card"]]), laid["rotation"]).ravel()
        table.update(zip(cells, layout.tolist()))
        previous = cells
    order = [trace["start"]["card"]] + [p["card"] for p in trace["placements"]]
    assert sorted(order) == list(range(len(cards))), "every card is laid once"
    pieces = kintsugi_pieces(table, trace["params"]["connectivity"])
    assert pieces == trace["pieces"], f"pieces {trace['pieces']} are {pieces}"
    own = [pieces[c] for c in colors]
    left = [(s + 1) % players for s in range(players)]
    correct = [trace["guesses"][s] == colors[left[s]] for s in range(players)]
    scores = [own[s] - (own[left[s]] if correct[s] else 0) for s in range(players)]
    columns = {"color": colors, "pieces": own, "guess": trace["guesses"], "guess_correct": correct,
               "target_color": [colors[left[s]] for s in range(players)]}
    return standings([(-v,) for v in scores], scores, columns)


def kintsugi_pieces(table: dict[tuple[int, int], int], connectivity: int) -> list[int]:
    """Pieces of each colour on a table {cell: colour}: groups joined by an edge (or a corner, connectivity 8)."""
    steps = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)
             and (connectivity == 8 or dr == 0 or dc == 0)]
    counts, left = [0] * 4, dict(table)
    while left:
        cell, colour = left.popitem()
        counts[colour] += 1
        group = [cell]
        for r, c in group:  # the group grows while it is read
            for dr, dc in steps:
                if left.get((r + dr, c + dc)) == colour:
                    group.append((r + dr, c + dc))
                    del left[r + dr, c + dc]
    return counts


# ---------------------------------------------------------------------------------------- Broken and Beautiful

POTTERY = ("cup", "saucer", "plate", "bowl", "tea_jar", "vase", "teapot")
SCORED = (*POTTERY, "tray", "box")


def _broken_beautiful(trace: dict) -> Reading:
    """Rulebook: the rounds replayed card by card (sales, breakage by the leftover card and the deck's top card,
    repairs at the card's value plus one per item the seat already fixed this round, the first free with a gold
    card showing), then the Pottery Scores table; the most points wins, ties go to the most repaired items,
    then the most items overall, then share."""
    players, params, catalog = trace["players"], trace["params"], trace["catalog"]
    kit = data_file(trace, "components", "broken_beautiful", "components.toml")
    kind = [c["type"] for c in catalog]
    held: list[dict[int, str]] = [{} for _ in range(players)]
    ingots = [params["new_player_ingots"]] * players
    supply = kit["supply"] - params["new_player_ingots"] * players
    for r, entry in enumerate(trace["rounds"]):
        supply = _bb_round(r, entry, players, catalog, held, ingots, supply, params["supply_shortfall"])
    final = trace["final"]
    assert [{c["card"]: c["state"] for c in col} for col in final["collections"]] == held, "final collections"
    assert final["ingots"] == ingots, f"final ingots {final['ingots']} are {ingots}"
    unbroken = [{c: st for c, st in col.items() if st != "broken"} for col in held]
    jars = [sum(kind[c] == "tea_jar" for c in col) for col in unbroken]
    by_type = [_bb_points(unbroken[s], ingots[s], jars[:s] + jars[s + 1:], catalog, kit["scoring"])
               for s in range(players)]
    scores = [sum(points.values()) for points in by_type]
    repaired = [sum(st == "repaired" for st in col.values()) for col in held]
    items = [len(col) if params["tie_items_count_broken"] else len(unbroken[s]) for s, col in enumerate(held)]
    deck = len(catalog)
    columns = {"rounds": [deck // (2 * players + 1)] * players, "ingots": ingots, "repaired": repaired,
               "broken": [sum(st == "broken" for st in col.values()) for col in held], "items": items,
               **{f"points_{t}": [points[t] for points in by_type] for t in SCORED}}
    assert len(trace["rounds"]) == columns["rounds"][0], "rounds go on while a full draft can be dealt"
    return standings(list(zip(scores, repaired, items)), scores, columns)


def _bb_round(r: int, entry: dict, players: int, catalog: list, held: list, ingots: list, supply: int,
              shortfall: str) -> int:
    kind = [c["type"] for c in catalog]
    assert entry["first"] == r % players, f"round {r}: the first player marker passes clockwise"
    assert len(entry["dealt"]) == 2 * players + 1, f"round {r}: two cards per player, plus one"
    seats = [(r + i) % players for i in range(players)]
    assert [p["seat"] for p in entry["picks"]] == seats + seats[::-1], f"round {r}: a snake draft"
    for pick in entry["picks"]:
        card, seat = pick["card"], pick["seat"]
        if pick["action"] == "keep":
            assert kind[card] != "gold", f"round {r}: gold card {card} kept"
            held[seat][card] = "intact"
        else:
            paid = catalog[card]["value"] if shortfall == "unlimited" else min(catalog[card]["value"], max(supply, 0))
            assert pick["ingots_gained"] == paid, f"round {r}: card {card} sells for {paid}"
            supply -= paid
            ingots[seat] += paid
    taken = {p["card"] for p in entry["picks"]}
    assert [c for c in entry["dealt"] if c not in taken] == [entry["leftover"]], f"round {r}: the leftover card"
    showing = [entry["leftover"]] + ([entry["deck_top"]] if entry["deck_top"] is not None else [])
    breaking = {kind[c] for c in showing} & set(POTTERY)
    broken = sorted(c for col in held for c, st in col.items() if st == "intact" and kind[c] in breaking)
    assert entry["broken"] == broken, f"round {r}: broken {entry['broken']} are {broken}"
    for col in held:
        col.update({c: "broken" for c in col if c in broken})
    free = any(kind[c] == "gold" for c in showing)
    assert entry["free_repair"] == free, f"round {r}: free repair"
    done = [0] * players
    for repair in entry["repairs"]:
        seat, card = repair["seat"], repair["card"]
        assert held[seat].get(card) == "broken", f"round {r}: seat {seat} repairs card {card}, not its broken one"
        cost = 0 if free and done[seat] == 0 else catalog[card]["value"] + done[seat]
        assert repair["cost"] == cost <= ingots[seat], f"round {r}: repairing card {card} costs {cost}"
        ingots[seat] -= cost
        supply += cost
        held[seat][card] = "repaired"
        done[seat] += 1
    assert (entry["ingots"], entry["supply"]) == (ingots, supply), f"round {r}: ingots and supply"
    return supply


def _bb_points(mine: dict[int, str], ingots: int, rival_jars: list[int], catalog: list, scoring: dict) -> dict:
    """The Pottery Scores table for one collection's unbroken cards."""
    kind = [c["type"] for c in catalog]

    def of(t: str, state: str | None = None) -> list[int]:
        return [c for c, st in mine.items() if kind[c] == t and state in (None, st)]

    cups = sorted((scoring["cup"][st == "repaired"] for c, st in mine.items() if kind[c] == "cup"), reverse=True)
    saucers = sorted((scoring["saucer"][st == "repaired"] for c, st in mine.items() if kind[c] == "saucer"),
                     reverse=True)
    vase = scoring["vase"]
    teapots = sum(sum(catalog[c]["pattern"] == catalog[pot]["pattern"] for c in mine)
                  * (scoring["teapot_repaired"] if mine[pot] == "repaired" else 1) for pot in of("teapot"))
    jars = len(of("tea_jar"))
    return {
        "cup": sum(cups),  # the cups' own values; what a saucer adds is the saucer's
        "saucer": sum(cup * (multiplier - 1) for cup, multiplier in zip(cups, saucers)),
        "plate": len(of("plate")) // 2 * scoring["plate_pair"]
        + scoring["plate_repaired"] * len(of("plate", "repaired")),
        "bowl": len(of("bowl")) ** 2 + scoring["bowl_repaired"] * len(of("bowl", "repaired")),
        "tea_jar": (scoring["tea_jar_most"] if jars and jars >= max(rival_jars, default=0) else 0)
        + scoring["tea_jar_repaired"] * len(of("tea_jar", "repaired")),
        "vase": vase[min(len(of("vase")), len(vase) - 1)] + scoring["vase_repaired"] * len(of("vase", "repaired")),
        "teapot": teapots,
        "tray": scoring["tray"] * len(of("tray")),
        "box": len(of("box")) * min(ingots, scoring["box_cap"]),
    }


# ------------------------------------------------------------------------------------------------- Kaleido

DIRECTIONS = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]  # the trace's axial directions d0..d5


def _kaleido(trace: dict) -> Reading:
    """Rulebook: a board scores by majority when its six holes are filled; at the end every hexagon of three
    boards that pairwise share a side, its six holes full (and its boards full, under the switch), scores the same
    way; white tiles never count; the most points wins (2 players: both colours' points), ties share."""
    players, params = trace["players"], trace["params"]
    seat_of = {colour: s for s, colours in enumerate(trace["colors"]) for colour in colours}
    rule = (params["first"], params["second"], params["tie_pool"], params["monochrome"])
    midgame, endgame = [0] * players, [0] * players
    slots: dict[int, list[str | None]] = {0: [None] * 6, 1: [None] * 6}
    placed, whites, turns = [[] for _ in range(players)], [0] * players, [0] * players
    pending: list[int] = []  # boards filled this turn, scored at its end
    stalled = False
    for event in trace["events"]:
        kind = event["type"]
        if kind == "turn":
            assert event["color"] in trace["colors"][event["seat"]], f"turn {event['turn']}: not the seat's colour"
        elif kind == "tile":
            hole = slots[event["board"]]
            assert hole[event["slot"]] is None, f"board {event['board']} slot {event['slot']} is occupied"
            hole[event["slot"]] = "white" if event["white"] else event["color"]
            whites[event["seat"]] += event["white"]
            turns[event["seat"]] += not event["white"]
            if None not in hole:
                pending.append(event["board"])
        elif kind == "board":
            assert event["board"] not in slots, f"board {event['board']} placed twice"
            slots[event["board"]] = [None] * 6
            placed[event["seat"]].append((event["q"], event["r"]))
        elif kind == "score":
            board = event["board"]
            assert board in pending, f"board {board} scores but was not just filled"
            pending.remove(board)
            points = _board_points(slots[board], rule, params["monochrome_with_white"])
            assert event["points"] == points, f"board {board} scores {event['points']}, not {points}"
            for colour, p in points.items():
                midgame[seat_of[colour]] += p
        elif kind == "stall":
            stalled = True
    assert not pending, f"boards {pending} were filled but never scored"
    final = {b["id"]: b for b in trace["boards"]}
    assert {b: final[b]["slots"] for b in final} == slots, "the final boards hold the tiles the events put there"
    hexagons = _hexagons(final)
    seen = {}
    for boards, holes in hexagons.items():
        if None in holes or (params["hexagon_needs_full_boards"] and any(None in slots[b] for b in boards)):
            continue
        points = _board_points(holes, rule, params["monochrome_with_white"])
        seen[boards] = points
        for colour, p in points.items():
            endgame[seat_of[colour]] += p
    traced = {tuple(sorted(h["boards"])): h["points"] for h in trace["endgame"]}
    assert traced == seen, f"end-game hexagons {traced} are {seen}"
    assert trace["stalled"] == stalled
    scores = [midgame[s] + endgame[s] for s in range(players)]
    columns = {"midgame_points": midgame, "endgame_points": endgame, "boards_placed": [len(p) for p in placed],
               "whites_used": whites, "turns": turns, "stalled": [stalled] * players,
               "board_q": [[q for q, _ in p] for p in placed], "board_r": [[r for _, r in p] for p in placed]}
    return standings([(v,) for v in scores], scores, columns)


def _board_points(holes: list[str], rule: tuple[int, ...], white_fills: bool) -> dict[str, int]:
    """The colours that score on a full board or hexagon (the trace lists only those), and their points."""
    points = majority(Counter(h for h in holes if h != "white"), *rule, len(holes), white_fills)
    return {colour: p for colour, p in points.items() if p}


def _hexagons(boards: dict[int, dict]) -> dict[tuple[int, ...], list]:
    """Every three boards that pairwise share a side meet at one corner: X's triangles k, k+1 (triangle k's
    outer edge faces direction k), those of Y = X + d_k facing X and Z, and those of Z facing X and Y. A
    board's local slot s lies at physical triangle (s + rot) % 6."""
    at = {(b["q"], b["r"]): b for b in boards.values()}

    def triangle(board: dict, physical: int):
        return board["slots"][(physical - board["rot"]) % 6]

    found = {}
    for x in boards.values():
        for k in range(6):
            (dq, dr), (eq, er) = DIRECTIONS[k], DIRECTIONS[(k + 1) % 6]
            y, z = at.get((x["q"] + dq, x["r"] + dr)), at.get((x["q"] + eq, x["r"] + er))
            if y is None or z is None:
                continue
            key = tuple(sorted((x["id"], y["id"], z["id"])))
            # Y sees X in direction k + 3 and Z in direction k + 2; Z sees X in k + 4 and Y in k + 5.
            holes = [triangle(x, k), triangle(x, k + 1), triangle(y, k + 2), triangle(y, k + 3),
                     triangle(z, k + 4), triangle(z, k + 5)]
            assert sorted(map(str, found.get(key, holes))) == sorted(map(str, holes))
            found[key] = holes
    return found


# --------------------------------------------------------------------------------------------- Kunst Stücke


def _kunst_stuecke(trace: dict) -> Reading:
    """Rulebook: the pieces lie where the trace's actions put them; a block is a group of one colour's shapes
    joined edge to edge; a target tile is correct when a block of its colour has exactly its number of shapes
    (6+: six or more) and then scores that number plus the bonus of its space; the most points wins, ties
    share. A slide costs one chip."""
    kunst_contact(trace)
    players = trace["players"]
    pieces = {p["id"]: p for p in trace["pieces"]}
    rows, cols = trace["board"]
    where: dict[int, list[tuple[int, int]]] = {}
    slides, discards = [0] * players, [0] * players
    spaces: list[list[tuple[int, int] | None]] = [[None] * len(trace["spaces"]) for _ in range(players)]
    first_look = [-1] * players
    for number, turn in enumerate(trace["turns"]):
        seat = turn["seat"]
        assert seat == number % players, f"turn {number} is seat {seat}'s"
        for action in turn["actions"]:
            act = action["act"]
            if act in ("place", "slide"):
                cells = [tuple(c) for c in action["cells"]]
                if act == "place":
                    assert action["piece"] not in where, f"piece {action['piece']} placed twice"
                    assert action["piece"] in trace["supplies"][seat], f"piece {action['piece']} is not seat {seat}'s"
                    _same_shape(pieces[action["piece"]]["cells"], action, cells)
                else:
                    assert action["piece"] in where, f"piece {action['piece']} slides before it is placed"
                    slides[seat] += 1
                where[action["piece"]] = cells
                taken = [c for p, other in where.items() if p != action["piece"] for c in other]
                assert not set(cells) & set(taken), f"turn {number}: piece {action['piece']} overlaps another"
                assert all(0 <= r < rows and 0 <= c < cols for r, c in cells), f"turn {number}: off the board"
            elif act == "discard":
                discards[seat] += 1
            else:
                assert spaces[seat][action["space"]] is None, f"turn {number}: space {action['space']} is taken"
                spaces[seat][action["space"]] = tuple(action["tile"])
                if first_look[seat] < 0:
                    first_look[seat] = number
    blocks = _blocks(where, pieces)
    assert sorted(map(tuple, trace["final"]["blocks"])) == sorted(blocks), "the final blocks"
    correct = [[tile is not None and any(c == tile[0] and (n == tile[1] or tile[1] == 6 <= n) for c, n in blocks)
                for tile in row] for row in spaces]
    points = [sum(tile[1] + bonus for tile, bonus, ok in zip(row, trace["spaces"], right) if ok)
              for row, right in zip(spaces, correct)]
    columns = {"targets_taken": [sum(t is not None for t in row) for row in spaces],
               "targets_correct": [sum(row) for row in correct], "target_points": points,
               "chips_left": [trace["chips"] - n for n in slides], "discards": discards, "first_look": first_look,
               "aimed_sizes": [[t[1] for t in row if t is not None] for row in spaces],
               "space_sizes": [[0 if t is None else t[1] for t in row] for row in spaces],
               "space_correct": correct}
    return standings([(v,) for v in points], points, columns)


def kunst_contact(trace: dict) -> int:
    """Sliding Shapes: "If the shape starts the turn abutting another shape of its own color, then it must also end
    the turn in contact with a shape of its own color" (edge to edge), whatever brought it back; only the shapes
    slid follow the rule. Judged at the end of every turn under the trace's `contact = "turn"`, after every slide
    under "slide"; a piece placed and then slid in the same turn starts it where it was placed when
    `contact_from_placement`. Returns how many slides left a slid piece apart from its colour in mid-turn."""
    params = trace["params"]
    colour = {p["id"]: p["color"] for p in trace["pieces"]}
    where: dict[int, list[tuple[int, int]]] = {}
    apart_midway = 0
    for number, turn in enumerate(trace["turns"]):
        started = {p for p in where if _abuts_own(where, colour, p)}
        slid: set[int] = set()
        for action in turn["actions"]:
            if action["act"] not in ("place", "slide"):
                continue
            piece = action["piece"]
            where[piece] = [tuple(c) for c in action["cells"]]
            if action["act"] == "place":
                if params["contact_from_placement"] and _abuts_own(where, colour, piece):
                    started.add(piece)
                continue
            slid.add(piece)
            apart = sorted(p for p in slid & started if not _abuts_own(where, colour, p))
            assert not (apart and params["contact"] == "slide"), f"turn {number}: a slide parts {apart} from colour"
            apart_midway += bool(apart)
        apart = sorted(p for p in slid & started if not _abuts_own(where, colour, p))
        assert not apart, f"turn {number}: pieces {apart}, slid away from their colour, end the turn apart from it"
    return apart_midway


def _abuts_own(where: dict[int, list[tuple[int, int]]], colour: dict[int, int], piece: int) -> bool:
    """Whether the piece shares an edge with another piece of its colour."""
    owner = {cell: p for p, cells in where.items() for cell in cells}
    return any(colour[q] == colour[piece] for r, c in where[piece]
               for q in (owner.get(n) for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)))
               if q is not None and q != piece)


def _same_shape(unrotated: list, action: dict, cells: list[tuple[int, int]]) -> None:
    """A placement's squares are the shape turned by `rotation` quarter turns (numpy.rot90 of its cell mask,
    counter-clockwise, row 0 at the top), mirrored first when `mirror`, then moved."""
    mask = np.zeros((1 + max(r for r, _ in unrotated), 1 + max(c for _, c in unrotated)), bool)
    mask[tuple(np.array(unrotated).T)] = True
    turned = np.rot90(np.fliplr(mask) if action["mirror"] else mask, action["rotation"])
    top, left = min(r for r, _ in cells), min(c for _, c in cells)
    expected = sorted((int(r) + top, int(c) + left) for r, c in zip(*np.nonzero(turned)))
    assert sorted(cells) == expected, f"piece {action['piece']} does not lie as its shape turned"


def _blocks(where: dict[int, list], pieces: dict[int, dict]) -> list[tuple[int, int]]:
    """(colour, shapes) of every group of one colour's shapes joined edge to edge."""
    owner = {cell: p for p, cells in where.items() for cell in cells}
    group = {p: p for p in where}

    def root(p: int) -> int:
        while group[p] != p:
            p = group[p]
        return p

    for (r, c), p in owner.items():
        for cell in ((r + 1, c), (r, c + 1)):
            q = owner.get(cell)
            if q is not None and q != p and pieces[q]["color"] == pieces[p]["color"]:
                group[root(q)] = root(p)
    sizes = Counter(root(p) for p in where)
    return [(pieces[p]["color"], n) for p, n in sizes.items()]


# -------------------------------------------------------------------------------------------------- Witkacy

ACTIONS = ("stash", "solvent", "correction", "gift", "rush")  # the result column's order


def _witkacy(trace: dict) -> Reading:
    """Rulebook: a completed painting (its four quarters showing side by side) is worth as many points as it
    has copies in all collections; the most points wins, a tie goes to more (completed) paintings in one's
    collection, then is shared. `dealt` is not read (its sides are being changed to the side drawn)."""
    players = trace["players"]
    faces = {c["id"]: (c["front"], c["back"]) for c in trace["cards"]}
    _rebuild_collections(trace)
    copies = [_copies(stack, faces) for stack in trace["final"]["collections"]]
    worth = [sum(seat[p] for seat in copies) for p in range(5)]
    scores = [sum(n * w for n, w in zip(seat, worth)) for seat in copies]
    paintings = [sum(seat) for seat in copies]
    used = [[False] * len(ACTIONS) for _ in range(players)]
    played = [0] * players
    left = len(trace["deck"])
    for number, turn in enumerate(trace["turns"]):
        seat, action = turn["seat"], turn["action"] or {}
        assert seat == number % players, f"turn {number} is seat {seat}'s"
        if action:
            assert not used[seat][ACTIONS.index(action["kind"])], f"turn {number}: {action['kind']} used twice"
            used[seat][ACTIONS.index(action["kind"])] = True
        played[seat] += len(turn["placements"])
        taken = [turn["search"], action.get("drew")]
        if action.get("kind") == "gift":
            taken.append({"from": action.get("from", "display")})
        for draw in filter(None, taken):  # in the turn's order: the search, then the action's draw or gift
            # a card from the deck, or one from the display, whose slot the deck's top card then refills
            if draw["from"] == "deck" or left > 0:
                left -= 1
    columns = {"paintings": paintings, "copies_by_painting": copies, "actions_used": used, "cards_played": played,
               "turns": [len(trace["turns"])] * players, "deck_left": [left] * players}
    return standings(list(zip(scores, paintings)), scores, columns)


def _rebuild_collections(trace: dict) -> None:
    """The starting collections, changed turn by turn as the trace tells (a Solvent's card taken out, a Gift's and
    the seat's own cards put in at their place in the stack), must end as the final collections. Every card put
    in overlaps the collection (Advanced Variant: at least half of it), and lies entirely on or under it only
    with Correction."""
    stacks = [[_spot(p) for p in stack] for stack in trace["collections"]]
    advanced = trace["params"].get("advanced", False)
    for number, turn in enumerate(trace["turns"]):
        action = turn["action"] or {}
        if action.get("kind") == "solvent":
            cards = [p[0] for p in stacks[action["owner"]]]
            del stacks[action["owner"]][cards.index(action["card"])]
        puts = [(action["owner"], action, False)] if action.get("kind") == "gift" else []
        puts += [(turn["seat"], p, action.get("kind") == "correction") for p in turn["placements"]]
        for owner, put, correction in puts:
            taken = {(r + i, c + j) for _, _, r, c in stacks[owner] for i in (0, 1) for j in (0, 1)}
            shared = len(taken & {(put["row"] + i, put["col"] + j) for i in (0, 1) for j in (0, 1)})
            assert (2 if advanced else 1) <= shared and (shared < 4 or correction), f"turn {number}: {put}"
            stacks[owner].insert(put["z"], _spot(put))
    final = [[_spot(p) for p in stack] for stack in trace["final"]["collections"]]
    assert stacks == final, "the final collections are not the turns' placements"


def _spot(placed: dict) -> tuple:
    return placed["card"], placed["side"], placed["row"], placed["col"]


def _copies(stack: list[dict], faces: dict) -> list[int]:
    """Copies of each painting A-E: a 2x2 block of visible cells showing its UL, UR, LL and LR quarters."""
    shown = {}
    for placed in stack:  # bottom to top: later cards cover earlier ones
        side = faces[placed["card"]][placed["side"] == "back"]
        for r in range(2):
            for c in range(2):
                shown[placed["row"] + r, placed["col"] + c] = side[r][c]
    counts = [0] * 5
    for (r, c), name in shown.items():
        painting, quarter = name.split(".")
        if quarter == "UL" and [shown.get(cell) for cell in ((r, c + 1), (r + 1, c), (r + 1, c + 1))] \
                == [f"{painting}.UR", f"{painting}.LL", f"{painting}.LR"]:
            counts["ABCDE".index(painting)] += 1
    return counts


READERS = {"kintsugi": _kintsugi, "broken_beautiful": _broken_beautiful, "kaleido": _kaleido,
           "kunst_stuecke": _kunst_stuecke, "witkacy": _witkacy}
