# Installing and stopping services for the server scripts beside this file
# (sourced by them; .ci/run starts the *.sh files only).

# ci_apt_install_quiet PIDFILE PACKAGE... installs the packages without
# letting their maintainer scripts start the system-wide service: the
# tests start private instances of their own, and a system instance would
# hold its default port and run for the rest of the machine's life. Where
# no policy-rc.d says otherwise, one that denies every start is put in
# place for the install and removed after it (invoke-rc.d honours it; see
# /usr/share/doc/init-system-helpers/README.policy-rc.d). Should a service
# have started all the same, the one its package's pid file PIDFILE names
# is stopped.
ci_apt_install_quiet() {
	local pidfile=$1 rc=0 made=""
	shift
	if ! [ -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 0755 /usr/sbin/policy-rc.d
		made=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null || rc=$?
	[ -z "$made" ] || rm -f /usr/sbin/policy-rc.d
	if [ -s "$pidfile" ]; then
		kill "$(cat "$pidfile")" 2>/dev/null || true
	fi
	return "$rc"
}

# ci_stop_pidfile FILE stops the process FILE names, waiting at most 5
# seconds for it to end, and removes FILE.
ci_stop_pidfile() {
	local pid i
	[ -s "$1" ] || return 0
	pid="$(cat "$1")"
	kill "$pid" 2>/dev/null || true
	for i in $(seq 1 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	rm -f "$1"
}

# ci_userdel_file FILE removes the account FILE names (one a start script
# made) and FILE. Processes of the account still ending may hold it for a
# moment: it waits for them, boundedly.
ci_userdel_file() {
	local i
	[ -s "$1" ] || return 0
	for i in $(seq 1 20); do
		userdel "$(cat "$1")" 2>/dev/null && break
		sleep 0.1
	done
	rm -f "$1"
}
