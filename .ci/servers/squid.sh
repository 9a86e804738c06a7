# squid for urlget's proxy integration tests and the proxy benchmark: a
# private instance with its own configuration, pid file and logs under
# ${URLGET_CI_DIR}/squid, listening on 127.0.0.1 only. It is an HTTP proxy
# (absolute-form requests), lets CONNECT through to any port (the tests
# tunnel gopher, NNTP and FTP), and is the gateway for ftp: and gopher: URLs
# (GET ftp://host/path). It caches nothing, so that every request reaches
# the server behind it and shows in the access log. Sourced by .ci/run and
# bench/proxy.sh.
#
# Exports:
#   URLGET_SQUID_URL  the proxy's URL, e.g. http://127.0.0.1:13128
#   URLGET_SQUID_LOG  its access log (one line per request: the method and
#                     the URL or CONNECT host:port)
# Port: ${URLGET_SQUID_PORT:-13128}.

# shellcheck source=.ci/servers/listen.bash
source "$(dirname "${BASH_SOURCE[0]}")/listen.bash"
# shellcheck source=.ci/servers/service.bash
source "$(dirname "${BASH_SOURCE[0]}")/service.bash"

start_squid() {
	local dir="${URLGET_CI_DIR:?URLGET_CI_DIR must be set}/squid"
	local port="${URLGET_SQUID_PORT:-13128}"
	ci_port_free squid "$port" || return 1
	if ! [ -x /usr/sbin/squid ]; then
		ci_apt_install_quiet /run/squid.pid squid || return 1
	fi
	# squid drops from root to this account; it writes the logs.
	local user=proxy
	id "$user" >/dev/null 2>&1 || user=nobody
	mkdir -p "$dir/log" "$dir/run"
	chmod o+x "${URLGET_CI_DIR}"
	chown -R "$user" "$dir/log" "$dir/run"
	cat >"$dir/squid.conf" <<CONF
http_port 127.0.0.1:$port
cache_effective_user $user
pid_filename $dir/run/squid.pid
coredump_dir $dir/run
cache_log $dir/log/cache.log
access_log stdio:$dir/log/access.log squid
logfile_rotate 0
# The log shows each URL whole, query included: the tests look for them.
strip_query_terms off
# Nothing is cached: every request goes through to the server behind.
cache deny all
cache_mem 1 MB
maximum_object_size_in_memory 0 KB
acl localnet src 127.0.0.0/8
acl CONNECT method CONNECT
# CONNECT to any port: gopher, NNTP and FTP are tunnelled too.
http_access allow localnet
http_access deny all
# The ftp: gateway logs in as anonymous with this password, passive mode.
ftp_user urlget@
ftp_passive on
ftp_epsv on
visible_hostname localhost
icp_port 0
htcp_port 0
pinger_enable off
shutdown_lifetime 0 seconds
client_persistent_connections on
server_persistent_connections on
CONF
	# -N: in the foreground, so that the PID below is squid's own.
	/usr/sbin/squid -N -f "$dir/squid.conf" >"$dir/log/stderr.log" 2>&1 &
	local pid=$!
	echo "$pid" >"${URLGET_CI_DIR}/squid.pid"
	ci_wait_listen squid "$pid" "$port" "$dir/log/stderr.log" "$dir/log/cache.log" || return 1
	export URLGET_SQUID_URL="http://127.0.0.1:$port"
	export URLGET_SQUID_LOG="$dir/log/access.log"
}

stop_squid() {
	ci_stop_pidfile "${URLGET_CI_DIR:?}/squid.pid"
}
