# Helpers for the server scripts beside this file (sourced by them; .ci/run
# starts the *.sh files only).

# ci_port_free NAME PORT fails, saying so, when something already listens
# on 127.0.0.1:PORT: the probe in ci_wait_listen would take it for NAME.
ci_port_free() {
	if (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null; then
		echo "$1: 127.0.0.1:$2 is already taken" >&2
		return 1
	fi
}

# ci_wait_listen NAME PID PORT [LOG...] waits, at most 10 seconds, until
# 127.0.0.1:PORT accepts connections while process PID still runs; when
# it does not, it prints the logs and fails.
ci_wait_listen() {
	local name=$1 pid=$2 port=$3 i
	shift 3
	for i in $(seq 1 100); do
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "$name exited:" >&2
			cat "$@" >&2 2>/dev/null || true
			return 1
		fi
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	echo "$name: nothing listens on 127.0.0.1:$port" >&2
	cat "$@" >&2 2>/dev/null || true
	return 1
}
