#!/usr/bin/env bash
# Speed benchmark against the official Python harness (prints figures; not a test).
set -euo pipefail
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
source scripts/env.sh
cargo build --locked --release --bin repoqa
.tools/oracle/bin/python tests/bench/bench.py "$@"
