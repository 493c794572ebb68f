"""The thresholds of ball detection (:class:`vision.detection.detector.BallDetector`) and of the
balls' size measure (:mod:`vision.detection.ballsize`), as frozen, checked parameter objects that
a caller can set, see and record.

Sizes are in a ball's own measure where it lies (the calibration gives its radius in pixels at
every place, at whatever resolution the search runs), so no threshold is in pixels. Each field's
unit ends its name: ``_radii`` and ``_diameters`` (of a ball), ``_ball_areas`` (a ball's disc),
``_thresholds`` (times the ball threshold, the cloth's own noise: at least 1), ``_chroma`` (a
chromaticity distance, L1 over B, G, R: in (0, 2]), ``_share`` (a fraction, in (0, 1]) and
``_ratio`` (a factor, at least 1); a whole number (``int``) is a count of what its name says. A
``...`` comment goes on from the one before it.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision.params import ParamsError, as_dict, check_fields, check_order


class DetectionParamsError(ParamsError):
    """A detection threshold out of its range (the message names the field)."""


@dataclass(frozen=True)
class DetectionParams:
    """Every threshold of :class:`~vision.detection.detector.BallDetector`; the defaults are the
    tuned values."""

    # --- the foreground: how unlike the cloth a pixel is
    # a pixel this far in chromaticity from the cloth is strongly coloured (a red ball on any cloth:
    # 0.8 and more; most shadows stay below): a dark ball of such pixels is weighted by its own
    # brightness, not the cloth's (see ClothModel.dark_balls)
    coloured_chroma: float = 0.5
    # a cloth on which a white ball's chromaticity contrast is below this is neutral (a grey cloth:
    # 0.04-0.05; the club footage's cloth: 0.09 and more): there a white ball differs from the
    # cloth in light only, and a pixel brighter than the cloth by more than brighter_share counts
    # as foreground too. (Not on coloured cloths: there the chromaticity shows every ball, and the
    # light's glints and reflections, counted, made phantom balls on the club footage.)
    neutral_cloth_chroma: float = 0.075
    brighter_share: float = 0.3  # ... brighter than the cloth by this share of its brightness
    # ... but never more than this share of the way from the cloth's brightness to pure white, where
    # the cloth is bright (a cloth in a spotlight at 0.7 of full white: a white ball there is only
    # 1.4 times as bright, and a 1.3 margin left its shaded half and its dots under the threshold,
    # so it was never seen in a whole shot)
    headroom_share: float = 0.3
    # on a neutral cloth a white ball is at least this many times as bright as the cloth (1 % of the
    # white sightings on the grey synthetic cloths are under it, moving ones): the threshold's noise
    # floor stays under a quarter of such a white's contrast
    palest_white_ratio: float = 1.5
    # a strongly coloured ball with this share of its disc above the threshold against the cloth's
    # brightness shows whole; one with less (a red's shaded rim taken for a shadow) is weighed by
    # its own brightness (see ClothModel.dark_balls): near half a disc, its blob flickers in and
    # out of the search
    whole_share: float = 0.75
    # a ball the game state expects where the cloth is learned, whose typical pixel is below a
    # quarter of a white's contrast (a red on a red cloth: 0.09-0.18 chromaticity, the whites'
    # floor 0.16-0.18), makes the brightening count and lowers the threshold's floor to this share
    # of the whites' floor (at a third of it the compression's junk on a red cloth took the
    # balls' ids; see ClothModel._faint_balls_floor)
    faint_floor_share: float = 0.5
    # ... or whose core (this many radii around its centre) is below that quarter though its disc
    # is not: a red on a red cloth that shows only by its dark rim, its lit top of the cloth's own
    # chromaticity (0.06 against a disc's 0.17, the floor 0.15): that ring, broken on one side,
    # made no blob, and the ball was unseen at rest for a whole shot. Its brightening is counted
    # (the lit top fills the ring); the threshold keeps the whites' floor (lowered too, the
    # compression's junk along the rails of a camera bumped mid-shot took a white's id)
    faint_core_radii: float = 0.5
    # The colour classes are fitted to the balls of the first frames read (see
    # BallDetector.fit_colours). Where the game state says where the balls lie then, a detection
    # within this many radii of such a place is that ball and counts, however ball-like (a red on
    # a red cloth at 960x540 scores 0.4-0.5, under the fit's bar: left out, the cue's and an arm's
    # blobs made the red class, and the reds were no class's) ...
    known_ball_radii: float = 1.0
    # ... when the detections lie at this share of the game state's places or more (else the
    # state is not what the picture shows: the old rule)
    known_balls_share: float = 0.5
    # The whites' dots (see ballfit.count_dots): 12 mm across on a 61-68 mm ball, at 720p some 3-4
    # pixels, blurred by the lens and the encoding to grey smudges only 20-30 % darker than the
    # ball around them. Darkness is measured against the ball's own shading (a plane tilted
    # toward the lamps plus the rim's fall-off), not one level for the whole ball: under a club
    # room's lamps the side away from them is 40 % darker than the core and was read as dots.
    dot_darker_share: float = 0.75  # a dot is darker than this share of the fitted shading
    dot_fit_radii: float = 0.8  # the shading is fitted within this many radii of the centre
    dot_within_radii: float = 0.8  # dots are looked for this near the centre (the rim is dark)
    # a dark group larger than this share of the ball's disc is a shadow's edge, not a dot (W1's
    # dot covers 3 % of it, W2's pair merged 6-8 %)
    dot_most_area_share: float = 0.12
    # a dark group spread along its longest axis more than this many times as far as across it
    # is a line (a hard shadow's edge, a line projected through the ball), not a dot: W2's two
    # dots merged spread some 3 times as far along as across
    dot_elongation_ratio: float = 4.0
    # when the picture changed over more than this share of the table (players over it), the
    # foreground and the blobs are made afresh for all of it in one go: cheaper than in pieces
    mostly_changed_share: float = 0.4
    # the cloth model's updates take the wide median on a grid this many ball diameters apart only
    # (see ClothModel.cloth_from): every 4th work pixel and row at the work resolution's 10
    # pixels a ball (9.5-11.5 on every video measured)
    coarse_step_diameters: float = 0.375

    # --- the blobs: ball candidates at the working resolution
    # a ball candidate's blob (opened) covers at least this share of a ball's disc (smaller ones are
    # noise) ...
    least_blob_share: float = 0.45
    # ... and on a neutral cloth this share, as a white ball in a bright light shows only by its lit
    # top: its rim is darker than the cloth there (a white in a spotlight on a grey cloth: 0.41 of
    # the disc)
    least_lit_top_share: float = 0.3
    # a blob too wide for balls is searched again above this many times the ball threshold: a
    # ball's own pixels are, the faint junk that joined it to another ball is not (see
    # BallSplitter.strong_parts) ...
    strong_thresholds: float = 2.0
    # ... and then above this, when the junk is stronger (blocks beside a moving ball)
    stronger_thresholds: float = 4.0
    # a round piece of a blob too wide for balls is a ball when its middle lies this many radii from
    # the blob's edge: a ball's picture takes in its rim and shadow (1.27 radii for a white with the
    # cue's tip on it in the club footage); the round pieces of the cue and the fingers beside it
    # reach 1.0-1.19, and at 0.85 the cue ball's id walked off on them at the strike
    round_core_radii: float = 1.2
    # a strong part of a blob with a hand in it up to this many balls big may be balls touching
    # (see BallSplitter.strong_cores)
    touching_cores_ball_areas: float = 4.0
    # a round piece of a blob with less than this share of a ring just outside it covered by the
    # blob is alone: a ball, not a knuckle of a hand or an arm (see shapes.ring_share)
    alone_share: float = 0.5
    # a strip one ball wide (a streak) spreads its pixels this many radii across its axis at most
    # (a uniform strip two radii wide: 0.58; see BallSplitter._a_lone_streak)
    streak_spread_radii: float = 0.65
    # a blob of one ball's size is drawn out along an axis when its pixels spread along it this many
    # times as far as across (a disc's: 1.0-1.1; the faint streaks of a red on a red cloth:
    # 1.4-2.2) ...
    short_streak_spread_ratio: float = 1.3
    # ... it is longer than this many diameters ...
    short_streak_length_diameters: float = 1.25
    # ... and it spreads at least this many radii across (those streaks: 0.42-0.47 radii; the cue's
    # pieces 0.29-0.31): then it is a short streak (see shapes.one_ball)
    short_streak_width_radii: float = 0.37
    # a ring of foreground whose outline encloses no more than this many balls' area is one ball
    # with a middle like the cloth (see BlobFinder._fill_ball_holes)
    holed_ring_ball_areas: float = 1.6
    # no point of one ball's blob (its rim, halo and shadow with it) lies further than this many
    # radii from the blob's edge: a deeper blob is a hand, an arm, the cue or balls in a cluster.
    # (At 1.5 a white with its two shadows beside a red in the club footage, 1.41, was found, but
    # that shot's contact was lost, and 50 more phantom id-frames came on the footage.)
    ball_depth_radii: float = 1.4
    # a streak may be this many radii deep at its deepest: a bright ball's blur joined by its
    # shadow (a struck white in the club footage: 1.44 radii) is wider than a ball, and no hand
    wide_streak_radii: float = 1.6
    # a streak whose ends lie no further apart than this many radii, each end sure of the same
    # colour, is two balls touching when its contrast with the cloth necked_offset_radii off its
    # axis falls between its two humps to necked_dip_share of the lower (see shapes.neck_share; on
    # ten fresh sets and two hard ones: two touching balls 0.07-0.44, a ball's streak 0.53 and more)
    necked_length_radii: float = 2.5
    necked_offset_radii: float = 0.5
    necked_dip_share: float = 0.48

    # --- the colours
    # a detection whose core colour is within this share of the cloth's (each of B, G, R) is cloth
    # (a white ball on the palest cloth is brighter by a sixth, a blurred ball's core by more)
    cloth_like_share: float = 0.08
    # a ball's core has its colour class's brightness within this factor (see
    # Classifier._a_ball_near_the_cloth)
    class_brightness_ratio: float = 1.25
    # ... and brighter than the cloth by half the margin, or, not darker than it, its core's
    # chromaticity within this share of its distance to the cloth's from the class's (a red at
    # rest on a red cloth under a lamp, its core 5 % brighter than the cloth: 0.003 from the red
    # class, 0.107 from the cloth; the tests' junk a tenth brighter lies nearer the cloth, 0.41-0.44
    # of the way)
    on_class_share: float = 0.2
    # a core's brightness within this share of the cloth's is not darker than it (the compression's
    # noise between a frame and the cloth's model: a red on a red cloth read 0.6 % darker)
    level_noise_share: float = 0.03
    # a see-through (blurred) ball is a mixture of a class and the cloth in brightness as well as in
    # colour: a mixture whose brightness is off by more than this factor is not what was seen
    mixture_brightness_ratio: float = 1.5

    def __post_init__(self) -> None:
        check_fields(self, DetectionParamsError)
        if self.stronger_thresholds <= self.strong_thresholds:  # (two levels, one above the other)
            raise DetectionParamsError(
                f"stronger_thresholds: expected more than strong_thresholds "
                f"({self.strong_thresholds!r}), got {self.stronger_thresholds!r}")
        check_order(self, DetectionParamsError, ("round_core_radii", "ball_depth_radii"),
                    ("ball_depth_radii", "wide_streak_radii"))

    def to_dict(self) -> dict[str, float | int]:
        """Every field by name (for a report; ``DetectionParams(**d)`` gives it back)."""
        return as_dict(self)


@dataclass(frozen=True)
class BallSizeParams:
    """Every threshold of :mod:`vision.detection.ballsize` (the balls measured as a ruler in a
    picture rectified to the table plane, a stage of its own before the detection); the defaults
    are the tuned values. Sizes are in the table preset's ball diameters, or in the radius where a
    ball's contrast falls to half."""

    size_window_share: float = 0.10  # sizes within this share of one another: the same ball size
    least_balls: int = 3  # fewer blobs of one size than this measure nothing
    most_peaks: int = 60  # contrast peaks looked at in one frame (the strongest)
    # the median over this many preset ball diameters is the cloth, even beside a cluster
    cloth_window_diameters: float = 8.0
    # the edge is looked for from this many half-contrast radii out ...
    edge_search_least_radii: float = 0.7
    edge_search_most_radii: float = 1.5  # ... to this many
    # of a ring well inside a ball this share is contrasted, and of one well outside this share not
    round_share: float = 0.8
    # the least of the preset's ball diameter that can be a ball ...
    smallest_ball_diameters: float = 0.5
    largest_ball_diameters: float = 2.5  # ... and the most
    cushion_reach_diameters: float = 1.5  # preset ball diameters from the cushions left out
    pocket_reach_diameters: float = 2.5  # preset ball diameters around each pocket point left out
    # the measured ball may be this share bigger (or 1 / (1 + this) smaller) than the preset's
    # before it is called wrong: the measure is within about 20 % of the truth on the labelled
    # videos
    most_off_share: float = 0.25

    def __post_init__(self) -> None:
        check_fields(self, DetectionParamsError)
        check_order(self, DetectionParamsError,
                    ("edge_search_least_radii", "edge_search_most_radii"),
                    ("smallest_ball_diameters", "largest_ball_diameters"))

    def to_dict(self) -> dict[str, float | int]:
        """Every field by name (for a report; ``BallSizeParams(**d)`` gives it back)."""
        return as_dict(self)


DEFAULT_DETECTION = DetectionParams()
DEFAULT_BALL_SIZE = BallSizeParams()
