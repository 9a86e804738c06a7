#!/usr/bin/env bash
# gopher: benchmark rows for bench/run: a 1 GiB type-9 item to /dev/null and
# into a pipe, 1000 small type-9 items in one invocation, 100 processes
# fetching one each and 100 items from a server 10 ms away, urlget against
# curl (which speaks gopher). The server is gophertest's gopherd, built from
# this tree: it sends files with sendfile(2), so the clients are what is
# measured.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.bash
source bench/lib.bash

root="$BENCH_TMP/gopher-root"
mkdir -p "$root/small"
big="$(bench_file "$BENCH_DATA/1g.bin" $((1 << 30)))"
ln -sf "$big" "$root/1g.bin"
for i in $(seq 1 1000); do
	f="$root/small/f$i"
	[ -f "$f" ] || head -c 4096 /dev/urandom >"$f"
done

go build -o "$BENCH_TMP/gopherd" ./integration/gophertest/cmd/gopherd
"$BENCH_TMP/gopherd" -root "$root" >"$BENCH_TMP/gopherd.url" &
gopherd_pid=$!
trap 'kill "$gopherd_pid" 2>/dev/null || true; bench_far_stop' EXIT
base="$(bench_server_url "$BENCH_TMP/gopherd.url")"
[ -n "$base" ] || { echo "bench: gopherd did not start" >&2; exit 1; }

list="$BENCH_TMP/gopher-small-urls"
: >"$list"
for i in $(seq 1 1000); do
	printf '%s\n' "$base/9/small/f$i" >>"$list"
done

url="$base/9/1g.bin"
bench_row "gopher 1 GiB > /dev/null" "$URLGET -s $url" "curl -s $url" "> /dev/null"
bench_row "gopher 1 GiB | cat" "$URLGET -s $url" "curl -s $url" "| cat > /dev/null"
bench_row "gopher 1000 x 4 KiB, one invocation" "$URLGET -s \$(<$list)" "curl -s \$(<$list)" "> /dev/null"
small="$base/9/small/f1"
bench_row "gopher 100 processes x 4 KiB" "bench/repeat 100 $URLGET -s $small" "bench/repeat 100 curl -s $small" "> /dev/null"
# 100 items from a server 10 ms away (bench/delayproxy): every item is a
# connection of its own (RFC 1436 §2), and urlget starts the next ones
# while it writes the current one.
bench_far far "${base#gopher://}"
far100="$BENCH_TMP/gopher-far-100"
head -n 100 "$list" | sed "s|^$base/|gopher://$far/|" >"$far100"
bench_row "gopher 100 x 4 KiB, 10 ms RTT" "$URLGET -s \$(<$far100)" "curl -s \$(<$far100)" "> /dev/null"
