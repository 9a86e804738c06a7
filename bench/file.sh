#!/usr/bin/env bash
# file: benchmark rows for bench/run: 1 GiB read over file: to /dev/null and
# into a pipe, against curl file:// and against cat.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.bash
source bench/lib.bash

big="$(bench_file "$BENCH_DATA/1g.bin" $((1 << 30)))"
url="file://$big"

bench_row "file 1 GiB > /dev/null" "$URLGET -s $url" "curl -s $url" "> /dev/null"
bench_row "file 1 GiB | cat" "$URLGET -s $url" "curl -s $url" "| cat > /dev/null"
bench_row "file 1 GiB > /dev/null (B = cat)" "$URLGET -s $url" "cat $big" "> /dev/null"
bench_row "file 1 GiB | cat (B = cat)" "$URLGET -s $url" "cat $big" "| cat > /dev/null"
