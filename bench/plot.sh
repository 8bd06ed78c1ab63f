#!/usr/bin/env bash
# plot.sh — latency CDF plots (SVG, gnuplot) from a gcg_bench report.
#
# Usage: bench/plot.sh REPORT.json [DUMP_DIR]
#   DUMP_DIR (default: dumps/ beside the report) holds NAME.cdf.tsv files written
#   by gcg_bench --dump. Writes beside the report:
#     NAME.cdf.svg      per workload: CDF of fill_mask and commit latency (log x)
#     latency_cdf.svg   every workload's fill_mask CDF on one plot (log x)
#     latency_tail.svg  the same as a tail plot: fraction of steps slower than x
#                       (log-log), where p99.9 and max live
# Dashed lines mark the targets: mask p99.9 <= 20 us, max <= 50 us.
set -euo pipefail

REPORT="${1:?usage: plot.sh REPORT.json [DUMP_DIR]}"
DIR="$(cd "$(dirname "$REPORT")" && pwd)"
DUMPS="${2:-$DIR/dumps}"
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 3; }

# Workload names in report order, one a line (node: no jq needed).
mapfile -t NAMES < <(node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  for (const w of r.workloads) console.log(w.name);' "$REPORT")

COMMON='set terminal svg size 960,560 dynamic noenhanced font "sans,12" background "white"
set logscale x
set grid xtics mxtics ytics
set xlabel "latency (us)"
set key bottom right
set style arrow 1 nohead dt 2 lc rgb "#888888"
set arrow from first 20, graph 0 to first 20, graph 1 as 1
set arrow from first 50, graph 0 to first 50, graph 1 as 1'

per_workload() {
  local name="$1" f="$DUMPS/$1.cdf.tsv"
  [ -f "$f" ] || return 0
  gnuplot <<GP
$COMMON
set output "$DIR/$name.cdf.svg"
set title "$name: latency CDF (repeat 1, every step)"
set ylabel "fraction of steps at or below"
set yrange [0:1]
plot "$f" index 0 using (\$1/1000):2 with steps lw 2 title "fill_mask", \
     "$f" index 1 using (\$1/1000):2 with steps lw 2 title "commit"
GP
}

# all_workloads OUTPUT TITLE YLABEL USING-EXPR LOGY
all_workloads() {
  local plots=() n f
  for n in "${NAMES[@]}"; do
    f="$DUMPS/$n.cdf.tsv"
    [ -f "$f" ] && plots+=("\"$f\" index 0 using (\$1/1000):$4 with steps lw 2 title \"$n\"")
  done
  [ ${#plots[@]} -gt 0 ] || return 0
  local IFS=,
  gnuplot <<GP
$COMMON
set output "$DIR/$1"
set title "$2"
set ylabel "$3"
set key outside right
$5
plot ${plots[*]}
GP
}

for n in "${NAMES[@]}"; do per_workload "$n"; done
all_workloads latency_cdf.svg "fill_mask latency CDF, all workloads" "fraction of steps at or below" 2 \
  "set yrange [0:1]"
all_workloads latency_tail.svg "fill_mask latency tail, all workloads" "fraction of steps slower" '(1-$2)' \
  "set logscale y; set format y '1e%T'"
echo "plots: $DIR/*.svg"
