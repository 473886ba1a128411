#!/usr/bin/env bash
# Set up what is missing, then run every test: native unit and parity tests
# (against the official Python harness), the release wasm build and its
# import check, and the headless-Chromium tests.
set -euo pipefail
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
source scripts/env.sh

# Fast failures first: formatting and lints (native, and the wasm32 UI).
echo "==> cargo fmt --check; cargo clippy (native, wasm32 UI)"
cargo fmt --check
cargo clippy --all-targets --locked -- -D warnings
cargo clippy --locked --target wasm32-unknown-unknown --bin repoqa-web -- -D warnings

echo "==> cargo test (unit + parity against the official harness)"
cargo test --locked

echo "==> native CLI (release)"
cargo build --locked --release --bin repoqa

echo "==> trunk build --release --offline"
trunk build --release --offline

echo "==> wasm import check and page weight"
node scripts/check-wasm.mjs dist

echo "==> browser tests (headless Chromium)"
(cd tests/browser && REPOQA_BIN="$root/target/release/repoqa" npm test --silent)
