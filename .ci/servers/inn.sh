# INN (InterNetNews) for the news/nntp integration tests. Sourced by .ci/run.
#
# A private instance under ${URLGET_CI_DIR}/inn with its own inn.conf (found
# through INNCONF), so the machine's own INN configuration and spool are
# never touched:
#   innd  on 127.0.0.1:${URLGET_INN_PORT:-11119}: takes articles by IHAVE
#         from 127.0.0.1 (peer ME) and hands readers to nnrpd on MODE READER;
#   nnrpd on 127.0.0.1:${URLGET_INN_AUTH_PORT:-11120}: a standalone reader
#         that requires AUTHINFO USER/PASS (ckpasswd against a private file).
# The tests create nothing but articles: the groups below exist, and the
# test posts its own articles to them and reads them back. INN logs what
# readers ask for only through syslog (nnrpd's "artstats" at the end of a
# session), which a machine without a syslog daemon drops: the tests that
# count ARTICLE commands count them on the client's connection instead.
#
# Exports URLGET_INN_ADDR, URLGET_INN_AUTH_ADDR, URLGET_INN_USER,
# URLGET_INN_PASSWORD and URLGET_INN_GROUPS.

URLGET_INN_PORT="${URLGET_INN_PORT:-11119}"
URLGET_INN_AUTH_PORT="${URLGET_INN_AUTH_PORT:-11120}"
INN_BIN=/usr/lib/news/bin

inn_as_news() {
	setpriv --reuid=news --regid=news --init-groups env INNCONF="${URLGET_CI_DIR}/inn/etc/inn.conf" "$@"
}

# inn_exec_news replaces the (background) shell with the daemon, so that $!
# is the daemon's own PID.
inn_exec_news() {
	exec setpriv --reuid=news --regid=news --init-groups env INNCONF="${URLGET_CI_DIR}/inn/etc/inn.conf" "$@"
}

inn_install() {
	if dpkg-query -W -f='${Status}' inn2 2>/dev/null | grep -q 'install ok installed'; then
		return 0
	fi
	# Keep the package from starting the machine's own innd on port 119
	# while it installs (invoke-rc.d honours policy-rc.d).
	local policy=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d
		policy=1
	fi
	# The post-install step fails when the host name has no domain: it
	# then needs "domain:" in inn.conf and a second configure run.
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq inn2 >/dev/null || true
	if ! dpkg-query -W -f='${Status}' inn2 2>/dev/null | grep -q 'install ok installed'; then
		sed -i 's/^#\{0,1\}domain:.*/domain:                      localdomain/' /etc/news/inn.conf
		DEBIAN_FRONTEND=noninteractive dpkg --configure inn2 >/dev/null
	fi
	if [ -n "$policy" ]; then
		rm -f /usr/sbin/policy-rc.d
	fi
}

inn_wait_port() {
	local port=$1 i
	for i in $(seq 1 100); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			return 0
		fi
		sleep 0.2
	done
	echo "inn: nothing listens on 127.0.0.1:$port" >&2
	return 1
}

start_inn() {
	local port
	for port in "$URLGET_INN_PORT" "$URLGET_INN_AUTH_PORT"; do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "inn: 127.0.0.1:$port is already taken" >&2
			return 1
		fi
	done
	inn_install
	local d="${URLGET_CI_DIR}/inn"
	rm -rf "$d"
	# The daemons run as news and must reach their files below the
	# scratch directory, which mktemp made private.
	chmod o+x "${URLGET_CI_DIR}"
	mkdir -p "$d"/{etc,db,run,log,http,spool/{articles,overview,incoming/tmp,outgoing,archive,innfeed}}
	cp -a /etc/news/. "$d/etc/"

	# inn.conf: every path under $d, listening on loopback only.
	local conf="$d/etc/inn.conf" key
	sed -i -e '/^domain:/d' -e '/^pathhost:/d' -e '/^port:/d' -e '/^bindaddress/d' \
		-e '/^pgpverify:/d' -e '/^maxartsize:/d' -e '/^localmaxartsize:/d' -e '/^nnrpdposthost:/d' \
		-e '/^nnrpdpostport:/d' -e '/^nnrpdloadlimit:/d' -e '/^path\(archive\|articles\|db\|etc\|filter\|http\|incoming\|log\|outgoing\|overview\|run\|spool\|tmp\):/d' "$conf"
	cat >>"$conf" <<-EOF
		domain:          urlget.test
		pathhost:        inn.urlget.test
		port:            ${URLGET_INN_PORT}
		bindaddress:     127.0.0.1
		bindaddress6:    "::1"
		pgpverify:       false
		maxartsize:      0
		localmaxartsize: 0
		nnrpdposthost:   127.0.0.1
		nnrpdpostport:   ${URLGET_INN_PORT}
		nnrpdloadlimit:  0
		pathetc:         $d/etc
		pathfilter:      $d/etc/filter
		pathdb:          $d/db
		pathrun:         $d/run
		pathlog:         $d/log
		pathhttp:        $d/http
		pathspool:       $d/spool
		patharticles:    $d/spool/articles
		pathoverview:    $d/spool/overview
		pathincoming:    $d/spool/incoming
		pathtmp:         $d/spool/incoming/tmp
		pathoutgoing:    $d/spool/outgoing
		patharchive:     $d/spool/archive
	EOF

	# Articles from 127.0.0.1 are fed by IHAVE; everyone on loopback reads.
	cat >"$d/etc/incoming.conf" <<-EOF
		streaming: true
		max-connections: 8
		peer ME {
		  hostname: "localhost, 127.0.0.1, ::1"
		}
	EOF
	cat >"$d/etc/readers.conf" <<-EOF
		auth "loopback" {
		  hosts: "localhost, 127.0.0.1, ::1, stdin"
		  default: "<loopback>"
		}
		access "loopback" {
		  users: "<loopback>"
		  newsgroups: "*"
		  access: RPA
		}
	EOF
	# The authenticating reader: nobody reads without AUTHINFO.
	URLGET_INN_USER=urlget
	URLGET_INN_PASSWORD="news-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
	# crypt(3) SHA-512 through perl, which INN itself depends on.
	local salt
	salt="$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
	printf '%s:%s\n' "$URLGET_INN_USER" \
		"$(perl -e 'print crypt($ARGV[0], "\$6\$$ARGV[1]\$")' "$URLGET_INN_PASSWORD" "$salt")" >"$d/etc/newsusers"
	cat >"$d/etc/readers-auth.conf" <<-EOF
		auth "users" {
		  auth: "ckpasswd -f $d/etc/newsusers"
		}
		access "users" {
		  users: "$URLGET_INN_USER"
		  newsgroups: "*"
		  access: RPA
		}
	EOF
	cat >"$d/etc/newsfeeds" <<-EOF
		ME:!*/!local::
	EOF
	cat >"$d/etc/storage.conf" <<-EOF
		method tradspool {
		  newsgroups: *
		  class: 0
		}
	EOF

	printf '%s\n' 'control 0000000000 0000000001 n' 'control.cancel 0000000000 0000000001 n' \
		'junk 0000000000 0000000001 n' >"$d/db/active"
	: >"$d/db/active.times"
	: >"$d/db/newsgroups"
	: >"$d/db/history"
	: >"$d/spool/tradspool.map"
	chown -R news:news "$d"
	(cd "$d/db" && inn_as_news "$INN_BIN/makedbz" -i -o)

	inn_exec_news "$INN_BIN/innd" -f >"$d/log/innd.out" 2>&1 &
	echo $! >"${URLGET_CI_DIR}/inn.pid"
	disown $!
	inn_wait_port "$URLGET_INN_PORT"
	# ctlinnd needs innd's control socket, made once innd is ready.
	local i
	for i in $(seq 1 100); do
		inn_as_news "$INN_BIN/ctlinnd" -s -t 2 mode >/dev/null 2>&1 && break
		sleep 0.2
	done

	# urlget.test.mirror is the recursive retrieval test's own, so that
	# the articles other tests post do not change what it mirrors.
	URLGET_INN_GROUPS="urlget.test urlget.test.empty urlget.test.big urlget.test.mirror"
	local g
	for g in $URLGET_INN_GROUPS; do
		inn_as_news "$INN_BIN/ctlinnd" -s newgroup "$g" y urlget
	done
	inn_as_news "$INN_BIN/ctlinnd" -s newgroup urlget.test.moderated m urlget
	printf 'urlget.test\turlget integration tests\nurlget.test.empty\tA group with no articles\n' >>"$d/db/newsgroups"
	URLGET_INN_GROUPS="$URLGET_INN_GROUPS urlget.test.moderated"

	inn_exec_news "$INN_BIN/nnrpd" -D -f -n -b 127.0.0.1 -p "$URLGET_INN_AUTH_PORT" -c "$d/etc/readers-auth.conf" \
		>"$d/log/nnrpd.out" 2>&1 &
	echo $! >"${URLGET_CI_DIR}/inn-nnrpd.pid"
	disown $!
	inn_wait_port "$URLGET_INN_AUTH_PORT"

	export URLGET_INN_ADDR="127.0.0.1:${URLGET_INN_PORT}"
	export URLGET_INN_AUTH_ADDR="127.0.0.1:${URLGET_INN_AUTH_PORT}"
	export URLGET_INN_USER URLGET_INN_PASSWORD URLGET_INN_GROUPS
}

stop_inn() {
	local f pid
	for f in "${URLGET_CI_DIR}/inn-nnrpd.pid" "${URLGET_CI_DIR}/inn.pid"; do
		[ -e "$f" ] || continue
		pid="$(cat "$f")"
		if [ "$f" = "${URLGET_CI_DIR}/inn.pid" ]; then
			# innd closes its files and exits on "ctlinnd shutdown".
			inn_as_news "$INN_BIN/ctlinnd" -s -t 5 shutdown "urlget CI ends" >/dev/null 2>&1 ||
				kill "$pid" 2>/dev/null || true
		else
			kill "$pid" 2>/dev/null || true
		fi
		for _ in $(seq 1 100); do
			# Gone, or a zombie its parent has not reaped yet.
			case "$(ps -o stat= -p "$pid" 2>/dev/null)" in
			"" | Z*) break ;;
			esac
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
		rm -f "$f"
	done
}
