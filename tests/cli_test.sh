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
# Right recursion in two contexts: the closer after a run of x depends on what
# lies below the run, so masks read arbitrarily deep.
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
check_grep "gcgc two vocabularies" 2 err '^gcgc compile: --tokenizer and --vocab-hex exclude each other$'
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
check_grep "gcgc summary LR states" 0 err '^LR states: [1-9][0-9]*$'
check_grep "gcgc summary automaton" 0 err '^automaton: [1-9][0-9]* states, [1-9][0-9]* token sets, [1-9][0-9]* trie nodes$'
check_grep "gcgc summary artifact" 0 err '^artifact: [1-9][0-9]* bytes -> paren\.gcg$'
check_grep "gcgc summary time" 0 err '^compile time: [0-9]+\.[0-9] ms$'
[[ -s paren.gcg ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL paren.gcg not written"; }
ls paren.gcg.tmp.* >/dev/null 2>&1 && { fail=$((fail + 1)); echo "FAIL temporary file left"; } || pass=$((pass + 1))

# Through paths: the metadata records the file names only.
run "$GCGC" compile "$T/paren.gbnf" -o tok.gcg --vocab-hex ./paren.hex --eos 6 --stats
check_grep "gcgc compile --vocab-hex" 0 err '^certificate: at most [0-9]+ stack reads, '
check_grep "gcgc --stats automaton" 0 out '^automaton states: [1-9][0-9]*$'
check_grep "gcgc --stats token sets" 0 out '^token sets: [1-9][0-9]*$'
check_grep "gcgc --stats trie nodes" 0 out '^trie nodes: [1-9][0-9]*$'

# ---- gcgc: latency certificate -----------------------------------------------

run "$GCGC" compile nested_list.gbnf -o nested.gcg --strict-latency
check_grep "gcgc --strict-latency unbounded" 1 err '^nested_list\.gbnf: error: latency unbounded: .*"list" \(--strict-latency\)$'
grep -q '^certificate: ' <<<"$err" && { fail=$((fail + 1)); echo "FAIL --strict-latency printed a summary"; } || pass=$((pass + 1))
[[ ! -e nested.gcg ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL --strict-latency wrote nested.gcg"; }
ls nested.gcg.tmp.* >/dev/null 2>&1 && { fail=$((fail + 1)); echo "FAIL --strict-latency left a temporary file"; } || pass=$((pass + 1))
run "$GCGC" compile nested_list.gbnf -o nested.gcg
check_grep "gcgc unbounded without --strict-latency" 0 err '^certificate: unbounded \(rule list\)$'
check_grep "gcgc unbounded per mask" 0 err '^certificate per mask: unbounded stack reads and edges \(ambiguity, rule list\), [1-9][0-9]* set operations$'
run "$GCGC" compile right_rec.gbnf -o right_rec.gcg --strict-latency
check_grep "gcgc --strict-latency right recursion" 0 err '^certificate: at most 1 stack reads, '
run "$GCGC" compile tiny_json.gbnf -o tiny_json.gcg --vocab-hex tiny_json.hex --eos 12
check_grep "gcgc tiny JSON certificate" 0 err '^certificate: at most 8 stack reads, 8 set operations, [0-9]+ bytes per frontier node$'
check_grep "gcgc tiny JSON per mask" 0 err '^certificate per mask: 8 stack reads, 8 edges, 8 set operations$'
cert=$(grep '^certificate: ' <<<"$err")

# ---- gcg: version, help, usage ---------------------------------------------------

run "$GCG" --version;                 check "gcg --version" 0 "gcg 0.1.0" ""
run "$GCG" --help;                    check_grep "gcg --help" 0 out '^usage: gcg COMMAND'
for c in match mask replay info; do
    run "$GCG" $c --help;             check_grep "gcg $c --help" 0 out "^usage: gcg $c ART\\.gcg"
done
run "$GCG";                           check_grep "gcg without command" 3 err '^usage: gcg'
run "$GCG" frobnicate;                check "gcg unknown command" 3 "" \
    "gcg: unknown command 'frobnicate'
Try 'gcg --help'."
run "$GCG" match;                     check "gcg match without artifact" 3 "" \
    "gcg match: no artifact given
Try 'gcg match --help'."
run "$GCG" match paren.gcg a b;       check_grep "gcg match extra argument" 3 err "^gcg match: unexpected argument 'b'$"
run "$GCG" replay tok.gcg;            check_grep "gcg replay without traces" 3 err '^gcg replay: missing argument$'
run "$GCG" mask tok.gcg --frob;       check_grep "gcg mask unknown option" 3 err "^gcg mask: unknown option '--frob'$"
run "$GCG" mask tok.gcg --tokens;     check_grep "gcg mask option without value" 3 err '^gcg mask: option --tokens needs a value$'
run "$GCG" mask tok.gcg --tokens 1 --text x; check_grep "gcg mask tokens and text" 3 err '^gcg mask: --tokens and --text exclude each other$'
run "$GCG" mask tok.gcg --tokens "0 x"; check_grep "gcg mask bad id" 3 err '^gcg mask: --tokens: bad token id after position 1$'

# ---- gcg: artifact errors ------------------------------------------------------

run "$GCG" match missing.gcg </dev/null; check_grep "gcg missing artifact" 3 err '^gcg: missing\.gcg: i/o error: '
run "$GCG" info short.gcg;            check "gcg truncated artifact" 3 "" \
    "gcg: short.gcg: artifact format error: truncated: need 48 bytes of header, have 5"
run "$GCG" match paren.gcg missing.txt; check "gcg match unreadable input" 3 "" \
    "gcg: cannot read missing.txt: No such file or directory"

# ---- gcg match -------------------------------------------------------------------

run "$GCG" match paren.gcg < <(printf 'x');        check "match complete" 0 complete ""
run "$GCG" match paren.gcg < <(printf '((x)');     check "match prefix" 1 prefix ""
run "$GCG" match paren.gcg </dev/null;             check "match empty" 1 prefix ""
run "$GCG" match paren.gcg < <(printf '((x)]');    check "match reject" 2 "reject 4" ""
run "$GCG" match paren.gcg < <(printf 'y');        check "match reject first" 2 "reject 0" ""
run "$GCG" match paren.gcg < <(printf 'x)');       check "match reject after complete" 2 "reject 1" ""
printf '(x)' >in.txt
run "$GCG" match paren.gcg in.txt;                 check "match file" 0 complete ""
run "$GCG" match paren.gcg - <in.txt;              check "match - is stdin" 0 complete ""
{ repeat '(' 100000; printf x; repeat ')' 100000; } >deep.txt
run "$GCG" match paren.gcg deep.txt;               check "match 100k nested" 0 complete ""
{ repeat '(' 70000; printf 'x)y'; } >deep_bad.txt
run "$GCG" match paren.gcg deep_bad.txt;           check "match reject past a chunk" 2 "reject 70002" ""
{ repeat '(' 100000; printf x; repeat ')' 99999; } >deep_open.txt
run "$GCG" match paren.gcg deep_open.txt;          check "match 100k nested prefix" 1 prefix ""

# ---- gcg mask --------------------------------------------------------------------

run "$GCG" mask tok.gcg;                           check "mask at start" 0 "0 1 5" ""
run "$GCG" mask tok.gcg --count;                   check "mask --count" 0 "3" ""
run "$GCG" mask tok.gcg --tokens "0 1";            check "mask after (x" 0 "2" ""
run "$GCG" mask tok.gcg --tokens "1";              check "mask after x: EOS" 0 "6" ""
run "$GCG" mask tok.gcg --text "((x";              check "mask after text ((x" 0 "2 4" ""
run "$GCG" mask tok.gcg --text "((x" --count;      check "mask --text --count" 0 "2" ""
run "$GCG" mask tok.gcg --tokens "1 6";            check "mask after EOS is empty" 0 "" ""
run "$GCG" mask tok.gcg --tokens "5 5";            check "mask disallowed token" 2 "" \
    "gcg: token 2 (id 5) at position 1 is not allowed"
run "$GCG" mask tok.gcg --tokens "0 0 99";         check "mask token out of range" 2 "" \
    "gcg: token 3 (id 99) at position 2 is not allowed (out of the vocabulary)"
run "$GCG" mask tok.gcg --tokens "1 6 2";          check "mask token after EOS" 2 "" \
    "gcg: token 3 (id 2) at position 2 is not allowed (after EOS)"
run "$GCG" mask tok.gcg --text "x(";               check "mask disallowed text" 2 "" \
    "gcg: text is not allowed at byte 1"

# ---- gcg replay ------------------------------------------------------------------

printf '0 1 2 6\n0 0 1 4\n\n0 1\n1 1 2\n5 2\n' >traces.txt
run "$GCG" replay tok.gcg traces.txt
check_grep "replay line 1" 2 out '^line 1: steps 4, violations 0, complete$'
check_grep "replay line 2" 2 out '^line 2: steps 4, violations 0, complete$'
check_grep "replay line 4" 2 out '^line 4: steps 2, violations 0, incomplete$'
check_grep "replay violation" 2 out '^line 5: step 1: token 1 not allowed$'
check_grep "replay line 5" 2 out '^line 5: steps 1, violations 1, incomplete$'
check_grep "replay line 6" 2 out '^line 6: steps 2, violations 0, complete$'
check_grep "replay total" 2 out '^total: 5 lines, 13 steps, 1 violations, 3 complete$'
check_grep "replay timing" 2 out '^mask time \(us\): mean [0-9.]+, p50 [0-9.]+, p99 [0-9.]+, max [0-9.]+ \(14 masks\)$'
printf '0 1 2 6\n' >good.txt
run "$GCG" replay tok.gcg good.txt
check_grep "replay clean" 0 out '^total: 1 lines, 4 steps, 0 violations, 1 complete$'
run "$GCG" replay tok.gcg missing.txt;  check "replay unreadable traces" 3 "" \
    "gcg: cannot read missing.txt: No such file or directory"
printf '0 zz\n' >bad_traces.txt
run "$GCG" replay tok.gcg bad_traces.txt; check_grep "replay malformed line" 3 err '^gcg replay: line 1: bad token id after step 1$'

# ---- gcg info ----------------------------------------------------------------------

run "$GCG" info tok.gcg
check_grep "info grammar" 0 out '^grammar: paren\.gbnf \(root: root\)$'
check_grep "info vocabulary" 0 out '^vocabulary: paren\.hex, 7 tokens, EOS ids: 6$'
check_grep "info meta section" 0 out '^ +1  meta +[0-9]+ +[0-9]+$'
check_grep "info total" 0 out "^total: $(stat -c %s tok.gcg) bytes \\(format version 1\\)$"
check_grep "info certificate" 0 out '^certificate: '
check_grep "info automaton section" 0 out '^ +11  automaton +[0-9]+ +[1-9][0-9]*$'
run "$GCG" info paren.gcg
check_grep "info bytes256" 0 out '^vocabulary: bytes256, 256 tokens, EOS ids: none$'
run "$GCG" info nested.gcg
check_grep "info unbounded" 0 out '^certificate: unbounded \(rule list\)$'
run "$GCG" info tiny_json.gcg
check_grep "info tiny JSON certificate" 0 out '^certificate: at most 8 stack reads, 8 set operations, [0-9]+ bytes per frontier node$'
[[ -n $cert && $(grep '^certificate: ' <<<"$out") == "$cert" ]] && pass=$((pass + 1)) ||
    { fail=$((fail + 1)); echo "FAIL gcg info certificate differs from gcgc's: $cert"; }
run "$GCG" match tiny_json.gcg < <(printf '{"ab":[1,true,{}],"c":[]}')
check "match tiny JSON" 0 complete ""

echo "cli_test: $pass passed, $fail failed"
((fail == 0))
