#!/usr/bin/env python3
"""The replay job, our binary against a plain-Python peer, in one run (issue 19).

Runs `dgt-arbiter replay --fast` on the captures in DIR (one board each, made by
`cargo run --release -p touch-tracker --example replay_captures -- DIR`), and the same
games' moves (`DIR/*.uci`) through python-chess: every move checked for legality, its SAN
and the FEN after it, and the game's end and draw claims after it (checkmate, stalemate,
insufficient material, fivefold repetition and 75 moves, threefold and 50-move claims,
including a threefold claim by an intended move: `Board.outcome(claim_draw=True)`), which
is the rules work our tracker does for every recorded move (it also tracks the hands,
reads the clock, asks the dead-position question and writes JSON; the peer does none of
that). Prints both times and their ratio.

Our time is the whole process (start, reading, decoding, tracking, writing the events to
a pipe), wall clock and CPU (user + system, `getrusage` of the children, summed over its
threads: `replay --fast` feeds the boards on one thread a CPU, so its CPU time can exceed
its wall time); the peer's is in-process time only (the interpreter's start and
`import chess` are not counted), each the median of RUNS runs. Usage:

    replay_vs_python.py BINARY DIR [RUNS]

scripts/replay-vs-python.sh makes the captures, the venv with python-chess and runs this.
"""

import glob
import os
import resource
import statistics
import subprocess
import sys
import time

import chess


def peer(games):
    """The peer's job on every game; returns the number of moves played."""
    n = 0
    for moves in games:
        board = chess.Board()
        for uci in moves:
            move = chess.Move.from_uci(uci)
            if not board.is_legal(move):
                raise SystemExit(f"illegal move {uci} in {board.fen()}")
            board.san(move)
            board.push(move)
            board.fen()
            board.outcome(claim_draw=True)
            n += 1
    return n


def ours(binary, captures):
    """One run of the binary; returns (wall s, CPU s, output lines)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(
        [binary, "replay", "--fast", *captures],
        check=True,
        stdout=subprocess.PIPE,
    ).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.count(b"\n")


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    binary, folder = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) == 4 else 5
    captures = sorted(glob.glob(os.path.join(folder, "*.dgtcap")))
    ucis = [c[: -len(".dgtcap")] + ".uci" for c in captures]
    if not captures:
        raise SystemExit(f"no .dgtcap files in {folder}")
    games = []
    for path in ucis:
        with open(path, encoding="utf-8") as f:
            games.append(f.read().split())

    walls, cpus, lines = [], [], 0
    for _ in range(runs):
        wall, cpu, lines = ours(binary, captures)
        walls.append(wall)
        cpus.append(cpu)
    peer_times, moves = [], 0
    for _ in range(runs):
        t0 = time.process_time()
        moves = peer(games)
        peer_times.append(time.process_time() - t0)

    wall, cpu, py = (statistics.median(v) for v in (walls, cpus, peer_times))
    print(f"games: {len(games)}, {moves} moves ({folder}); median of {runs} runs")
    print(
        f"dgt-arbiter replay --fast: wall {wall * 1e3:.1f} ms, CPU {cpu * 1e3:.1f} ms "
        f"(whole process; {lines} event lines)"
    )
    print(f"python-chess {chess.__version__} peer: {py * 1e3:.1f} ms CPU in-process")
    print(f"ratio (peer / ours): {py / wall:.1f}x by our wall time, {py / cpu:.1f}x by our CPU time")


if __name__ == "__main__":
    main()
