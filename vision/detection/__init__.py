"""Detection: balls in one frame. The cloth model and the foreground, blobs, the per-ball
refinement (``ballfit``, compiled), the colour classes (``detector``), and the balls' own size
measured in the frames (``ballsize``)."""
