#!/usr/bin/env bash
# Set up what is missing, then serve the app at http://127.0.0.1:${PORT:-8080}/
set -euo pipefail
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
cd "$root"
scripts/setup.sh --app-only
source scripts/env.sh
exec trunk serve --release --offline --address 127.0.0.1 --port "${PORT:-8080}"
