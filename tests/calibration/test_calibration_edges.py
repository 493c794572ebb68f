"""The cushion's edges read across it (calibration/edges.py): the rail's inner edge read two
ways, where the chromaticity is half way to the rail's and where the colour changes fastest,
with how steadily each lies along the cushion (the calibration takes the steadier)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.cloth import ClothFeatures, to_lab
from calibration.detect import RAIL_STEADIER
from calibration.edges import CushionEdges, nose_points_from_boundary

RAIL_EDGE = 40  # the rail's inner edge (rows above it are the rail)
NOSE = 60  # the cushion's nose (the cushion top runs from the rail's edge to it)


def cushion_picture(rail_ramp_px: int, seed: int) -> np.ndarray:
    """A straight cushion along the picture's top: cloth below ``NOSE`` (its shadow just
    under the nose), the cushion top (the cloth's colour, a little brighter) up to
    ``RAIL_EDGE``, a wooden rail above. The rail's colour is a third of the way to the wood's
    at its edge and reaches it over ``rail_ramp_px`` rows going up (0: at once); its light
    falls at once at the edge, by a third. Seeded sensor noise."""
    h, w = 140, 400
    cloth = np.array([60.0, 130.0, 40.0])  # B, G, R
    wood = np.array([40.0, 70.0, 140.0])
    img = np.empty((h, w, 3))
    img[:] = cloth
    img[NOSE:NOSE + 8] *= 0.7  # the nose's shadow
    img[RAIL_EDGE:NOSE] *= 1.1  # the cushion top
    above = np.arange(RAIL_EDGE)[::-1]  # rows above the edge, counted up from it
    share = (1 / 3 + 2 / 3 * np.clip(above / max(rail_ramp_px, 1), 0, 1))[:, None]
    img[:RAIL_EDGE] = (((1 - share) * cloth + share * wood) * 0.67)[:, None, :]
    rng = np.random.default_rng(seed)
    img += rng.normal(0.0, 2.0, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def rail_edges(img: np.ndarray) -> CushionEdges:
    """The edges read along the cushion (the profiles start below the rail)."""
    lab = to_lab(img)
    chroma = ClothFeatures.of(img, lab).chroma
    mask = np.zeros(img.shape[:2], bool)
    mask[RAIL_EDGE + 2:] = True  # the cloth region: it stops a little short of the rail
    xs = np.arange(40.0, 360.0, 2.0)
    origins = np.c_[xs, np.full(len(xs), RAIL_EDGE + 2.0)]
    normals = np.tile([0.0, 1.0], (len(xs), 1))
    return nose_points_from_boundary(lab, chroma, mask, origins, normals, outside_px=30.0,
                                     band_px=35.0, invariant=True)


def rows(points: np.ndarray) -> np.ndarray:
    found = points[np.all(np.isfinite(points), axis=1)]
    assert len(found) > 80  # (of 160 profiles)
    return found[:, 1]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_rail_whose_colour_comes_gradually_is_read_at_its_edge(seed):
    """The chromaticity reaches the wood's over 25 rows: half way is 8-9 rows out, and wanders
    with the noise; the colour (light included) changes most at the edge, on a straight line,
    clearly steadier: the reading the calibration takes (see calibration.detect)."""
    edges = rail_edges(cushion_picture(rail_ramp_px=25, seed=seed))
    assert edges.rail_steepest is not None
    assert abs(float(np.median(rows(edges.rail_steepest))) - (RAIL_EDGE - 0.5)) < 1.0
    assert float(np.median(rows(edges.rail))) < RAIL_EDGE - 5.0  # (half way: out on the rail)
    assert edges.steepest_scatter < RAIL_STEADIER * edges.rail_scatter


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_rail_of_one_colour_is_read_at_its_edge_both_ways(seed):
    edges = rail_edges(cushion_picture(rail_ramp_px=0, seed=seed))
    assert edges.rail_steepest is not None
    for points in (edges.rail, edges.rail_steepest):
        assert abs(float(np.median(rows(points))) - (RAIL_EDGE - 0.5)) < 1.0
