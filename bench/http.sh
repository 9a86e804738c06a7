#!/usr/bin/env bash
# http: benchmark rows for bench/run, against nginx: 1 GiB to /dev/null and
# into a pipe, 1000, 10000 and 36000 (a full command line) small files in
# one invocation, 1000 into files (-O), 40000 from a URL list, 100
# processes fetching one small file each, and 100 small files from a server
# 10 ms away (bench/delayproxy). Uses the nginx at
# URLGET_NGINX_URL (document root URLGET_NGINX_ROOT), or starts a private one
# with .ci/servers/nginx.sh on ports ${URLGET_NGINX_PORT:-18090} and
# ${URLGET_NGINX_TLS_PORT:-18453} (TLS). Over TLS: 1 GiB to /dev/null and
# into a pipe, the first also by bench/tlsfloor (the least a Go program
# does to fetch it), 1000 small files in one invocation and 100 processes.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.bash
source bench/lib.bash

shm_dir=""
cleanup() {
	bench_far_stop
	[ -z "$shm_dir" ] || rm -rf "$shm_dir"
	# Defined only when this script started its own nginx.
	if declare -F stop_nginx >/dev/null; then
		stop_nginx
	fi
}
trap cleanup EXIT

if [ -z "${URLGET_NGINX_URL:-}" ]; then
	export URLGET_CI_DIR="$BENCH_TMP/ci"
	export URLGET_NGINX_PORT="${URLGET_NGINX_PORT:-18090}"
	export URLGET_NGINX_TLS_PORT="${URLGET_NGINX_TLS_PORT:-18453}"
	mkdir -p "$URLGET_CI_DIR"
	# shellcheck source=.ci/servers/nginx.sh
	source .ci/servers/nginx.sh
	start_nginx
fi

dir="$URLGET_NGINX_ROOT/bench"
mkdir -p "$dir/small"
chmod 0755 "$dir" "$dir/small"
big="$(bench_file "$BENCH_DATA/1g.bin" $((1 << 30)))"
chmod 0644 "$big"
ln -sf "$big" "$dir/1g.bin"
list="$BENCH_TMP/small-urls"
: >"$list"
for i in $(seq 1 1000); do
	f="$dir/small/f$i"
	[ -f "$f" ] || head -c 4096 /dev/urandom >"$f"
	printf '%s\n' "$URLGET_NGINX_URL/bench/small/f$i" >>"$list"
done

url="$URLGET_NGINX_URL/bench/1g.bin"
bench_row "http 1 GiB > /dev/null" "$URLGET -s $url" "curl -s $url" "> /dev/null"
bench_row "http 1 GiB | cat" "$URLGET -s $url" "curl -s $url" "| cat > /dev/null"
# Archiving one large body: it is spooled for its digests (the WARC
# header, which names them, comes before the block), then compressed into
# the archive; wget does the same with its own temporary file. Archives
# go to a directory emptied before each sample.
if command -v wget >/dev/null; then
	warcs="$BENCH_TMP/warcs-1g"
	BENCH_PREPARE="rm -rf $warcs && mkdir -p $warcs" bench_row "http 1 GiB --warc-file (B: wget --warc-file)" \
		"$URLGET -s --warc-file $warcs/a $url" "wget -q -O - --warc-file=$warcs/b $url" "> /dev/null"
fi
bench_row "http 1000 x 4 KiB, one invocation" "$URLGET -s \$(<$list)" "curl -s \$(<$list)" "> /dev/null"
# The same files ten times over: memory must not grow with the number of
# URLs beyond the command line itself (0.45 MB of it here).
list10="$BENCH_TMP/small-urls-10000"
for _ in $(seq 1 10); do cat "$list"; done >"$list10"
bench_row "http 10000 x 4 KiB, one invocation" "$URLGET -s \$(<$list10)" "curl -s \$(<$list10)" "> /dev/null"
# As many as the command line holds: 36000 of these URLs are 1.5 MB of
# text and 0.3 MB of pointers to it, against the kernel's 2 MiB (ARG_MAX).
# Memory is what the row shows. Fewer samples: a run takes seconds.
list36k="$BENCH_TMP/small-urls-36000"
for _ in $(seq 1 36); do cat "$list"; done >"$list36k"
BENCH_ROUNDS=2 BENCH_RUNS=2 bench_row "http 36000 x 4 KiB, a full command line" "$URLGET -s \$(<$list36k)" "curl -s \$(<$list36k)" "> /dev/null"
# Into files named like the remote ones, in a directory of each tool's,
# emptied before each run (untimed), so that both tools make 1000 new
# files. Over the files of the run before, the two would do different
# work: curl truncates each and writes it in place, urlget writes a new
# file and renames it over the old one (docs/usage.md, "Nothing is
# lost"), which costs the file system an inode made and one released per
# file (docs/performance.md, "Many small files, one after the other").
fa="$BENCH_TMP/files-a" fb="$BENCH_TMP/files-b"
BENCH_PREPARE="rm -rf $fa $fb && mkdir $fa $fb" bench_row "http 1000 x 4 KiB -O, one invocation" "$URLGET -s --remote-name-all --output-dir $fa \$(<$list)" "curl -s --remote-name-all --output-dir $fb \$(<$list)" "> /dev/null"
# The same over the files of the run before: the cost of replacing each
# file whole rather than writing through it, shown rather than hidden.
bench_row "http 1000 x 4 KiB -O over the last run's files" "$URLGET -s --remote-name-all --output-dir $fa \$(<$list)" "curl -s --remote-name-all --output-dir $fb \$(<$list)" "> /dev/null"
# More URLs than a command line holds (about 36000 of these), from a list:
# urlget's --url @FILE, and curl's -K with a url line each (curl 7.88 has
# no --url @FILE), each URL to its own file. The files go to a tmpfs where
# there is one, so that the file system's cost per file does not hide
# the tools'; what the row shows is memory. Fewer samples: a run takes
# seconds.
list40k="$BENCH_TMP/small-urls-40000"
for _ in $(seq 1 40); do cat "$list"; done >"$list40k"
sed 's/.*/url = "&"/' "$list40k" >"$list40k.curlrc"
many="$BENCH_TMP"
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	shm_dir="$(mktemp -d /dev/shm/urlget-bench.XXXXXX)"
	many="$shm_dir"
fi
mkdir -p "$many/a" "$many/b"
BENCH_ROUNDS=2 BENCH_RUNS=2 bench_row "http 40000 x 4 KiB from a URL list" "$URLGET -s --output-dir $many/a --url @$list40k" "curl -s --remote-name-all --output-dir $many/b -K $list40k.curlrc" "> /dev/null"
small="$URLGET_NGINX_URL/bench/small/f1"
bench_row "http 100 processes x 4 KiB" "bench/repeat 100 $URLGET -s $small" "bench/repeat 100 curl -s $small" "> /dev/null"
# 100 small files from a server 10 ms away (bench/delayproxy): urlget
# starts the next requests while it writes the current body, on
# connections of their own; curl asks for one after the other.
bench_far far "${URLGET_NGINX_URL#http://}"
far100="$BENCH_TMP/http-far-100"
head -n 100 "$list" | sed "s|^$URLGET_NGINX_URL/|http://$far/|" >"$far100"
bench_row "http 100 x 4 KiB, 10 ms RTT" "$URLGET -s \$(<$far100)" "curl -s \$(<$far100)" "> /dev/null"

# Over TLS (HTTP/1.1; the same nginx, its self-signed certificate trusted
# by both tools).
if [ -n "${URLGET_NGINX_TLS_URL:-}" ] && [ -n "${URLGET_NGINX_CERT:-}" ]; then
	tls="$URLGET_NGINX_TLS_URL"
	ca="--cacert $URLGET_NGINX_CERT"
	bench_row "https 1 GiB > /dev/null" "$URLGET -s $ca $tls/bench/1g.bin" "curl -s $ca $tls/bench/1g.bin" "> /dev/null"
	# The floor for the row above: crypto/tls with nothing around it.
	tlsfloor="$BENCH_TMP/tlsfloor"
	CGO_ENABLED="${CGO_ENABLED:-0}" go build -trimpath -o "$tlsfloor" ./bench/tlsfloor
	bench_row "https 1 GiB > /dev/null (A: bench/tlsfloor)" "$tlsfloor ${tls#https://} /bench/1g.bin $URLGET_NGINX_CERT" "curl -s $ca $tls/bench/1g.bin" "> /dev/null"
	bench_row "https 1 GiB | cat" "$URLGET -s $ca $tls/bench/1g.bin" "curl -s $ca $tls/bench/1g.bin" "| cat > /dev/null"
	tlslist="$BENCH_TMP/small-urls-tls"
	sed "s|^$URLGET_NGINX_URL/|$tls/|" "$list" >"$tlslist"
	bench_row "https 1000 x 4 KiB, one invocation" "$URLGET -s $ca \$(<$tlslist)" "curl -s $ca \$(<$tlslist)" "> /dev/null"
	bench_row "https 100 processes x 4 KiB" "bench/repeat 100 $URLGET -s $ca $tls/bench/small/f1" "bench/repeat 100 curl -s $ca $tls/bench/small/f1" "> /dev/null"
fi
