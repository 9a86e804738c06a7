# Gophernicus for the gopher integration tests. Sourced by .ci/run.
#
# gophernicus is an inetd-style server (one process per connection, talking
# on stdin/stdout); tcpserver (ucspi-tcp) listens on
# 127.0.0.1:${URLGET_GOPHERNICUS_PORT:-17070} and starts one for each
# connection with the socket itself as its stdin and stdout. (socat relays
# through pipes instead, and when the child exits at once, as gophernicus
# does after an error menu, it sometimes closes the connection before
# relaying the last bytes.) It serves ${URLGET_CI_DIR}/gophernicus/root,
# which holds nothing but an executable cgi-bin directory: the tests generate
# the tree they fetch (gophermap, menus, text, binary, a search script).
#
# Exports URLGET_GOPHERNICUS_ADDR, URLGET_GOPHERNICUS_ROOT and
# URLGET_GOPHERNICUS_LOG, the log of every request (-l: Apache's combined
# format, "GET /selector HTTP/1.0" and the bytes sent; -ns turns off only
# syslog).

URLGET_GOPHERNICUS_PORT="${URLGET_GOPHERNICUS_PORT:-17070}"

# shellcheck source=.ci/servers/listen.bash
source "$(dirname "${BASH_SOURCE[0]}")/listen.bash"

gophernicus_installed() {
	dpkg-query -W -f='${Status}\n' gophernicus ucspi-tcp 2>/dev/null | grep -c 'install ok installed' | grep -qx 2
}

start_gophernicus() {
	if ! gophernicus_installed; then
		# The exit status also reflects unrelated half-configured packages;
		# what matters is whether these two are installed afterwards.
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gophernicus ucspi-tcp >/dev/null || true
		gophernicus_installed || { echo "gophernicus: apt-get install failed" >&2; return 1; }
	fi
	local dir="${URLGET_CI_DIR}/gophernicus"
	local root="$dir/root"
	mkdir -p "$root/cgi-bin"
	chmod 0755 "$dir" "$root" "$root/cgi-bin"
	# -nv: no virtual hosts, so selectors map to the root as given;
	# -nr: it runs as root here; -ns: no syslog; -nh/-nf: no menu header or
	# footer; -nd: no dates and sizes in generated menus; -nu: no ~user trees.
	# -l: the request log. -q: quiet; -H, -R: no DNS or ident look-ups of
	# the peer.
	ci_port_free gophernicus "${URLGET_GOPHERNICUS_PORT}" || return 1
	tcpserver -q -H -R -l localhost 127.0.0.1 "${URLGET_GOPHERNICUS_PORT}" \
		/usr/sbin/gophernicus -h 127.0.0.1 -p "${URLGET_GOPHERNICUS_PORT}" -r "$root" -l "$dir/access.log" -nv -nr -ns -nh -nf -nd -nu \
		>"$dir/tcpserver.log" 2>&1 &
	local pid=$!
	echo "$pid" >"${URLGET_CI_DIR}/gophernicus.pid"
	ci_wait_listen gophernicus "$pid" "${URLGET_GOPHERNICUS_PORT}" "$dir/tcpserver.log" || return 1
	export URLGET_GOPHERNICUS_ADDR="127.0.0.1:${URLGET_GOPHERNICUS_PORT}"
	export URLGET_GOPHERNICUS_ROOT="$root"
	export URLGET_GOPHERNICUS_LOG="$dir/access.log"
}

stop_gophernicus() {
	local pidfile="${URLGET_CI_DIR}/gophernicus.pid"
	if [ -f "$pidfile" ]; then
		kill "$(cat "$pidfile")" 2>/dev/null || true
		rm -f "$pidfile"
	fi
}
