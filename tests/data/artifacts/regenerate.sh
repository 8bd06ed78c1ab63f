#!/usr/bin/env bash
# regenerate.sh — rebuilds the small valid artifacts of this folder from their
# grammars and hex vocabularies, and the fuzz_artifact seed corpus from them.
# Run it after a change to the artifact format (their loading would fail).
#
# usage: tests/data/artifacts/regenerate.sh PATH/TO/gcgc
#
# Seeds are named without the .gcg suffix (the repository ignores *.gcg
# outside tests/data/). Each artifact is seeded alone and followed by a tail
# that fuzz_artifact.c reads as matcher operations: per step one control
# byte c, then 1 + (c >> 5) argument bytes; c & 3 = 0 commit those bytes,
# 1 commit the token id they spell (little-endian), 2 roll back, 3 commit EOS.
set -eu
GCGC=$(realpath "${1:?usage: regenerate.sh PATH/TO/gcgc}")
HERE=$(cd "$(dirname "$0")" && pwd)
CORPUS="$HERE/../../fuzz/corpus/fuzz_artifact"
cd "$HERE"

compile() { # NAME GRAMMAR [gcgc options...]
    local name=$1 grammar=$2
    shift 2
    "$GCGC" compile "$grammar" -o "$name.gcg" "$@" 2>/dev/null
}

compile paren_bytes256 paren.gbnf
compile paren_tokens paren.gbnf --vocab-hex paren.hex --eos 6
compile ambiguous_tokens ambiguous.gbnf --vocab-hex ambiguous.hex --eos 7
compile right_rec_tokens right_rec.gbnf --vocab-hex right_rec.hex --eos 4
compile nested_list_tokens nested_list.gbnf --vocab-hex nested_list.hex --eos 6
compile token_refs_tokens token_refs.gbnf --vocab-hex token_refs.hex --eos 6

seed() { # NAME TAIL(printf format)
    cp "$1.gcg" "$CORPUS/artifact_$1"
    { cat "$1.gcg"; printf "$2"; } >"$CORPUS/artifact_$1_tail"
}

# "((" "x" rollback "x" "))" EOS
seed paren_bytes256 '\x20((\x00x\x02\x00x\x20))\x03'
# tokens ( (x ) ) EOS, then a rejected x
seed paren_tokens '\x01\x00\x01\x05\x01\x02\x01\x02\x01\x06\x00x'
# tokens a+ ( a ) +a, rollback, bytes "+a" EOS
seed ambiguous_tokens '\x01\x02\x01\x04\x01\x00\x01\x05\x01\x03\x02\x20+a\x03'
# tokens xx xx x; EOS
seed right_rec_tokens '\x01\x02\x01\x02\x01\x03\x01\x04'
# tokens ( xx x), roll one back, bytes "xx", a rejected ";", tokens x ) EOS
seed nested_list_tokens '\x01\x01\x01\x04\x01\x05\x02\x00\x20xx\x00;\x01\x00\x01\x02\x03\x00'
# tokens <start> a ab 0xFF, roll one back, <end> EOS
seed token_refs_tokens '\x01\x00\x01\x02\x01\x04\x01\x05\x02\x00\x01\x01\x03\x00'

# A prepared vocabulary (.gcgv): fuzz_artifact opens its input as one too.
"$GCGC" vocab --vocab-hex paren.hex --eos 6 -o "$CORPUS/vocab_paren" 2>/dev/null
