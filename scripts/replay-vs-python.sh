#!/usr/bin/env bash
# The replay job through our binary and a plain-Python peer, in one run, with the ratio
# (docs/performance.md, "Replay against a Python peer"). From the repository root:
#
#   scripts/replay-vs-python.sh [GAMES [RUNS]]      # defaults: 20 games, 5 runs
#
# Builds the release binary and the capture writer, writes GAMES held-out captures to
# target/replay-vs-python/, installs python-chess from PyPI into a venv under
# target/python-peer (once; the version of tests/requirements.txt), then runs
# scripts/replay_vs_python.py, which times both and prints the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-20}
runs=${2:-5}
venv=target/python-peer
dir=target/replay-vs-python

cargo build --release --bin dgt-arbiter -p dgt-arbiter
cargo build --release -p touch-tracker --example replay_captures
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import chess' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "$(grep -E '^chess==' tests/requirements.txt)"
fi
rm -rf "$dir"
target/release/examples/replay_captures "$dir" "$games"
"$venv/bin/python" scripts/replay_vs_python.py target/release/dgt-arbiter "$dir" "$runs"
