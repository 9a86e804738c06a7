#!/usr/bin/env bash
# ftp: benchmark rows for bench/run, against vsftpd: 1 GiB to /dev/null and
# into a pipe, 1000 small files in one invocation, all in one directory and
# interleaved over ten, and 100 processes fetching one small file each,
# by urlget and by bench/ftpfloor, a minimal Go client (the floor); then one
# file and 100 files over ten directories through bench/delayproxy, which
# gives the control connection the 10 ms round trip of a distant server.
# Uses the vsftpd at URLGET_VSFTPD_ADDR (anonymous root URLGET_VSFTPD_ROOT),
# or starts a private one with .ci/servers/vsftpd.sh on port
# ${URLGET_VSFTPD_PORT:-2131}.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.bash
source bench/lib.bash

if [ -z "${URLGET_VSFTPD_ADDR:-}" ]; then
	export URLGET_CI_DIR="$BENCH_TMP/ci"
	export URLGET_VSFTPD_PORT="${URLGET_VSFTPD_PORT:-2131}"
	mkdir -p "$URLGET_CI_DIR"
	# shellcheck source=.ci/servers/vsftpd.sh
	source .ci/servers/vsftpd.sh
	start_vsftpd
	own_vsftpd=1
fi
cleanup() {
	bench_far_stop
	[ -z "${own_vsftpd:-}" ] || stop_vsftpd
}
trap cleanup EXIT

base="ftp://$URLGET_VSFTPD_ADDR/bench"
dir="$URLGET_VSFTPD_ROOT/bench"
mkdir -p "$dir"
chmod 0755 "$dir"
big="$(bench_file "$BENCH_DATA/1g.bin" $((1 << 30)))"
chmod 0644 "$big"
# vsftpd serves anonymous users from a chroot: a symbolic link out of it
# would not resolve, so link the file in (or copy it across file systems).
if ! [ "$dir/1g.bin" -ef "$big" ]; then
	ln -f "$big" "$dir/1g.bin" 2>/dev/null || cp "$big" "$dir/1g.bin"
fi

one="$BENCH_TMP/ftp-one-dir"
ten="$BENCH_TMP/ftp-ten-dirs"
: >"$one"
: >"$ten"
for d in $(seq 0 9); do
	mkdir -p "$dir/one" "$dir/d$d"
	chmod 0755 "$dir/one" "$dir/d$d"
done
for i in $(seq 0 999); do
	f="$dir/one/f$i"
	[ -f "$f" ] || head -c 4096 /dev/urandom >"$f"
	g="$dir/d$((i % 10))/f$i"
	[ -f "$g" ] || head -c 4096 /dev/urandom >"$g"
	chmod 0644 "$f" "$g"
	printf '%s\n' "$base/one/f$i" >>"$one"
	printf '%s\n' "$base/d$((i % 10))/f$i" >>"$ten"
done

url="$base/1g.bin"
bench_row "ftp 1 GiB > /dev/null" "$URLGET -s $url" "curl -s $url" "> /dev/null"
bench_row "ftp 1 GiB | cat" "$URLGET -s $url" "curl -s $url" "| cat > /dev/null"
bench_row "ftp 1000 x 4 KiB, one directory" "$URLGET -s \$(<$one)" "curl -s \$(<$one)" "> /dev/null"
bench_row "ftp 1000 x 4 KiB, ten directories" "$URLGET -s \$(<$ten)" "curl -s \$(<$ten)" "> /dev/null"
bench_row "ftp 100 processes x 4 KiB" "bench/repeat 100 $URLGET -s $base/one/f1" "bench/repeat 100 curl -s $base/one/f1" "> /dev/null"
# The floor for the row above: the same fetch by the least a Go program can
# do (bench/ftpfloor: one file, its commands sent at once). What vsftpd
# takes a session (greeting, login) and what the Go runtime takes to start
# are most of it.
floor="$BENCH_TMP/ftpfloor"
CGO_ENABLED="${CGO_ENABLED:-0}" go build -trimpath -o "$floor" ./bench/ftpfloor
bench_row "ftp 100 processes (A: bench/ftpfloor)" "bench/repeat 100 $floor $URLGET_VSFTPD_ADDR bench/one/f1" "bench/repeat 100 curl -s $base/one/f1" "> /dev/null"

# Round trips: the control connection through a proxy that holds every
# chunk back 5 ms each way (data connections go straight to the server,
# which names only a port in its EPSV reply).
bench_far far "$URLGET_VSFTPD_ADDR"
far100="$BENCH_TMP/ftp-far-100"
head -n 100 "$ten" | sed "s|ftp://$URLGET_VSFTPD_ADDR/|ftp://$far/|" >"$far100"
bench_row "ftp 1 file, 10 ms RTT" "$URLGET -s ftp://$far/bench/one/f1" "curl -s ftp://$far/bench/one/f1" "> /dev/null"
bench_row "ftp 100 files, ten dirs, 10 ms RTT" "$URLGET -s \$(<$far100)" "curl -s \$(<$far100)" "> /dev/null"
