#!/usr/bin/env bash
# cli_test.sh — end-to-end test of the gcgc and gcg command-line tools:
# every exit code, --help/--version, usage errors, the diagnostics format,
# match verdicts with exact offsets, mask/replay on a tiny vocabulary, the
# metadata's file names and the latency certificate (--strict-latency).
#
# usage: cli_test.sh PATH/TO/gcgc PATH/TO/gcg
# Exit status 0 iff every check passed; each failure is printed.

set -u
if [[ $# -ne 2 || ! -x $1 || ! -x $2 ]]; then
    echo "usage: cli_test.sh PATH/TO/gcgc PATH/TO/gcg (both executable)" >&2
    exit 2
fi
# Absolute paths: the test runs in a temporary directory.
GCGC=$(realpath "$1")
GCG=$(realpath "$2")
DATA=$(realpath "$(dirname "$0")/data")
T=$(mktemp -d "${TMPDIR:-/tmp}/gcg_cli_test.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

pass=0
fail=0

# run CMD...: runs it, capturing stdout in $out, stderr in $err, status in $rc.
run() {
    "$@" >"$T/.out" 2>"$T/.err"
    rc=$?
    out=$(cat "$T/.out")
    err=$(cat "$T/.err")
}

# check NAME EXPECTED_RC EXPECTED_STDOUT [EXPECTED_STDERR]: compares the last run.
# A '*' as expected output skips that comparison.
check() {
    local name=$1 want_rc=$2 want_out=$3 want_err=${4-*}
    local ok=1
    [[ $rc == "$want_rc" ]] || ok=0
    [[ $want_out == '*' || $out == "$want_out" ]] || ok=0
    [[ $want_err == '*' || $err == "$want_err" ]] || ok=0
    if ((ok)); then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        printf 'FAIL %s\n  exit %s (want %s)\n  stdout: %s\n  want:   %s\n  stderr: %s\n' \
            "$name" "$rc" "$want_rc" "$out" "$want_out" "$err"
        [[ $want_err == '*' ]] || printf '  want:   %s\n' "$want_err"
    fi
}

# check_grep NAME EXPECTED_RC STREAM REGEX: the last run's status and a line of
# stdout or stderr matching an extended regex.
check_grep() {
    local name=$1 want_rc=$2 stream=$3 re=$4 text
    [[ $stream == out ]] && text=$out || text=$err
    if [[ $rc == "$want_rc" ]] && grep -Eq -- "$re" <<<"$text"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        printf 'FAIL %s\n  exit %s (want %s)\n  %s: %s\n  want a line matching: %s\n' \
            "$name" "$rc" "$want_rc" "$stream" "$text" "$re"
    fi
}

# repeat CHAR N: prints CHAR N times.
repeat() { head -c "$2" /dev/zero | tr '\0' "$1"; }

# ---- fixtures -----------------------------------------------------------------

# The worked example of the design: balanced parentheses around an x.
cat >paren.gbnf <<'EOF'
# S -> ( S ) | x
root ::= "(" root ")" | "x"
EOF

# Tokens: 0 "(", 1 "x", 2 ")", 3 "x)", 4 "))", 5 "(x", 6 EOS (no text).
printf '28\n78\n29\n7829\n2929\n2878\n-\n' >paren.hex

# Right recursion in one context: the top LR state decides every mask.
printf 'root ::= "x" root | "x"\n' >right_rec.gbnf
# Ambiguity that grows with the input: after "a" and n "ac", every level may
# start a list, so the stacks multiply.
printf 'root ::= list ";"\nlist ::= list list "c" | list "c" | "a"\n' >amb_list.gbnf
# Right recursion in two contexts: the first "(" opens the root's brackets or
# a list's, and both stacks then carry the same nesting. Two stacks, each read
# 3 pairs deep, once the analysis forgets the middle of the shared chain.
printf 'root ::= "(" list ")" | list ";"\nlist ::= "x" | "(" list ")" list\n' >nested_list.gbnf

# A tiny JSON: nested arrays and objects of strings, numbers and booleans.
cat >tiny_json.gbnf <<'EOF'
root   ::= value
value  ::= "[" ( value ( "," value )* )? "]" | "{" ( member ( "," member )* )? "}" | string | [0-9]+ | "true" | "false"
member ::= string ":" value
string ::= "\"" [a-z]* "\""
EOF
# Tokens: 0 "[", 1 "]", 2 ",", 3 "{", 4 "}", 5 ":", 6 "\"", 7 "a", 8 "1",
# 9 "true", 10 "false", 11 "[]", 12 EOS.
printf '5b\n5d\n2c\n7b\n7d\n3a\n22\n61\n31\n74727565\n66616c7365\n5b5d\n-\n' >tiny_json.hex

printf 'root ::= "a" undefined-rule\n' >undefined.gbnf
printf 'root ::= "a"\nunused ::= "b"\n' >unused.gbnf
printf 'hello' >short.gcg
mkdir -p tracedir_art

# ---- gcgc: version, help, usage ------------------------------------------------

run "$GCGC" --version;                check "gcgc --version" 0 "gcgc 0.1.0" ""
run "$GCGC" --help;                   check_grep "gcgc --help" 0 out '^usage: gcgc COMMAND'
run "$GCGC" compile --help;           check_grep "gcgc compile --help" 0 out '^usage: gcgc compile GRAMMAR'
run "$GCGC" check --help;             check_grep "gcgc check --help" 0 out '^usage: gcgc check GRAMMAR'
run "$GCGC";                          check_grep "gcgc without command" 2 err '^usage: gcgc'
run "$GCGC" frobnicate;               check "gcgc unknown command" 2 "" \
    "gcgc: unknown command 'frobnicate'
Try 'gcgc --help'."
run "$GCGC" compile paren.gbnf;       check "gcgc compile without -o" 2 "" \
    "gcgc compile: no output file given (-o OUT.gcg)
Try 'gcgc compile --help'."
run "$GCGC" compile -o x.gcg;         check_grep "gcgc compile without grammar" 2 err '^gcgc compile: no grammar file given$'
run "$GCGC" compile paren.gbnf -o;    check_grep "gcgc -o without value" 2 err '^gcgc compile: option -o needs a value$'
run "$GCGC" compile paren.gbnf -o x.gcg --frob; check_grep "gcgc unknown option" 2 err "^gcgc compile: unknown option '--frob'$"
run "$GCGC" compile paren.gbnf -o x.gcg --eos 12x; check_grep "gcgc bad --eos" 2 err "^gcgc compile: --eos needs a token id, got '12x'$"
run "$GCGC" compile paren.gbnf -o x.gcg --tokenizer t.json --vocab-hex paren.hex
check_grep "gcgc two vocabularies" 2 err '^gcgc compile: --tokenizer, --vocab-hex, --tiktoken and --vocab exclude each other$'
run "$GCGC" check paren.gbnf extra.gbnf; check_grep "gcgc check two grammars" 2 err "^gcgc check: unexpected argument 'extra.gbnf'$"
run "$GCGC" check paren.gbnf -o x.gcg; check_grep "gcgc check has no -o" 2 err "^gcgc check: unknown option '-o'$"
[[ ! -e x.gcg ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL usage errors wrote x.gcg"; }

# ---- gcgc: errors and diagnostics -------------------------------------------------

run "$GCGC" compile missing.gbnf -o x.gcg
check "gcgc unreadable grammar" 1 "" "gcgc: cannot read missing.gbnf: No such file or directory"
run "$GCGC" check missing.gbnf
check "gcgc check unreadable grammar" 1 "" "gcgc: cannot read missing.gbnf: No such file or directory"
run "$GCGC" compile undefined.gbnf -o x.gcg
check_grep "gcgc undefined rule" 1 err '^undefined\.gbnf:1:[0-9]+: error: .*undefined-rule'
[[ ! -e x.gcg ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL errors wrote x.gcg"; }
run "$GCGC" check undefined.gbnf
check_grep "gcgc check undefined rule" 1 out '^undefined\.gbnf:1:[0-9]+: error: .*undefined-rule'
run "$GCGC" compile paren.gbnf -o x.gcg --vocab-hex missing.hex
check_grep "gcgc missing vocabulary" 1 err 'missing\.hex'
run "$GCGC" compile paren.gbnf -o x.gcg --root nosuchrule
check_grep "gcgc missing root" 1 err '^paren\.gbnf:.*error: .*nosuchrule'
run "$GCGC" compile paren.gbnf -o no-such-dir/x.gcg
check_grep "gcgc unwritable output" 1 err '^gcgc: cannot write no-such-dir/x\.gcg: No such file or directory$'

# ---- gcgc: compile and check --------------------------------------------------

run "$GCGC" compile unused.gbnf -o unused.gcg
check_grep "gcgc warning printed" 0 err '^unused\.gbnf:2:1: warning: .*unused'
run "$GCGC" check paren.gbnf
check_grep "gcgc check rules" 0 out '^rules: 1$'
check_grep "gcgc check conflicts" 0 out '^conflicts: 0 shift/reduce, 0 reduce/reduce$'
check_grep "gcgc check LR states" 0 out '^LR states: [1-9][0-9]*$'
check_grep "gcgc check byte classes" 0 out '^byte classes: [1-9][0-9]*$'
[[ ! -e paren.gcg ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL check wrote a file"; }

run "$GCGC" compile paren.gbnf -o paren.gcg
check_grep "gcgc compile bytes256" 0 err '^certificate: at most [0-9]+ stack reads, [0-9]+ set operations, [0-9]+ bytes per frontier node$'
check_grep "gcgc summary LR states" 0 err '^LR states: [1-9][0-9]* \([1-9][0-9]* before merging\)$'
check_grep "gcgc summary automaton" 0 err '^automaton: [1-9][0-9]* states \([1-9][0-9]* before minimization\), [1-9][0-9]* token sets$'
check_grep "gcgc summary artifact" 0 err '^artifact: [1-9][0-9]* bytes -> paren\.gcg$'
check_grep "gcgc summary time" 0 err '^compile time: [0-9]+\.[0-9] ms$'
[[ -s paren.gcg ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL paren.gcg not written"; }
ls paren.gcg.tmp.* >/dev/null 2>&1 && { fail=$((fail + 1)); echo "FAIL temporary file left"; } || pass=$((pass + 1))

# Through paths: the metadata records the file names only.
run "$GCGC" compile "$T/paren.gbnf" -o tok.gcg --vocab-hex ./paren.hex --eos 6 --stats
check_grep "gcgc compile --vocab-hex" 0 err '^certificate: at most [0-9]+ stack reads, '
check_grep "gcgc --stats automaton" 0 out '^automaton states: [1-9][0-9]*$'
check_grep "gcgc --stats token sets" 0 out '^token sets: [1-9][0-9]*$'
check_grep "gcgc --stats artifact bytes" 0 out "^artifact bytes: $(stat -c %s tok.gcg)\$"
check_grep "gcgc EOS from --eos" 0 err '^EOS ids: 6 \(from given \(--eos\)\)$'

# ---- gcgc: latency certificate -----------------------------------------------

run "$GCGC" compile amb_list.gbnf -o amb.gcg --strict-latency
check_grep "gcgc --strict-latency unbounded" 1 err '^amb_list\.gbnf: error: latency unbounded: .*"list" \(--strict-latency\)$'
grep -q '^certificate: ' <<<"$err" && { fail=$((fail + 1)); echo "FAIL --strict-latency printed a summary"; } || pass=$((pass + 1))
[[ ! -e amb.gcg ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL --strict-latency wrote amb.gcg"; }
ls amb.gcg.tmp.* >/dev/null 2>&1 && { fail=$((fail + 1)); echo "FAIL --strict-latency left a temporary file"; } || pass=$((pass + 1))
run "$GCGC" compile amb_list.gbnf -o amb.gcg
check_grep "gcgc unbounded without --strict-latency" 0 err '^certificate: unbounded \(rule list\)$'
check_grep "gcgc unbounded per mask" 0 err '^certificate per mask: unbounded stack reads and edges \(ambiguity, rule list\), [1-9][0-9]* set operations$'
check_grep "gcgc no commit bound" 0 err '^certificate per commit: no bound stated \(ambiguity, rule list\)$'
run "$GCGC" compile nested_list.gbnf -o nested.gcg --strict-latency
check_grep "gcgc shared chain bounded" 0 err '^certificate per mask: 6 stack reads, 6 edges, 6 set operations$'
run "$GCGC" compile right_rec.gbnf -o right_rec.gcg --strict-latency
check_grep "gcgc --strict-latency right recursion" 0 err '^certificate: at most 1 stack reads, '
run "$GCGC" compile tiny_json.gbnf -o tiny_json.gcg --vocab-hex tiny_json.hex --eos 12
check_grep "gcgc tiny JSON certificate" 0 err '^certificate: at most 8 stack reads, 8 set operations, [0-9]+ bytes per frontier node$'
check_grep "gcgc tiny JSON per mask" 0 err '^certificate per mask: 8 stack reads, 8 edges, 8 set operations$'
check_grep "gcgc tiny JSON per commit" 0 err '^certificate per commit: at most 42 work units per byte$'
cert=$(grep '^certificate: ' <<<"$err")

# ---- gcgc: where -o writes ---------------------------------------------------------

# -o replaced its path by rename(2): a FIFO, a device or a symlink became a
# regular file. Only regular files are written now.
mkfifo fifo.gcg
run "$GCGC" compile paren.gbnf -o fifo.gcg
check "gcgc -o FIFO refused" 1 "" "gcgc: refusing to write fifo.gcg: it is a FIFO (-o writes regular files only)"
[[ -p fifo.gcg ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL -o replaced the FIFO"; }
run "$GCGC" compile paren.gbnf -o /dev/null
check "gcgc -o device refused" 1 "" "gcgc: refusing to write /dev/null: it is a device (-o writes regular files only)"
[[ -c /dev/null ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL -o replaced /dev/null"; }
mkdir -p adir
run "$GCGC" compile paren.gbnf -o adir
check "gcgc -o directory refused" 1 "" "gcgc: refusing to write adir: it is a directory (-o writes regular files only)"
cp paren.gbnf self.gbnf
run "$GCGC" compile self.gbnf -o self.gbnf
check "gcgc -o the input grammar refused" 1 "" "gcgc: refusing to write self.gbnf: it is an input of this command"
cmp -s self.gbnf paren.gbnf && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL -o overwrote the grammar"; }
ln -s self.gbnf self_link.gcg
run "$GCGC" compile self.gbnf -o self_link.gcg
check_grep "gcgc -o symlink to the input refused" 1 err '^gcgc: refusing to write self_link\.gcg: it is an input of this command$'
ln -s linked_target.gcg link.gcg
run "$GCGC" compile paren.gbnf -o link.gcg
check_grep "gcgc -o symlink written through" 0 err '^artifact: [0-9]+ bytes -> link\.gcg$'
[[ -L link.gcg && -f linked_target.gcg && ! -L linked_target.gcg ]] && pass=$((pass + 1)) ||
    { fail=$((fail + 1)); echo "FAIL -o did not write through the symlink"; }
"$GCGC" compile paren.gbnf -o - 2>stdout_err.txt >stdout.gcg
rc=$?; out=""; err=$(cat stdout_err.txt)
check_grep "gcgc -o - summary" 0 err '^artifact: [0-9]+ bytes -> stdout$'
run "$GCG" info stdout.gcg
check_grep "gcgc -o - writes the artifact" 0 out '^grammar: paren\.gbnf \(root: root\)$'
run "$GCGC" compile paren.gbnf -o - --stats
check_grep "gcgc -o - with --stats" 2 err '^gcgc compile: --stats prints to stdout, where -o - writes the artifact$'

# ---- gcgc compile: a batch against one vocabulary -------------------------------------

mkdir -p batch
printf 'root ::= "a" bad-rule\n' >bad.gbnf
run "$GCGC" compile --out-dir batch --report batch.tsv --vocab-hex paren.hex --eos 6 \
    paren.gbnf bad.gbnf amb_list.gbnf missing.gbnf
check_grep "batch exit status" 1 err '^compiled 2 of 4 grammars$'
check_grep "batch error printed" 1 err '^bad\.gbnf:1:[0-9]+: error: .*bad-rule'
check_grep "batch EOS once" 1 err '^EOS ids: 6 \(from given \(--eos\)\)$'
[[ -s batch/paren.gcg && -s batch/amb_list.gcg && ! -e batch/bad.gcg ]] && pass=$((pass + 1)) ||
    { fail=$((fail + 1)); echo "FAIL batch outputs"; ls batch; }
run cut -f1,2,5,6 batch.tsv
check "batch report" 0 "grammar	status	lr_states	certificate
paren.gbnf	ok	6	bounded 5
bad.gbnf	error	0	-
amb_list.gbnf	ok	8	unbounded list
missing.gbnf	error	0	-" ""
run awk -F'\t' 'NR > 1 { print NF, ($3 ~ /^[0-9]+\.[0-9][0-9][0-9]$/), ($4 > 0) == ($2 == "ok") }' batch.tsv
check "batch report columns" 0 "7 1 1
7 1 1
7 1 1
7 1 1" ""
run awk -F'\t' '$1 == "bad.gbnf" { print $7 } $1 == "missing.gbnf" { print $7 }' batch.tsv
check_grep "batch report message" 0 out '^undefined rule "bad-rule"$'
check_grep "batch report unreadable" 0 out '^cannot read missing\.gbnf: No such file or directory$'
run "$GCGC" compile --out-dir batch paren.gbnf tiny_json.gbnf
check "batch all compiled" 0 "" '*'
mkdir -p other && cp paren.gbnf other/
run "$GCGC" compile --out-dir batch paren.gbnf other/paren.gbnf
check_grep "batch same output name" 1 err '^gcgc: output batch/paren\.gcg is also the output of paren\.gbnf$'
run "$GCGC" compile paren.gbnf tiny_json.gbnf -o x.gcg
check_grep "several grammars need --out-dir" 2 err '^gcgc compile: several grammars need --out-dir DIR$'
run "$GCGC" compile --out-dir nodir paren.gbnf
check_grep "batch missing directory" 1 err '^gcgc: --out-dir nodir: No such file or directory$'

# ---- gcgc: vocabularies and EOS ids ---------------------------------------------------

# A DeepSeek-V3-like tokenizer.json: special tokens in model.vocab too.
mkdir -p ds && cp "$DATA/vocab/deepseek/"*.json ds/
run "$GCGC" compile tiny_json.gbnf --tokenizer ds/tokenizer.json -o ds.gcg
check_grep "DeepSeek layout loads" 0 err '^EOS ids: 1 \(from generation_config\.json eos_token_id\)$'
rm ds/generation_config.json
run "$GCGC" compile tiny_json.gbnf --tokenizer ds/tokenizer.json -o ds.gcg
check_grep "EOS from tokenizer_config.json" 0 err '^EOS ids: 0 \(from tokenizer_config\.json eos_token\)$'
run "$GCGC" compile tiny_json.gbnf --tokenizer ds/tokenizer.json --eos 2 -o ds.gcg
check_grep "EOS with text warns" 0 err '^gcgc: warning: EOS id 2 is an ordinary token with text "\{"; as EOS it no longer stands for that text$'
run "$GCGC" compile tiny_json.gbnf --tiktoken "$DATA/vocab/tiktoken/small.tiktoken" --eos 8 -o tt.gcg
check_grep "tiktoken vocabulary" 0 err '^EOS ids: 8 \(from given \(--eos\)\)$'
run "$GCG" info tt.gcg
check_grep "tiktoken vocabulary size" 0 out '^vocabulary: small\.tiktoken, 9 tokens, EOS ids: 8$'
printf 'YQ== 0\nYg== x\n' >bad.tiktoken
run "$GCGC" compile paren.gbnf --tiktoken bad.tiktoken -o x.gcg
check "tiktoken error positioned" 1 "" "bad.tiktoken:2:6: expected a rank (decimal digits) after the token"

# ---- gcgc check --count and --report ---------------------------------------------------

# Hand-counted: [a-z]* has 26^k sentences of k bytes; sum over k <= 20
# overflows 64 bits.
printf 'root ::= [a-z]*\n' >az.gbnf
run "$GCGC" check az.gbnf --count 20
check_grep "count [a-z]* up to 20" 0 out '^sentences up to 20 bytes: 20725274851017785518433805271$'
run "$GCGC" check az.gbnf --count 0
check_grep "count up to 0: the empty sentence" 0 out '^sentences up to 0 bytes: 1$'
# Ambiguous: a^k (k >= 1) has many parses but counts once: 3 sentences up to 3.
printf 'root ::= "a" root | root "a" | "a"\n' >amb.gbnf
run "$GCGC" check amb.gbnf --count 3
check_grep "count ambiguous grammar" 0 out '^sentences up to 3 bytes: 3$'
# "a", "ab" with tokens a, b, ab: spellings a | a b | ab = 3.
printf 'root ::= "a" | "ab"\n' >ab.gbnf
printf '61\n62\n6162\n-\n' >ab.hex
run "$GCGC" check ab.gbnf --count 2 --vocab-hex ab.hex --eos 3
check_grep "count sentences a|ab" 0 out '^sentences up to 2 bytes: 2$'
check_grep "count spellings a|ab" 0 out '^token sequences spelling them: 3$'
# [xy]+ up to 3 bytes: 2 + 4 + 8 = 14 sentences. Tokens x, y, xy: each
# string spells byte by byte, and once more per "xy" in it (at most one up
# to 3 bytes): 2 + (4 + 1) + (8 + 4: xxy xyx xyy yxy) = 19 spellings.
printf 'root ::= [xy]+\n' >xy.gbnf
printf '78\n79\n7879\n' >xy.hex
run "$GCGC" check xy.gbnf --count 3 --vocab-hex xy.hex
check_grep "count (x|y)+ sentences" 0 out '^sentences up to 3 bytes: 14$'
check_grep "count (x|y)+ spellings" 0 out '^token sequences spelling them: 19$'
run "$GCGC" check az.gbnf --count 5000
check_grep "count above the limit" 2 err "^gcgc check: --count needs a length from 0 to 4096, got '5000'$"
run "$GCGC" check amb.gbnf --report amb.out
check_grep "report written" 0 out '^conflicts: 2 shift/reduce, 0 reduce/reduce$'
run grep -c '^State [0-9]*:$' amb.out
check "report lists every state" 0 5 ""
run grep -A2 -F 'on [a]: ** conflict **' amb.out
check_grep "report conflict productions" 0 out '^        reduce 3 \(root ::= \[a\]\)$'
check_grep "report conflict shift" 0 out '^        shift [0-9]+$'
run grep -F 'root ::= [a] . root' amb.out
check "report items" 0 "    root ::= [a] . root" ""

# ---- gcg: version, help, usage ---------------------------------------------------

run "$GCG" --version;                 check "gcg --version" 0 "gcg 0.1.0" ""
run "$GCG" --help;                    check_grep "gcg --help" 0 out '^usage: gcg COMMAND'
for c in match mask replay info; do
    run "$GCG" $c --help;             check_grep "gcg $c --help" 0 out "^usage: gcg $c ART\\.gcg"
done
run "$GCG";                           check_grep "gcg without command" 2 err '^usage: gcg'
run "$GCG" frobnicate;                check "gcg unknown command" 2 "" \
    "gcg: unknown command 'frobnicate'
Try 'gcg --help'."
run "$GCG" match;                     check "gcg match without artifact" 2 "" \
    "gcg match: no artifact given
Try 'gcg match --help'."
run "$GCG" match paren.gcg a b;       check_grep "gcg match extra argument" 2 err "^gcg match: unexpected argument 'b'$"
run "$GCG" replay tok.gcg;            check_grep "gcg replay without traces" 2 err '^gcg replay: missing argument$'
run "$GCG" mask tok.gcg --frob;       check_grep "gcg mask unknown option" 2 err "^gcg mask: unknown option '--frob'$"
run "$GCG" mask tok.gcg --tokens;     check_grep "gcg mask option without value" 2 err '^gcg mask: option --tokens needs a value$'
run "$GCG" mask tok.gcg --tokens 1 --text x; check_grep "gcg mask tokens and text" 2 err '^gcg mask: --tokens and --text exclude each other$'
run "$GCG" mask tok.gcg --tokens "0 x"; check_grep "gcg mask bad id" 2 err '^gcg mask: --tokens: bad token id after position 1$'

# ---- gcg: artifact errors ------------------------------------------------------

run "$GCG" match missing.gcg </dev/null; check "gcg missing artifact" 1 "" "gcg: missing.gcg: cannot open: No such file or directory"
run "$GCG" info short.gcg;            check "gcg truncated artifact" 1 "" \
    "gcg: short.gcg: artifact format error: truncated: need 48 bytes of header, have 5"
run "$GCG" info tracedir_art;          check "gcg artifact is a directory" 1 "" \
    "gcg: tracedir_art: is a directory, not an artifact"
run "$GCG" info <(cat tok.gcg);       check_grep "gcg artifact from a pipe" 0 out '^vocabulary: paren\.hex, 7 tokens, EOS ids: 6$'
run "$GCG" info <(printf '');         check_grep "gcg empty pipe as artifact" 1 err \
    '^gcg: /dev/fd/[0-9]+: artifact format error: truncated: need 48 bytes of header, have 0$'
run "$GCG" match paren.gcg missing.txt; check "gcg match unreadable input" 1 "" \
    "gcg: cannot read missing.txt: No such file or directory"

# ---- gcg match -------------------------------------------------------------------

run "$GCG" match paren.gcg < <(printf 'x');        check "match complete" 0 complete ""
run "$GCG" match paren.gcg < <(printf '((x)');     check "match prefix" 3 prefix ""
run "$GCG" match paren.gcg </dev/null;             check "match empty" 3 prefix ""
run "$GCG" match paren.gcg < <(printf '((x)]');    check "match reject" 1 "reject 4" ""
run "$GCG" match paren.gcg < <(printf 'y');        check "match reject first" 1 "reject 0" ""
run "$GCG" match paren.gcg < <(printf 'x)');       check "match reject after complete" 1 "reject 1" ""
printf '(x)' >in.txt
run "$GCG" match paren.gcg in.txt;                 check "match file" 0 complete ""
run "$GCG" match paren.gcg - <in.txt;              check "match - is stdin" 0 complete ""
{ repeat '(' 100000; printf x; repeat ')' 100000; } >deep.txt
run "$GCG" match paren.gcg deep.txt;               check "match 100k nested" 0 complete ""
{ repeat '(' 70000; printf 'x)y'; } >deep_bad.txt
run "$GCG" match paren.gcg deep_bad.txt;           check "match reject past a chunk" 1 "reject 70002" ""
{ repeat '(' 100000; printf x; repeat ')' 99999; } >deep_open.txt
run "$GCG" match paren.gcg deep_open.txt;          check "match 100k nested prefix" 3 prefix ""

# ---- gcg match --dot -------------------------------------------------------------

# (( then x: one stack of four entries (start, "(", "(", "x").
run "$GCG" match --dot paren.dot paren.gcg < <(printf '((x')
check "match --dot verdict" 3 prefix ""
run grep -c 'label="[0-9]*"' paren.dot;        check "dot: one node per stack entry" 0 4 ""
run grep -c ' -> ' paren.dot;                  check "dot: one edge per link" 0 3 ""
run grep -c 'style=bold' paren.dot;            check "dot: one stack top" 0 1 ""
run head -1 paren.dot;                         check "dot: a digraph" 0 "digraph gss {" ""
# An ambiguous grammar after "aa" (then a rejected "b"): two tops, 0 a a
# and 0 root a, sharing the start node.
printf 'root ::= "a" root | root "a" | "a"\n' >amb_dot.gbnf
"$GCGC" compile amb_dot.gbnf -o amb_dot.gcg 2>/dev/null
run "$GCG" match --dot amb.dot amb_dot.gcg < <(printf 'aab')
check "match --dot after a reject" 1 "reject 2" ""
run grep -c 'style=bold' amb.dot;              check "dot: two stack tops" 0 2 ""
run grep -c 'label="[0-9]*"' amb.dot;          check "dot: shared start node" 0 5 ""
run grep -c ' -> ' amb.dot;                    check "dot: edges of both stacks" 0 4 ""
run "$GCG" match --dot nodir/x.dot paren.gcg < <(printf 'x')
check "match --dot unwritable" 1 complete "gcg: cannot write nodir/x.dot: No such file or directory"

# ---- gcg mask --------------------------------------------------------------------

run "$GCG" mask tok.gcg;                           check "mask at start" 0 "0 1 5" ""
run "$GCG" mask tok.gcg --count;                   check "mask --count" 0 "3" ""
run "$GCG" mask tok.gcg --tokens "0 1";            check "mask after (x" 0 "2" ""
run "$GCG" mask tok.gcg --tokens "1";              check "mask after x: EOS" 0 "6" ""
run "$GCG" mask tok.gcg --text "((x";              check "mask after text ((x" 0 "2 4" ""
run "$GCG" mask tok.gcg --text "((x" --count;      check "mask --text --count" 0 "2" ""
run "$GCG" mask tok.gcg --tokens "1 6";            check "mask after EOS is empty" 0 "" ""
run "$GCG" mask tok.gcg --tokens "5 5";            check "mask disallowed token" 1 "" \
    "gcg: token 2 (id 5) at position 1 is not allowed"
run "$GCG" mask tok.gcg --tokens "0 0 99";         check "mask token out of range" 1 "" \
    "gcg: token 3 (id 99) at position 2 is not allowed (out of the vocabulary)"
run "$GCG" mask tok.gcg --tokens "1 6 2";          check "mask token after EOS" 1 "" \
    "gcg: token 3 (id 2) at position 2 is not allowed (after EOS)"
run "$GCG" mask tok.gcg --text "x(";               check "mask disallowed text" 1 "" \
    "gcg: text is not allowed at byte 1"

# ---- gcg replay ------------------------------------------------------------------

printf '0 1 2 6\n0 0 1 4\n\n0 1\n1 1 2\n5 2\n' >traces.txt
run "$GCG" replay tok.gcg traces.txt
check_grep "replay line 1" 1 out '^line 1: steps 4, violations 0, complete$'
check_grep "replay line 2" 1 out '^line 2: steps 4, violations 0, complete$'
check_grep "replay line 4" 1 out '^line 4: steps 2, violations 0, incomplete$'
check_grep "replay violation" 1 out '^line 5: step 1: token 1 not allowed$'
check_grep "replay line 5" 1 out '^line 5: steps 1, violations 1, incomplete$'
check_grep "replay line 6" 1 out '^line 6: steps 2, violations 0, complete$'
check_grep "replay total" 1 out '^total: 5 lines, 13 steps, 1 violations, 3 complete$'
check_grep "replay timing" 1 out '^mask time \(us\): mean [0-9.]+, p50 [0-9.]+, p99 [0-9.]+, max [0-9.]+ \(14 masks\)$'
printf '0 1 2 6\n' >good.txt
run "$GCG" replay tok.gcg good.txt
check_grep "replay clean" 0 out '^total: 1 lines, 4 steps, 0 violations, 1 complete$'
run "$GCG" replay tok.gcg missing.txt;  check "replay unreadable traces" 1 "" \
    "gcg: cannot read missing.txt: No such file or directory"
printf '0 zz\n' >bad_traces.txt
run "$GCG" replay tok.gcg bad_traces.txt; check_grep "replay malformed line" 1 err '^gcg replay: line 1: bad token id after step 1$'
mkdir -p tracedir
run "$GCG" replay tok.gcg tracedir;     check "replay directory as traces" 1 "" \
    "gcg: cannot read tracedir: is a directory"
printf '0 1 2 6\n0 1\0002 6\n' >nul_traces.txt
run "$GCG" replay tok.gcg nul_traces.txt; check_grep "replay NUL byte in a line" 1 err \
    '^gcg replay: nul_traces\.txt: line 2: NUL byte at column 4$'
run "$GCG" replay tok.gcg <(printf '0 1 2 6\n'); check_grep "replay traces from a pipe" 0 out \
    '^total: 1 lines, 4 steps, 0 violations, 1 complete$'

# ---- gcg info ----------------------------------------------------------------------

run "$GCG" info tok.gcg
check_grep "info grammar" 0 out '^grammar: paren\.gbnf \(root: root\)$'
check_grep "info vocabulary" 0 out '^vocabulary: paren\.hex, 7 tokens, EOS ids: 6$'
check_grep "info meta section" 0 out '^ +1  meta +[0-9]+ +[0-9]+$'
check_grep "info total" 0 out "^total: $(stat -c %s tok.gcg) bytes \\(format version 2\\)$"
check_grep "info certificate" 0 out '^certificate: '
check_grep "info automaton section" 0 out '^ +11  automaton +[0-9]+ +[1-9][0-9]*$'
run "$GCG" info paren.gcg
check_grep "info bytes256" 0 out '^vocabulary: bytes256, 256 tokens, EOS ids: none$'
run "$GCG" info amb.gcg
check_grep "info unbounded" 0 out '^certificate: unbounded \(rule list\)$'
check_grep "info no commit bound" 0 out '^commit: no bound stated \(rule list\)$'
run "$GCG" info tiny_json.gcg
check_grep "info tiny JSON certificate" 0 out '^certificate: at most 8 stack reads, 8 set operations, [0-9]+ bytes per frontier node$'
check_grep "info tiny JSON commit bound" 0 out '^commit: at most 42 work units per byte$'
check_grep "info commit section" 0 out '^ +19  commit +[0-9]+ +72$'
[[ -n $cert && $(grep '^certificate: ' <<<"$out") == "$cert" ]] && pass=$((pass + 1)) ||
    { fail=$((fail + 1)); echo "FAIL gcg info certificate differs from gcgc's: $cert"; }
run "$GCG" match tiny_json.gcg < <(printf '{"ab":[1,true,{}],"c":[]}')
check "match tiny JSON" 0 complete ""

# ---- tagged regions (gcgc compile --tag) ---------------------------------------------

printf 'call ::= "{" [a-z]* "}"\n' >call.gbnf
run "$GCGC" compile call.gbnf --tag '<tc>' call '</tc>' -o tags.gcg
check_grep "tags compile" 0 err '^conflicts: 0 shift/reduce, 0 reduce/reduce$'
run "$GCG" match tags.gcg < <(printf 'hi <tc>{ab}</tc> bye <tc>{}</tc>')
check "tags match closed regions" 0 complete ""
run "$GCG" match tags.gcg < <(printf 'hi <tc>{ab}')
check "tags EOS in a complete region" 0 complete ""
run "$GCG" match tags.gcg < <(printf 'hi <tc>x')
check "tags reject at the region's first byte" 1 "reject 7" ""
run "$GCGC" compile call.gbnf --tag '<tc>' call '</tc>' --tags-eos-free-only -o tags2.gcg
run "$GCG" match tags2.gcg < <(printf 'hi <tc>{ab}')
check "tags EOS free text only" 3 prefix ""
run "$GCGC" compile call.gbnf -o t.gcg --tag '<tc>' call
check_grep "tags missing values" 2 err '^gcgc compile: --tag needs three values: BEGIN RULE END$'
run "$GCGC" compile call.gbnf --tags-eos-free-only -o t.gcg
check_grep "tags-eos-free-only alone" 2 err '^gcgc compile: --tags-eos-free-only needs --tag$'
run "$GCGC" compile call.gbnf --tag 'abc' call ';' --tag 'b' call ';' -o t.gcg
check_grep "tag that never opens" 1 err 'error: tag 1 \("abc"\) can never open: begin tag "b" always ends inside it first$'

# ---- lazy grammar triggers (gcgc compile --trigger-*) ---------------------------------

run "$GCGC" compile call.gbnf --root call --trigger-word '<tc>' --trigger-pattern 'x(y+)' \
    --trigger-pattern-full '[\s\S]*?(\{.*)' --trigger-token 65 -o lazy.gcg
check_grep "triggers compile" 0 err '^artifact: [0-9]+ bytes -> lazy\.gcg$'
run "$GCGC" compile call.gbnf --root call --trigger-pattern 'a(?=b)' -o t.gcg
check_grep "trigger pattern refused" 1 err 'error: trigger 1: pattern offset 2: lookaround and named groups are not supported$'
run "$GCGC" compile call.gbnf --root call --trigger-token x -o t.gcg
check_grep "trigger token not a number" 2 err "^gcgc compile: --trigger-token needs a token id, got 'x'$"
run "$GCGC" compile call.gbnf --root call --trigger-token 999 -o t.gcg
check_grep "trigger token past the vocabulary" 1 err 'error: trigger 1: token id past the vocabulary$'
# ---- prepared vocabularies and artifacts compiled by reference ----
run "$GCGC" vocab --vocab-hex paren.hex --eos 6 -o paren.gcgv
check_grep "gcgc vocab" 0 err '^vocabulary: 7 tokens, fingerprint [0-9a-f]{16}, [0-9]+ bytes$'
fp=$(grep -oE 'fingerprint [0-9a-f]{16}' <<<"$err" | cut -d' ' -f2)
run "$GCGC" vocab --vocab-hex paren.hex --eos 6 -o again.gcgv
cmp -s paren.gcgv again.gcgv && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL gcgc vocab not reproducible"; }
run "$GCGC" vocab paren.gbnf -o x.gcgv
check "gcgc vocab grammar argument" 2 "" "gcgc vocab: unexpected argument 'paren.gbnf'
Try 'gcgc vocab --help'."
run "$GCGC" vocab --vocab-hex paren.hex
check "gcgc vocab no output" 2 "" "gcgc vocab: no output file given (-o MODEL.gcgv)
Try 'gcgc vocab --help'."
run "$GCGC" compile paren.gbnf -o ref.gcg --vocab-hex paren.hex --eos 6 --vocab-ref
check_grep "gcgc --vocab-ref" 0 err '^artifact: [1-9][0-9]* bytes -> ref\.gcg$'
run "$GCGC" compile paren.gbnf -o ref2.gcg --vocab paren.gcgv --vocab-ref
run "$GCG" info --vocab paren.gcgv ref2.gcg
check_grep "gcgc compile --vocab MODEL.gcgv" 0 out "^vocabulary fingerprint: $fp \(by reference\)$"
run "$GCG" info ref.gcg
check "gcg info by reference without vocabulary" 1 "" "gcg: ref.gcg: vocabulary mismatch: this artifact was compiled against vocabulary fingerprint $fp; open it with gcg_artifact_open_file_vocab"
run "$GCG" info --vocab paren.gcgv ref.gcg
check_grep "gcg info by reference" 0 out "^vocabulary fingerprint: $fp \(by reference\)$"
run "$GCG" info tok.gcg
check_grep "gcg info embedded" 0 out "^vocabulary fingerprint: $fp \(embedded\)$"
run "$GCG" info --vocab paren.gcgv tok.gcg
check_grep "gcg info embedded with vocabulary" 0 out "^vocabulary fingerprint: $fp \(embedded\)$"
run "$GCGC" vocab -o bytes.gcgv
run "$GCG" mask --vocab bytes.gcgv ref.gcg
check_grep "gcg other vocabulary" 1 err "^gcg: ref\.gcg: vocabulary mismatch: vocabulary does not match the artifact: fingerprint [0-9a-f]{16}, expected $fp$"
run "$GCG" mask --vocab paren.gcgv ref.gcg --text "(("
ref_mask=$out
run "$GCG" mask tok.gcg --text "(("
check "gcg mask by reference = embedded" 0 "$ref_mask"
printf '((x))' >in.txt
run "$GCG" match --vocab paren.gcgv ref.gcg in.txt
check "gcg match by reference" 0 complete ""
run "$GCG" info --vocab tok.gcg ref.gcg
check_grep "gcg artifact as vocabulary" 0 out "^vocabulary fingerprint: $fp \(by reference\)$"
mkdir -p refdir
run "$GCGC" compile --out-dir refdir --vocab paren.gcgv --vocab-ref paren.gbnf
run "$GCG" match --vocab paren.gcgv refdir/paren.gcg in.txt
check "gcgc --out-dir --vocab-ref" 0 complete ""
printf '{"const": "x"}' >sx.json
run "$GCGC" compile --schema sx.json --vocab bytes.gcgv --vocab-ref -o sref.gcg
printf '"x"' >sx.txt
run "$GCG" match --vocab bytes.gcgv sref.gcg sx.txt
check "gcgc compile --schema --vocab --vocab-ref" 0 complete ""
run "$GCG" info sref.gcg
check_grep "schema artifact by reference" 1 err "vocabulary mismatch"
run "$GCGC" compile --schema sx.json --vocab bytes.gcgv --vocab-hex paren.hex -o sref.gcg
check_grep "gcgc compile --schema two vocabularies" 2 err "^gcgc: give one of --tokenizer, --vocab-hex and --vocab$"
# two open objects under anyOf: both parse every member, and the stacks of
# the two branches grow with the input
printf '{"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}},
 {"type": "object", "properties": {"b": {"type": "string"}}}]}' >su.json
# gcgc schema -o and gcgc compile --schema -o write as gcgc compile -o does
# (compiler/cli_output.h): they replaced a device or FIFO by a regular file
# (as root, /dev/null). A FIFO stands for both here.
run "$GCGC" schema sx.json -o fifo.gcg
check "gcgc schema -o FIFO refused" 1 "" "gcgc: refusing to write fifo.gcg: it is a FIFO (-o writes regular files only)"
[[ -p fifo.gcg ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL schema -o replaced the FIFO"; }
run "$GCGC" compile --schema sx.json -o fifo.gcg
check "gcgc compile --schema -o FIFO refused" 1 "" "gcgc: refusing to write fifo.gcg: it is a FIFO (-o writes regular files only)"
[[ -p fifo.gcg ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL compile --schema -o replaced the FIFO"; }
cp sx.json sx_self.json
run "$GCGC" schema sx_self.json -o sx_self.json
check "gcgc schema -o the input refused" 1 "" "gcgc: refusing to write sx_self.json: it is an input of this command"
cmp -s sx_self.json sx.json && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL schema -o overwrote the schema"; }
run "$GCGC" compile --schema su.json -o su.gcg
check_grep "gcgc compile --schema prints the certificate" 0 err '^certificate: unbounded \(rule root-anyOf-0\)$'
rm -f su2.gcg
run "$GCGC" compile --schema su.json --strict-latency -o su2.gcg
check_grep "gcgc compile --schema --strict-latency" 1 err '^su\.json: error: latency unbounded: .*rule "root-anyOf-0" \(--strict-latency\)$'
# a searching pattern is written as its DFA: one stack, a bounded certificate
printf '{"pattern": "(a[a-z]+)|(b[a-z]+)"}' >sp.json
run "$GCGC" compile --schema sp.json --strict-latency -o sp.gcg
check_grep "gcgc compile --schema searching pattern bounded" 0 err '^certificate: at most 28 stack reads, '
[[ ! -e su2.gcg ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL --strict-latency wrote su2.gcg"; }
run "$GCGC" compile --schema sx.json --strict-latency -o sx2.gcg
check_grep "gcgc compile --schema --strict-latency bounded" 0 err '^certificate: at most [0-9]+ stack reads'
head -c 100 paren.gcgv >trunc.gcgv
run "$GCG" info --vocab trunc.gcgv ref.gcg
check_grep "gcg truncated vocabulary" 1 err '^gcg: trunc\.gcgv: artifact format error: file size field [0-9]+ does not match actual size 100$'

# ---- gcg match|mask|replay --lazy ------------------------------------------------------

printf 'root ::= "<tc>" "{" [a-z]* "}"\n' >lz.gbnf
# Tokens: 0 "<tc>", 1 "{", 2 "}", 3 "a", 4 "hi ", 5 "<", 6 "tc>", 7 "{a}", 8 EOS.
printf '3c74633e\n7b\n7d\n61\n686920\n3c\n74633e\n7b617d\n-\n' >lz.hex
run "$GCGC" compile lz.gbnf --vocab-hex lz.hex --eos 8 --trigger-word '<tc>' -o lz.gcg
check_grep "lazy compile" 0 err '^artifact: [0-9]+ bytes -> lz\.gcg$'
run "$GCGC" compile lz.gbnf --vocab-hex lz.hex --eos 8 -o lzplain.gcg
run "$GCG" info lz.gcg
check_grep "info names the trigger section" 0 out '^ +15  triggers +[0-9]+ +[1-9][0-9]*$'
run "$GCG" match lz.gcg --lazy < <(printf 'hi <tc>{a}')
check "lazy match complete" 0 complete ""
run "$GCG" match lz.gcg --lazy < <(printf 'hi <tc>x')
check "lazy match reject after the trigger" 1 "reject 7" ""
run "$GCG" match lz.gcg --lazy < <(printf 'hi there {')
check "lazy match free text" 0 complete ""
run "$GCG" match lz.gcg --lazy < <(printf 'hi <tc>{a')
check "lazy match prefix" 3 prefix ""
run "$GCG" match lz.gcg < <(printf 'hi <tc>{a}')
check "without --lazy the grammar starts at once" 1 "reject 0" ""
run "$GCG" mask lz.gcg --lazy --tokens "4"
check "lazy mask free mode: every token" 0 "0 1 2 3 4 5 6 7 8" ""
run "$GCG" mask lz.gcg --lazy --tokens "4 5 6"
check "lazy mask after a split trigger" 0 "1 7" ""
run "$GCG" mask lz.gcg --lazy --text "hi <tc>{"
check "lazy mask after text" 0 "2 3" ""
run "$GCG" mask lz.gcg --lazy --tokens "4 0 8"
check "lazy mask EOS refused inside the grammar" 1 "" "gcg: token 3 (id 8) at position 2 is not allowed"
run "$GCG" mask lz.gcg --lazy --budget 1 --tokens "4"
check "lazy mask budget forces the trigger word" 0 "0 5" ""
run "$GCG" mask lz.gcg --lazy --budget 1 --tokens "4 5"
check "lazy mask budget: the tag's rest" 0 "6" ""
printf '4 0 1 3 2\n4 0 3\n4 4 4\n' >lz.traces
run "$GCG" replay lz.gcg lz.traces --lazy
check_grep "lazy replay totals" 1 out '^total: 3 lines, 10 steps, 1 violations, 2 complete$'
run "$GCG" replay lz.gcg lz.traces --lazy --budget 1
check_grep "lazy replay with a budget" 1 out '^line 3: step 1: token 4 not allowed$'
run "$GCG" mask lzplain.gcg --lazy
check "lazy on an artifact without triggers" 1 "" "gcg: lzplain.gcg: --lazy: the artifact has no triggers (compile it with gcgc compile --trigger-word, --trigger-pattern or --trigger-token)"
run "$GCG" mask lz.gcg --budget 2
check_grep "budget without lazy" 2 err '^gcg mask: --budget needs --lazy$'
run "$GCG" replay lz.gcg lz.traces --lazy --budget 0
check_grep "budget zero" 2 err "^gcg replay: --budget needs a token count > 0, got '0'$"
run "$GCG" match lz.gcg --lazy --dot x.dot
check_grep "lazy and dot" 2 err '^gcg match: --dot and --lazy exclude each other$'
run "$GCG" match lz.gcg --budget 1
check_grep "match takes no budget" 2 err "^gcg match: unknown option '--budget'$"
run "$GCG" info lz.gcg --lazy
check_grep "info takes no lazy" 2 err "^gcg info: unknown option '--lazy'$"

echo "cli_test: $pass passed, $fail failed"
((fail == 0))
