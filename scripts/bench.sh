#!/usr/bin/env bash
# Speed benchmark against the official Python harness (prints figures; not a
# test): the native CLI, then the web app in headless Chromium on the same
# inputs. `--no-browser` skips the second; other arguments go to
# tests/bench/bench.py (e.g. `--tasks 500` widens the corpus to 500 tasks).
set -euo pipefail
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
cd "$root"
browser=1
args=()
for a in "$@"; do
  if [[ $a == --no-browser ]]; then browser=0; else args+=("$a"); fi
done
scripts/setup.sh
source scripts/env.sh
cargo build --locked --release --bin repoqa
.tools/oracle/bin/python tests/bench/bench.py "${args[@]}"

if [[ $browser == 1 ]]; then
  echo
  trunk build --release --offline
  (cd tests/browser && node bench.mjs)
fi
