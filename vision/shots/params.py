"""The thresholds by which shot facts are found from ball tracks (:mod:`vision.shots`), as
one frozen, checked parameter object that a caller can set, see and record.

Each field's unit ends its name: ``_mm``, ``_mm_per_frame``, ``_mm_s`` (mm/s), ``_mm_s2``
(mm/s²), ``_s``, ``_frames``, ``_samples`` (a count of a track's samples), ``_deg``,
``_diameters`` and ``_radii`` (of a ball), ``_share`` (a fraction, in (0, 1]) and ``_ratio``
(a factor, at least 1). A ``...`` comment goes on from the one before it.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision.params import ParamsError, as_dict, check_fields, check_order

# counts of frames or samples below which a rule cannot work (1 for the rest): a straight
# motion is predicted from a line through two samples or more; a steady roll is two steps
_LEAST_COUNT = {"predict_samples": 2, "rolling_samples": 2}


class ShotFactsParamsError(ParamsError):
    """A shot-facts threshold out of its range (the message names the field)."""


@dataclass(frozen=True)
class ShotFactsParams:
    """Every threshold of :mod:`vision.shots`; the defaults are the tuned values."""

    # --- at rest, and cutting a match into shots
    still_mm_per_frame: float = 1.5  # a ball moving less than this per frame is at rest
    still_frames: int = 8  # all balls at rest this long: the shot is over
    next_strike_s: float = 1.0  # ... and no strike again sooner: motion then is still this shot's
    # ... unless a ball at rest rolls off, its first step at most this many times the next (a
    # struck ball is fastest as it leaves; an id jumping onto a hand is not)
    struck_first_step_ratio: float = 2.0
    # a resting ball seen this near its place, in part (under the cue, its shadow across it): the
    # tracker keeps it in place, and shot facts do not take the sighting for a motion's start
    rest_jitter_diameters: float = 0.3
    first_step_share: float = 0.25  # a ball leaving its place: a first step this share of the next
    touching_diameters: float = 1.15  # two balls at rest this near (centre to centre) touch ...
    touching_s: float = 0.1  # ... and, one struck, leave together, their starts this far apart
    near_diameters: float = 3.0  # balls resting this near that start within a frame left together
    wander_s: float = 0.5  # a resting ball seen off its place this long at most, then back: stayed
    placed_mm_per_frame: float = 400.0  # faster than a shot (12 m/s) across unseen frames: by hand
    hardest_mm_per_frame: float = 480.0  # ... unless rolling on, or seen in two frames, up to this
    min_travel_mm: float = 34.0  # a shot moves some ball at least half a diameter (less: jitter)
    min_shot_frames: int = 4  # motion over fewer frames is a ball being placed, not a shot
    max_gap_frames: int = 3  # a ball unseen longer and then elsewhere was not rolling there ...
    hand_s: float = 0.2  # ... unless back this soon (no hand lifts and puts down a ball so fast)
    nudge_mm: float = 68.0  # ... and this near where last seen, or rolling on from there
    # --- straight pieces of a ball's motion
    line_tolerance_mm: float = 8.0  # a sample this far off the straight motion starts a new piece
    blur_share: float = 0.08  # ... and this share of its step more (a blurred centre is less sure)
    predict_samples: int = 6  # a motion is extrapolated from a fit of its last this many samples
    outlier_samples: int = 2  # ... unless the ball is back on the line within this many samples
    turn_samples: int = 2  # at most this many blurred pictures of a turn lie on neither line
    drift_growth_ratio: float = 1.25  # a slow turn's samples drift off the line by this more each
    local_samples: int = 4  # a piece's motion near its ends is fitted on this many samples
    # --- rolling and placing
    heavy_drag_mm_s2: float = 500.0  # a rolling ball slows by this at most (5x a usual cloth's)
    typical_drag_mm_s2: float = 100.0  # ... and by about this (rolling resistance 0.01 of weight)
    rolling_samples: int = 3  # a ball back elsewhere seen this many frames running, steady ...
    rolling_mm_per_frame: float = 7.0  # ... no slower than this (0.2 m/s), rolls: it was not placed
    fast_mm_per_frame: float = 100.0  # ... or seen in its last two frames this fast (3 m/s), gone
    steady_step_mm: float = 34.0  # ... its steps differing by at most this (half a ball)
    # --- events
    min_kink_mm_s: float = 150.0  # a smaller change of velocity at a piece's end is noise
    slow_kink_mm_s: float = 60.0  # ... unless at least this and half the speed (a slow ball's turn)
    push_angle_deg: float = 60.0  # a contact turns a ball away from the other ball within this
    double_kiss_s: float = 0.1  # two contacts of one pair this close in time are one (noise)
    contact_tolerance_mm: float = 22.0  # centres within 2R +- this at an event: a contact
    # a ball at rest sent off while one ball alone rolled was hit by it when its path passed this
    # near where the hitter must have been
    lone_hitter_mm: float = 51.0
    # two rolling balls' centres this near touching, pushed apart: a graze (touches tracked 4.2 and
    # 5.4 mm wide, each a ball's second touch just off a cushion)
    graze_mm: float = 6.0
    graze_frames: int = 3  # ... each ball's velocity compared over this many frames around it
    graze_kink_mm_s: float = 40.0  # ... changed by this at least, pushed off along their line
    # two balls rolling slower than this (sharp pictures, no blur) whose centres came within
    # touch_mm of touching did touch, pushed apart or not: a second touch of a ball rolling
    # along with another, too gentle to turn either by more than the track's noise
    touch_speed_mm_per_frame: float = 15.0
    touch_mm: float = 1.5
    cushion_tolerance_mm: float = 22.0  # centre within R +- this of a nose at an event: a cushion
    bounce_touch_mm: float = 6.0  # a slow ball's centre within R + this of a nose, off it: cushion
    nudged_mm: float = 2.5  # a ball at rest through a shot found this far off its place after ...
    nudge_angle_deg: float = 45.0  # ... away from a ball rolled to within graze_mm of it: nudged
    jaw_tolerance_mm: float = 8.0  # a cushion contact this near a jaw may have been the jaw
    # a bounce sends a ball back off the cushion at least this share of its speed into it, less
    # slow_kink_mm_s (the noise): a ball running into a corner pocket at 1.4 m/s, its picture
    # eaten by the hole and turned along the jaw, comes off at nothing: no bank
    least_rebound_share: float = 0.2
    # --- pots
    pocket_reach_diameters: float = 2.5  # a track ending this near a pocket's mouth may be a pot
    # a ball hit from rest and never seen again (see events._potted_unseen) went the way its
    # hitter's velocity lost points within this many degrees (the hitter's turn read off its
    # pieces' ends: 0.4 and 3.6 degrees off the pockets on the hard sets' red cloths)
    unseen_way_deg: float = 5.0
    past_mouth_mm: float = 3.0  # a centre this far past a pocket's mouth line has dropped
    # a ball come within in_the_hole_radii of a mouth line, then unseen for more than this many
    # frames, dropped: in the hole it is seen now and then, its picture cut by the cloth's edge
    # and reading short of the line; on the lip, in plain view, it is seen every frame
    in_the_hole_gap_frames: int = 2
    in_the_hole_radii: float = 0.5  # ... and a ball in the hole reads up to this short of the line
    # a ball unseen this many frames or more may have bounced off a cushion unseen (see
    # cushions.unseen_bounces); over fewer its way in and out meet at a piece's end
    unseen_bounce_frames: int = 3

    def __post_init__(self) -> None:
        check_fields(self, ShotFactsParamsError, least_counts=_LEAST_COUNT)
        check_order(self, ShotFactsParamsError, ("placed_mm_per_frame", "hardest_mm_per_frame"),
                    ("slow_kink_mm_s", "min_kink_mm_s"),
                    ("typical_drag_mm_s2", "heavy_drag_mm_s2"))

    @property
    def flicker_return_mm(self) -> float:
        """A resting ball seen back this near its place never left (three still steps)."""
        return 3 * self.still_mm_per_frame

    @property
    def reseated_mm(self) -> float:
        """A resting ball seen shifted this little in one step, still for two steps either side,
        did not roll (the cue or a hand beside it): as near as ``flicker_return_mm``."""
        return self.flicker_return_mm

    def to_dict(self) -> dict[str, float | int]:
        """Every field by name (for a report; ``ShotFactsParams(**d)`` gives it back)."""
        return as_dict(self)


DEFAULT_SHOT_FACTS = ShotFactsParams()
