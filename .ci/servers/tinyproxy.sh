# tinyproxy for urlget's proxy integration tests: a private instance with its
# own configuration, pid file and log under ${URLGET_CI_DIR}/tinyproxy, on
# 127.0.0.1 only, used as a CONNECT-only proxy: its ConnectPort rules let
# tunnels through to the ports of the real servers .ci/servers starts (the
# TLS nginx, the FTP servers and vsftpd's passive range, gophernicus, INN)
# and to no other. Sourced by .ci/run.
#
# Exports:
#   URLGET_TINYPROXY_URL  the proxy's URL, e.g. http://127.0.0.1:18888
#   URLGET_TINYPROXY_LOG  its log, which names each CONNECT request
# Port: ${URLGET_TINYPROXY_PORT:-18888}.

# shellcheck source=.ci/servers/listen.bash
source "$(dirname "${BASH_SOURCE[0]}")/listen.bash"
# shellcheck source=.ci/servers/service.bash
source "$(dirname "${BASH_SOURCE[0]}")/service.bash"

start_tinyproxy() {
	local dir="${URLGET_CI_DIR:?URLGET_CI_DIR must be set}/tinyproxy"
	local port="${URLGET_TINYPROXY_PORT:-18888}"
	ci_port_free tinyproxy "$port" || return 1
	if ! [ -x /usr/bin/tinyproxy ]; then
		ci_apt_install_quiet /run/tinyproxy/tinyproxy.pid tinyproxy || return 1
	fi
	mkdir -p "$dir/log"
	chmod o+x "${URLGET_CI_DIR}"
	chown nobody "$dir/log"
	local p connect_ports=""
	for p in "${URLGET_NGINX_TLS_PORT:-18443}" "${URLGET_VSFTPD_PORT:-2121}" \
		"${URLGET_PUREFTPD_PORT:-2122}" "${URLGET_PROFTPD_PORT:-2123}" \
		"${URLGET_GOPHERNICUS_PORT:-17070}" "${URLGET_INN_PORT:-11119}" \
		$(seq 30000 30999); do
		connect_ports+="ConnectPort $p"$'\n'
	done
	cat >"$dir/tinyproxy.conf" <<CONF
User nobody
Group nogroup
Port $port
Listen 127.0.0.1
Timeout 60
LogFile "$dir/log/tinyproxy.log"
LogLevel Connect
PidFile "$dir/log/tinyproxy.pid"
MaxClients 100
Allow 127.0.0.0/8
ViaProxyName "tinyproxy"
$connect_ports
CONF
	# -d: in the foreground, so that the PID below is tinyproxy's own.
	/usr/bin/tinyproxy -d -c "$dir/tinyproxy.conf" >"$dir/log/stderr.log" 2>&1 &
	echo $! >"${URLGET_CI_DIR}/tinyproxy.pid"
	ci_wait_listen tinyproxy "$!" "$port" "$dir/log/stderr.log" "$dir/log/tinyproxy.log" || return 1
	export URLGET_TINYPROXY_URL="http://127.0.0.1:$port"
	export URLGET_TINYPROXY_LOG="$dir/log/tinyproxy.log"
}

stop_tinyproxy() {
	ci_stop_pidfile "${URLGET_CI_DIR:?}/tinyproxy.pid"
}
