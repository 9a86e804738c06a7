# ProFTPD for urlget's ftp integration tests: a third FTP server, written
# apart from vsftpd and Pure-FTPd, anonymous and read-only, listening on
# 127.0.0.1 only. ProFTPD closes its passive port as it refuses a transfer
# (550 for a missing file) and answers a CWD with no argument with 501;
# the tests check urlget against both. Sourced by .ci/run.
#
# Debian's FTP servers conflict with one another (each provides
# ftp-server), and vsftpd is installed for the other tests: the proftpd
# package is downloaded with apt-get and unpacked under ${URLGET_CI_DIR},
# the libraries it depends on installed. Anonymous users are served from
# the tree here, as the account "ftp", created as Debian's FTP server
# packages do if there is none.
#
# Exports:
#   URLGET_PROFTPD_ADDR  host:port, e.g. 127.0.0.1:2123
#   URLGET_PROFTPD_ROOT  the anonymous root (what ftp://host/ shows)
# Port: ${URLGET_PROFTPD_PORT:-2123}; passive ports 32000-32999.

# shellcheck source=.ci/servers/listen.bash
source "$(dirname "${BASH_SOURCE[0]}")/listen.bash"

start_proftpd() {
	local dir="${URLGET_CI_DIR:?URLGET_CI_DIR must be set}/proftpd"
	local port="${URLGET_PROFTPD_PORT:-2123}"
	ci_port_free proftpd "$port" || return 1
	mkdir -p "$dir/pkg" "$dir/root"
	chmod o+x "${URLGET_CI_DIR}"
	chmod 0755 "$dir" "$dir/root"
	local bin="$dir/pkg/usr/sbin/proftpd"
	if ! [ -x "$bin" ]; then
		# proftpd-core holds the server since Debian 12; proftpd-basic
		# did before.
		if ! (cd "$dir" && { apt-get download -qq proftpd-core || apt-get download -qq proftpd-basic; }) >"$dir/apt.log" 2>&1; then
			cat "$dir/apt.log" >&2
			return 1
		fi
		local deb deps
		deb="$(ls "$dir"/proftpd-*.deb)"
		# The package's dependencies, first alternatives, no versions.
		deps="$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*)//' -e 's/ //g' | grep -v '^$')"
		# shellcheck disable=SC2086 # one word per package
		if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $deps >>"$dir/apt.log" 2>&1; then
			cat "$dir/apt.log" >&2
			return 1
		fi
		dpkg-deb -x "$deb" "$dir/pkg"
	fi
	if ! getent passwd ftp >/dev/null; then
		useradd --system --no-create-home --home-dir /srv/ftp --shell /usr/sbin/nologin ftp
	fi
	# Anonymous sessions run as ftp, chrooted to the root here; the server
	# itself, once it has bound the port, as nobody.
	cat >"$dir/proftpd.conf" <<EOF
ServerName "urlget CI"
ServerType standalone
DefaultAddress 127.0.0.1
SocketBindTight on
Port $port
PassivePorts 32000 32999
UseIPv6 off
UseReverseDNS off
User nobody
Group $(id -gn nobody)
PidFile $dir/proftpd.pid
ScoreboardFile $dir/proftpd.scoreboard
# mod_delay pads every login to a few hundred milliseconds against
# timing attacks; the tests log in many times.
DelayEngine off
ControlsEngine off
WtmpLog off
TransferLog none
SystemLog $dir/system.log
AuthPAM off
MaxInstances 200
<Anonymous $dir/root>
  User ftp
  Group $(id -gn ftp)
  UserAlias anonymous ftp
  RequireValidShell off
  <Limit WRITE>
    DenyAll
  </Limit>
</Anonymous>
EOF
	# -n: in the foreground, so that the PID is the server's.
	"$bin" -n -q -c "$dir/proftpd.conf" >"$dir/stderr.log" 2>&1 &
	echo $! >"${URLGET_CI_DIR}/proftpd.pid"
	ci_wait_listen proftpd "$!" "$port" "$dir/stderr.log" "$dir/system.log" || return 1
	export URLGET_PROFTPD_ADDR="127.0.0.1:$port"
	export URLGET_PROFTPD_ROOT="$dir/root"
}

stop_proftpd() {
	local pidfile="${URLGET_CI_DIR:?}/proftpd.pid"
	if [ -s "$pidfile" ]; then
		kill "$(cat "$pidfile")" 2>/dev/null || true
		rm -f "$pidfile"
	fi
}
