"""Reads every .pgn file below a folder with python-chess (a reader we did not write) and
checks what a broadcast tool relies on: each game parses without errors, has moves, every
[%clk] in the file is a clock python-chess understands (node.clock()), and the Result tag
is set.

Usage: python3 tests/read_pgn_with_python_chess.py FOLDER
Prints one JSON object a line per game ({"file", "index", "board", "round", "result",
"moves", "clocks"}: clocks is, per move, whether python-chess read a clock on it) for the
caller to compare with the daemon's events, and a line "problem: ..." per failed check;
exits 1 if there was any problem, 2 if python-chess is missing.
"""

import io
import json
import pathlib
import re
import sys

try:
    import chess
    import chess.pgn
except ImportError as e:
    print(f"python-chess is missing: {e}", file=sys.stderr)
    sys.exit(2)

RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


def check_file(path, problems):
    text = path.read_text(encoding="utf-8")
    stream = io.StringIO(text)
    index = 0
    clocks_read = 0
    while True:
        game = chess.pgn.read_game(stream)
        if game is None:
            break
        index += 1
        name = f"{path}#{index}"
        for err in game.errors:
            problems.append(f"{name}: python-chess: {err}")
        moves = 0
        clocks = []
        node = game
        while node.variations:
            node = node.variation(0)
            moves += 1
            clocks.append(node.clock() is not None)
        if moves == 0:
            problems.append(f"{name}: no moves")
        result = game.headers.get("Result")
        if result not in RESULTS:
            problems.append(f"{name}: Result tag {result!r}")
        print(
            json.dumps(
                {
                    "file": str(path),
                    "index": index,
                    "board": game.headers.get("Board"),
                    "round": game.headers.get("Round"),
                    "result": result,
                    "moves": moves,
                    "clocks": clocks,
                }
            )
        )
        clocks_read += sum(clocks)
    if index == 0:
        problems.append(f"{path}: no game")
    # Whitespace after the tag may be a line break: python-chess reads those too.
    written = len(re.findall(r"\[%clk\s", text))
    if written != clocks_read:
        problems.append(f"{path}: {written} [%clk] written, python-chess read {clocks_read}")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(64)
    folder = pathlib.Path(sys.argv[1])
    files = sorted(folder.rglob("*.pgn"))
    problems = []
    if not files:
        problems.append(f"no .pgn file below {folder}")
    for path in files:
        check_file(path, problems)
    for p in problems:
        print(f"problem: {p}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
