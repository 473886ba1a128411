#!/usr/bin/env bash
# Speed benchmark against the official Python harness (prints figures; not a
# test): the native CLI, then the web app in headless Chromium on the same
# inputs, and the scheduling overhead of `repoqa run` (tests/bench/
# run_overhead.py) and of the Run page (tests/browser/bench-run.mjs), the
# model in the tab (tests/browser/bench-tab.mjs), and the call-path task's
# graphs and tasks against its ast oracle (tests/bench/call_path.py) and in
# the page (tests/browser/bench-call-path.mjs).
# `--no-browser` skips the browser part; other arguments go to
# tests/bench/bench.py (e.g. `--tasks 500` widens the corpus to 500 tasks;
# `--ladder 4096,131072` the lengths of the ladder's build timing).
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
.tools/oracle/bin/python tests/bench/bench.py --bin "${CARGO_TARGET_DIR:-target}/release/repoqa" "${args[@]}"

echo
echo "==> the call-path task (NOT UPSTREAM): graphs and tasks of 50 repositories, Python graphs against the ast oracle"
.tools/oracle/bin/python tests/bench/call_path.py --bin "${CARGO_TARGET_DIR:-target}/release/repoqa"

echo
echo "==> BLEU throughput on function-sized pairs, native against the official Python"
cargo test --locked --release -p repoqa --test it parity_bleu::throughput -- --ignored --nocapture \
  --test-threads=1 2>&1 | grep '^bleu throughput\|panicked\|FAILED'

echo
echo "==> hostile input: bombs, pathological replies (peak memory), a long fuzzing pass"
# REPOQA_FUZZ_CASES cases per fuzz target (default 20000), a new seed each run
# unless REPOQA_FUZZ_SEED is set; a failure prints the shrunk input.
cargo test --locked --release --test hostile_input --test pathological_reply -- --nocapture \
  --test-threads=1 2>&1 | grep -v '^test .* ok$'
REPOQA_FUZZ_CASES=${REPOQA_FUZZ_CASES:-20000} REPOQA_FUZZ_SEED=${REPOQA_FUZZ_SEED:-$(date +%s)} \
  cargo test --locked --release -p repoqa --test it fuzz:: -- --nocapture --test-threads=1 2>&1 | grep '^fuzz\|panicked\|FAILED'
# `repoqa run`: what the runner costs per task beyond the server's time.
echo
python3 tests/bench/run_overhead.py --bin "${CARGO_TARGET_DIR:-target}/release/repoqa"

if [[ $browser == 1 ]]; then
  echo
  trunk build --release --offline
  (cd tests/browser && node bench.mjs)
  # A first visit: bytes and time until interactive, compressing and plain
  # hosts, unthrottled and throttled (40 ms, 10 Mbit/s, CPU 4x).
  echo
  (cd tests/browser && node bench-first-visit.mjs)
  # The Run page: what it costs per task beyond the server's time (as run_overhead.py).
  echo
  (cd tests/browser && node bench-run.mjs)
  # The model in the tab: per mini-SNF task, prompt and generated tokens/s and
  # seconds, with threads and without, against llama.cpp's native server.
  echo
  (cd tests/browser && node bench-tab.mjs)
  # The comment-cleaning modes: build time and longest step of each in the page.
  echo
  (cd tests/browser && node bench-modes.mjs)
  # The same on the realistic corpus (180 tasks of real repositories), once each.
  if [ -f .tools/corpus/realistic.json ]; then
    (cd tests/browser && REPOQA_BENCH_RUNS=1 REPOQA_BENCH_DATASET="$root/.tools/corpus/realistic.json" node bench-modes.mjs)
  fi
  # Call paths (NOT UPSTREAM): 50 repositories' tasks built in the page, against the CLI.
  echo
  (cd tests/browser && REPOQA_BIN="$root/${CARGO_TARGET_DIR:-target}/release/repoqa" node bench-call-path.mjs)
fi
