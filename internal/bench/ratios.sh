#!/usr/bin/env bash
# Prints, per shape, how many times less time and fewer allocations per invoke
# each implementation needs than eino, from a benchmark output file:
#   bash ratios.sh bench.txt
# (medians as computed by benchstat; needs benchstat on PATH or in ~/go/bin).
set -euo pipefail
file="${1:?usage: ratios.sh BENCH_OUTPUT}"
benchstat="$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")"
"$benchstat" -format csv -col /impl "$file" 2>/dev/null | awk -F, '
  /^,eino,/ { table++; n = 0; for (i = 2; i <= NF; i++) if ($i != "") { col[i] = $i } ; next }
  /^,/ || /^$/ || /^geomean/ || !/^Graph/ { next }
  {
    shape = $1; sub(/^Graph\/shape=/, "", shape); sub(/-[0-9]+$/, "", shape)
    base = $2
    for (i = 4; i <= NF; i++) if (i in col && col[i] != "eino" && $i + 0 > 0) {
      unit = (table == 1) ? "time" : (table == 2) ? "bytes" : "allocs"
      printf "%-7s %-7s eino/%-20s %6.2fx\n", shape, unit, col[i], base / $i
    }
  }'
