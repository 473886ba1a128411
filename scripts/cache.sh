# Sourced by the other scripts: where tools installed once per machine live.
# Every item under it is named by its version or by the hash of what pins it,
# so two clones share one copy and a changed pin installs beside the old one.
# Override with REPOQA_CACHE (an empty folder stands in for a new machine).
export REPOQA_CACHE="${REPOQA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/repoqa}"
