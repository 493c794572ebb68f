"""Live club mode (`kaisa live`): a camera refereed while the match is played.

Two parts that meet only through the files of :mod:`live.files` (a folder of its own):

- the engine (its own process): reads the camera, tracks, judges each shot, writes the
  journal, the status and a still; it alone writes the journal, and it applies the
  operator's commands (calls, undo, corrections) in the order they were given;
- the pages (FastAPI): the table display and the operator page read the journal (read-only)
  and the status, and append the operator's commands.
"""
