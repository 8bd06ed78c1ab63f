#!/usr/bin/env bash
# bench/chat_run.sh — the chat workload of bench/run: chat-style traces (prose, a
# <think> block, a tool call, prose) replayed against a lazy artifact (triggers
# "</think>" and "<tool_call>", with and without a reasoning budget) and a
# tagged-region artifact (--tag '<tool_call>' call-body '</tool_call>').
# Usage: bench/chat_run.sh BUILD CACHE OUT QUICK(0|1)
# Writes OUT/chat.md (the table); exit 0 when every check passed, 1 otherwise.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$1" CACHE="$2" OUT="$3" QUICK="$4"
G="$ROOT/bench/grammars/chat_tools.gbnf" T="$CACHE/tokenizers/llama3/tokenizer.json"
mkdir -p "$OUT/artifacts" "$OUT/traces"
count=200 run=(--repeats 3 --bf-every 50 --budget 64)
[ "$QUICK" = 1 ] && count=10 run=(--repeats 2 --bf-every 25 --budget 64)
node "$ROOT/bench/chat_traces.mjs" --tokenizer llama3 --count "$count" --out "$OUT/traces/llama3-chat.txt"
"$BUILD/compiler/gcgc" compile "$G" --tokenizer "$T" --trigger-word '</think>' --trigger-word '<tool_call>' \
  -o "$OUT/artifacts/chat-lazy.gcg" >"$OUT/artifacts/chat-lazy.gcg.log" 2>&1 ||
  { echo "bench/chat_run.sh: gcgc compile (lazy) failed; see $OUT/artifacts/chat-lazy.gcg.log" >&2; exit 1; }
"$BUILD/compiler/gcgc" compile "$G" --tokenizer "$T" --tag '<tool_call>' call-body '</tool_call>' \
  -o "$OUT/artifacts/chat-tagged.gcg" >"$OUT/artifacts/chat-tagged.gcg.log" 2>&1 ||
  { echo "bench/chat_run.sh: gcgc compile (tagged) failed; see $OUT/artifacts/chat-tagged.gcg.log" >&2; exit 1; }
echo
echo "=== chat: chat_tools, llama3 vocabulary, $count traces ==="
"$BUILD/bench/gcg_bench_chat" --traces "$OUT/traces/llama3-chat.txt" --lazy "$OUT/artifacts/chat-lazy.gcg" \
  --tagged "$OUT/artifacts/chat-tagged.gcg" "${run[@]}" | tee "$OUT/chat.md"
