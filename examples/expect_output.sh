#!/usr/bin/env bash
# expect_output.sh EXPECTED CMD [ARGS...]: CMD exits 0 and prints exactly EXPECTED.
set -uo pipefail
expected=$1; shift
out=$("$@") || { echo "exit status $?"; exit 1; }
diff -u "$expected" <(printf '%s\n' "$out")
