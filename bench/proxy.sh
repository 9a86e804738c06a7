#!/usr/bin/env bash
# proxy: benchmark rows for bench/run, through a local squid (an HTTP proxy,
# and the gateway for ftp: URLs) and a local dante (SOCKS5), urlget and curl
# each given the same proxy with -x: 1 GiB over http and over ftp, and 1000
# small http files in one invocation. The servers behind are nginx and
# vsftpd. Uses the servers whose variables are set (URLGET_SQUID_URL,
# URLGET_DANTE_ADDR, URLGET_NGINX_URL and URLGET_NGINX_ROOT,
# URLGET_VSFTPD_ADDR and URLGET_VSFTPD_ROOT), and starts private ones with
# .ci/servers for the rest, on ports of their own (squid 13129, dante 11082
# and 11083, nginx 18091 and 18454, vsftpd 2132) so that they run beside
# those of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.bash
source bench/lib.bash

# Not under $BENCH_TMP (mode 0700): squid and dante drop to accounts
# of their own, which must reach their logs in here.
URLGET_CI_DIR="$(mktemp -d /tmp/urlget-bench-proxy.XXXXXX)"
export URLGET_CI_DIR
started=()
cleanup() {
	local s
	for s in "${started[@]}"; do
		"stop_$s" || true
	done
	rm -rf "$URLGET_CI_DIR"
}
trap cleanup EXIT

# start NAME VAR: starts .ci/servers/NAME.sh unless VAR is set already.
start() {
	[ -z "${!2:-}" ] || return 0
	# shellcheck source=/dev/null
	source ".ci/servers/$1.sh"
	"start_$1"
	started+=("$1")
}
export URLGET_NGINX_PORT="${URLGET_NGINX_PORT:-18091}" URLGET_NGINX_TLS_PORT="${URLGET_NGINX_TLS_PORT:-18454}"
export URLGET_VSFTPD_PORT="${URLGET_VSFTPD_PORT:-2132}" URLGET_SQUID_PORT="${URLGET_SQUID_PORT:-13129}"
export URLGET_DANTE_PORT="${URLGET_DANTE_PORT:-11082}" URLGET_DANTE_AUTH_PORT="${URLGET_DANTE_AUTH_PORT:-11083}"
start nginx URLGET_NGINX_URL
start vsftpd URLGET_VSFTPD_ADDR
start squid URLGET_SQUID_URL
start dante URLGET_DANTE_ADDR

big="$(bench_file "$BENCH_DATA/1g.bin" $((1 << 30)))"
chmod 0644 "$big"
# nginx's root: a symbolic link is enough. vsftpd serves anonymous users
# from a chroot, which a symbolic link would leave: a hard link (or a copy
# across file systems).
hdir="$URLGET_NGINX_ROOT/bench-proxy"
fdir="$URLGET_VSFTPD_ROOT/bench-proxy"
mkdir -p "$hdir/small" "$fdir"
chmod 0755 "$hdir" "$hdir/small" "$fdir"
ln -sf "$big" "$hdir/1g.bin"
if ! [ "$fdir/1g.bin" -ef "$big" ]; then
	ln -f "$big" "$fdir/1g.bin" 2>/dev/null || cp "$big" "$fdir/1g.bin"
fi
list="$BENCH_TMP/proxy-small-urls"
: >"$list"
for i in $(seq 1 1000); do
	f="$hdir/small/f$i"
	[ -f "$f" ] || head -c 4096 /dev/urandom >"$f"
	printf '%s\n' "$URLGET_NGINX_URL/bench-proxy/small/f$i" >>"$list"
done

squid="$URLGET_SQUID_URL"
socks="socks5h://$URLGET_DANTE_ADDR"
http="$URLGET_NGINX_URL/bench-proxy/1g.bin"
ftp="ftp://$URLGET_VSFTPD_ADDR/bench-proxy/1g.bin"
for p in "squid:$squid" "dante:$socks"; do
	name="${p%%:*}" proxy="${p#*:}"
	bench_row "http 1 GiB via $name" "$URLGET -s -x $proxy $http" "curl -s -x $proxy $http" "> /dev/null"
	# Through squid, ftp: goes by its gateway (GET ftp://…) for both tools;
	# through dante, both speak FTP, the data connection through it too.
	bench_row "ftp 1 GiB via $name" "$URLGET -s -x $proxy $ftp" "curl -s -x $proxy $ftp" "> /dev/null"
	bench_row "http 1000 x 4 KiB via $name" "$URLGET -s -x $proxy \$(<$list)" "curl -s -x $proxy \$(<$list)" "> /dev/null"
done
