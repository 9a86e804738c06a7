#!/usr/bin/env bash
# WAIS retrieval benchmark. curl has no WAIS support, so there is nothing to
# run side by side: this runs the Go benchmark that fetches 1, 10 and 100 MiB
# documents from the in-process WAIS test server in 64 KiB pieces, and
# reports time, CPU and peak RSS of the whole run with /usr/bin/time -v.
set -euo pipefail
cd "$(dirname "$0")/.."

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
