#!/usr/bin/env bash
# WAIS retrieval benchmark. curl has no WAIS support, so there is nothing to
# run side by side: this runs the Go benchmark that fetches 1, 10 and 100 MiB
# documents from the in-process WAIS test server in 96 KiB pieces, and
# reports time, CPU and peak RSS of the whole run (client, server and test
# harness) with /usr/bin/time -v; then urlget itself fetching the 1 GiB
# file from waisd, the same server in a process of its own, into /dev/null
# and into a pipe: medians of BENCH_RUNS runs and urlget's peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.bash
source bench/lib.bash

if ! [ -x /usr/bin/time ]; then
	apt-get install -y time >/dev/null
fi

bin=$(mktemp -d)/integration.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./integration/

for size in 1MiB 10MiB 100MiB; do
	echo "== WAIS retrieval of $size"
	/usr/bin/time -v "$bin" -test.run '^$' -test.bench "BenchmarkWAISRetrieve/$size\$" -test.benchtime 3x 2>"$bin.time" |
		grep '^Benchmark'
	grep -E 'Elapsed|User time|System time|Maximum resident' "$bin.time" | sed 's/^\s*/    /'
done

root="$BENCH_TMP/wais-root"
mkdir -p "$root"
big="$(bench_file "$BENCH_DATA/1g.bin" $((1 << 30)))"
ln -sf "$big" "$root/1g.bin"
go build -o "$BENCH_TMP/waisd" ./integration/waistest/cmd/waisd
"$BENCH_TMP/waisd" -root "$root" >"$BENCH_TMP/waisd.url" &
waisd_pid=$!
trap 'rm -rf "$(dirname "$bin")"; kill "$waisd_pid" 2>/dev/null || true' EXIT
db="$(bench_server_url "$BENCH_TMP/waisd.url")"
[ -n "$db" ] || { echo "bench: waisd did not start" >&2; exit 1; }
# The document's URL is the last field of its line in the search listing.
url="$("$URLGET" -s "$db?1g" | awk '$NF ~ /^wais:/ { print $NF; exit }')"
[ -n "$url" ] || { echo "bench: waisd found no 1g.bin" >&2; exit 1; }
for suffix in "> $BENCH_NULL" "| cat > /dev/null"; do
	echo "== urlget, 1 GiB from waisd $suffix"
	log="$BENCH_TMP/wais-urlget.time"
	rm -f "$log"
	# Warm-up, then the measured runs.
	bash -c "$URLGET -s '$url' $suffix"
	for _ in $(seq 1 "${BENCH_RUNS}"); do
		bash -c "/usr/bin/time -v -a -o $log $URLGET -s '$url' $suffix"
	done
	printf '    wall %s s, CPU %s s, peak RSS %s MiB (medians of %s runs; RSS the largest)\n' \
		"$(awk -F': ' '/Elapsed/ { n = split($2, t, ":"); print (n == 3 ? t[1] * 3600 + t[2] * 60 + t[3] : t[1] * 60 + t[2]) }' "$log" | bench_median)" \
		"$(bench_cpu "$log")" "$(bench_rss "$log")" "$BENCH_RUNS"
done
