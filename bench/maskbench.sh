#!/usr/bin/env bash
# bench/maskbench.sh — the MaskBench workload: bench/maskbench.sh DIR [BUILD] [-- gcg_maskbench options]
# Serializes each instance as MaskBench does (python3 json.dumps, ensure_ascii=False),
# tokenizes the valid ones with Llama 3 (node), then gcg_maskbench compiles every schema
# and reports files passing / compiled / refused (by reason) / wrong per split, compile
# time and mask/commit latency. Exit 1 on a wrong answer (valid rejected or invalid
# accepted); refusals only lower the pass rate.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${1:?usage: bench/maskbench.sh DIR [BUILD] [-- options]}"; shift
BUILD="$ROOT/build-release"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then BUILD="$1"; shift; fi
[ "${1:-}" = "--" ] && shift
CACHE="${GCG_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gcg}"
[ -d "$DIR" ] || { echo "maskbench: no directory $DIR" >&2; exit 2; }
"$ROOT/bench/fetch_tokenizers.sh" llama3 >/dev/null
if [ ! -f "$BUILD/build.ninja" ]; then meson setup "$BUILD" "$ROOT" --buildtype=release >/dev/null; fi
ninja -C "$BUILD" bench/gcg_maskbench >/dev/null
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
python3 "$ROOT/bench/maskbench_prep.py" "$DIR" > "$WORK/jobs.jsonl"
node "$ROOT/bench/maskbench_tok.mjs" "$CACHE" < "$WORK/jobs.jsonl" > "$WORK/jobs.txt"
"$BUILD/bench/gcg_maskbench" --tokenizer "$CACHE/tokenizers/llama3/tokenizer.json" --jobs "$WORK/jobs.txt" "$@"
