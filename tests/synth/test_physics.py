"""Checks of synth.physics: invariants (energy, mirror symmetry, no overlap), textbook shots."""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.table import Cushion, Pocket, TableSpec
from synth.physics import (
    BALL_IDS,
    EventType,
    PhysicsError,
    PhysicsParams,
    SimulationError,
    Strike,
    TableGeometry,
    simulate,
)

TABLE = TableSpec()
L, W, R = TABLE.length_mm, TABLE.width_mm, TABLE.ball_radius_mm
GEO = TableGeometry.from_table(TABLE)
P = PhysicsParams()
G = P.g
IDX = {b: i for i, b in enumerate(BALL_IDS)}
MIRROR_CUSHION = {Cushion.RIGHT: Cushion.LEFT, Cushion.LEFT: Cushion.RIGHT,
                  Cushion.HEAD: Cushion.HEAD, Cushion.FOOT: Cushion.FOOT}
MIRROR_POCKET = {Pocket.HR: Pocket.HL, Pocket.HL: Pocket.HR, Pocket.MR: Pocket.ML,
                 Pocket.ML: Pocket.MR, Pocket.FR: Pocket.FL, Pocket.FL: Pocket.FR}


# --- helpers -------------------------------------------------------------------------------------
def random_layout(rng: np.random.Generator) -> dict[str, tuple[float, float]]:
    pos: dict[str, tuple[float, float]] = {}
    for ball in BALL_IDS:
        while True:
            xy = (float(rng.uniform(R, L - R)), float(rng.uniform(R, W - R)))
            if GEO.on_cloth(xy) and all(math.dist(xy, q) >= 2 * R + 1 for q in pos.values()):
                pos[ball] = xy
                break
    return pos


def random_shot(seed: int) -> tuple[dict[str, tuple[float, float]], Strike]:
    rng = np.random.default_rng(seed)
    pos = random_layout(rng)
    # aim roughly at a random object ball so that most shots have contacts
    target = pos[BALL_IDS[int(rng.integers(1, 5))]]
    aim = math.atan2(target[1] - pos["W1"][1], target[0] - pos["W1"][0])
    strike = Strike("W1", float(rng.uniform(800, 7000)), aim + float(rng.normal(0, 0.05)),
                    follow=float(rng.uniform(-1.25, 1.25)), side=float(rng.uniform(-1, 1)))
    return pos, strike


def cluster_shot(seed: int) -> tuple[dict[str, tuple[float, float]], Strike]:
    """Four frozen (touching) balls hit hard by W1: many simultaneous-ish contacts."""
    rng = np.random.default_rng(seed)
    cx, cy = 1500.0 + 300 * seed, W / 2 + 100
    d = 2 * R
    pts = [(0.0, 0.0), (d * math.cos(math.pi / 6), d / 2), (d * math.cos(math.pi / 6), -d / 2),
           (2 * d * math.cos(math.pi / 6), 0.0)]
    pos = {b: (cx + x, cy + y) for b, (x, y) in zip(("R1", "R2", "Y", "W2"), pts, strict=True)}
    pos["W1"] = (cx - 600, cy + float(rng.normal(0, 3)))
    return pos, Strike("W1", 7000.0, 0.0, follow=float(rng.uniform(-1, 2)),
                       side=float(rng.uniform(-1, 1)))


def mirror_xy(xy: tuple[float, float]) -> tuple[float, float]:
    return (xy[0], W - xy[1])


def velocity_around(shot, t: float, ball: str) -> tuple[np.ndarray, np.ndarray]:
    """Velocity of ``ball`` just before and just after time ``t``."""
    _, before, _ = shot.sample([t], side="left")
    _, after, _ = shot.sample([t], side="right")
    return before[0, IDX[ball]], after[0, IDX[ball]]


def angle_deg(a: np.ndarray, b: np.ndarray) -> float:
    c = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    return math.degrees(math.acos(max(-1.0, min(1.0, c))))


def events_of(shot, type_: EventType):
    return [e for e in shot.events if e.type is type_]


def check_no_overlap(shot, n: int = 4000) -> None:
    times = np.sort(np.concatenate([np.linspace(shot.t0, shot.rest_time + 0.1, n),
                                    shot.step_times]))
    for side in ("left", "right"):
        pos, _, _ = shot.sample(times, side=side)
        for i in range(5):
            for j in range(i + 1, 5):
                d = np.linalg.norm(pos[:, i] - pos[:, j], axis=1)
                d = d[~np.isnan(d)]
                if d.size:
                    assert d.min() >= 2 * R - 1e-6, (BALL_IDS[i], BALL_IDS[j], d.min() - 2 * R)
        xy = pos.reshape(-1, 2)
        bad = np.flatnonzero(~on_cloth_many(xy[~np.isnan(xy[:, 0])]))
        assert bad.size == 0, xy[~np.isnan(xy[:, 0])][bad[:3]]


def on_cloth_many(xy: np.ndarray, tol: float = 1e-6) -> np.ndarray:
    """Vectorised TableGeometry.on_cloth (checked against it in a test below)."""
    ok = np.ones(len(xy), dtype=bool)
    for seg in GEO.segments:
        along, across = xy[:, 1 - seg.axis], xy[:, seg.axis]
        ok &= ~((seg.lo <= along) & (along <= seg.hi) & (seg.sign * (across - seg.pos) < R - tol))
    for mouth in GEO.mouths:
        ok &= (xy - mouth.mid) @ np.array(mouth.normal) >= -tol
    for jaw in GEO.jaws:
        ok &= np.linalg.norm(xy - np.array(jaw.xy), axis=1) >= R - tol
    return ok


def test_on_cloth_many_agrees_with_on_cloth() -> None:
    rng = np.random.default_rng(5)
    pts = np.concatenate([rng.uniform([-10, -10], [L + 10, W + 10], (3000, 2)),
                          rng.uniform([-10, -10], [120, 120], (2000, 2)),
                          rng.uniform([L / 2 - 60, -10], [L / 2 + 60, 60], (2000, 2))])
    assert on_cloth_many(pts).tolist() == [GEO.on_cloth(tuple(p)) for p in pts]


# --- invariants ----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(25))
def test_energy_never_grows(seed: int) -> None:
    shot = simulate(*random_shot(seed))
    for t in shot.step_times[1:]:
        before, after = shot.energy(t, side="left"), shot.energy(t, side="right")
        assert after <= before * (1 + 1e-9) + 1e-9, (t, before, after)
    times = np.linspace(0, shot.rest_time + 0.1, 300)
    energies = [shot.energy(t) for t in times]
    assert all(b <= a * (1 + 1e-9) + 1e-9 for a, b in itertools.pairwise(energies))
    _, vel, _ = shot.sample([shot.rest_time])
    assert np.nan_to_num(vel).max() == 0.0  # every ball at rest (it may still spin about z)
    assert shot.energy(shot.rest_time + 60) == 0.0  # ... until that spin has died too


@pytest.mark.parametrize("seed", range(3))
def test_energy_never_grows_cluster(seed: int) -> None:
    shot = simulate(*cluster_shot(seed))
    for t in shot.step_times[1:]:
        before, after = shot.energy(t, side="left"), shot.energy(t, side="right")
        assert after <= before * (1 + 1e-9) + 1e-9, (t, before, after)


@pytest.mark.parametrize("seed", range(20))
def test_mirror_image_shot_gives_mirror_image_events(seed: int) -> None:
    pos, strike = random_shot(seed)
    shot = simulate(pos, strike)
    mirrored = simulate({b: mirror_xy(xy) for b, xy in pos.items()}, strike.mirrored())
    assert len(shot.events) == len(mirrored.events)
    for e, m in zip(shot.events, mirrored.events, strict=True):
        assert (m.type, m.ball, m.balls) == (e.type, e.ball, e.balls)
        assert m.t == pytest.approx(e.t, abs=1e-6)
        assert m.cushion == (MIRROR_CUSHION[e.cushion] if e.cushion else None)
        assert m.pocket == (MIRROR_POCKET[e.pocket] if e.pocket else None)
        assert m.jaw == (MIRROR_POCKET[e.jaw] if e.jaw else None)
    assert mirrored.rest_time == pytest.approx(shot.rest_time, abs=1e-6)
    assert set(mirrored.final_positions) == set(shot.final_positions)
    for ball, xy in shot.final_positions.items():
        assert mirrored.final_positions[ball] == pytest.approx(mirror_xy(xy), abs=1e-4)


@pytest.mark.parametrize("seed", range(20))
def test_balls_never_overlap_random_shots(seed: int) -> None:
    shot = simulate(*random_shot(seed))
    check_no_overlap(shot)


@pytest.mark.parametrize("seed", range(3))
def test_balls_never_overlap_cluster_break(seed: int) -> None:
    shot = simulate(*cluster_shot(seed))
    assert len(events_of(shot, EventType.CONTACT)) >= 4
    check_no_overlap(shot)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10**6), speed=st.floats(50, 10000), direction=st.floats(-4, 4),
       follow=st.floats(-2, 2), side=st.floats(-2, 2))
def test_any_shot_keeps_the_invariants(seed: int, speed: float, direction: float, follow: float,
                                       side: float) -> None:
    pos = random_layout(np.random.default_rng(seed))
    shot = simulate(pos, Strike("W1", speed, direction, follow=follow, side=side))
    check_no_overlap(shot, n=600)
    for t in shot.step_times[1:]:
        before, after = shot.energy(t, side="left"), shot.energy(t, side="right")
        assert after <= before * (1 + 1e-9) + 1e-9


def test_deterministic() -> None:
    pos, strike = random_shot(7)
    a, b = simulate(pos, strike), simulate(pos, strike)
    assert a.facts() == b.facts()
    assert a.final_positions == b.final_positions
    assert a.rest_time == b.rest_time


def test_events_are_time_ordered_shot_facts() -> None:
    for seed in range(10):
        shot = simulate(*random_shot(seed))
        facts = shot.facts()
        assert facts[0] == {"t": 0.0, "type": "strike", "ball": "W1"}
        assert [f["t"] for f in facts] == sorted(f["t"] for f in facts)
        for f in facts:
            keys = {"strike": {"t", "type", "ball"}, "off_table": {"t", "type", "ball"},
                    "contact": {"t", "type", "balls"},
                    "cushion": {"t", "type", "ball", "cushion"},
                    "pocket": {"t", "type", "ball", "pocket"}}[f["type"]]
            assert set(f) == keys
            if "cushion" in f:
                assert f["cushion"] in {c.value for c in Cushion}
            if "pocket" in f:
                assert f["pocket"] in {p.value for p in Pocket}
        assert shot.rest_time >= facts[-1]["t"]
        gone = set(shot.pocketed) | set(shot.off_table)
        assert set(shot.final_positions) == set(BALL_IDS) - gone


def test_start_time_offsets_every_event() -> None:
    pos, strike = random_shot(3)
    assert len(pos) == 5
    a, b = simulate(pos, strike), simulate(pos, strike, t0=12.4)
    assert [e.t + 12.4 for e in a.events] == pytest.approx([e.t for e in b.events], abs=1e-9)
    assert b.positions(12.4) == a.positions(0.0) == pos


# --- textbook shots ------------------------------------------------------------------------------
def test_rolling_ball_stops_after_v2_over_2_mu_r_g() -> None:
    v = 700.0
    shot = simulate({"W1": (400.0, W / 2)}, Strike("W1", v, 0.0, follow=1.0))
    expected = v**2 / (2 * P.mu_roll * G)
    travelled = shot.final_positions["W1"][0] - 400.0
    assert travelled == pytest.approx(expected, rel=0.01)
    assert travelled == pytest.approx(expected, rel=1e-9)  # the model is exact
    assert shot.rest_time == pytest.approx(v / (P.mu_roll * G), rel=1e-9)
    assert [(tr.ball, tr.mode) for tr in shot.transitions] == [("W1", "stationary")]


def test_stun_struck_ball_starts_rolling_at_five_sevenths_speed() -> None:
    v = 1500.0
    shot = simulate({"W1": (400.0, W / 2)}, Strike("W1", v, 0.3))
    first = shot.transitions[0]
    assert (first.ball, first.mode) == ("W1", "rolling")
    assert first.t == pytest.approx(2 * v / (7 * P.mu_slide * G), rel=1e-9)
    state = shot.state(first.t)["W1"]
    assert state.speed == pytest.approx(5 / 7 * v, rel=1e-9)
    assert math.atan2(state.vy, state.vx) == pytest.approx(0.3, abs=1e-12)
    slip_before = shot.state(first.t * 0.5)["W1"]
    assert slip_before.vx - R * slip_before.wy > 100  # still sliding halfway
    assert state.vx - R * state.wy == pytest.approx(0.0, abs=1e-6)  # rolling after


def test_draw_shot_comes_back() -> None:
    # a full hit with strong draw: the cue ball stops at the contact, then backspin pulls it back
    pos = {"W1": (1000.0, W / 2), "R1": (1300.0, W / 2)}
    shot = simulate(pos, Strike("W1", 3000.0, 0.0, follow=-1.2))
    assert shot.final_positions["W1"][0] < 1000.0


def test_stun_full_ball_hit_stops_the_cue_ball() -> None:
    pos = {"W1": (1000.0, W / 2), "R1": (1150.0, W / 2)}
    shot = simulate(pos, Strike("W1", 3000.0, 0.0))
    contact = events_of(shot, EventType.CONTACT)[0]
    assert contact.balls == ("W1", "R1")
    cue_before, cue_after = velocity_around(shot, contact.t, "W1")
    _, obj_after = velocity_around(shot, contact.t, "R1")
    v = cue_before[0]
    _, _, w_before = shot.sample([contact.t], side="left")
    assert v - R * w_before[0, IDX["W1"], 1] > 0.8 * v  # the cue ball slides at impact
    assert np.linalg.norm(cue_after) <= 0.03 * v  # (1 - e) / 2 = 2.5 %
    assert obj_after[0] == pytest.approx((1 + P.e_ball) / 2 * v, rel=1e-9)
    assert abs(obj_after[1]) < 1e-9
    # the little topspin it picked up on the way and the 2.5 % carry it less than a diameter on
    assert 0 < shot.final_positions["W1"][0] - contact.xy[0] < 2 * R


@pytest.mark.parametrize("follow", [0.0, 1.0])
def test_cut_shot_splits_at_about_90_degrees(follow: float) -> None:
    cut = math.radians(30)
    obj = (1800.0, W / 2)
    ghost = (obj[0] - 2 * R, obj[1])  # cue centre at contact: the object goes along +x
    run = 150.0 if follow == 0 else 600.0
    start = (ghost[0] - run * math.cos(cut), ghost[1] - run * math.sin(cut))
    shot = simulate({"W1": start, "R1": obj}, Strike("W1", 2500.0, cut, follow=follow))
    contact = events_of(shot, EventType.CONTACT)[0]
    _, cue_after = velocity_around(shot, contact.t, "W1")
    _, obj_after = velocity_around(shot, contact.t, "R1")
    assert math.atan2(obj_after[1], obj_after[0]) == pytest.approx(0.0, abs=1e-6)
    # exactly 90 degrees for e = 1; e = 0.95 closes it by about 2.5 degrees at a 30-degree cut
    assert 86.5 < angle_deg(cue_after, obj_after) <= 90.0
    if follow == 1.0:  # a rolling cue ball then bends forward (about the 30-degree rule)
        later = shot.state(contact.t + 0.4)["W1"]
        bent = angle_deg(np.array([later.vx, later.vy]), obj_after)
        assert 40 < bent < 75


def test_side_spin_throws_the_rebound_to_the_players_right() -> None:
    start = (2500.0, W / 2)
    straight = simulate({"W1": start}, Strike("W1", 2000.0, 0.0, follow=1.0))
    right = simulate({"W1": start}, Strike("W1", 2000.0, 0.0, follow=1.0, side=0.6))
    left = simulate({"W1": start}, Strike("W1", 2000.0, 0.0, follow=1.0, side=-0.6))
    t_hit = events_of(right, EventType.CUSHION)[0].t
    assert events_of(right, EventType.CUSHION)[0].cushion is Cushion.FOOT
    assert straight.final_positions["W1"][1] == pytest.approx(W / 2, abs=1e-9)
    _, after = velocity_around(right, t_hit, "W1")
    assert after[0] < 0 and after[1] < 0  # shooting toward +x the player's right is -y
    assert right.final_positions["W1"][1] < W / 2 - 20
    assert left.final_positions["W1"][1] == pytest.approx(W - right.final_positions["W1"][1],
                                                          abs=1e-6)


# --- pockets and jaws ----------------------------------------------------------------------------
def _aim_from(pocket: Pocket) -> tuple[float, float]:
    px, py = TABLE.pocket_xy(pocket)
    if pocket.is_middle:
        return (px, W / 2)
    return (px + math.copysign(400, L / 2 - px), py + math.copysign(400, W / 2 - py))


@pytest.mark.parametrize("pocket", list(Pocket))
@pytest.mark.parametrize("follow", [0.0, 1.0])
def test_ball_aimed_at_pocket_drops(pocket: Pocket, follow: float) -> None:
    start = _aim_from(pocket)
    px, py = TABLE.pocket_xy(pocket)
    direction = math.atan2(py - start[1], px - start[0])
    shot = simulate({"W1": start, "R1": (L / 4, W / 2) if pocket.is_corner else (L / 4, 300)},
                    Strike("W1", 1500.0, direction, follow=follow))
    assert [(e.type, e.ball, e.pocket) for e in shot.events] == [
        (EventType.STRIKE, "W1", None), (EventType.POCKET, "W1", pocket)]
    assert shot.pocketed == {"W1": pocket}
    assert "W1" not in shot.final_positions
    drop = shot.events[-1]
    assert drop.xy is not None
    assert math.dist(drop.xy, GEO.mouths[list(Pocket).index(pocket)].mid) < 1e-6
    assert np.isnan(shot.sample([drop.t + 0.01])[0][0, IDX["W1"]]).all()


@pytest.mark.parametrize(("pocket", "offset"), [(Pocket.MR, 15.0), (Pocket.ML, -12.0),
                                                (Pocket.FL, 8.0), (Pocket.HR, -10.0)])
def test_ball_aimed_at_jaw_point_rattles_out(pocket: Pocket, offset: float) -> None:
    # a path square to the mouth, ``offset`` mm from its centre: the ball (34 mm radius) clears
    # each jaw point by only (mouth / 2 - 34) mm = 2.5 mm (corner) or 7.5 mm (middle)
    mouth = GEO.mouths[list(Pocket).index(pocket)]
    nx, ny = mouth.normal
    tx, ty = mouth.b[0] - mouth.a[0], mouth.b[1] - mouth.a[1]
    norm = math.hypot(tx, ty)
    target = (mouth.mid[0] + offset * tx / norm, mouth.mid[1] + offset * ty / norm)
    start = (target[0] + 500 * nx, target[1] + 500 * ny)
    shot = simulate({"W1": start}, Strike("W1", 1500.0, math.atan2(-ny, -nx), follow=1.0))
    first = shot.events[1]
    assert first.type is EventType.CUSHION
    assert first.jaw is pocket
    assert first.cushion in {j.cushion for j in GEO.jaws if j.pocket is pocket}
    assert not shot.pocketed
    assert "W1" in shot.final_positions
    check_no_overlap(shot, n=500)


@pytest.mark.parametrize(("pocket", "angle", "drops"), [
    (Pocket.HL, 15.0, True), (Pocket.HL, -20.0, True), (Pocket.FR, 23.0, False),
    (Pocket.FR, -28.0, False), (Pocket.MR, 30.0, True), (Pocket.ML, -34.0, True),
    (Pocket.MR, -36.5, False), (Pocket.ML, 45.0, False)])
def test_pocket_accepts_a_cone_of_angles(pocket: Pocket, angle: float, drops: bool) -> None:
    # aimed at the mouth centre at ``angle`` degrees off square, a ball clears the nearer jaw
    # point while mouth / 2 * cos(angle) > R: within 21.3 degrees for a corner, 35.0 for a middle
    mouth = GEO.mouths[list(Pocket).index(pocket)]
    base = math.atan2(mouth.normal[1], mouth.normal[0])
    a = base + math.radians(angle)
    start = (mouth.mid[0] + 300 * math.cos(a), mouth.mid[1] + 300 * math.sin(a))
    shot = simulate({"Y": start}, Strike("Y", 1500.0, a + math.pi, follow=1.0))
    first = shot.events[1]
    if drops:
        assert (first.type, first.pocket) == (EventType.POCKET, pocket)
    else:  # it meets the jaw point or, steeper, the cushion nose just before it
        assert first.type is EventType.CUSHION
        assert first.jaw in (pocket, None)
        assert first.cushion in {j.cushion for j in GEO.jaws if j.pocket is pocket}
        assert math.dist(first.xy, mouth.mid) < 3 * R


def test_pocket_mouths_match_the_table_spec() -> None:
    for mouth in GEO.mouths:
        assert 2 * mouth.half_width == pytest.approx(TABLE.pocket_mouth_mm(mouth.pocket))
        # the mouth is centred on the pocket position's diagonal / axis
        px, py = TABLE.pocket_xy(mouth.pocket)
        assert (mouth.mid[0] - px) * -mouth.normal[1] + (mouth.mid[1] - py) * mouth.normal[0] \
            == pytest.approx(0.0, abs=1e-9)
    for jaw in GEO.jaws:  # every jaw point lies on its cushion's nose line
        x, y = jaw.xy
        on = {Cushion.HEAD: x == 0, Cushion.FOOT: x == L, Cushion.RIGHT: y == 0,
              Cushion.LEFT: y == W}
        assert on[jaw.cushion]


# --- off the table -------------------------------------------------------------------------------
def test_off_table_at_next_cushion_contact() -> None:
    pos = {"W1": (1000.0, W / 2), "Y": (L / 2, 1300.0)}
    shot = simulate(pos, Strike("W1", 2000.0, 0.0), off_table={"W1": "cushion"})
    assert [(e.type, e.ball) for e in shot.events] == [
        (EventType.STRIKE, "W1"), (EventType.OFF_TABLE, "W1")]
    out = shot.events[-1]
    assert out.xy is not None and out.xy[0] == pytest.approx(L - R, abs=1e-6)
    assert shot.off_table == ("W1",)
    assert set(shot.final_positions) == {"Y"}
    assert np.isnan(shot.sample([out.t + 0.001])[0][0, IDX["W1"]]).all()


def test_object_ball_jumps_after_being_hit() -> None:
    pos = {"W1": (1000.0, W / 2), "Y": (1400.0, W / 2)}
    shot = simulate(pos, Strike("W1", 2500.0, 0.0), off_table={"Y": "cushion"})
    types = [(e.type, e.ball or e.balls) for e in shot.events]
    assert types[:3] == [(EventType.STRIKE, "W1"), (EventType.CONTACT, ("W1", "Y")),
                         (EventType.OFF_TABLE, "Y")]
    assert "Y" not in shot.final_positions and "W1" in shot.final_positions


def test_a_ball_creeping_into_a_cushion_bounces_instead_of_jumping() -> None:
    # scripted to leave at a cushion, a ball coming into it slower than least_jump_mm_s stays
    # (it bounces); a little faster, it leaves
    pos = {"W1": (L - R - 60.0, W / 2), "Y": (L / 2, 1300.0)}
    slow = simulate(pos, Strike("W1", 380.0, 0.0, follow=1.0), off_table={"W1": "cushion"})
    assert [e.type for e in slow.events] == [EventType.STRIKE, EventType.CUSHION]
    assert slow.off_table == () and "W1" in slow.final_positions
    fast = simulate(pos, Strike("W1", 600.0, 0.0, follow=1.0), off_table={"W1": "cushion"})
    assert fast.off_table == ("W1",)
    assert PhysicsParams().least_jump_mm_s == 400.0


def test_off_table_at_a_given_time() -> None:
    pos = {"W1": (1000.0, W / 2), "R1": (500.0, 300.0)}
    shot = simulate(pos, Strike("W1", 2000.0, 0.0), off_table={"R1": 0.5})
    out = events_of(shot, EventType.OFF_TABLE)
    assert [(e.t, e.ball) for e in out] == [(0.5, "R1")]
    assert "R1" not in shot.final_positions
    assert "R1" in shot.positions(0.49) and "R1" not in shot.positions(0.51)


# --- touching balls ------------------------------------------------------------------------------
def test_touching_balls_struck_into_each_other() -> None:
    pos = {"W1": (1000.0, W / 2), "R1": (1000.0 + 2 * R, W / 2)}
    shot = simulate(pos, Strike("W1", 2000.0, 0.0))
    contact = events_of(shot, EventType.CONTACT)[0]
    assert contact.t == 0.0 and contact.balls == ("W1", "R1")
    _, obj_after = velocity_around(shot, 0.0, "R1")
    assert obj_after[0] == pytest.approx((1 + P.e_ball) / 2 * 2000.0, rel=1e-9)
    check_no_overlap(shot)


def test_touching_balls_struck_at_an_angle() -> None:
    pos = {"W1": (1000.0, W / 2), "R1": (1000.0 + 2 * R, W / 2)}
    shot = simulate(pos, Strike("W1", 2000.0, math.radians(50)))
    assert events_of(shot, EventType.CONTACT)[0].t == 0.0
    _, obj_after = velocity_around(shot, 0.0, "R1")
    assert abs(obj_after[1]) < 1e-9 and obj_after[0] > 0  # along the line of centres
    check_no_overlap(shot)


def test_touching_balls_struck_apart_or_left_alone() -> None:
    pos = {"W1": (1000.0, W / 2), "R1": (1000.0 + 2 * R, W / 2), "W2": (2500.0, 300.0)}
    away = simulate(pos, Strike("W1", 500.0, math.pi))
    assert not events_of(away, EventType.CONTACT)
    assert away.final_positions["R1"] == pos["R1"]
    other = simulate(pos, Strike("W2", 2000.0, math.pi / 2))
    assert not events_of(other, EventType.CONTACT)
    assert other.final_positions["W1"] == pos["W1"]
    assert other.final_positions["R1"] == pos["R1"]


def test_ball_frozen_to_a_cushion() -> None:
    shot = simulate({"W1": (R, W / 2)}, Strike("W1", 1500.0, math.radians(30)))
    assert all(e.t > 0.1 for e in events_of(shot, EventType.CUSHION))  # it leaves the nose
    check_no_overlap(shot, n=500)
    into = simulate({"W1": (R, W / 2)}, Strike("W1", 1500.0, math.pi))
    assert events_of(into, EventType.CUSHION)[0].t == 0.0


# --- input and limits ----------------------------------------------------------------------------
def test_bad_input_is_refused() -> None:
    strike = Strike("W1", 1000.0, 0.0)
    with pytest.raises(PhysicsError, match="overlap"):
        simulate({"W1": (1000.0, W / 2), "R1": (1060.0, W / 2)}, strike)
    with pytest.raises(PhysicsError, match="not on the cloth"):
        simulate({"W1": (10.0, W / 2)}, strike)
    with pytest.raises(PhysicsError, match="unknown ball"):
        simulate({"W1": (1000.0, W / 2), "X": (2000.0, W / 2)}, strike)
    with pytest.raises(PhysicsError, match="not on the table"):
        simulate({"W2": (1000.0, W / 2)}, strike)
    with pytest.raises(PhysicsError, match="speed"):
        Strike("W1", 0.0, 0.0)
    with pytest.raises(PhysicsError, match="off_table"):
        simulate({"W1": (1000.0, W / 2)}, strike, off_table={"W1": "sometime"})


def test_event_cap_raises_a_clear_error() -> None:
    pos, strike = random_shot(1)
    with pytest.raises(SimulationError, match="no rest after 3 events"):
        simulate(pos, strike, params=PhysicsParams(max_events=3))


def test_other_table_preset() -> None:
    small = TableSpec.from_value("kaisa-10ft")
    pos = {"W1": (small.length_mm / 4, small.width_mm / 2),
           "Y": (small.length_mm / 2, small.width_mm / 2)}
    shot = simulate(pos, Strike("W1", 3000.0, 0.0), table=small)
    assert events_of(shot, EventType.CONTACT)
    assert events_of(shot, EventType.CUSHION)[0].cushion is Cushion.FOOT


def test_typical_shot_is_fast() -> None:
    pos, strike = random_shot(11)
    start = time.perf_counter()
    for _ in range(5):
        simulate(pos, strike)
    assert (time.perf_counter() - start) / 5 < 0.5
