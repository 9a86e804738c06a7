#!/usr/bin/env bash
# news: benchmark rows for bench/run, against INN: 1000 articles fetched by
# message-id in one invocation, one 10 MiB article, and a 1001-article
# group listing. No other client fetches news: URLs, so B is the same NNTP
# commands sent by socat over one raw session (no dot-unstuffing, no
# parsing): the floor the protocol and the server allow.
#
# Reads through the authenticating nnrpd of .ci/servers/inn.sh (a reader
# that takes pipelined commands, which socat needs), at
# URLGET_INN_AUTH_ADDR with URLGET_INN_USER and URLGET_INN_PASSWORD, and
# feeds the articles to innd at URLGET_INN_ADDR; without those it starts a
# private INN on ports ${URLGET_INN_PORT:-11129} and ${URLGET_INN_AUTH_PORT:-11130}.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.bash
source bench/lib.bash

command -v socat >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq socat >/dev/null

if [ -z "${URLGET_INN_AUTH_ADDR:-}" ]; then
	export URLGET_CI_DIR="$BENCH_TMP/ci"
	export URLGET_INN_PORT="${URLGET_INN_PORT:-11129}" URLGET_INN_AUTH_PORT="${URLGET_INN_AUTH_PORT:-11130}"
	mkdir -p "$URLGET_CI_DIR"
	# INN runs as news and must reach its files below the private $BENCH_TMP.
	chmod o+x "$BENCH_TMP"
	# shellcheck source=.ci/servers/inn.sh
	source .ci/servers/inn.sh
	start_inn >/dev/null
	trap stop_inn EXIT
fi

group=urlget.test.big
feed="$BENCH_TMP/news-feed"
ids="$BENCH_TMP/news-ids"
date="$(date -u -R)"

# Feed 1000 text articles of about 2 KiB and one 10 MiB article with
# streaming TAKETHIS (RFC 4644), which needs no wait between articles.
# Articles already there from an earlier run are refused (439) and kept.
big_body="$BENCH_TMP/news-10m"
# 136178 base64 lines of 76 characters and LF: 10 MiB less 54 bytes.
head -c $((136178 * 57)) /dev/urandom | base64 -w 76 >"$big_body"
{
	printf 'MODE STREAM\r\n'
	for i in $(seq 0 999); do
		printf 'TAKETHIS <bench-%d@urlget.bench>\r\n' "$i"
		printf 'Path: urlget!not-for-mail\r\nFrom: Bench <bench@urlget.bench>\r\nNewsgroups: %s\r\n' "$group"
		printf 'Subject: bench article %d\r\nDate: %s\r\nMessage-ID: <bench-%d@urlget.bench>\r\n\r\n' "$i" "$date" "$i"
		for l in $(seq 1 28); do
			printf 'Line %02d of article %04d: the quick brown fox jumps over the lazy dog.\r\n' "$l" "$i"
		done
		printf '.\r\n'
	done
	printf 'TAKETHIS <bench-10m@urlget.bench>\r\n'
	printf 'Path: urlget!not-for-mail\r\nFrom: Bench <bench@urlget.bench>\r\nNewsgroups: %s\r\n' "$group"
	printf 'Subject: bench 10 MiB\r\nDate: %s\r\nMessage-ID: <bench-10m@urlget.bench>\r\n\r\n' "$date"
	sed 's/$/\r/' "$big_body"
	printf '.\r\nQUIT\r\n'
} >"$feed"
answers="$(socat -t 60 - "TCP:$URLGET_INN_ADDR" <"$feed" | grep -c '^[24]39 ' || true)"
if [ "$answers" != 1001 ]; then
	echo "bench/news.sh: innd answered $answers of 1001 TAKETHIS" >&2
	exit 1
fi

addr="$URLGET_INN_AUTH_ADDR"
auth="AUTHINFO USER $URLGET_INN_USER\r\nAUTHINFO PASS $URLGET_INN_PASSWORD\r\n"
: >"$ids"
{
	printf "$auth"
	for i in $(seq 0 999); do
		printf 'news:bench-%d@urlget.bench\n' "$i" >>"$ids"
		printf 'ARTICLE <bench-%d@urlget.bench>\r\n' "$i"
	done
	printf 'QUIT\r\n'
} >"$BENCH_TMP/news-1000.nntp"
printf "${auth}ARTICLE <bench-10m@urlget.bench>\r\nQUIT\r\n" >"$BENCH_TMP/news-10m.nntp"
printf "${auth}GROUP $group\r\nOVER 1-\r\nQUIT\r\n" >"$BENCH_TMP/news-over.nntp"

u="$URLGET -s -u $URLGET_INN_USER:$URLGET_INN_PASSWORD --nntp-server $addr"
raw="socat -t 60 - TCP:$addr"
bench_row "news 1000 articles by id (B: socat)" "$u \$(<$ids)" "$raw < $BENCH_TMP/news-1000.nntp" "> /dev/null"
bench_row "news 10 MiB article (B: socat)" "$u news:bench-10m@urlget.bench" "$raw < $BENCH_TMP/news-10m.nntp" "> /dev/null"
bench_row "news 1001-article listing (B: socat)" "$u --max-articles 1001 news:$group" "$raw < $BENCH_TMP/news-over.nntp" "> /dev/null"
