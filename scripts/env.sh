# Sourced by the other scripts: tools installed by scripts/setup.sh on PATH.
_repoqa_root=$(CDPATH= cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
export PATH="$_repoqa_root/.tools/binaryen/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$HOME/.cargo/bin:$PATH"
export REPOQA_TOKENIZER="${REPOQA_TOKENIZER:-$_repoqa_root/.tools/tokenizer.json}"
# The wasm32 C compiler from the tools cache (scripts/setup.sh), the same path
# in every clone of this machine; .cargo/config.toml's checkout-relative one
# stays the fallback when this file is not sourced.
if [ -x "$_repoqa_root/.tools/wasm-cc/scripts/wasm-cc" ]; then
  CC_wasm32_unknown_unknown=$(readlink -f "$_repoqa_root/.tools/wasm-cc")/scripts/wasm-cc
  export CC_wasm32_unknown_unknown
fi
