#!/usr/bin/env bash
# check_exports.sh LIB HEADER MACRO SONAME: the dynamic symbols LIB defines
# are exactly the functions HEADER declares with MACRO, and LIB's SONAME is
# SONAME. Catches internal modules leaking into a host program's namespace
# (gss_*, glr_*, ...) and declarations that lost their export marker.
set -euo pipefail
lib=$1 header=$2 macro=$3 soname=$4

declared=$(grep -oE "^${macro} [^(]*[ *]([a-z_0-9]+)\(" "$header" |
           sed -E 's/.*[ *]([a-z_0-9]+)\($/\1/' | sort -u)
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' |
           grep -vE '^(_init|_fini|_edata|_end|__bss_start|__(odr_asan|asan|ubsan|sancov).*)$' | sort -u)

status=0
if [ -z "$declared" ]; then
  echo "no ${macro} declarations found in $header"; status=1
fi
extra=$(comm -13 <(echo "$declared") <(echo "$exported"))
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
if [ -n "$extra" ]; then
  echo "exported but not declared in $(basename "$header"):"; echo "$extra" | sed 's/^/  /'; status=1
fi
if [ -n "$missing" ]; then
  echo "declared but not exported:"; echo "$missing" | sed 's/^/  /'; status=1
fi
got=$(objdump -p "$lib" | awk '$1 == "SONAME" {print $2}')
if [ "$got" != "$soname" ]; then
  echo "SONAME is '$got', expected '$soname'"; status=1
fi
echo "$(basename "$lib"): $(echo "$exported" | wc -l) exported, $(echo "$declared" | wc -l) declared, SONAME $got"
exit $status
