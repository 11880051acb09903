//! Serial driver: one task per DGT board, init, liveness, reconnect, clock command pacing and recording.
