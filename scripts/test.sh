#!/usr/bin/env bash
# Set up what is missing, then run the tests.
#
#   scripts/test.sh           the full tier (the README's and CI's command):
#                             formatting, clippy (native and wasm32), every native
#                             test including parity against the official Python
#                             harness, the release wasm build and its import
#                             check, and the headless-Chromium tests
#   scripts/test.sh --quick   formatting, native clippy, the core's unit tests and
#                             the integration tests that take under ~10 s
#   scripts/test.sh --slow    the tests too slow for the full tier (about a quarter
#                             of an hour on two cores): the model in the tab over ten
#                             mini-SNF tasks against llama.cpp's native server
#
# Every run ends with a table of phase times, the five slowest test binaries and
# the number of tests passed, and writes one line to target/test-status:
# <commit> <tier> <pass|fail> <seconds>.
set -euo pipefail
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
cd "$root"
tier=full
case "${1:-}" in
  "") ;;
  --quick) tier=quick ;;
  --slow) tier=slow ;;
  *) echo "usage: scripts/test.sh [--quick | --slow]" >&2; exit 2 ;;
esac
target_dir="${CARGO_TARGET_DIR:-$root/target}"
# The browser build's target folder (Trunk, and clippy for wasm32): see below.
wasm_target="$target_dir/wasm-build"
logs=$(mktemp -d /tmp/repoqa-test.XXXXXX)
t_start=$(date +%s)
phase_names=()
phase_secs=()
current=""
# Integration tests that take under ~10 s (measured by this script's own table):
# the top folder's ui_layers and these modules of the crates' `it` binaries;
# the quick tier runs them besides the unit tests.
quick_tests=(cli_options demo_dataset name_match_replies
  leaderboard_published curate_archive llm_describe run_cli verify_tampered fuzz
  parity_bleu parity_grammar sample_answers sample_ladder hostile_cli module_graph)

# slowest_browser_tests LOG: the five slowest top-level tests of node's TAP
# output (each `ok N - name` is followed by `---` and its `duration_ms`).
slowest_browser_tests() {
  awk '/^(ok|not ok) [0-9]+ - /{name = $0; sub(/^(ok|not ok) [0-9]+ - /, "", name); next}
       name != "" && $1 == "duration_ms:" {printf "  %6.1fs  %s\n", $2 / 1000, substr(name, 1, 100); name = ""}' "$1" |
    sort -k1,1nr | head -5
}

finish() {
  local rc=$? now; now=$(date +%s)
  set +e
  if [ -n "${trunk_pid:-}" ]; then
    kill -- -"$trunk_pid" 2>/dev/null
    echo "(the background trunk build was stopped; its output so far:)"
    cat "$logs/trunk.log" 2>/dev/null
  fi
  if [ -n "$current" ]; then
    phase_names+=("$current (failed)"); phase_secs+=($((now - t_phase)))
  fi
  local total=$((now - t_start)) status=pass
  [ "$rc" = 0 ] || status=fail
  echo
  echo "==> phase times ($tier tier, $status)"
  local i
  for i in "${!phase_names[@]}"; do
    printf '  %6ss  %s\n' "${phase_secs[$i]}" "${phase_names[$i]}"
  done
  printf '  %6ss  total\n' "$total"
  if [ -s "$logs/binaries" ]; then
    echo "==> slowest test binaries (an it binary by module)"
    sort -k1,1nr "$logs/binaries" | head -5 | awk '{printf "  %6ss  %s\n", $1, $2}'
  fi
  if [ -s "$logs/browser.log" ]; then
    echo "==> slowest browser tests"
    slowest_browser_tests "$logs/browser.log"
  fi
  local native browser
  native=$(cat "$logs"/cargo-*.log 2>/dev/null | awk '/^test result: /{n += $4} END {print n + 0}')
  browser=$(cat "$logs"/browser.log 2>/dev/null | awk '/^# pass /{n += $3} END {print n + 0}')
  echo "==> tests passed: $native native, $browser browser ($tier tier)"
  # Last, where a tail of this output shows it: why each browser test failed
  # (node's TAP block of every `not ok`, its error and where), 60 lines at most.
  if grep -q '^ *not ok ' "$logs/browser.log" 2>/dev/null; then
    echo "==> failed browser tests, with their errors"
    awk '/^ *not ok [0-9]+ - /{on = 1} on {print} on && /^ *\.\.\.$/{on = 0}' "$logs/browser.log" | head -60
  fi
  mkdir -p "$root/target"
  printf '%s %s %s %s\n' "$(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo +dirty)" \
    "$tier" "$status" "$total" >"$root/target/test-status"
  release_target
  rm -rf "$logs"
  exit "$rc"
}
trap finish EXIT

# One test run at a time in a target folder. CI's is shared by every clone on
# the machine (.ci/run), and it holds one copy of each file cargo uplifts
# (target/debug/repoqa, the wasm Trunk packs): a clone testing while another
# builds would run the other's binaries — a red run that is not its code's
# fault, or a green one that did not test its commit. (Run after run is safe:
# cargo links a unit's uplifted files again even when the unit is fresh.) The
# run that holds the folder is written in it ("PID CHECKOUT"); another waits
# while that process lives, REPOQA_TARGET_WAIT seconds at most (an hour). A
# dead holder's claim is taken over. The lock is held only to read and write
# that line, so no process the tests start can keep the folder after the run.
target_owner="$target_dir/.repoqa-test-owner"
claimed=0
# running PID: the process exists and has not ended (a zombie, ended but not
# yet reaped by its parent, counts as ended).
running() {
  kill -0 "$1" 2>/dev/null || return 1
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
  [ "$state" != Z ]
}
try_claim() {
  (
    flock 7
    if read -r pid dir <"$target_owner" 2>/dev/null && [ "$pid" != "$$" ] && running "$pid"; then
      echo "$dir (test.sh, pid $pid)"
      exit 1
    fi
    echo "$$ $root" >"$target_owner"
  ) 7>"$target_owner.lock"
}
release_target() {
  [ "$claimed" = 1 ] || return 0
  (
    flock 7
    if read -r pid _ <"$target_owner" 2>/dev/null && [ "$pid" = "$$" ]; then rm -f "$target_owner"; fi
  ) 7>"$target_owner.lock"
}
mkdir -p "$target_dir"
waited=0
limit="${REPOQA_TARGET_WAIT:-3600}"
while ! holder=$(try_claim); do
  if [ "$waited" = 0 ]; then
    echo "test.sh: the target folder $target_dir is in use by the test run of $holder; waiting for it to end (at most $limit s)" >&2
  fi
  if [ "$waited" -ge "$limit" ]; then
    echo "test.sh: gave up after $waited s: the target folder $target_dir is still in use by the test run of $holder. Let it end, or set CARGO_TARGET_DIR to a folder of this checkout's own." >&2
    # Nothing ran: no phase table, no test-status line.
    trap - EXIT
    rm -rf "$logs"
    exit 2
  fi
  sleep 1
  waited=$((waited + 1))
done
claimed=1
# The test of this claim (tests/browser/test-loop.test.js) stops here.
if [ -n "${REPOQA_TEST_CLAIM_ONLY:-}" ]; then
  echo "test.sh: claimed $target_dir"
  trap - EXIT
  release_target
  rm -rf "$logs"
  exit 0
fi

# phase NAME COMMAND...: run one phase and record its seconds.
phase() {
  current="$1"; shift
  echo; echo "==> $current"
  t_phase=$(date +%s)
  "$@"
  phase_names+=("$current"); phase_secs+=($(( $(date +%s) - t_phase )))
  current=""
}

# Test binaries run from the package root, as `cargo test` runs them (same
# output), each timed, REPOQA_TEST_JOBS of them at a time (2 by default;
# most modules keep both cores busy, so two side by side mostly share them:
# measured, the full tier's run 340 s -> 312 s, and each module's time in
# the table below is its time beside another). Arguments select them as cargo's
# do. A crate's `it` binary (tests/it/main.rs, its files as modules) runs
# module by module, each in a process of its own and timed as
# `it::<file>`, as when the files were binaries of their own; with
# `only_modules` set (a space-separated list), only those modules run. Each
# process's output is printed whole when it ends; a failure is named at the
# end and fails the phase once every started process has ended.
run_tests() {
  cargo test --locked --no-run "$@" 2>&1 | tee "$logs/build.log"
  local exe name
  : >"$logs/jobs"
  while IFS='|' read -r name exe; do
    case "$exe" in /*) ;; *) exe="$root/$exe" ;; esac
    if [[ "$name" == tests/it/main.rs ]]; then
      local tests module
      tests=$("$exe" --list --format terse | sed -n 's/: test$//p')
      for module in $(printf '%s\n' "$tests" | sed -n 's/::.*//p' | sort -u); do
        if [ -n "${only_modules:-}" ] && [[ " $only_modules " != *" $module "* ]]; then
          continue
        fi
        printf 'it::%s\t%s\t--exact %s\n' "$module" "$exe" "$(printf '%s\n' "$tests" | grep "^$module::" | tr '\n' ' ')" >>"$logs/jobs"
      done
    else
      printf '%s\t%s\t\n' "$name" "$exe" >>"$logs/jobs"
    fi
  done < <(grep -E '^ +Executable ' "$logs/build.log" | sed -E 's/^ +Executable (.*) \((.*)\)$/\1|\2/')
  # Longest first, by each process's seconds in the last run here
  # ($target_dir/test-times; one not timed yet counts as the longest): two
  # lanes then end together, not with the longest started last.
  local times="$target_dir/test-times"
  awk -F '\t' -v times="$times" '
    BEGIN { while ((getline line < times) > 0) { split(line, f, "\t"); secs[f[2]] = f[1] } }
    { printf "%s\t%s\n", ($1 in secs ? secs[$1] : 1e9), $0 }' "$logs/jobs" |
    sort -t $'\t' -k1,1gr -s | cut -f2- >"$logs/jobs.sorted"
  touch "$logs/times"
  local max="${REPOQA_TEST_JOBS:-2}" label args
  rm -f "$logs/failed"
  # Only this function's own processes are counted and waited for (the
  # browser build runs in the background meanwhile).
  local lanes=() pid live
  while IFS=$'\t' read -r label exe args; do
    while :; do
      live=()
      for pid in "${lanes[@]}"; do kill -0 "$pid" 2>/dev/null && live+=("$pid"); done
      lanes=("${live[@]}")
      [ "${#lanes[@]}" -lt "$max" ] && break
      wait -n "${lanes[@]}" || true
    done
    # shellcheck disable=SC2086 # one argument per test name
    run_binary "$label" "$exe" $args </dev/null &
    lanes+=("$!")
  done <"$logs/jobs.sorted"
  for pid in "${lanes[@]}"; do wait "$pid" || true; done
  # This run's times, for the next run's order (the other tier's kept).
  mkdir -p "$target_dir"
  { cat "$logs/times"; cat "$times" 2>/dev/null || true; } | awk -F '\t' '!seen[$2]++' >"$times.new" && mv "$times.new" "$times"
  if [ -s "$logs/failed" ]; then
    echo "FAILED: $(tr '\n' ' ' <"$logs/failed")" >&2
    return 1
  fi
}

# run_binary LABEL EXE ARGS...: one test process, timed; its output kept and
# printed whole when it ends (one at a time), a failure noted in
# $logs/failed.
run_binary() {
  local label="$1" exe="$2" t0 rc=0; shift 2
  local log="$logs/cargo-$(basename "$exe")-${label//[^A-Za-z0-9_]/_}.log"
  t0=$(date +%s)
  "$exe" "$@" >"$log" 2>&1 || rc=$?
  local secs=$(( $(date +%s) - t0 ))
  echo "$secs $label" >>"$logs/binaries"
  printf '%s\t%s\n' "$secs" "$label" >>"$logs/times"
  {
    flock 9
    echo "--- $label ($secs s)"
    cat "$log"
  } 9>"$logs/print.lock"
  if [ "$rc" != 0 ]; then
    echo "FAILED: $label (exit $rc)" >&2
    echo "$label" >>"$logs/failed"
  fi
}

if [ "$tier" = quick ]; then
  phase "setup" scripts/setup.sh
  source scripts/env.sh
  phase "cargo fmt --check" cargo fmt --check
  phase "cargo clippy (native)" cargo clippy --all-targets --locked -- -D warnings
  phase "cargo test (the core's unit tests)" run_tests -p repoqa --lib
  only_modules="${quick_tests[*]}"
  phase "cargo test (quick integration tests)" run_tests -p repoqa-web -p repoqa-cli -p repoqa --test ui_layers --test it
  only_modules=""
  exit 0
fi

if [ "$tier" = slow ]; then
  phase "setup" scripts/setup.sh
  source scripts/env.sh
  phase "cargo build (the CLI the tests compare with)" cargo build --locked -p repoqa-cli
  phase "trunk build --release --offline" env CARGO_TARGET_DIR="$wasm_target" trunk build --release --offline
  phase "slow browser tests (headless Chromium)" \
    bash -c 'cd tests/browser && REPOQA_BIN="$1" node --test --test-concurrency=1 --test-force-exit tab-faithful.slow.mjs tab-threads.slow.mjs 2>&1 | tee "$2"; exit "${PIPESTATUS[0]}"' _ \
    "$target_dir/debug/repoqa" "$logs/browser.log"
  exit 0
fi

phase "setup" scripts/setup.sh
source scripts/env.sh

# Fast failures first: formatting and lints (native, and the wasm32 UI).
phase "cargo fmt --check" cargo fmt --check
phase "cargo clippy (native)" cargo clippy --all-targets --locked -- -D warnings
# The browser build has a target folder of its own ($wasm_target), so that
# Trunk builds beside the native tests (Cargo lets one build at a time use a
# target folder, and each of the two builds has a stretch on one core: fat
# LTO, wasm-opt). Its clippy goes there too, in the browser build's profile:
# the build scripts (the C grammars) and proc macros are then built once for
# both this and Trunk's build.
phase "cargo clippy (wasm32 page and engine)" env CARGO_TARGET_DIR="$wasm_target" cargo clippy --locked --target wasm32-unknown-unknown --profile wasm-release --bin repoqa-web --bin repoqa-engine -- -D warnings
echo; echo "==> trunk build --release --offline (started; runs beside the native tests)"
t_trunk=$(date +%s)
# A session of its own, so that a failure here stops all of it (finish).
CARGO_TARGET_DIR="$wasm_target" setsid trunk build --release --offline >"$logs/trunk.log" 2>&1 </dev/null &
trunk_pid=$!
phase "cargo test (unit + parity against the official harness)" run_tests
phase "cargo test --doc" bash -c 'cargo test --locked --doc 2>&1 | tee "$1"; exit "${PIPESTATUS[0]}"' _ "$logs/cargo-doc.log"
# wait_trunk: the background build's end; its output, and its own time.
wait_trunk() {
  local rc=0
  wait "$trunk_pid" || rc=$?
  trunk_pid=""
  cat "$logs/trunk.log"
  echo "trunk build: $(( $(date +%s) - t_trunk )) s from its start, beside the native tests (exit $rc)"
  return "$rc"
}
phase "trunk build --release --offline (what was left after the native tests)" wait_trunk
phase "wasm import check and page weight" node scripts/check-wasm.mjs dist
# The browser tests compare the page with the CLI built by `cargo test` above
# (its tests run that binary), not a release build of its own: the same code,
# one compile of it fewer.
phase "browser tests (headless Chromium)" \
  bash -c 'cd tests/browser && REPOQA_BIN="$1" npm test --silent 2>&1 | tee "$2"; exit "${PIPESTATUS[0]}"' _ \
  "$target_dir/debug/repoqa" "$logs/browser.log"
