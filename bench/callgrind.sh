#!/usr/bin/env bash
# bench/callgrind.sh — instruction counts of fill_mask and commit, free of
# timing noise: a short replay under valgrind's callgrind.
#
# Usage: bench/callgrind.sh ARTIFACT.gcg TRACES [DOCS]
#   replays the first DOCS documents of TRACES (default 5) once with
#   gcg_bench (no warm-up, no brute force) under `valgrind --tool=callgrind`
#   and prints the instructions spent in gcg_matcher_fill_mask and
#   gcg_matcher_commit, their callees included, in all and per call.
#   Needs valgrind and build-release (bench/run builds it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 2 ] || { sed -n '2,11p' "$0"; exit 2; }
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed" >&2; exit 3; }
art="$1" traces="$2" docs="${3:-5}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" \
  "$ROOT/build-release/bench/gcg_bench" --artifact "$art" --traces "$traces" --max-docs "$docs" \
  --workloads docs --repeats 1 --warmup 0 --bf-every 0 --bf-samples 0 --cpu -1 --quiet >/dev/null 2>"$out/log" ||
  { tail -5 "$out/log" >&2; exit 1; }
# masks: one per token and one after each document; commits: each token and EOS
tokens=$(head -n "$docs" "$traces" | wc -w)
seqs=$(head -n "$docs" "$traces" | wc -l)
callgrind_annotate --inclusive=yes "$out/cg.out" 2>/dev/null |
  awk -v masks=$((tokens + seqs)) -v commits=$((tokens + seqs)) '
    /gcg_matcher_fill_mask[^_]/ && !m { gsub(",", "", $1); m = $1 }
    /gcg_matcher_commit[^_]/ && !c { gsub(",", "", $1); c = $1 }
    END {
      printf "fill_mask: %d instructions in all, %.0f per mask (%d masks)\n", m, m / masks, masks
      printf "commit:    %d instructions in all, %.0f per commit (%d commits)\n", c, c / commits, commits
    }'
