"""Tracking: the detections of each frame given the five identities W1 W2 R1 R2 Y
(``tracker``), frame by frame."""
