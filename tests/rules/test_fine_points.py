"""RULES.md §7 "Fine points decided": one golden test per point, named after it.

Each game (rules, start, shots) is judged by the rules core from its GAME-file form, and every
verdict is compared with the one worked out by hand from RULES.md before the program was run
(the comment beside each says why). Every verdict field of DESIGN.md is stated;
``fouls``, ``flags``, ``in_hand`` and ``caroms`` compare as sets, ``respots`` in order (§6.3) with
positions to 1e-6 mm, everything else exactly. §7.8 (impossible records) is a refusal, checked
through `kaisa score` as a user meets it: exit 2 and one line.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from rules import GameState, RuleOptions, ShotFacts, advance, judge

L, W = 3550.0, 1775.0
P1, P2, P3 = [L / 4, W / 2], [L / 2, W / 2], [3 * L / 4, W / 2]
HEAD_SPOT, FOOT_SPOT = [34.0, W / 2], [L - 34.0, W / 2]
# A game under way: both whites on the table, the object balls on their points.
MIDGAME = {"W1": [300.0, 500.0], "W2": [300.0, 1300.0], "R1": P1, "Y": P2, "R2": P3}
AS_SETS = {"fouls", "flags", "in_hand", "caroms"}
FIELDS = {"shooter", "cue_ball", "called", "scored_ball", "caroms", "combination", "bank",
          "points", "fouls", "penalty", "turn_passes", "next_shooter", "in_hand", "respots",
          "score", "winner", "flags", "pocket"}


# --- building games -------------------------------------------------------------------------------
def ev(kind: str, *args: str) -> dict[str, Any]:
    """("strike", "W1"), ("contact", "W1", "R1"), ("cushion", "R1", "left"), ("pocket", "R1",
    "MR") as event records (times added by :func:`shot`)."""
    if kind == "contact":
        return {"type": kind, "balls": [args[0], args[1]]}
    out: dict[str, Any] = {"type": kind, "ball": args[0]}
    if kind in ("cushion", "pocket"):
        out[kind] = args[1]
    return out


def shot(call: str | None, *events: dict[str, Any],
         finals: dict[str, list[float]] | None = None) -> dict[str, Any]:
    timed = [{**e, "t": round(0.3 * i, 2), "frame": 9 * i} for i, e in enumerate(events)]
    ball, _, pocket = (call or "").partition(" ")
    return {"call": {"ball": ball, "pocket": pocket} if call else None, "events": timed,
            "final_positions": finals or {}}


def start(score: tuple[int, int], shooter: int = 1, positions: dict[str, list[float]] | None = None,
          **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"score": {"1": score[0], "2": score[1]}, "shooter": shooter,
                           "opening": False, "positions": positions or MIDGAME, "in_hand": []}
    out.update(more)
    return out


def verdict(shooter: int, score: tuple[int, int], *, called: str | None = None,
            points: int = 0, scored: str | None = None, pocket: str | None = None,
            fouls: tuple[str, ...] = (), penalty: int = 0, next_shooter: int | None = None,
            respots: tuple[tuple[str, str, list[float]], ...] = (), in_hand: tuple[str, ...] = (),
            caroms: tuple[str, ...] = (), bank: bool = False, combination: bool = False,
            flags: tuple[str, ...] = (), winner: int | None = None,
            cue_ball: str | None = None) -> dict[str, Any]:
    """An expected verdict with every DESIGN.md field. The turn passes when the next shooter is
    the opponent (or the game is over)."""
    ball, _, called_pocket = (called or "").partition(" ")
    return {
        "shooter": shooter, "cue_ball": cue_ball or f"W{shooter}",
        "called": {"ball": ball, "pocket": called_pocket} if called else None,
        "scored_ball": scored, "caroms": list(caroms), "combination": combination, "bank": bank,
        "points": points, "fouls": list(fouls), "penalty": penalty,
        "turn_passes": next_shooter != shooter, "next_shooter": next_shooter,
        "in_hand": list(in_hand),
        "respots": [{"ball": b, "point": p, "xy_mm": xy} for b, p, xy in respots],
        "score": {"1": score[0], "2": score[1]}, "winner": winner, "flags": list(flags),
        "pocket": pocket,
    }


def judged(rules: dict[str, Any], start_state: dict[str, Any], shots: list[dict[str, Any]]
           ) -> list[dict[str, Any]]:
    """The verdicts of a game given in its GAME-file form, judged shot by shot."""
    state = GameState.from_dict(start_state, RuleOptions.from_mapping(rules))
    out = []
    for record in shots:
        v = judge(state, ShotFacts.from_dict(record))
        state = advance(state, v)
        out.append(v.to_dict())
    return out


def _same(field: str, want: Any, got: Any) -> bool:
    if field in AS_SETS:
        return sorted(want) == sorted(got) and len(set(got)) == len(got)
    if field == "respots":
        return len(want) == len(got) and all(
            w["ball"] == g["ball"] and w["point"] == g["point"]
            and all(math.isclose(a, b, abs_tol=1e-6) for a, b in zip(w["xy_mm"], g["xy_mm"],
                                                                      strict=True))
            for w, g in zip(want, got, strict=True))
    return bool(want == got and type(want) is type(got))


def assert_verdicts(got: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    assert len(got) == len(expected)
    problems = [f"shot {i} {f}: expected {json.dumps(w[f])}, got {json.dumps(g.get(f))}"
                for i, (w, g) in enumerate(zip(expected, got, strict=True))
                for f in sorted(w) if not _same(f, w[f], g.get(f))]
    assert set(expected[0]) == FIELDS
    assert not problems, "\n".join(problems)


# --- §7.1 -----------------------------------------------------------------------------------------
def test_7_1_a_call_by_colour_is_met_by_the_legal_one_of_two_reds():
    # R2 goes into FL first, by a chain of three (W1 -> W2 -> Y -> R2: no score, §3); then R1,
    # struck directly, goes into FL too. The legal one, R1, is the called red: 3 points (no carom
    # after W1's first contact with R1); R2 is an extra pot, respotted.
    shots = [shot("R FL", ev("strike", "W1"), ev("contact", "W1", "W2"), ev("contact", "W2", "Y"),
                  ev("contact", "Y", "R2"), ev("pocket", "R2", "FL"), ev("contact", "W1", "R1"),
                  ev("pocket", "R1", "FL"),
                  finals={"W1": [1300.0, 400.0], "W2": [700.0, 1500.0], "Y": [2300.0, 1400.0]})]
    expected = [verdict(1, (13, 10), called="R FL", points=3, scored="R1", pocket="FL",
                        next_shooter=1, flags=("extra_pot",),
                        # §6.1/6.3: R1 first to point 1, then R2 (point 1 taken) to point 3
                        respots=(("R1", "point1", P1), ("R2", "point3", P3)))]
    assert_verdicts(judged({}, start((10, 10)), shots), expected)


# --- §7.2 -----------------------------------------------------------------------------------------
def test_7_2_the_assumed_call_is_the_first_pot_that_would_score_even_if_it_busts_or_is_void():
    # No call; the yellow drops into ML (direct, then W1 caroms off R1: 12-class + R = 18), then
    # R1 into HR (direct, would be 3). The yellow is the assumed call: at 55 it busts (73 > 60),
    # although R1 would have fitted (58). Nothing scores, the turn passes, both are respotted.
    pots = (ev("strike", "W1"), ev("contact", "W1", "Y"), ev("pocket", "Y", "ML"),
            ev("contact", "W1", "R1"), ev("pocket", "R1", "HR"))
    finals = {"W1": [1200.0, 1300.0]}
    busts = verdict(1, (55, 30), called="Y ML", caroms=("R1",), fouls=("bust",), next_shooter=2,
                    flags=("uncalled", "extra_pot"),
                    respots=(("Y", "point2", P2), ("R1", "point1", P1)))
    assert_verdicts(judged({}, start((55, 30)), [shot(None, *pots, finals=finals)]), [busts])
    # The same with the yellow in MR after a yellow scored in a middle pocket on this player's
    # last shot: the assumed call is still the yellow, void by §5 (yellow twice).
    pots = (*pots[:2], ev("pocket", "Y", "MR"), *pots[3:])
    void = verdict(1, (20, 20), called="Y MR", caroms=("R1",), fouls=("yellow_middle_twice",),
                   next_shooter=2, flags=("uncalled", "extra_pot"),
                   respots=(("Y", "point2", P2), ("R1", "point1", P1)))
    assert_verdicts(judged({}, start((20, 20), yellow_middle_last=True),
                           [shot(None, *pots, finals=finals)]), [void])


# --- §7.3 -----------------------------------------------------------------------------------------
def test_7_3_yellow_twice_counts_only_yellows_that_scored():
    shots = [
        # the called red scores 3; the yellow drops into ML as an extra pot (respotted)
        shot("R HR", ev("strike", "W1"), ev("contact", "W1", "R1"), ev("contact", "R1", "Y"),
             ev("pocket", "Y", "ML"), ev("pocket", "R1", "HR"), finals={"W1": [600.0, 700.0]}),
        # so this yellow in a middle pocket is the first of the count: it scores 12, play on
        shot("Y MR", ev("strike", "W1"), ev("contact", "W1", "Y"), ev("pocket", "Y", "MR"),
             finals={"W1": [1500.0, 600.0]}),
        # a yellow in ML as an extra pot right after: no "yellow twice", the red's 3 stand
        shot("R HR", ev("strike", "W1"), ev("contact", "W1", "R1"), ev("contact", "R1", "Y"),
             ev("pocket", "Y", "ML"), ev("pocket", "R1", "HR"), finals={"W1": [1000.0, 500.0]}),
    ]
    expected = [
        verdict(1, (23, 20), called="R HR", points=3, scored="R1", pocket="HR", next_shooter=1,
                flags=("extra_pot",), respots=(("Y", "point2", P2), ("R1", "point1", P1))),
        verdict(1, (35, 20), called="Y MR", points=12, scored="Y", pocket="MR", next_shooter=1,
                respots=(("Y", "point2", P2),)),
        verdict(1, (38, 20), called="R HR", points=3, scored="R1", pocket="HR", next_shooter=1,
                flags=("extra_pot",), respots=(("Y", "point2", P2), ("R1", "point1", P1))),
    ]
    assert_verdicts(judged({}, start((20, 20)), shots), expected)


# --- §7.4 -----------------------------------------------------------------------------------------
def test_7_4_bank_is_for_the_called_ball_into_the_called_pocket_void_shots_included():
    shots = [
        # player 1 strikes W2 (wrong cue ball); the called red banks off the left cushion into
        # MR: void, penalty 2 deducted, and `bank` is true (§3)
        shot("R MR", ev("strike", "W2"), ev("contact", "W2", "R1"), ev("cushion", "R1", "left"),
             ev("pocket", "R1", "MR"), finals={"W2": [900.0, 1300.0]}),
        # player 2: the called yellow banks into FL, not the called HL: no `bank`
        shot("Y HL", ev("strike", "W2"), ev("contact", "W2", "Y"), ev("cushion", "Y", "foot"),
             ev("pocket", "Y", "FL"), finals={"W2": [1500.0, 1000.0]}),
        # player 1: the called red banks into MR, then W1 drops into HR (scratch, first ball
        # touched a red: penalty 3): void, `bank` true
        shot("R MR", ev("strike", "W1"), ev("contact", "W1", "R1"), ev("cushion", "R1", "left"),
             ev("pocket", "R1", "MR"), ev("cushion", "W1", "right"), ev("pocket", "W1", "HR")),
    ]
    expected = [
        verdict(1, (18, 20), called="R MR", bank=True, fouls=("wrong_cue_ball",), penalty=2,
                next_shooter=2, flags=("extra_pot",), respots=(("R1", "point1", P1),)),
        verdict(2, (18, 20), called="Y HL", next_shooter=1, flags=("wrong_pocket", "extra_pot"),
                respots=(("Y", "point2", P2),)),
        verdict(1, (15, 20), called="R MR", bank=True, fouls=("scratch",), penalty=3,
                next_shooter=2, in_hand=("W1",), respots=(("R1", "point1", P1),)),
    ]
    assert_verdicts(judged({}, start((20, 20)), shots), expected)


# --- §7.5 -----------------------------------------------------------------------------------------
def test_7_5_a_penalty_to_the_opponent_never_passes_an_exact_finish_and_can_win():
    rules = {"penalty": "to_opponent"}
    scratch_w1 = shot(None, ev("strike", "W1"), ev("cushion", "W1", "head"),
                      ev("pocket", "W1", "HR"))
    scratch_w2 = shot(None, ev("strike", "W2"), ev("cushion", "W2", "left"),
                      ev("pocket", "W2", "HL"))
    expected = [
        # touching nothing: 2 owed to player 2, at 59 that would be 61: not given
        verdict(1, (58, 59), fouls=("scratch",), penalty=2, next_shooter=2, in_hand=("W1",),
                flags=("uncalled", "penalty_bust")),
        # 2 to player 1, at 58: exactly 60, he wins; nothing is respotted
        verdict(2, (60, 59), fouls=("scratch",), penalty=2, next_shooter=None, winner=1,
                in_hand=("W1", "W2"), flags=("uncalled",)),
    ]
    assert_verdicts(judged(rules, start((58, 59)), [scratch_w1, scratch_w2]), expected)
    # under `finish: reach` a penalty taking the opponent to 60 or more wins: the yellow first
    # (6) to player 2 at 57 makes 63
    scratch_on_y = shot(None, ev("strike", "W1"), ev("contact", "W1", "Y"),
                        ev("cushion", "W1", "foot"), ev("pocket", "W1", "FL"),
                        finals={"Y": [1900.0, 900.0]})
    wins = verdict(1, (50, 63), fouls=("scratch",), penalty=6, next_shooter=None, winner=2,
                   in_hand=("W1",), flags=("uncalled",))
    assert_verdicts(judged({**rules, "finish": "reach"}, start((50, 57)), [scratch_on_y]), [wins])


# --- §7.6 -----------------------------------------------------------------------------------------
def test_7_6_respotting_order_yellow_return_first_then_cushions_then_the_long_axis():
    # The yellow lies on point 1; the called red drops into the wrong pocket (turn passes): the
    # yellow goes back to point 2 first, which frees point 1 for the red.
    on_point1 = {"W1": [300.0, 500.0], "W2": [300.0, 1300.0], "R1": [2000.0, 300.0], "Y": P1,
                 "R2": P3}
    miss = shot("R FR", ev("strike", "W1"), ev("contact", "W1", "R1"), ev("pocket", "R1", "MR"),
                finals={"W1": [1600.0, 500.0]})
    returned = verdict(1, (20, 20), called="R FR", next_shooter=2,
                       flags=("wrong_pocket", "extra_pot"),
                       respots=(("Y", "point2", P2), ("R1", "point1", P1)))
    assert_verdicts(judged({}, start((20, 20), positions=on_point1), [miss]), [returned])

    # Points 1 and 3 taken (Y, and W1 where it stops); the red scores, W1 plays on from the foot
    # half: the foot cushion's place (R2 there) is taken, so the head cushion's ...
    def red_into_fl(w2: list[float]) -> list[dict[str, Any]]:
        positions = {"W1": [2400.0, 1200.0], "W2": w2, "R1": [3300.0, 1600.0], "Y": P1,
                     "R2": FOOT_SPOT}
        return judged({}, start((20, 20), positions=positions), [
            shot("R FL", ev("strike", "W1"), ev("contact", "W1", "R1"), ev("pocket", "R1", "FL"),
                 finals={"W1": P3})])

    scored = {"called": "R FL", "points": 3, "scored": "R1", "pocket": "FL", "next_shooter": 1}
    assert_verdicts(red_into_fl([300.0, 1300.0]), [
        verdict(1, (23, 20), **scored, respots=(("R1", "cushion_head", HEAD_SPOT),))])
    # ... and with W2 on that one too, the first free place on the long axis from the centre
    # toward the foot: the centre itself
    assert_verdicts(red_into_fl(HEAD_SPOT), [
        verdict(1, (23, 20), **scored, respots=(("R1", "point2", P2),))])


# --- §7.7 -----------------------------------------------------------------------------------------
def test_7_7_the_opening_restriction_is_about_what_happens_not_what_is_called():
    # The opening shot calls a middle pocket; the back red goes into FR instead and nothing
    # drops into a middle pocket: no opening foul, just a called ball in the wrong pocket.
    opening = {"score": {"1": 0, "2": 0}, "shooter": 1, "opening": True}
    shots = [shot("R MR", ev("strike", "W1"), ev("contact", "W1", "R2"),
                  ev("cushion", "R2", "foot"), ev("pocket", "R2", "FR"),
                  finals={"W1": [2000.0, 1500.0]})]
    # R2 to point 1 (R1 there) -> point 3; W2 is still in hand
    expected = [verdict(1, (0, 0), called="R MR", next_shooter=2, in_hand=("W2",),
                        flags=("wrong_pocket", "extra_pot"), respots=(("R2", "point3", P3),))]
    assert_verdicts(judged({}, opening, shots), expected)


# --- §7.8 -----------------------------------------------------------------------------------------
A_SHOT = shot("R FR", ev("strike", "W1"), ev("contact", "W1", "R2"), ev("pocket", "R2", "FR"),
              finals={"W1": [3000.0, 700.0]})
IMPOSSIBLE = {
    # W1 stops 30 mm from Y's centre: the balls would overlap
    "final_positions_overlap": (
        {"start": start((0, 0)),
         "shots": [shot("Y MR", ev("strike", "W1"), ev("contact", "W1", "Y"),
                        finals={"W1": [1500.0, 880.0], "Y": [1530.0, 880.0]})]},
        ("shots[0].final_positions.Y", "overlap", "30.0 mm apart")),
    "start_score_at_target_without_winner": (
        {"start": start((60, 12)), "shots": [A_SHOT]},
        ("start.score", "60 points", "target 60", "no winner")),
    "start_with_positions_but_no_opening": (
        {"start": {"score": {"1": 0, "2": 0}, "shooter": 1, "positions": MIDGAME},
         "shots": [A_SHOT]},
        ("start.opening", "positions", '"opening": true', '"opening": false')),
}


@pytest.mark.parametrize("case", sorted(IMPOSSIBLE))
def test_7_8_impossible_records_are_refused_with_exit_2(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from referee.cli import main  # the user's way in: `kaisa score GAME.json`

    game, named = IMPOSSIBLE[case]
    path = tmp_path / f"{case}.game.json"
    path.write_text(json.dumps(game), encoding="utf-8")
    code = main(["score", str(path)])
    out, err = capsys.readouterr()
    assert code == 2
    assert not out.strip() or json.loads(out)["verdicts"] == []  # nothing judged
    lines = err.strip("\n").splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for text in (str(path), *named):
        assert text in lines[0], f"{text!r} not in {lines[0]!r}"
