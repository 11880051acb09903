#!/usr/bin/env bash
# The 1,000-board load test in one command (see docs/performance.md):
#   scripts/load-test.sh [--boards 1000] [--seconds 150] [--pace 10] [--keep] ...
# Builds the daemon and the harness in release mode, then runs the harness, which starts
# the emulator farm and `dgt-arbiter run` as processes of their own.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
cargo build --release -p dgt-arbiter --bin dgt-arbiter
cargo build --release -p arbiter-daemon --example load_test
exec "$target/release/examples/load_test" --daemon "$target/release/dgt-arbiter" "$@"
