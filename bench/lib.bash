# Shared measurement code for the benchmark scripts bench/<proto>.sh, which
# bench/run calls. Source it; it needs $URLGET (the built command) and
# $BENCH_TMP (a scratch directory), both set by bench/run.
#
# Each row compares two commands in the same run: command A (urlget) and
# command B (curl, or cat where noted). Both are first run once to warm the
# page cache and the server, then measured in BENCH_ROUNDS rounds of
# BENCH_RUNS runs each, the order of A and B swapped every round, with
# hyperfine timing the wall clock and /usr/bin/time -v (wrapping the tool
# alone, not the other end of a pipe) giving CPU time and peak memory.

BENCH_ROUNDS="${BENCH_ROUNDS:-3}"
BENCH_RUNS="${BENCH_RUNS:-3}"
BENCH_DATA="${BENCH_DATA:-/var/tmp/urlget-bench}"

# BENCH_NULL is what the rows' "> /dev/null" writes to: /dev/null when it
# is the character device 1:3, else (a container that replaced it with a
# regular file, where every run would write its gigabyte into memory) a
# private device node made in $BENCH_TMP, which needs root.
if [ -z "${BENCH_NULL:-}" ]; then
	BENCH_NULL=/dev/null
	if [ "$(stat -L -c %F:%t:%T /dev/null)" != "character special file:1:3" ]; then
		if mknod -m 0666 "$BENCH_TMP/null" c 1 3 2>/dev/null; then
			BENCH_NULL="$BENCH_TMP/null"
		else
			echo "bench: /dev/null is not the null device here and no other could be made; the rows writing to it measure a file" >&2
		fi
	fi
	export BENCH_NULL
fi

# bench_header prints the table's header (bench/run calls it once).
bench_header() {
	printf '| %-38s | %9s | %9s | %6s | %10s | %10s | %10s | %10s |\n' \
		scenario "urlget s" "B s" ratio "urlget CPU" "B CPU" "urlget RSS" "B RSS"
	printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' \
		"$(printf -- '-%.0s' {1..40})" "-----------" "-----------" "--------" \
		"------------" "------------" "------------" "------------"
}

# bench_file PATH SIZE prints PATH after making sure it holds SIZE bytes of
# random data; the file is kept in $BENCH_DATA between runs of the script.
bench_file() {
	local path="$1" size="$2"
	mkdir -p "$(dirname "$path")"
	if [ ! -f "$path" ] || [ "$(stat -c %s "$path")" != "$size" ]; then
		head -c "$size" /dev/urandom >"$path.tmp"
		mv "$path.tmp" "$path"
	fi
	printf '%s\n' "$path"
}

# bench_server_url FILE waits, at most 10 s, for a server started in the
# background to write its URL as the first line of FILE, and prints it
# (nothing when it never does).
bench_server_url() {
	local _
	for _ in $(seq 100); do
		[ -s "$1" ] && break
		sleep 0.1
	done
	head -n 1 "$1" 2>/dev/null || true
}

# bench_far VAR HOST:PORT starts bench/delayproxy in front of HOST:PORT,
# 5 ms each way (a 10 ms round trip, the handshake's included), and sets
# VAR to the proxy's address. Not in a command substitution: the proxy's
# PID must reach bench_far_stop, which the scripts' exit traps call.
BENCH_FAR_PIDS=()
bench_far() {
	[ -x "$BENCH_TMP/delayproxy" ] || go build -o "$BENCH_TMP/delayproxy" ./bench/delayproxy
	local out="$BENCH_TMP/delayproxy.${#BENCH_FAR_PIDS[@]}.$$"
	"$BENCH_TMP/delayproxy" -to "$2" -delay 5ms >"$out" 2>/dev/null &
	BENCH_FAR_PIDS+=($!)
	printf -v "$1" '%s' "$(bench_server_url "$out")"
	if [ -z "${!1}" ]; then
		echo "bench: delayproxy did not start" >&2
		return 1
	fi
}

bench_far_stop() {
	local p
	for p in "${BENCH_FAR_PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	BENCH_FAR_PIDS=()
}

# bench_median reads numbers, one a line, and prints their median.
bench_median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit } if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_cpu LOG prints the median user+system seconds of the runs in LOG.
bench_cpu() {
	awk -F': ' '/User time \(seconds\)/ { u = $2 } /System time \(seconds\)/ { print u + $2 }' "$1" | bench_median
}

# bench_rss LOG prints the largest peak resident set size in LOG, in MiB.
bench_rss() {
	awk -F': ' '/Maximum resident set size/ { if ($2 > m) m = $2 } END { printf "%.1f\n", m / 1024 }' "$1"
}

# bench_row SCENARIO A B SUFFIX
# A and B are the two tool invocations (a command and its arguments, as bash
# words); SUFFIX is what follows each, such as "> /dev/null" or
# "| cat > /dev/null", with /dev/null standing for $BENCH_NULL. Prints one
# table row, or nothing when BENCH_ROWS (an extended regular expression) is
# set and does not match SCENARIO. BENCH_PREPARE, when set, is a command run
# before every run of A or B, untimed (hyperfine's --prepare): emptying
# the output directories of a first mirror, say.
bench_row() {
	local name="$1" a="$2" b="$3" suffix="${4//\/dev\/null/$BENCH_NULL}"
	if [ -n "${BENCH_ROWS:-}" ] && ! [[ "$name" =~ $BENCH_ROWS ]]; then
		return 0
	fi
	local id
	id="$(printf '%s' "$name" | tr -c 'A-Za-z0-9' '_')"
	local alog="$BENCH_TMP/$id.a.time" blog="$BENCH_TMP/$id.b.time"
	rm -f "$alog" "$blog"
	local acmd="/usr/bin/time -v -a -o $alog $a $suffix"
	local bcmd="/usr/bin/time -v -a -o $blog $b $suffix"
	local prepare=()
	if [ -n "${BENCH_PREPARE:-}" ]; then
		prepare=(--prepare "$BENCH_PREPARE")
	fi
	# Warm-up: one run of each, outside the logs.
	bash -c "${BENCH_PREPARE:-:}" && bash -c "$a $suffix" || { echo "bench: command failed: $a" >&2; return 1; }
	bash -c "${BENCH_PREPARE:-:}" && bash -c "$b $suffix" || { echo "bench: command failed: $b" >&2; return 1; }
	local r json order
	for r in $(seq 1 "$BENCH_ROUNDS"); do
		json="$BENCH_TMP/$id.$r.json"
		if [ $((r % 2)) = 1 ]; then
			order=(-n A "$acmd" -n B "$bcmd")
		else
			order=(-n B "$bcmd" -n A "$acmd")
		fi
		# hyperfine's warnings (outliers on a busy machine) would break the
		# table; keep them unless the run fails.
		if ! hyperfine --shell=bash --style=none --runs "$BENCH_RUNS" --export-json "$json" \
			"${prepare[@]}" "${order[@]}" >/dev/null 2>"$BENCH_TMP/hyperfine.err"; then
			cat "$BENCH_TMP/hyperfine.err" >&2
			return 1
		fi
	done
	local am bm
	am="$(jq -r '.results[] | select(.command == "A") | .times[]' "$BENCH_TMP/$id".*.json | bench_median)"
	bm="$(jq -r '.results[] | select(.command == "B") | .times[]' "$BENCH_TMP/$id".*.json | bench_median)"
	printf '| %-38s | %9.3f | %9.3f | %6.2f | %10.3f | %10.3f | %10s | %10s |\n' \
		"$name" "$am" "$bm" "$(awk -v a="$am" -v b="$bm" 'BEGIN { print (b > 0 ? a / b : 0) }')" \
		"$(bench_cpu "$alog")" "$(bench_cpu "$blog")" "$(bench_rss "$alog") MiB" "$(bench_rss "$blog") MiB"
	rm -f "$BENCH_TMP/$id".*.json
}
