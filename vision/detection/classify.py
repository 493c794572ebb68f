"""Which detections are balls, and their colour names: the video's colour classes
(:class:`ColourModel`) applied to what was found, with the cloth under each (a core of the cloth's
own colour, or barely unlike it, is no ball; a faint core that is a mixture of a ball colour and
the cloth is a blurred ball)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from vision.detection.cloth import ClothModel
from vision.detection.colour import (
    ColourModel,
    chromaticity,
    cloth_coloured,
    core_against_cloth,
)
from vision.detection.params import DetectionParams
from vision.detection.types import Detection


class Classifier:
    """Names the detections' colours against the ``cloth`` model's current state (its ball
    threshold, brightness and margins). A ball at rest is the same Detection object frame after
    frame: classified once, while the colour classes are the same."""

    def __init__(self, params: DetectionParams, cloth: ClothModel) -> None:
        self.params = params
        self.cloth = cloth
        # colour classes of the last classified detections and the model they were named by
        self._memo: dict[int, tuple[Detection, Detection]] = {}
        self._memo_model: ColourModel | None = None

    def classify(self, detections: Sequence[Detection],
                 model: ColourModel | None) -> list[Detection]:
        """The detections with their colour from the current colour model; those with the cloth's
        own colour there (see :func:`cloth_coloured`) are left out."""
        if model is None:
            return list(detections)
        memo = self._memo if self._memo_model is model else {}
        kept: dict[int, tuple[Detection, Detection]] = {}  # only this call's: memory stays flat
        out = []
        for d in detections:
            hit = memo.get(id(d))
            if hit is None or hit[0] is not d:
                if (cloth_coloured(d, self.params) or self._faint(d, model)
                        or self.cloth_in_light(d) or self._a_ghost(d, model)):
                    continue  # no ball
                i, sure = model.nearest(d.bgr)
                # a sure colour is the nearest class's (as classify without the cloth)
                name = model.names[i] if sure else model.classify(d.bgr, d.cloth_bgr)
                hit = (d, replace(d, colour=name, colour_sure=sure))
            kept[id(d)] = hit
            out.append(hit[1])
        self._memo, self._memo_model = kept, model
        return out

    def cloth_in_light(self, d: Detection) -> bool:
        """On a neutral cloth, a sharp detection whose core has about the cloth's chromaticity
        (within half of ``coloured_chroma``: a red or yellow ball is further off) and is not
        brighter than the cloth by half the margin (``brighter_share``, less on a bright cloth; a
        white ball is: on the grey synthetic cloths 4 of 5491 white sightings were not, all
        moving) is the
        cloth. The compression leaves many faint blocks there, a little off the model, and they
        took a white ball's class. (Not on a coloured cloth read by light for its faint balls: a
        red on a red cloth lies within that of the cloth's chromaticity, and the reds at rest on
        one were left out in every frame.)"""
        if not self.cloth.neutral or d.cloth_bgr is None or d.streak_mm > 0:
            return False
        chroma, light = core_against_cloth(d.bgr, d.cloth_bgr)
        return (light < 1 + 0.5 * self.cloth.brighter
                and chroma < 0.5 * self.params.coloured_chroma)

    def _faint(self, d: Detection, model: ColourModel | None) -> bool:
        """The detection's core is barely unlike the cloth there: its unweighted foreground
        (chromaticity distance plus half the brightening, as in :meth:`ClothModel.foreground`)
        is below ``strong_thresholds`` times the ball threshold, more where the cloth is darker
        than usual (a ball's core is well above it, as in :meth:`BallSplitter.strong_parts`; a
        dark corner's or a compression block's junk is not). A blurred streak is a mixture with
        the cloth and is kept, and so is a ball of a colour near the cloth's (see
        :meth:`_a_ball_near_the_cloth`)."""
        if d.cloth_bgr is None or d.streak_mm > 0:
            return False
        contrast = self.core_contrast(d.bgr, d.cloth_bgr)
        return contrast < self.params.strong_thresholds and not (
            contrast >= 1.0 and self._a_ball_near_the_cloth(d, model))

    def _a_ghost(self, d: Detection, model: ColourModel) -> bool:
        """A streak whose core is faint (under ``strong_thresholds``) and no see-through mixture
        of a ball colour with the cloth under it (see :meth:`ColourModel.mixture`): a compression
        ghost or a shadow's trail where a ball rolled, not a blurred ball (a drawn-out blob is
        held to the same, see :meth:`a_blur`). One such, darker than the cloth, was taken for a
        potted red come back out of the pocket."""
        if d.streak_mm <= 0 or d.cloth_bgr is None:
            return False
        return (self.core_contrast(d.bgr, d.cloth_bgr) < self.params.strong_thresholds
                and model.mixture(d.bgr, d.cloth_bgr) is None)

    def _a_ball_near_the_cloth(self, d: Detection, model: ColourModel | None) -> bool:
        """A faint core that is a coloured ball's own: a red on a red cloth differs from the
        cloth by less than ``strong_thresholds``, yet its core has the chromaticity of a class
        of the nearest class's name (nearer it by half than the cloth's) and that class's
        brightness (within ``class_brightness_ratio``), and it is brighter than the cloth (by
        half the margin: the light falls on a ball's top), or, not darker than it, lies on the
        class's chromaticity (within ``on_class_share`` of the way to the cloth's: a red under a
        lamp as bright as the cloth around it). Junk is a little off the cloth in colour, and not
        brighter; a white class on a pale cloth is left to :meth:`cloth_in_light`.
        (Sure of the class or not, and any class of the name: a video's colours may give one
        ball colour two classes, a lit one and a darker one, and a red at rest on a red cloth,
        its core one level off, fell between them and out of the picture.)"""
        cloth = d.cloth_bgr
        if model is None or cloth is None or model.brightness is None:
            return False
        name = model.names[model.nearest(d.bgr)[0]]
        light = core_against_cloth(d.bgr, cloth)[1]
        # (not darker: within the noise of the cloth's brightness, ``level_noise_share``;
        # a red on a red cloth, its core of the red class's own brightness and chromaticity, 0.6 %
        # darker than the cloth's model there, was left out for four seconds)
        if name == "white" or light < 1.0 - self.params.level_noise_share:
            return False
        # (no brighter than the cloth by half the margin, but not darker: a ball only when its
        # core lies on the class's chromaticity, ``on_class_share`` of its way to the cloth's)
        share = 0.5 if light >= 1.0 + 0.5 * self.cloth.brighter else self.params.on_class_share
        core = chromaticity(np.asarray(d.bgr, np.float64))[0]
        under = chromaticity(np.asarray(cloth, np.float64))[0]
        most = self.params.class_brightness_ratio
        return any(
            np.linalg.norm(core - model.centres[k]) < share * np.linalg.norm(core - under)
            and 1.0 / most < (sum(d.bgr) + 3.0) / (model.brightness[k] + 3.0) < most
            for k in range(len(model.names)) if model.names[k] == name)

    def a_blur(self, bgr: Sequence[float], cloth_bgr: Sequence[float],
               model: ColourModel | None) -> bool:
        """A drawn-out blob (see :func:`one_ball`) with this core colour is a blurred ball: its
        core faint, but as unlike the cloth as the threshold at least, as a mixture of a ball
        and the cloth is (a block of junk by a pocket's hole is less), and a mixture of a ball
        colour and the cloth's (a compression ghost left where a ball rolled is not)."""
        return 1.0 <= self.core_contrast(bgr, cloth_bgr) < self.params.strong_thresholds and (
            model is None or model.mixture(bgr, cloth_bgr) is not None)

    def core_contrast(self, bgr: Sequence[float], cloth_bgr: Sequence[float]) -> float:
        """How unlike the cloth there a core colour ``bgr`` is, in ball thresholds (see
        :meth:`_faint`)."""
        chroma, light = core_against_cloth(bgr, cloth_bgr)
        contrast = chroma + 0.5 * max(light - 1, 0.0)
        # the noise of a chromaticity grows as the light falls (a grey level is a bigger share
        # of a dark pixel): in a dark corner the margin grows with it
        darker = max(1.0, self.cloth.level / (sum(cloth_bgr) + 3.0))
        return float(contrast / (self.cloth.threshold * darker))
