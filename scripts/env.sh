# Sourced by the other scripts: tools installed by scripts/setup.sh on PATH.
_repoqa_root=$(CDPATH= cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
export PATH="$_repoqa_root/.tools/binaryen/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$HOME/.cargo/bin:$PATH"
export REPOQA_TOKENIZER="${REPOQA_TOKENIZER:-$_repoqa_root/.tools/tokenizer.json}"
