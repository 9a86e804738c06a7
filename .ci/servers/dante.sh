# Dante (danted) for urlget's SOCKS integration tests and the proxy
# benchmark: two private instances with their own configurations, pid files
# and logs under ${URLGET_CI_DIR}/dante, on 127.0.0.1 only: a SOCKS5 proxy
# without authentication, and one that asks for a user name and password
# (RFC 1929). Dante's username method checks system accounts, so the second
# has a test account of its own, which stop_dante removes again. Both pass
# connections to 127.0.0.0/8 only. Sourced by .ci/run and bench/proxy.sh.
#
# Exports:
#   URLGET_DANTE_ADDR       host:port of the proxy without authentication
#   URLGET_DANTE_AUTH_ADDR  host:port of the proxy that asks for a password
#   URLGET_DANTE_USER, URLGET_DANTE_PASS  its account
#   URLGET_DANTE_LOG        the log both write: one line per connection
#                           passed, with client and destination addresses
# Ports: ${URLGET_DANTE_PORT:-11080}, ${URLGET_DANTE_AUTH_PORT:-11081}.

# shellcheck source=.ci/servers/listen.bash
source "$(dirname "${BASH_SOURCE[0]}")/listen.bash"
# shellcheck source=.ci/servers/service.bash
source "$(dirname "${BASH_SOURCE[0]}")/service.bash"

# dante_conf DIR PORT METHOD writes a configuration for one instance.
dante_conf() {
	local dir=$1 port=$2 method=$3
	cat <<CONF
logoutput: $dir/log/danted.log
errorlog: $dir/log/error.log
internal: 127.0.0.1 port = $port
external: 127.0.0.1
clientmethod: none
socksmethod: $method
user.privileged: root
user.unprivileged: nobody
client pass {
	from: 127.0.0.0/8 to: 0.0.0.0/0
	log: error
}
socks pass {
	from: 127.0.0.0/8 to: 127.0.0.0/8
	command: connect
	log: connect disconnect error
}
socks block {
	from: 0.0.0.0/0 to: 0.0.0.0/0
	log: connect error
}
CONF
}

start_dante() {
	local dir="${URLGET_CI_DIR:?URLGET_CI_DIR must be set}/dante"
	local port="${URLGET_DANTE_PORT:-11080}"
	local auth_port="${URLGET_DANTE_AUTH_PORT:-11081}"
	ci_port_free dante "$port" || return 1
	ci_port_free dante "$auth_port" || return 1
	if ! [ -x /usr/sbin/danted ]; then
		ci_apt_install_quiet /run/danted.pid dante-server || return 1
	fi
	# One account per port, as for vsftpd: instances side by side (CI,
	# the benchmark) do not share one.
	local user="urlgetsocks$auth_port" pass="urlget-socks-test"
	if ! id "$user" >/dev/null 2>&1; then
		useradd --no-create-home --shell /usr/sbin/nologin "$user"
		echo "$user" >"${URLGET_CI_DIR}/dante.user"
	fi
	echo "$user:$pass" | chpasswd
	mkdir -p "$dir/log"
	chmod 0755 "$dir" "$dir/log"
	dante_conf "$dir" "$port" none >"$dir/danted.conf"
	dante_conf "$dir" "$auth_port" username >"$dir/danted-auth.conf"
	# In the foreground (no -D), so that the PIDs below are dante's own.
	/usr/sbin/danted -f "$dir/danted.conf" -N 1 >"$dir/log/stderr.log" 2>&1 &
	echo $! >"${URLGET_CI_DIR}/dante.pid"
	ci_wait_listen dante "$!" "$port" "$dir/log/stderr.log" "$dir/log/error.log" || return 1
	/usr/sbin/danted -f "$dir/danted-auth.conf" -N 1 >"$dir/log/stderr-auth.log" 2>&1 &
	echo $! >"${URLGET_CI_DIR}/dante-auth.pid"
	ci_wait_listen dante "$!" "$auth_port" "$dir/log/stderr-auth.log" "$dir/log/error.log" || return 1
	export URLGET_DANTE_ADDR="127.0.0.1:$port"
	export URLGET_DANTE_AUTH_ADDR="127.0.0.1:$auth_port"
	export URLGET_DANTE_USER="$user"
	export URLGET_DANTE_PASS="$pass"
	export URLGET_DANTE_LOG="$dir/log/danted.log"
}

stop_dante() {
	ci_stop_pidfile "${URLGET_CI_DIR:?}/dante.pid"
	ci_stop_pidfile "${URLGET_CI_DIR}/dante-auth.pid"
	ci_userdel_file "${URLGET_CI_DIR}/dante.user"
}
