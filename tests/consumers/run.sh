#!/usr/bin/env bash
# run.sh SOURCE_ROOT: builds the consumer projects an engine would write,
# offline, in a temporary directory, and runs them:
#   0. gcg itself, runtime only (-Dcompiler=false -Dtests=false -Dbench=false);
#   1. meson, gcg as a subproject (subprojects/gcg -> SOURCE_ROOT): checks
#      that the subproject builds no benchmark or tests and installs no tools
#      by default, then installs it with -Dgcg:install_tools=true to a prefix;
#   2. meson, gcg found with pkg-config in that prefix;
#   3. CMake, gcg found with pkg-config in that prefix.
# Each compiles list.gbnf to list.gcg at build time with the gcgc it found
# and runs a program linked against libgcg. Prints "consumers: N passed, N failed".
set -uo pipefail
src=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
[ -n "${GCG_CONSUMERS_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
step() { # step NAME CMD...: runs CMD with its output in $tmp/NAME.log
  local name=$1; shift
  if "$@" >"$tmp/$name.log" 2>&1; then
    passed=$((passed + 1)); echo "ok: $name"
  else
    failed=$((failed + 1)); echo "FAILED: $name"; tail -30 "$tmp/$name.log"
  fi
}
project() { # project KIND: a source tree of consumer KIND in $tmp/KIND
  mkdir -p "$tmp/$1" && cp "$here/common/"* "$here/$1/"* "$tmp/$1/"
}

# 0. A runtime-only build looks for no GMP, jansson or check and builds libgcg.
rt=$tmp/runtime_only
step runtime_only_setup meson setup "$rt" "$src" -Dcompiler=false -Dtests=false -Dbench=false \
  -Dgpu=disabled
runtime_only() {
  ! grep -qiE 'dependency (gmp|jansson|check)|library gmp' "$rt/meson-logs/meson-log.txt" &&
  ninja -C "$rt" -j 2 && test -L "$rt/runtime/libgcg.so.0" -a ! -e "$rt/compiler"
}
step runtime_only_build runtime_only

# 1. Subproject.
project meson_subproject
mkdir "$tmp/meson_subproject/subprojects"
ln -s "$src" "$tmp/meson_subproject/subprojects/gcg"
sub=$tmp/meson_subproject/build
step subproject_setup meson setup "$sub" "$tmp/meson_subproject" --prefix="$tmp/prefix" --libdir=lib
lean() { # no benchmark, no tests, no tools installed unless asked
  ! ls "$sub/subprojects/gcg/bench" "$sub/subprojects/gcg/tests" >/dev/null 2>&1 &&
  meson introspect --installed "$sub" >"$tmp/installed.json" &&
  ! grep -qE '/bin/gcgc?"' "$tmp/installed.json" &&
  grep -q 'libgcg.so' "$tmp/installed.json"
}
step subproject_lean lean
step subproject_build ninja -C "$sub" -j 2
step subproject_test meson test -C "$sub" --print-errorlogs
step subproject_install_tools meson configure "$sub" -Dgcg:install_tools=true
step subproject_install meson install -C "$sub"
step subproject_installed test -x "$tmp/prefix/bin/gcgc" -a -f "$tmp/prefix/lib/pkgconfig/gcg.pc" \
  -a -f "$tmp/prefix/include/gcgc.h" -a -L "$tmp/prefix/lib/libgcg.so.0"

# 2 and 3 use the installed prefix.
export PKG_CONFIG_PATH=$tmp/prefix/lib/pkgconfig
export LD_LIBRARY_PATH=$tmp/prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
step pkgconfig_variable test "$(pkg-config --variable=gcgc gcg)" = "$tmp/prefix/bin/gcgc"

project meson_pkgconfig
pc=$tmp/meson_pkgconfig/build
step pkgconfig_setup meson setup "$pc" "$tmp/meson_pkgconfig"
step pkgconfig_build ninja -C "$pc" -j 2
step pkgconfig_test meson test -C "$pc" --print-errorlogs

project cmake
if command -v cmake >/dev/null; then
  step cmake_configure cmake -S "$tmp/cmake" -B "$tmp/cmake/build"
  step cmake_build cmake --build "$tmp/cmake/build" -j 2
  step cmake_test ctest --test-dir "$tmp/cmake/build" --output-on-failure
else
  echo "FAILED: cmake not found (bash tests/install-deps installs it)"
  failed=$((failed + 1))
fi

echo "consumers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
