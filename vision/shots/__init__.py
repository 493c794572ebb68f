"""Shots: the tracks cut into shots and each shot's facts (strikes, contacts, cushions, pots,
balls leaving the table), given out as soon as the shot's balls are at rest (``stream``).

At 30 fps a ball at 5 m/s moves 170 mm between frames, so no event can be seen in one frame.
Between events a ball moves on a straight line with a smooth speed, so each ball's track is cut
into straight pieces; a piece's end is an event, timed where the straight motions before and
after it meet (sub-frame), and classified by where it happened: one radius from a cushion nose is
a cushion, one diameter from another ball is a contact with it. A ball at rest that starts moving
was hit at the time its new motion extrapolates back to its resting place. A track that ends in a
pocket's mouth, moving into it, is a pot; one that ends elsewhere at a cushion left the table.

One module a job:

- ``samples``: sightings, straight pieces, found events, a shot's window, shared geometry;
- ``segmentation``: a match cut into shots (rest flicker undone, balls placed by hand);
- ``pieces``: a moving ball's track as straight pieces, and when it left its rest;
- ``contacts``: ball-ball contacts, hitters of balls struck from rest, grazes, nudges;
- ``cushions``: cushion noses and jaws, bounces, one bounce per cushion visit;
- ``pockets``: pots (mouth, lip, hole) and balls off the table;
- ``motion``: one shot's balls as seen (samples, pieces, rests, finals, position at a time);
- ``events``: one shot's events, each kind asked of the modules above;
- ``facts``: shot facts in the rules' form, for one shot or a whole match;
- ``stream``: shots given out as the video is read;
- ``params``: every threshold, a field of :class:`ShotFactsParams` (its unit in its name),
  :data:`DEFAULT_SHOT_FACTS` by default.
"""

from vision.shots.cushions import nearest_cushion, nearest_jaw
from vision.shots.events import shot_events
from vision.shots.facts import shot_facts, shots_from_tracks, tracks_from_rows
from vision.shots.params import DEFAULT_SHOT_FACTS, ShotFactsParams, ShotFactsParamsError
from vision.shots.pieces import cut_into_pieces
from vision.shots.pockets import nearest_pocket, past_mouth
from vision.shots.samples import (
    REST_JITTER_DIAMETERS,
    TOUCHING_DIAMETERS,
    FoundEvent,
    Piece,
    Point,
    Sample,
    ShotWindow,
    Vector,
    at_rest_between,
    within_degrees,
)
from vision.shots.segmentation import split_shots, steady_tracks
from vision.shots.stream import (
    ShotStream,
    ShotStreamParams,
    StreamedShot,
    StreamError,
    check_stream_params,
    shots_as_they_end,
    shots_from_rows,
)

__all__ = [
    "DEFAULT_SHOT_FACTS",
    "REST_JITTER_DIAMETERS",
    "TOUCHING_DIAMETERS",
    "FoundEvent",
    "Piece",
    "Point",
    "Sample",
    "ShotFactsParams",
    "ShotFactsParamsError",
    "ShotStream",
    "ShotStreamParams",
    "ShotWindow",
    "StreamError",
    "StreamedShot",
    "Vector",
    "at_rest_between",
    "check_stream_params",
    "cut_into_pieces",
    "nearest_cushion",
    "nearest_jaw",
    "nearest_pocket",
    "past_mouth",
    "shot_events",
    "shot_facts",
    "shots_as_they_end",
    "shots_from_rows",
    "shots_from_tracks",
    "split_shots",
    "steady_tracks",
    "tracks_from_rows",
    "within_degrees",
]
