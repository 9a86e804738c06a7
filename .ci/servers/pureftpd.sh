# Pure-FTPd for urlget's ftp integration tests: a second FTP server, written
# apart from vsftpd, anonymous and read-only, listening on 127.0.0.1 only.
# urlget sends commands without waiting for the replies they do not depend
# on (the login with the first commands, PWD with the CWD after it); the
# tests check that against two servers' ways of reading them. Sourced by
# .ci/run.
#
# Debian's FTP servers conflict with one another (each provides
# ftp-server), and vsftpd is installed for the other tests: the pure-ftpd
# package is downloaded with apt-get and unpacked under ${URLGET_CI_DIR},
# its libraries installed. Anonymous users get the home directory of the
# account "ftp" (Pure-FTPd has no setting for it): start_pureftpd points it
# at the tree here, creating the account as Debian's FTP server packages do
# if there is none, and stop_pureftpd puts the home directory back.
#
# Exports:
#   URLGET_PUREFTPD_ADDR  host:port, e.g. 127.0.0.1:2122
#   URLGET_PUREFTPD_ROOT  the anonymous root (what ftp://host/ shows)
#   URLGET_PUREFTPD_LOG   its transfer log, in the common log format: a
#                         line "GET /path" for each file sent, none for
#                         listings
# Port: ${URLGET_PUREFTPD_PORT:-2122}; passive ports 31000-31999.

# shellcheck source=.ci/servers/listen.bash
source "$(dirname "${BASH_SOURCE[0]}")/listen.bash"

start_pureftpd() {
	local dir="${URLGET_CI_DIR:?URLGET_CI_DIR must be set}/pureftpd"
	local port="${URLGET_PUREFTPD_PORT:-2122}"
	ci_port_free pure-ftpd "$port" || return 1
	mkdir -p "$dir/pkg" "$dir/root"
	chmod o+x "${URLGET_CI_DIR}"
	chmod 0755 "$dir" "$dir/root"
	local bin="$dir/pkg/usr/sbin/pure-ftpd"
	if ! [ -x "$bin" ]; then
		if ! (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcap2 libcrypt1 libpam0g libsodium23 libssl3 &&
			cd "$dir" && apt-get download -qq pure-ftpd) >"$dir/apt.log" 2>&1; then
			cat "$dir/apt.log" >&2
			return 1
		fi
		dpkg-deb -x "$dir"/pure-ftpd_*.deb "$dir/pkg"
	fi
	if ! getent passwd ftp >/dev/null; then
		useradd --system --no-create-home --home-dir /srv/ftp --shell /usr/sbin/nologin ftp
	fi
	# The home directory to put back (a second start keeps the first's).
	[ -s "${URLGET_CI_DIR}/pureftpd.home" ] || getent passwd ftp | cut -d: -f6 >"${URLGET_CI_DIR}/pureftpd.home"
	usermod --home "$dir/root" ftp
	# -e: anonymous only; -4 -S: IPv4, 127.0.0.1 only; -H: no DNS;
	# -O: the transfer log.
	"$bin" -e -4 -H -S "127.0.0.1,$port" -p 31000:31999 -O "clf:$dir/transfer.log" >"$dir/stderr.log" 2>&1 &
	echo $! >"${URLGET_CI_DIR}/pureftpd.pid"
	ci_wait_listen pure-ftpd "$!" "$port" "$dir/stderr.log" || return 1
	export URLGET_PUREFTPD_ADDR="127.0.0.1:$port"
	export URLGET_PUREFTPD_ROOT="$dir/root"
	export URLGET_PUREFTPD_LOG="$dir/transfer.log"
}

stop_pureftpd() {
	local pidfile="${URLGET_CI_DIR:?}/pureftpd.pid"
	if [ -s "$pidfile" ]; then
		kill "$(cat "$pidfile")" 2>/dev/null || true
		rm -f "$pidfile"
	fi
	local homefile="${URLGET_CI_DIR}/pureftpd.home"
	if [ -s "$homefile" ]; then
		usermod --home "$(cat "$homefile")" ftp || true
		rm -f "$homefile"
	fi
}
