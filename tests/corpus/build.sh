#!/usr/bin/env bash
# Build the realistic RepoQA corpus (.tools/corpus/realistic.json) from pinned
# third-party sources listed in tests/corpus/sources.txt.
#
#   bash tests/corpus/build.sh            fetch what is missing, then build
#   bash tests/corpus/build.sh --verify   ... and run the official harness on it
#
# Optional cross-check against the upstream curation scripts (needs a checkout
# of evalplus/repoqa; nothing of it is copied here):
#   .tools/oracle/bin/python tests/corpus/check_upstream.py <repoqa checkout>
#
# Fetched sources are cached under .tools/corpus/src/<id>/ (only the entry
# directory is kept); a source whose directory has a .complete stamp is not
# fetched again, so a rerun needs no network. Any failed fetch aborts the build.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TOOLS="$ROOT/.tools"
OUT_DIR="$TOOLS/corpus"
SRC_DIR="$OUT_DIR/src"
PY="${ORACLE_PYTHON:-$TOOLS/oracle/bin/python}"
# tree_sitter 0.21 warns about its own API; transformers about missing torch.
export PYTHONWARNINGS="ignore::FutureWarning" TRANSFORMERS_VERBOSITY=error
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
SOURCES="${CORPUS_SOURCES:-$HERE/sources.txt}"  # override only to test the fetchers

VERIFY=0
for arg in "$@"; do
  case "$arg" in
    --verify) VERIFY=1 ;;
    *) echo "build.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done

die() { echo "corpus: FAILED: $*" >&2; exit 1; }

[ -x "$PY" ] || die "oracle python $PY missing (run scripts/setup.sh first)"
mkdir -p "$SRC_DIR"

WORK="$(mktemp -d /tmp/repoqa-corpus.XXXXXX)"
# apt-get download drops privileges to _apt; let it write here.
chmod 755 "$WORK"
trap 'rm -rf "$WORK"' EXIT

# Each fetch_* downloads one pinned package into $WORK/dl/<key>/ and unpacks
# it into $WORK/x/<key>/; the result is cached per spec for this run (JPype1
# feeds two repos).
unpacked_dir() { echo "$WORK/x/$(echo "$1 $2" | md5sum | cut -c1-16)"; }

fetch_pypi() { # spec dest
  local spec="$1" dest="$2" dl="$WORK/dl/pypi-$RANDOM$RANDOM"
  mkdir -p "$dl" "$dest"
  pip download --quiet --no-deps --no-binary :all: --dest "$dl" "$spec" \
    || die "pip download $spec"
  local n; n=$(ls "$dl" | wc -l)
  [ "$n" = 1 ] || die "pip download $spec produced $n files"
  local f="$dl/$(ls "$dl")"
  case "$f" in
    *.tar.gz|*.tgz) tar -xzf "$f" -C "$dest" ;;
    *.zip) unzip -q "$f" -d "$dest" ;;
    *) die "pip download $spec: unexpected archive $f" ;;
  esac
}

fetch_npm() { # spec dest
  local spec="$1" dest="$2" dl="$WORK/dl/npm-$RANDOM$RANDOM"
  mkdir -p "$dl" "$dest"
  (cd "$dl" && npm pack --silent "$spec" >/dev/null) || die "npm pack $spec"
  local f; f=$(ls "$dl"/*.tgz 2>/dev/null | head -1)
  [ -n "$f" ] || die "npm pack $spec produced no tarball"
  tar -xzf "$f" -C "$dest"
}

fetch_crate() { # name@version dest
  local name="${1%@*}" version="${1#*@}" dest="$2" proj="$WORK/dl/cargo-$RANDOM$RANDOM"
  mkdir -p "$proj/src" "$dest"
  # A throwaway project whose only job is to make cargo download the .crate.
  cat >"$proj/Cargo.toml" <<EOF
[package]
name = "repoqa-corpus-fetch"
version = "0.0.0"
edition = "2021"
[dependencies]
$name = "=$version"
EOF
  echo 'fn main() {}' >"$proj/src/main.rs"
  (cd "$proj" && cargo fetch --quiet) || die "cargo fetch $name=$version"
  local home="${CARGO_HOME:-$HOME/.cargo}" f
  f=$(ls "$home"/registry/cache/*/"$name-$version.crate" 2>/dev/null | head -1)
  [ -n "$f" ] || die "cargo fetch $name=$version: no $name-$version.crate in $home/registry/cache"
  tar -xzf "$f" -C "$dest"
}

fetch_deb() { # pkg=version dest
  local spec="$1" dest="$2" dl="$WORK/dl/deb-$RANDOM$RANDOM"
  mkdir -p "$dl" "$dest"
  chmod 777 "$dl"
  if ! (cd "$dl" && apt-get download -q "$spec" >/dev/null 2>"$dl.err"); then
    # Usually the package index is missing or stale on a fresh machine.
    echo "corpus: apt-get download $spec failed; running apt-get update once"
    apt-get update -qq >/dev/null || die "apt-get update"
    if ! (cd "$dl" && apt-get download -q "$spec" >/dev/null 2>"$dl.err"); then
      # Debian serves only current point releases, so an exact pin can vanish.
      # Parity tests compare ours with the official code on whatever corpus is
      # built, so the current version is an acceptable stand-in: say so loudly.
      cat "$dl.err" >&2
      apt-cache policy "${spec%%=*}" >&2 || true
      echo "corpus: WARNING: $spec is no longer served; using the current ${spec%%=*} (update sources.txt)" >&2
      (cd "$dl" && apt-get download -q "${spec%%=*}" >/dev/null 2>"$dl.err") || {
        cat "$dl.err" >&2
        die "apt-get download ${spec%%=*}"
      }
    fi
  fi
  local f; f=$(ls "$dl"/*.deb 2>/dev/null | head -1)
  [ -n "$f" ] || die "apt-get download $spec produced no .deb"
  dpkg-deb -x "$f" "$dest" || die "dpkg-deb -x $f"
}

fetched=0
cached=0
while read -r lang id registry spec root repo entry topic <&3; do
  case "$lang" in ''|\#*) continue ;; esac
  target="$SRC_DIR/$id"
  if [ -f "$target/.complete" ]; then
    echo "corpus: cached  $id ($spec)"
    cached=$((cached + 1))
    continue
  fi
  t0=$(date +%s)
  x="$(unpacked_dir "$registry" "$spec")"
  if [ ! -d "$x" ]; then
    case "$registry" in
      pypi) fetch_pypi "$spec" "$x" ;;
      npm) fetch_npm "$spec" "$x" ;;
      crate) fetch_crate "$spec" "$x" ;;
      deb) fetch_deb "$spec" "$x" ;;
      *) die "$id: unknown registry $registry" ;;
    esac
  fi
  rm -rf "$target"
  mkdir -p "$target"
  case "$root" in
    *.zip)
      [ -f "$x/$root" ] || die "$id: $root not found in $spec"
      # Only the entry subtree of the zip is kept (src.zip is ~50 MB).
      unzip -q "$x/$root" "$entry/*" -d "$target" || die "$id: unzip $entry from $root"
      ;;
    *)
      [ -d "$x/$root/$entry" ] || die "$id: $root/$entry not found in $spec"
      mkdir -p "$target/$entry"
      cp -a "$x/$root/$entry/." "$target/$entry/"
      ;;
  esac
  printf '%s\n' "$spec" >"$target/.complete"
  echo "corpus: fetched $id ($registry $spec) in $(( $(date +%s) - t0 ))s"
  fetched=$((fetched + 1))
done 3<"$SOURCES"
echo "corpus: sources ready ($fetched fetched, $cached cached) in $SRC_DIR"

"$PY" "$HERE/build.py" --sources "$SOURCES" --src "$SRC_DIR" --out "$OUT_DIR/realistic.json"

if [ "$VERIFY" = 1 ]; then
  "$PY" "$HERE/verify.py" "$OUT_DIR/realistic.json"
fi
