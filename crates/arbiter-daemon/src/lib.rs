//! The daemon: config, many boards, sinks (JSON lines, PGN, LiveChess folder, HTTP), journal and the demo.
