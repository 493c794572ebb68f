"""Event-driven 2D physics for the five Kaisa balls on a six-pocket table.

The model is the standard sliding / rolling / spinning one (Leckie & Greenspan, "An event-based
pool physics simulator"; pooltool). Between events every ball moves with a constant acceleration,
so its centre is a quadratic in time and every event time (ball-ball contact, cushion, jaw,
pocket mouth, sliding->rolling, rolling->rest) is the root of a polynomial of degree <= 4. The
roots are bracketed exactly (between the real roots of the derivative, where the polynomial is
monotonic) and bisected to full double precision, so no fixed time step is ever taken.

Units: millimetres, seconds, radians. Positions are in the table frame of RULES.md §1 (x from the
head cushion nose at 0 to the foot nose at L, y from the right nose at 0 to the left nose at W).
Angular velocity ``w = (wx, wy, wz)`` in rad/s about the table axes (z up); ``wz > 0`` turns
counter-clockwise seen from above.

Table model. Each cushion is a straight nose line (a ball touches it when its centre is one radius
away) that ends at the pocket jaws. A corner pocket's two jaw points lie on the two nose lines at
``mouth / sqrt(2)`` from the corner, so the mouth (the segment between them) is ``corner_mouth_mm``
wide; a middle pocket's jaw points lie on the long nose line at ``+-middle_mouth_mm / 2`` from its
centre. A jaw is a point: a ball touching it bounces off it as off a cushion (the "cushion" event
names the jaw's cushion and ``Event.jaw`` the pocket). A ball whose centre crosses a mouth segment
drops ("pocket" event). Collisions are instantaneous: ball-ball frictionless with restitution
``e_ball``; ball-cushion at the height of the ball centre with restitution ``e_cushion`` on the
normal velocity and Coulomb friction ``mu_cushion`` at the contact point (which turns side spin
into a change of angle).

Robustness. Bodies closer than 1e-7 mm count as touching; touching bodies collide only when they
approach or press in, and an event snaps a sub-1e-7 mm overlap back to contact, so balls never
overlap (balls frozen together or to a cushion at the start are fine). Two cases would otherwise
give endless micro-events: a ball whose spin drives it into another ball (a push) and a ball whose
spin drives it into a cushion. In the first, a contact slower than 5 mm/s turns the driving slip
into rolling at once (what cloth friction would do over the next instants) and the balls part at
0.5 mm/s at least, paid from their spin so energy never grows; in the second, a cushion contact
slower than 10 mm/s does not bounce and drops the spin that presses the ball on. Re-contacts of
the same pair within ``merge_contacts_s`` are one "contact" event. ``max_events`` caps the loop.

Nothing here is random: the same inputs give the same outputs bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from rules.balls import Ball
from rules.events import Event as RulesEvent
from rules.events import EventType  # the one event vocabulary, shared with the rules
from rules.table import Cushion, Pocket, TableSpec

Point = tuple[float, float]
FloatArray = NDArray[np.float64]

BALL_IDS: tuple[str, ...] = tuple(b.value for b in Ball)
"""The five ball ids, in the fixed order used by every array of this module."""

_N = len(BALL_IDS)
_INDEX = {b: i for i, b in enumerate(BALL_IDS)}

# Numerical tolerances (mm, mm/s). A gap below _GAP_TOL counts as touching; touching bodies are
# only in collision when they approach faster than _V_TOL or press deeper than _GAP_TOL.
_GAP_TOL = 1e-7
_V_TOL = 1e-6
_EPS_SPEED = 1e-6  # below this (mm/s) a slip or a velocity is zero
_V_PUSH = 5.0  # ball-ball approach speeds below this: driving slip is turned to rolling at once
_V_GENTLE = 0.5  # minimum separation speed after a ball-ball contact (ends push cascades)
_V_CHATTER = 10.0  # cushion approach speeds below this end the bounce (ball stays on the nose)


# --------------------------------------------------------------------------------------------
# Public values
# --------------------------------------------------------------------------------------------
class PhysicsError(ValueError):
    """Bad input to the simulator (unknown ball, ball off the cloth, overlapping balls...)."""


class SimulationError(RuntimeError):
    """The simulation did not come to rest within ``PhysicsParams.max_events`` events."""


@dataclass(frozen=True)
class PhysicsParams:
    """Physical constants of cloth, balls and cushions (defaults near pooltool's).

    ``mu_spin`` sets the decay of spin about the vertical: ``dwz/dt = -5 mu_spin g / (2 R)``
    (about 11 rad/s^2 for a 68 mm ball with the default).
    """

    mu_slide: float = 0.2  # sliding friction ball-cloth
    mu_roll: float = 0.01  # rolling resistance
    mu_spin: float = 0.015  # spinning friction (see above)
    e_ball: float = 0.95  # ball-ball restitution
    e_cushion: float = 0.8  # ball-cushion restitution (normal component)
    mu_cushion: float = 0.2  # ball-cushion friction at the contact point
    g: float = 9810.0  # mm/s^2
    max_events: int = 10000  # internal events (incl. sliding->rolling->rest) before giving up
    merge_contacts_s: float = 0.01  # re-contacts of a pair within this time are one "contact"
    # a ball scripted to leave the table at a cushion does so only coming into it at least this
    # fast (along the cushion's normal); slower it bounces, and a scenario needing the jump
    # tries another shot. No ball creeping at 0.1-0.2 m/s rides over a rail (real jumps are far
    # faster; every committed and default-look clip's was 0.4 m/s or more, so they stay)
    least_jump_mm_s: float = 400.0

    def __post_init__(self) -> None:
        for name in ("mu_slide", "mu_roll", "mu_spin", "g"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise PhysicsError(f"params.{name}: expected a positive number, got {value!r}")
        for name in ("e_ball", "e_cushion"):
            value = getattr(self, name)
            if not (0.0 <= value <= 1.0):
                raise PhysicsError(f"params.{name}: expected a number in [0, 1], got {value!r}")
        if not (math.isfinite(self.mu_cushion) and self.mu_cushion >= 0):
            raise PhysicsError(f"params.mu_cushion: expected >= 0, got {self.mu_cushion!r}")
        if self.max_events < 1:
            raise PhysicsError(f"params.max_events: expected >= 1, got {self.max_events!r}")
        if not (math.isfinite(self.least_jump_mm_s) and self.least_jump_mm_s >= 0):
            raise PhysicsError(f"params.least_jump_mm_s: expected >= 0, got "
                               f"{self.least_jump_mm_s!r}")


@dataclass(frozen=True)
class Strike:
    """A cue strike, given by what it does to the ball.

    ``speed`` (mm/s) and ``direction`` (radians, table frame, 0 = toward the foot, pi/2 = toward
    the left cushion) are the ball's initial velocity. ``follow`` is topspin (>0) or backspin
    (draw, <0) as a fraction of the natural-roll spin ``speed / R``: 0 is a stun (sliding, no
    spin), 1 rolls at once. ``side`` is side spin as a fraction of ``speed / R``: > 0 is right
    english (cue tip right of centre as the player sees it; the ball turns counter-clockwise
    seen from above, ``wz > 0``, and comes off a cushion to the player's right). A cue tip
    hitting ``b`` off centre gives a fraction ``2.5 * b / R``; a real cue stays within about 1.25.
    """

    ball: str
    speed: float
    direction: float
    follow: float = 0.0
    side: float = 0.0

    def __post_init__(self) -> None:
        if self.ball not in _INDEX:
            raise PhysicsError(f"strike.ball: unknown ball id {self.ball!r} "
                               f"(expected one of {' '.join(BALL_IDS)})")
        if not (math.isfinite(self.speed) and self.speed > 0):
            raise PhysicsError(f"strike.speed: expected a positive number of mm/s, got "
                               f"{self.speed!r}")
        for name in ("direction", "follow", "side"):
            if not math.isfinite(getattr(self, name)):
                raise PhysicsError(f"strike.{name}: expected a finite number, got "
                                   f"{getattr(self, name)!r}")
        if abs(self.follow) > 3 or abs(self.side) > 3:
            raise PhysicsError(f"strike: expected |follow| and |side| <= 3, got follow "
                               f"{self.follow!r}, side {self.side!r}")

    def mirrored(self) -> Strike:
        """The same strike mirrored in y (about the table's long axis)."""
        return Strike(self.ball, self.speed, -self.direction, self.follow, -self.side)


@dataclass(frozen=True)
class Event:
    """One shot event as the simulation found it; ``to_event()`` is it in the rules' own terms,
    ``to_fact()`` in DESIGN.md's JSON (both without ``frame``).

    ``jaw`` is set on a cushion event where the ball hit a pocket's jaw point (the pocket);
    ``xy`` is the ball centre (of the first ball for a contact) at the event.
    """

    t: float
    type: EventType
    ball: str | None = None
    balls: tuple[str, str] | None = None
    cushion: Cushion | None = None
    pocket: Pocket | None = None
    jaw: Pocket | None = None
    xy: Point | None = None

    def to_event(self) -> RulesEvent:
        """The rules' event (no frame: the caller adds it)."""
        if self.type is EventType.CONTACT:
            assert self.balls is not None
            ids: tuple[str, ...] = self.balls
        else:
            assert self.ball is not None
            ids = (self.ball,)
        return RulesEvent(type=self.type, t=self.t, balls=tuple(Ball(b) for b in ids),
                          cushion=self.cushion, pocket=self.pocket)

    def to_fact(self) -> dict[str, object]:
        return self.to_event().to_dict()


@dataclass(frozen=True)
class BallState:
    """A ball's centre (mm), velocity (mm/s) and angular velocity (rad/s) at one instant."""

    x: float
    y: float
    vx: float
    vy: float
    wx: float
    wy: float
    wz: float

    @property
    def xy(self) -> Point:
        return (self.x, self.y)

    @property
    def speed(self) -> float:
        return math.hypot(self.vx, self.vy)


# --------------------------------------------------------------------------------------------
# Table geometry
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CushionSegment:
    """A straight cushion nose between two jaw points. ``axis`` 0: the nose is ``x = pos``;
    1: ``y = pos``; ``sign`` (+-1) is the inward normal along that axis; the segment spans
    ``lo..hi`` on the other axis."""

    cushion: Cushion
    axis: int
    pos: float
    sign: float
    lo: float
    hi: float


@dataclass(frozen=True)
class Jaw:
    """A jaw point: the end of a cushion nose at a pocket mouth."""

    pocket: Pocket
    cushion: Cushion
    xy: Point


@dataclass(frozen=True)
class Mouth:
    """A pocket mouth: the segment between its two jaw points; ``normal`` points into the table."""

    pocket: Pocket
    a: Point
    b: Point
    normal: Point

    @property
    def mid(self) -> Point:
        return ((self.a[0] + self.b[0]) / 2, (self.a[1] + self.b[1]) / 2)

    @property
    def half_width(self) -> float:
        return math.dist(self.a, self.b) / 2


@dataclass(frozen=True)
class TableGeometry:
    """Cushion segments, jaw points and pocket mouths derived from a :class:`TableSpec`."""

    table: TableSpec
    segments: tuple[CushionSegment, ...]
    jaws: tuple[Jaw, ...]
    mouths: tuple[Mouth, ...]

    @classmethod
    def from_table(cls, table: TableSpec) -> TableGeometry:
        L, W = table.length_mm, table.width_mm
        a = table.jaw_offset_mm(Pocket.HR)  # jaw distance from the corner along each nose
        h = table.jaw_offset_mm(Pocket.MR)
        if a >= W / 2 - a or h + a >= L / 2:
            raise PhysicsError("table: the pocket mouths do not fit on the cushions")
        segments = (
            CushionSegment(Cushion.HEAD, 0, 0.0, 1.0, a, W - a),
            CushionSegment(Cushion.FOOT, 0, L, -1.0, a, W - a),
            CushionSegment(Cushion.RIGHT, 1, 0.0, 1.0, a, L / 2 - h),
            CushionSegment(Cushion.RIGHT, 1, 0.0, 1.0, L / 2 + h, L - a),
            CushionSegment(Cushion.LEFT, 1, W, -1.0, a, L / 2 - h),
            CushionSegment(Cushion.LEFT, 1, W, -1.0, L / 2 + h, L - a),
        )
        s = 1 / math.sqrt(2)
        corners = {
            Pocket.HR: (((a, 0.0), Cushion.RIGHT), ((0.0, a), Cushion.HEAD), (s, s)),
            Pocket.HL: (((0.0, W - a), Cushion.HEAD), ((a, W), Cushion.LEFT), (s, -s)),
            Pocket.FR: (((L, a), Cushion.FOOT), ((L - a, 0.0), Cushion.RIGHT), (-s, s)),
            Pocket.FL: (((L - a, W), Cushion.LEFT), ((L, W - a), Cushion.FOOT), (-s, -s)),
            Pocket.MR: (((L / 2 - h, 0.0), Cushion.RIGHT), ((L / 2 + h, 0.0), Cushion.RIGHT),
                        (0.0, 1.0)),
            Pocket.ML: (((L / 2 + h, W), Cushion.LEFT), ((L / 2 - h, W), Cushion.LEFT),
                        (0.0, -1.0)),
        }
        jaws: list[Jaw] = []
        mouths: list[Mouth] = []
        for pocket in Pocket:
            (pa, ca), (pb, cb), normal = corners[pocket]
            jaws += [Jaw(pocket, ca, pa), Jaw(pocket, cb, pb)]
            mouths.append(Mouth(pocket, pa, pb, normal))
        return cls(table, segments, tuple(jaws), tuple(mouths))

    def on_cloth(self, xy: Point, tolerance_mm: float = 1e-6) -> bool:
        """True when a ball centre at ``xy`` is where a ball on the table can be: inside every
        cushion segment and mouth, and at least one radius from every jaw point."""
        r = self.table.ball_radius_mm - tolerance_mm
        x, y = xy
        for seg in self.segments:
            along = y if seg.axis == 0 else x
            across = x if seg.axis == 0 else y
            if seg.lo <= along <= seg.hi and seg.sign * (across - seg.pos) < r:
                return False
        for mouth in self.mouths:
            if ((x - mouth.mid[0]) * mouth.normal[0] + (y - mouth.mid[1]) * mouth.normal[1]
                    < -tolerance_mm):
                return False
        return all(math.dist(xy, jaw.xy) >= r for jaw in self.jaws)


# --------------------------------------------------------------------------------------------
# Root finding
# --------------------------------------------------------------------------------------------
def _poly(c: tuple[float, ...], t: float) -> float:
    v = 0.0
    for coef in reversed(c):
        v = v * t + coef
    return v


def _cubic_breaks(a: float, b: float, c: float, d: float, t_hi: float) -> list[float]:
    """Approximate real roots of ``a t^3 + b t^2 + c t + d`` in (0, t_hi), plus the real part of
    a complex pair (harmless extra break points that protect against near-double roots)."""
    scale = abs(b) * t_hi**2 + abs(c) * t_hi + abs(d)
    cands: list[float] = []
    if abs(a) * t_hi**3 <= 1e-15 * scale:
        if abs(b) * t_hi**2 > 1e-15 * (abs(c) * t_hi + abs(d)):
            cands.append(-c / (2 * b))
            disc = c * c - 4 * b * d
            if disc >= 0:
                sq = math.sqrt(disc)
                q = -0.5 * (c + math.copysign(sq, c))
                cands.append(q / b)
                if q != 0:
                    cands.append(d / q)
        elif c != 0:
            cands.append(-d / c)
    else:
        b, c, d = b / a, c / a, d / a
        p = c - b * b / 3
        q = 2 * b**3 / 27 - b * c / 3 + d
        disc = (q / 2) ** 2 + (p / 3) ** 3
        shift = -b / 3
        if disc > 0:
            sq = math.sqrt(disc)
            u = _cbrt(-q / 2 + sq)
            v = _cbrt(-q / 2 - sq)
            cands += [u + v + shift, -(u + v) / 2 + shift]
        elif p < 0:
            m = 2 * math.sqrt(-p / 3)
            arg = max(-1.0, min(1.0, 3 * q / (p * m)))
            theta = math.acos(arg) / 3
            cands += [m * math.cos(theta - 2 * math.pi * k / 3) + shift for k in range(3)]
        else:
            cands.append(shift)
        polished = []
        for r in cands:  # two Newton steps on the monic cubic
            for _ in range(2):
                f = ((r + b) * r + c) * r + d
                df = (3 * r + 2 * b) * r + c
                if df == 0:
                    break
                r -= f / df
            polished.append(r)
        cands += polished
    return sorted(r for r in cands if 0 < r < t_hi)


def _cbrt(x: float) -> float:
    return math.copysign(abs(x) ** (1 / 3), x)


def _first_crossing(c: tuple[float, ...], t_hi: float, level: float) -> float | None:
    """The first time in (0, t_hi] where the polynomial ``c`` (ascending coefficients, degree 2
    or 4) falls to ``level`` from above (if ``c(0) <= level`` it must first rise above it); the
    returned time is the last double with ``c(t) > level`` (the bodies have not yet touched).
    None when it never does."""
    if len(c) == 3:
        breaks = [-c[1] / (2 * c[2])] if c[2] != 0 else []
        breaks = [b for b in breaks if 0 < b < t_hi]
    else:
        breaks = _cubic_breaks(4 * c[4], 3 * c[3], 2 * c[2], c[1], t_hi)
    breaks.append(t_hi)
    lo = 0.0
    above = c[0] > level
    for b in breaks:
        if b <= lo:
            continue
        fb = _poly(c, b)
        if above and fb <= level:  # f is monotonic on [lo, b]: bisect
            hi = b
            while True:
                mid = 0.5 * (lo + hi)
                if mid <= lo or mid >= hi:
                    return lo
                if _poly(c, mid) > level:
                    lo = mid
                else:
                    hi = mid
        above = fb > level
        lo = b
    return None


def _entry_time(c: tuple[float, ...], t_hi: float, gap_scale: float) -> float | None:
    """First time in [0, t_hi] two bodies collide, for a distance function ``c`` (polynomial in t
    whose value is ``gap * gap_scale`` near contact and whose slope is ``-approach_speed *
    gap_scale``). Touching bodies collide only when they approach or press into each other."""
    tol = _GAP_TOL * gap_scale
    if c[0] > tol:
        return _first_crossing(c, t_hi, 0.0)
    if c[1] < -_V_TOL * gap_scale:
        return 0.0
    # touching: collide when pressing in deeper than the tolerance
    return _first_crossing(c, t_hi, min(c[0], 0.0) - tol)


# --------------------------------------------------------------------------------------------
# The simulator
# --------------------------------------------------------------------------------------------
_STOPPED, _ROLLING, _SLIDING = 0, 1, 2
_MODE_NAMES = {_STOPPED: "stationary", _ROLLING: "rolling", _SLIDING: "sliding"}


@dataclass(frozen=True)
class Transition:
    """A change of motion (not a shot event): ``mode`` is "rolling" or "stationary"."""

    t: float
    ball: str
    mode: str


class _Sim:
    def __init__(self, positions: Mapping[str, Point], geo: TableGeometry,
                 params: PhysicsParams, off_table: Mapping[str, float | str], t0: float) -> None:
        self.geo = geo
        self.p = params
        self.R = geo.table.ball_radius_mm
        self.t = t0
        self.pos = [[0.0, 0.0] for _ in range(_N)]
        self.vel = [[0.0, 0.0] for _ in range(_N)]
        self.w = [[0.0, 0.0, 0.0] for _ in range(_N)]
        self.on = [False] * _N
        for ball, xy in positions.items():
            i = _INDEX[ball]
            self.pos[i] = [float(xy[0]), float(xy[1])]
            self.on[i] = True
        self.jump_at_cushion = {_INDEX[b] for b, v in off_table.items() if v == "cushion"}
        self.jump_times = sorted((float(v), _INDEX[b]) for b, v in off_table.items()
                                 if v != "cushion")
        # per-step motion
        self.mode = [_STOPPED] * _N
        self.acc = [(0.0, 0.0)] * _N
        self.alpha = [(0.0, 0.0)] * _N
        self.t_end = [math.inf] * _N
        self.k_slide = 5 * params.mu_slide * params.g / (2 * self.R)
        self.spin_rate = 5 * params.mu_spin * params.g / (2 * self.R)
        self.last_contact: dict[tuple[str, str], float] = {}
        # records
        self.events: list[Event] = []
        self.transitions: list[Transition] = []
        self.snaps: list[tuple[float, list[list[float]], list[list[float]],
                               list[tuple[float, float]], list[list[float]],
                               list[tuple[float, float]], list[bool]]] = []

    # ---- motion ----------------------------------------------------------------------------
    def classify(self, i: int) -> None:
        R, prm = self.R, self.p
        v, w = self.vel[i], self.w[i]
        ux, uy = v[0] - R * w[1], v[1] + R * w[0]
        su = math.hypot(ux, uy)
        if su > _EPS_SPEED:
            ex, ey = ux / su, uy / su
            self.mode[i] = _SLIDING
            self.acc[i] = (-prm.mu_slide * prm.g * ex, -prm.mu_slide * prm.g * ey)
            self.alpha[i] = (-self.k_slide * ey, self.k_slide * ex)
            self.t_end[i] = 2 * su / (7 * prm.mu_slide * prm.g)
            return
        sv = math.hypot(v[0], v[1])
        if sv > _EPS_SPEED:
            w[0], w[1] = -v[1] / R, v[0] / R
            ax, ay = -prm.mu_roll * prm.g * v[0] / sv, -prm.mu_roll * prm.g * v[1] / sv
            self.mode[i] = _ROLLING
            self.acc[i] = (ax, ay)
            self.alpha[i] = (-ay / R, ax / R)
            self.t_end[i] = sv / (prm.mu_roll * prm.g)
            return
        v[0] = v[1] = w[0] = w[1] = 0.0
        self.mode[i] = _STOPPED
        self.acc[i] = (0.0, 0.0)
        self.alpha[i] = (0.0, 0.0)
        self.t_end[i] = math.inf

    def advance(self, tau: float) -> None:
        if tau <= 0:
            return
        for i in range(_N):
            if not self.on[i]:
                continue
            w = self.w[i]
            if w[2] > 0:
                w[2] = max(w[2] - self.spin_rate * tau, 0.0)
            elif w[2] < 0:
                w[2] = min(w[2] + self.spin_rate * tau, 0.0)
            if self.mode[i] == _STOPPED:
                continue
            p, v, a, al = self.pos[i], self.vel[i], self.acc[i], self.alpha[i]
            p[0] += (v[0] + 0.5 * a[0] * tau) * tau
            p[1] += (v[1] + 0.5 * a[1] * tau) * tau
            v[0] += a[0] * tau
            v[1] += a[1] * tau
            w[0] += al[0] * tau
            w[1] += al[1] * tau
        self.t += tau

    def snapshot(self) -> None:
        self.snaps.append((self.t, [list(p) for p in self.pos], [list(v) for v in self.vel],
                           list(self.acc), [list(w) for w in self.w], list(self.alpha),
                           list(self.on)))

    def reach(self, i: int, tau: float) -> float:
        """An upper bound of how far ball i can move in the next ``tau`` seconds."""
        if self.mode[i] == _STOPPED or not self.on[i]:
            return 0.0
        v, a = self.vel[i], self.acc[i]
        return math.hypot(v[0], v[1]) * tau + 0.5 * math.hypot(a[0], a[1]) * tau * tau

    # ---- main loop -------------------------------------------------------------------------
    def run(self) -> None:
        steps = 0
        R = self.R
        while True:
            for i in range(_N):
                if self.on[i]:
                    self.classify(i)
            self.snapshot()
            moving = [i for i in range(_N) if self.on[i] and self.mode[i] != _STOPPED]
            if not moving:
                return
            steps += 1
            if steps > self.p.max_events:
                raise SimulationError(
                    f"no rest after {self.p.max_events} events (t = {self.t:.6f} s); "
                    "raise PhysicsParams.max_events or check the shot")
            best = math.inf
            what: tuple[object, ...] = ()
            for i in moving:
                if self.t_end[i] < best:
                    best, what = self.t_end[i], ("transition", i)
            for tj, i in self.jump_times:
                if self.on[i] and tj - self.t < best:
                    best, what = max(tj - self.t, 0.0), ("jump", i, tj)
                    break
            reach = [self.reach(i, best) for i in range(_N)]
            # cushions (quadratics)
            for i in moving:
                p, v, a = self.pos[i], self.vel[i], self.acc[i]
                for seg in self.geo.segments:
                    ax = seg.axis
                    c0 = seg.sign * (p[ax] - seg.pos) - R
                    if c0 > reach[i]:
                        continue
                    c = (c0, seg.sign * v[ax], 0.5 * seg.sign * a[ax])
                    if c0 < -_GAP_TOL:
                        # behind the nose line: the ball is in a pocket mouth, beside this
                        # segment; it hits the segment only after rising above the line
                        tau = _first_crossing(c, best, 0.0)
                    else:
                        tau = _entry_time(c, best, 1.0)
                    if tau is None or tau >= best:
                        continue
                    o = 1 - ax
                    along = p[o] + (v[o] + 0.5 * a[o] * tau) * tau
                    if seg.lo <= along <= seg.hi:
                        best, what = tau, ("cushion", i, seg)
            # pocket mouths (quadratics)
            for i in moving:
                p, v, a = self.pos[i], self.vel[i], self.acc[i]
                for mouth in self.geo.mouths:
                    mx, my = mouth.mid
                    nx, ny = mouth.normal
                    c0 = (p[0] - mx) * nx + (p[1] - my) * ny
                    if c0 > reach[i]:
                        continue
                    c = (c0, v[0] * nx + v[1] * ny, 0.5 * (a[0] * nx + a[1] * ny))
                    if c0 <= 0:
                        tau = 0.0 if c[1] < 0 else None
                    else:
                        tau = _first_crossing(c, best, 0.0)
                        # the centre is on the mouth line a hair later than the last point
                        # before it; take the first point past it
                        if tau is not None:
                            tau = math.nextafter(tau, math.inf)
                    if tau is None or tau >= best:
                        continue
                    x = p[0] + (v[0] + 0.5 * a[0] * tau) * tau
                    y = p[1] + (v[1] + 0.5 * a[1] * tau) * tau
                    lateral = -(x - mx) * ny + (y - my) * nx
                    if abs(lateral) <= mouth.half_width:
                        best, what = tau, ("pocket", i, mouth)
            reach = [self.reach(i, best) for i in range(_N)]
            # jaw points (quartics)
            for i in moving:
                p, v, a = self.pos[i], self.vel[i], self.acc[i]
                for jaw in self.geo.jaws:
                    dx, dy = p[0] - jaw.xy[0], p[1] - jaw.xy[1]
                    if math.hypot(dx, dy) - R > reach[i]:
                        continue
                    tau = self._quartic_time(dx, dy, v[0], v[1], a[0], a[1], R, best)
                    if tau is not None and tau < best:
                        best, what = tau, ("jaw", i, jaw)
            # ball pairs (quartics)
            for i in range(_N):
                if not self.on[i]:
                    continue
                for j in range(i + 1, _N):
                    if not self.on[j] or (self.mode[i] == _STOPPED and self.mode[j] == _STOPPED):
                        continue
                    pi, pj = self.pos[i], self.pos[j]
                    dx, dy = pi[0] - pj[0], pi[1] - pj[1]
                    if math.hypot(dx, dy) - 2 * R > reach[i] + reach[j]:
                        continue
                    vi, vj, ai, aj = self.vel[i], self.vel[j], self.acc[i], self.acc[j]
                    tau = self._quartic_time(dx, dy, vi[0] - vj[0], vi[1] - vj[1],
                                             ai[0] - aj[0], ai[1] - aj[1], 2 * R, best)
                    if tau is not None and tau < best:
                        best, what = tau, ("pair", i, j)
            self.advance(best)
            self.apply(what)

    @staticmethod
    def _quartic_time(dx: float, dy: float, dvx: float, dvy: float, dax: float, day: float,
                      dist: float, t_hi: float) -> float | None:
        c = (dx * dx + dy * dy - dist * dist,
             2 * (dx * dvx + dy * dvy),
             dvx * dvx + dvy * dvy + dx * dax + dy * day,
             dvx * dax + dvy * day,
             0.25 * (dax * dax + day * day))
        return _entry_time(c, t_hi, 2 * dist)

    # ---- event responses -------------------------------------------------------------------
    def emit(self, type_: EventType, i: int, **kw: object) -> None:
        self.events.append(Event(self.t, type_, ball=BALL_IDS[i],
                                 xy=(self.pos[i][0], self.pos[i][1]), **kw))  # type: ignore[arg-type]

    def remove(self, i: int) -> None:
        self.on[i] = False
        self.vel[i] = [0.0, 0.0]
        self.w[i] = [0.0, 0.0, 0.0]
        self.mode[i] = _STOPPED

    def apply(self, what: tuple[object, ...]) -> None:
        kind = what[0]
        i = what[1]
        assert isinstance(i, int)
        if kind == "transition":
            v, w = self.vel[i], self.w[i]
            if self.mode[i] == _SLIDING:
                w[0], w[1] = -v[1] / self.R, v[0] / self.R
                mode = _ROLLING if math.hypot(v[0], v[1]) > _EPS_SPEED else _STOPPED
            else:
                v[0] = v[1] = w[0] = w[1] = 0.0
                mode = _STOPPED
            self.transitions.append(Transition(self.t, BALL_IDS[i], _MODE_NAMES[mode]))
        elif kind == "jump":
            tj = what[2]
            assert isinstance(tj, float)
            self.t = max(self.t, tj)  # exactly the scripted time (not t + (tj - t))
            self.emit(EventType.OFF_TABLE, i)
            self.remove(i)
        elif kind == "pocket":
            mouth = what[2]
            assert isinstance(mouth, Mouth)
            self.emit(EventType.POCKET, i, pocket=mouth.pocket)
            self.remove(i)
        elif kind == "cushion":
            seg = what[2]
            assert isinstance(seg, CushionSegment)
            normal = (seg.sign, 0.0) if seg.axis == 0 else (0.0, seg.sign)
            p = self.pos[i]
            if seg.sign * (p[seg.axis] - seg.pos) < self.R:  # undo a sub-1e-7 mm overlap
                p[seg.axis] = seg.pos + seg.sign * self.R
            self.hit_cushion(i, normal, seg.cushion, None)
        elif kind == "jaw":
            jaw = what[2]
            assert isinstance(jaw, Jaw)
            p = self.pos[i]
            dx, dy = p[0] - jaw.xy[0], p[1] - jaw.xy[1]
            d = math.hypot(dx, dy)
            if d < self.R:
                p[0], p[1] = jaw.xy[0] + dx * self.R / d, jaw.xy[1] + dy * self.R / d
            self.hit_cushion(i, (dx / d, dy / d), jaw.cushion, jaw.pocket)
        elif kind == "pair":
            j = what[2]
            assert isinstance(j, int)
            self.hit_balls(i, j)

    def hit_cushion(self, i: int, n: Point, cushion: Cushion, jaw: Pocket | None) -> None:
        prm, R = self.p, self.R
        v, w = self.vel[i], self.w[i]
        nx, ny = n
        tx, ty = -ny, nx  # z x n
        vn = v[0] * nx + v[1] * ny
        if i in self.jump_at_cushion and -vn >= prm.least_jump_mm_s:
            self.emit(EventType.OFF_TABLE, i)
            self.remove(i)
            return
        vt = v[0] * tx + v[1] * ty
        if vn < 0 and -vn >= _V_CHATTER:
            jn = -(1 + prm.e_cushion) * vn  # normal impulse per unit mass
            # slip of the contact point (at -R n from the centre) along t
            st = vt - R * w[2]
            pt = -math.copysign(min(2 * abs(st) / 7, prm.mu_cushion * jn), st)
            v[0] += jn * nx + pt * tx
            v[1] += jn * ny + pt * ty
            w[2] -= 5 * pt / (2 * R)
        else:
            # a gentle touch: the ball stays on the nose (no normal velocity, and no spin that
            # would drive it into the cushion)
            v[0] -= vn * nx
            v[1] -= vn * ny
            wt = w[0] * tx + w[1] * ty
            w[0] -= wt * tx
            w[1] -= wt * ty
        self.emit(EventType.CUSHION, i, cushion=cushion, jaw=jaw)

    def hit_balls(self, i: int, j: int) -> None:
        R = self.R
        pi, pj = self.pos[i], self.pos[j]
        dx, dy = pj[0] - pi[0], pj[1] - pi[1]
        d = math.hypot(dx, dy)
        nx, ny = dx / d, dy / d
        if d < 2 * R:  # undo a sub-1e-7 mm overlap
            half = (2 * R - d) / 2
            pi[0] -= half * nx
            pi[1] -= half * ny
            pj[0] += half * nx
            pj[1] += half * ny
        vi, vj = self.vel[i], self.vel[j]
        approach = (vi[0] - vj[0]) * nx + (vi[1] - vj[1]) * ny
        if approach < _V_PUSH:
            # A gentle contact: a ball whose cloth friction drives it into the other (a push
            # with heavy spin) would re-touch it ever more often. Let the friction act at once:
            # the driving slip becomes rolling now (what it would do over the next instants;
            # it dissipates |u|^2 / 7 per unit mass).
            for ball, sign in ((i, 1.0), (j, -1.0)):
                v, w = self.vel[ball], self.w[ball]
                ux, uy = v[0] - R * w[1], v[1] + R * w[0]
                if sign * (ux * nx + uy * ny) < 0 and math.hypot(ux, uy) > _EPS_SPEED:
                    dvx, dvy = -2 * ux / 7, -2 * uy / 7
                    v[0] += dvx
                    v[1] += dvy
                    w[0] += 5 * dvy / (2 * R)
                    w[1] -= 5 * dvx / (2 * R)
            approach = (vi[0] - vj[0]) * nx + (vi[1] - vj[1]) * ny
        # relative normal velocity after the contact: -e * approach; a gentle contact separates
        # at _V_GENTLE if the pair's spin can pay for it (energy must not grow), else elastically
        sep = self.p.e_ball * approach
        if sep < _V_GENTLE:
            if -approach >= _V_GENTLE:
                sep = -approach  # already separating: nothing to do
            else:
                gain = (_V_GENTLE**2 - approach**2) / 4  # kinetic energy added per unit mass
                rot = 0.2 * R * R * sum(c * c for c in (*self.w[i][:2], *self.w[j][:2]))
                if rot > 2 * gain:
                    scale = math.sqrt(1 - gain / rot)
                    for ball in (i, j):
                        self.w[ball][0] *= scale
                        self.w[ball][1] *= scale
                    sep = _V_GENTLE
                else:
                    sep = abs(approach)
        k = 0.5 * (approach + sep)
        vi[0] -= k * nx
        vi[1] -= k * ny
        vj[0] += k * nx
        vj[1] += k * ny
        pair = (BALL_IDS[i], BALL_IDS[j])
        last = self.last_contact.get(pair)
        self.last_contact[pair] = self.t
        if last is None or self.t - last > self.p.merge_contacts_s:
            self.events.append(Event(self.t, EventType.CONTACT, balls=pair, xy=(pi[0], pi[1])))


# --------------------------------------------------------------------------------------------
# Result
# --------------------------------------------------------------------------------------------
class Shot:
    """The outcome of :func:`simulate`: events, rest time, final positions and the full
    trajectory (every ball's state at any time, exact, from the stored motion segments)."""

    def __init__(self, sim: _Sim, t0: float, initial: Mapping[str, Point]) -> None:
        self.table = sim.geo.table
        self.geometry = sim.geo
        self.params = sim.p
        self.t0 = t0
        self.events: tuple[Event, ...] = tuple(sim.events)
        self.transitions: tuple[Transition, ...] = tuple(sim.transitions)
        self.rest_time: float = sim.t
        self.initial_positions: dict[str, Point] = {b: (float(x), float(y))
                                                    for b, (x, y) in initial.items()}
        self.final_positions: dict[str, Point] = {
            BALL_IDS[i]: (sim.pos[i][0], sim.pos[i][1]) for i in range(_N) if sim.on[i]}
        self.pocketed: dict[str, Pocket] = {e.ball: e.pocket for e in self.events
                                            if e.type is EventType.POCKET
                                            and e.ball is not None and e.pocket is not None}
        self.off_table: tuple[str, ...] = tuple(e.ball for e in self.events
                                                if e.type is EventType.OFF_TABLE
                                                and e.ball is not None)
        self.n_steps = len(sim.snaps) - 1
        self._R = sim.R
        self._spin_rate = sim.spin_rate
        snaps = sim.snaps
        self._t: FloatArray = np.array([s[0] for s in snaps])
        self._p: FloatArray = np.array([s[1] for s in snaps])
        self._v: FloatArray = np.array([s[2] for s in snaps])
        self._a: FloatArray = np.array([s[3] for s in snaps])
        self._w: FloatArray = np.array([s[4] for s in snaps])
        self._al: FloatArray = np.array([s[5] for s in snaps])
        self._on: NDArray[np.bool_] = np.array([s[6] for s in snaps], dtype=bool)

    # ---- trajectory ------------------------------------------------------------------------
    def _segments(self, times: FloatArray, side: str) -> tuple[NDArray[np.intp], FloatArray]:
        idx = np.searchsorted(self._t, times, side="left" if side == "left" else "right") - 1
        idx = np.clip(idx, 0, len(self._t) - 1)
        tau = np.maximum(times - self._t[idx], 0.0)
        return idx, tau

    def sample(self, times: Iterable[float] | FloatArray, side: str = "right"
               ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Ball states at many times at once: ``(pos, vel, w)`` of shapes (n, 5, 2), (n, 5, 2),
        (n, 5, 3), balls in :data:`BALL_IDS` order; NaN where a ball is not on the table.
        ``side="left"`` gives the state just before an event at exactly that time."""
        ts = np.asarray(times, dtype=float).reshape(-1)
        idx, tau = self._segments(ts, side)
        t1 = tau[:, None, None]
        pos = self._p[idx] + self._v[idx] * t1 + 0.5 * self._a[idx] * t1 * t1
        vel = self._v[idx] + self._a[idx] * t1
        w = self._w[idx].copy()
        w[:, :, :2] += self._al[idx] * t1
        wz = w[:, :, 2]
        w[:, :, 2] = np.sign(wz) * np.maximum(np.abs(wz) - self._spin_rate * tau[:, None], 0.0)
        off = ~self._on[idx]
        pos[off] = np.nan
        vel[off] = np.nan
        w[off] = np.nan
        return pos, vel, w

    def state(self, t: float) -> dict[str, BallState]:
        """Every ball on the table at time ``t`` (s): centre, velocity, angular velocity."""
        pos, vel, w = self.sample([t])
        return {b: BallState(*map(float, (*pos[0, i], *vel[0, i], *w[0, i])))
                for i, b in enumerate(BALL_IDS) if not np.isnan(pos[0, i, 0])}

    def positions(self, t: float) -> dict[str, Point]:
        """Centres (mm) of the balls on the table at time ``t``."""
        return {b: s.xy for b, s in self.state(t).items()}

    def energy(self, t: float, side: str = "right") -> float:
        """Kinetic energy per unit ball mass (mm^2/s^2), translation plus rotation, of the balls
        on the table at ``t`` (``side="left"``: just before an event at ``t``)."""
        _, vel, w = self.sample([t], side)
        inertia = 0.4 * self._R**2
        return float(0.5 * np.nansum(vel**2) + 0.5 * inertia * np.nansum(w**2))

    @property
    def step_times(self) -> FloatArray:
        """Times (s) of every internal event (shot events and motion changes), incl. the start."""
        return self._t.copy()

    def facts(self) -> list[dict[str, object]]:
        """The events as DESIGN.md shot-fact dicts, without ``frame`` (the caller adds it).

        [decision] A ball rattling on the jaws of the pocket it then drops into has not banked:
        those jaw touches are not cushion contacts in the facts (a bank is a rebound off a
        cushion before the pocket). A jaw touch of a ball that stays out is a cushion contact.
        """
        return [e.to_fact() for e in self.events
                if e.jaw is None or self.pocketed.get(e.ball or "") is not e.jaw]


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------
def simulate(positions: Mapping[str, Point], strike: Strike, *,
             table: TableSpec | None = None, params: PhysicsParams | None = None,
             off_table: Mapping[str, float | str] | None = None, t0: float = 0.0) -> Shot:
    """Simulate one shot from rest until every ball stops (or leaves the table).

    ``positions`` maps the ids of the balls on the table to their centres (mm); balls not given
    are not on the table. ``off_table`` scripts jumps: ``{"Y": "cushion"}`` makes Y leave the
    table at its next cushion or jaw contact, ``{"Y": 1.2}`` at t = 1.2 s (absolute time, like
    every time here). The strike happens at ``t0``.
    """
    table = table if table is not None else TableSpec()
    params = params if params is not None else PhysicsParams()
    off_table = dict(off_table or {})
    geo = _geometry(table)
    R = table.ball_radius_mm
    for ball, xy in positions.items():
        if ball not in _INDEX:
            raise PhysicsError(f"positions: unknown ball id {ball!r} "
                               f"(expected one of {' '.join(BALL_IDS)})")
        if len(xy) != 2 or not all(math.isfinite(float(c)) for c in xy):
            raise PhysicsError(f"positions.{ball}: expected (x_mm, y_mm), got {xy!r}")
        if not geo.on_cloth((float(xy[0]), float(xy[1]))):
            raise PhysicsError(f"positions.{ball}: centre {tuple(xy)!r} is not on the cloth "
                               f"(at least {R} mm from every cushion nose and jaw)")
    items = list(positions.items())
    for k, (b1, p1) in enumerate(items):
        for b2, p2 in items[k + 1:]:
            d = math.dist(p1, p2)
            if d < 2 * R - 1e-6:
                raise PhysicsError(f"positions: {b1} and {b2} overlap ({d:.6f} mm apart, "
                                   f"expected >= {2 * R} mm)")
    if strike.ball not in positions:
        raise PhysicsError(f"strike.ball: {strike.ball} is not on the table")
    for ball, when in off_table.items():
        if ball not in _INDEX:
            raise PhysicsError(f"off_table: unknown ball id {ball!r}")
        if when != "cushion" and not (isinstance(when, (int, float))
                                      and math.isfinite(when)):
            raise PhysicsError(f"off_table.{ball}: expected 'cushion' or a time in s, "
                               f"got {when!r}")
    if not math.isfinite(t0):
        raise PhysicsError(f"t0: expected a finite time, got {t0!r}")

    sim = _Sim(positions, geo, params, off_table, t0)
    i = _INDEX[strike.ball]
    vx = strike.speed * math.cos(strike.direction)
    vy = strike.speed * math.sin(strike.direction)
    sim.vel[i] = [vx, vy]
    sim.w[i] = [-strike.follow * vy / R, strike.follow * vx / R, strike.side * strike.speed / R]
    sim.events.append(Event(t0, EventType.STRIKE, ball=strike.ball,
                            xy=(sim.pos[i][0], sim.pos[i][1])))
    sim.run()
    return Shot(sim, t0, positions)


_GEOMETRY_CACHE: dict[TableSpec, TableGeometry] = {}


def _geometry(table: TableSpec) -> TableGeometry:
    geo = _GEOMETRY_CACHE.get(table)
    if geo is None:
        geo = _GEOMETRY_CACHE[table] = TableGeometry.from_table(table)
    return geo
