#!/usr/bin/env bash
# The several-PC benchmark in one command (issue 18, see docs/performance.md):
#   scripts/hall-bench.sh [--dev] [--boards 1000] [--halls 4] [--seconds 60] [--pace 10] [--keep] ...
# Builds the daemon and the load test's emulator farm (release; `--dev` for the dev
# profile, quicker to build), then runs scripts/hall_bench.py: a real nats-server, the
# halls, a central, the farm, each a process of its own. Needs nats-server (Debian
# package `nats-server`) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
profile=release
flag=--release
if [ "${1:-}" = "--dev" ]; then
    profile=debug
    flag=
    shift
fi
# One build for both, so that they share one feature set (and the test builds' target/).
cargo build $flag -p dgt-arbiter -p arbiter-daemon --bin dgt-arbiter --example load_test
exec python3 scripts/hall_bench.py --daemon "$target/$profile/dgt-arbiter" \
    --load-test "$target/$profile/examples/load_test" "$@"
