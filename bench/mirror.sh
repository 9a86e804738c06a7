#!/usr/bin/env bash
# mirror: benchmark rows for bench/run, recursive retrieval of one tree of
# ${BENCH_MIRROR_FILES:-10000} files of 4 KiB in 100 directories:
#
#   http (nginx autoindex): urlget --recursive --no-parent against wget -r -np and
#        wget2 --max-threads=4 -r -np;
#   ftp (vsftpd, LIST): urlget --recursive --no-parent against wget -r -np and
#        lftp's mirror --parallel=4;
#
# each over loopback and from a server 10 ms away (bench/delayproxy, 5 ms
# each way), first into an empty directory (emptied before every run,
# untimed) and then again over a copy already up to date: urlget --mirror
# against wget -N, wget2 -N and lftp's mirror --only-newer, which transfer
# no file body.
#
# FTP at 10 ms: a distant server is as far away for its data connections
# as for its control connection, and a proxy in front of the control
# connection alone would leave every tool's data connections on loopback.
# So the 10 ms rows use a second vsftpd of their own whose PASV replies
# name 127.0.0.2 (pasv_address) and whose passive ports are few
# (URLGET_VSFTPD_PASV_PORTS); one delayproxy listens on 127.0.0.2 at the
# control port and at every one of those passive ports and forwards each
# to the same port of 127.0.0.1. A tool that uses PASV (wget, lftp)
# connects to the address the reply names, one that uses EPSV (urlget)
# to the control connection's host, 127.0.0.2 again: every data connection
# of every tool crosses the proxy.
#
# Uses the nginx at URLGET_NGINX_URL and the vsftpd at URLGET_VSFTPD_ADDR
# when set, or starts private ones (.ci/servers) on ports
# ${URLGET_NGINX_PORT:-18091} and ${URLGET_VSFTPD_PORT:-2133}; the 10 ms
# vsftpd listens on ${BENCH_MIRROR_FAR_PORT:-2134}, passive ports
# ${BENCH_MIRROR_FAR_PASV:-30940-30971}. The tree is kept in
# $BENCH_DATA between runs. Fewer samples than the other rows (a first
# mirror at 10 ms takes minutes for a tool that fetches one file at a
# time): BENCH_MIRROR_ROUNDS x BENCH_MIRROR_RUNS, default 2 x 1.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.bash
source bench/lib.bash

files="${BENCH_MIRROR_FILES:-10000}"
dirs=100
per=$(((files + dirs - 1) / dirs))
export BENCH_ROUNDS="${BENCH_MIRROR_ROUNDS:-2}" BENCH_RUNS="${BENCH_MIRROR_RUNS:-1}"

missing=()
command -v wget >/dev/null || missing+=(wget)
command -v wget2 >/dev/null || missing+=(wget2)
command -v lftp >/dev/null || missing+=(lftp)
if [ "${#missing[@]}" -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "bench/mirror.sh: install ${missing[*]} first" >&2
		exit 1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

far_ci="$BENCH_TMP/ci-mirror-far"
cleanup() {
	bench_far_stop
	[ -z "${mirror_shm:-}" ] || rm -rf "$mirror_shm"
	[ -z "${own_nginx:-}" ] || stop_nginx
	[ -z "${own_vsftpd:-}" ] || stop_vsftpd
	if [ -s "$far_ci/vsftpd.pid" ]; then
		URLGET_CI_DIR="$far_ci" stop_vsftpd
	fi
}
trap cleanup EXIT

# shellcheck source=.ci/servers/nginx.sh
source .ci/servers/nginx.sh
# shellcheck source=.ci/servers/vsftpd.sh
source .ci/servers/vsftpd.sh
if [ -z "${URLGET_NGINX_URL:-}" ] || [ -z "${URLGET_VSFTPD_ADDR:-}" ]; then
	export URLGET_CI_DIR="${URLGET_CI_DIR:-$BENCH_TMP/ci}"
	mkdir -p "$URLGET_CI_DIR"
fi
if [ -z "${URLGET_NGINX_URL:-}" ]; then
	export URLGET_NGINX_PORT="${URLGET_NGINX_PORT:-18091}"
	export URLGET_NGINX_TLS_PORT="${URLGET_NGINX_TLS_PORT:-18454}"
	start_nginx
	own_nginx=1
fi
if [ -z "${URLGET_VSFTPD_ADDR:-}" ]; then
	export URLGET_VSFTPD_PORT="${URLGET_VSFTPD_PORT:-2133}"
	start_vsftpd
	own_vsftpd=1
fi

# The tree: d00..d99, f00000.. of 4 KiB each, made once.
tree="$BENCH_DATA/mirror-$files"
if ! [ -f "$tree/.complete" ]; then
	rm -rf "$tree"
	for d in $(seq 0 $((dirs - 1))); do
		dd="$tree/$(printf 'd%02d' "$d")"
		mkdir -p "$dd"
		for i in $(seq $((d * per)) $((d * per + per - 1))); do
			[ "$i" -lt "$files" ] || break
			head -c 4096 /dev/urandom >"$dd/$(printf 'f%05d' "$i")"
		done
	done
	chmod -R a+rX "$tree"
	: >"$tree/.complete"
fi
# publish DIR copies the tree to DIR/bench/mirror: hard links where DIR is
# on the same file system (vsftpd's chroot does not follow a symbolic
# link out of it), else a copy. The marker file stays out.
publish() {
	local to="$1/bench/mirror"
	if [ -d "$to" ] && [ -f "$to/.files-$files" ]; then
		return 0
	fi
	rm -rf "$to"
	mkdir -p "$1/bench"
	chmod 0755 "$1/bench"
	cp -al "$tree" "$to" 2>/dev/null || cp -a "$tree" "$to"
	rm -f "$to/.complete"
	: >"$to/.files-$files"
	chmod 0644 "$to/.files-$files"
}
publish "$URLGET_NGINX_ROOT"
publish "$URLGET_VSFTPD_ROOT"

# The 10 ms vsftpd (see the top of this file), its account and files of
# its own.
far_port="${BENCH_MIRROR_FAR_PORT:-2134}"
far_pasv="${BENCH_MIRROR_FAR_PASV:-30940-30971}"
mkdir -p "$far_ci"
(
	unset URLGET_VSFTPD_USER
	export URLGET_CI_DIR="$far_ci" URLGET_VSFTPD_PORT="$far_port"
	export URLGET_VSFTPD_PASV_ADDRESS=127.0.0.2 URLGET_VSFTPD_PASV_PORTS="$far_pasv"
	start_vsftpd
)
publish "$far_ci/vsftpd/root"
[ -x "$BENCH_TMP/delayproxy" ] || go build -o "$BENCH_TMP/delayproxy" ./bench/delayproxy
"$BENCH_TMP/delayproxy" -to "127.0.0.1:$far_port" -listen "127.0.0.2:$far_port" -ports "$far_pasv" \
	-delay 5ms >"$BENCH_TMP/delayproxy.ftp-far" 2>/dev/null &
BENCH_FAR_PIDS+=($!)
ftp_far="$(bench_server_url "$BENCH_TMP/delayproxy.ftp-far")"
[ -n "$ftp_far" ] || { echo "bench: delayproxy for ftp did not start" >&2; exit 1; }
bench_far http_far "${URLGET_NGINX_URL#http://}"

# The copies go to a tmpfs where there is one (BENCH_MIRROR_OUT): making
# 10,000 files costs about 0.9 ms each on the disk of the machines these
# rows were first run on, for every tool alike, which would make the rows
# compare that disk rather than the tools.
out_base="${BENCH_MIRROR_OUT:-}"
if [ -z "$out_base" ]; then
	out_base="$BENCH_TMP"
	if [ -d /dev/shm ] && [ -w /dev/shm ]; then
		out_base="$(mktemp -d /dev/shm/urlget-mirror.XXXXXX)"
		mirror_shm="$out_base"
	fi
fi
a="$out_base/mirror-a" b="$out_base/mirror-b"
q="-s"
n="$((files / 1000))k"
[ "$files" -ge 1000 ] || n="$files"

# first SCENARIO URLGET-ARGS PEER-COMMAND: a first mirror into an empty
# directory, A into $a, B into $b.
first() {
	BENCH_PREPARE="rm -rf $a $b" bench_row "$1" "$URLGET $q $2 --output-dir $a" "$3" "> /dev/null"
}
# again SCENARIO URLGET-ARGS PEER-COMMAND: the same over an up-to-date
# copy (the warm-up run makes it).
again() {
	rm -rf "$a" "$b"
	bench_row "$1" "$URLGET $q $2 --output-dir $a" "$3" "> /dev/null"
}

lftp_mirror() {
	printf '%s' "lftp -c 'set cmd:fail-exit yes; set net:max-retries 2; open ftp://$1; mirror --parallel=4 $2 /bench/mirror $b'"
}

for where in loopback "10 ms"; do
	if [ "$where" = loopback ]; then
		http="$URLGET_NGINX_URL/bench/mirror/" ftp="$URLGET_VSFTPD_ADDR" sfx=""
	else
		http="http://$http_far/bench/mirror/" ftp="$ftp_far" sfx=", 10 ms"
	fi
	first "mirror http $n (B: wget)$sfx" "--recursive --no-parent $http" "wget -q -r -np -P $b $http"
	first "mirror http $n (B: wget2 x4)$sfx" "--recursive --no-parent $http" "wget2 -q --max-threads=4 -r -np -P $b $http"
	first "mirror ftp $n (B: wget)$sfx" "--recursive --no-parent ftp://$ftp/bench/mirror/" "wget -q -r -np -P $b ftp://$ftp/bench/mirror/"
	first "mirror ftp $n (B: lftp x4)$sfx" "--recursive --no-parent ftp://$ftp/bench/mirror/" "$(lftp_mirror "$ftp" "")"
	again "mirror http $n unchanged (B: wget -N)$sfx" "--mirror --no-parent $http" "wget -q -N -r -np -P $b $http"
	again "mirror http $n unchanged (B: wget2 -N)$sfx" "--mirror --no-parent $http" "wget2 -q -N --max-threads=4 -r -np -P $b $http"
	again "mirror ftp $n unchanged (B: wget -N)$sfx" "--mirror --no-parent ftp://$ftp/bench/mirror/" "wget -q -N -r -np -P $b ftp://$ftp/bench/mirror/"
	again "mirror ftp $n unchanged (B: lftp)$sfx" "--mirror --no-parent ftp://$ftp/bench/mirror/" "$(lftp_mirror "$ftp" --only-newer)"
done

# Archiving (--warc-file): a first --mirror that writes a WARC against the
# same mirror without one, and against wget -m --warc-file on the same
# tree, on loopback. Each run's archives go to a directory of their own outside
# the trees, emptied before each sample: an archive is never appended to.
warcs="$out_base/warcs"
http="$URLGET_NGINX_URL/bench/mirror/"
BENCH_PREPARE="rm -rf $a $b $warcs && mkdir -p $warcs" bench_row "mirror http $n --warc-file (B: urlget without)" \
	"$URLGET $q --mirror --no-parent --warc-file $warcs/a --output-dir $a $http" \
	"$URLGET $q --mirror --no-parent --output-dir $b $http" "> /dev/null"
# The same without compression: the part of the cost that is the
# records, their digests and writes, apart from their gzip members.
BENCH_PREPARE="rm -rf $a $b $warcs && mkdir -p $warcs" bench_row "mirror http $n --warc-file --no-warc-compression (B: urlget without)" \
	"$URLGET $q --mirror --no-parent --warc-file $warcs/a --no-warc-compression --output-dir $a $http" \
	"$URLGET $q --mirror --no-parent --output-dir $b $http" "> /dev/null"
BENCH_PREPARE="rm -rf $a $b $warcs && mkdir -p $warcs" bench_row "mirror http $n --warc-file (B: wget -m --warc-file)" \
	"$URLGET $q --mirror --no-parent --warc-file $warcs/a --output-dir $a $http" \
	"wget -q -m -np -P $b --warc-file=$warcs/b $http" "> /dev/null"
