# nginx for urlget's http integration tests and the http benchmark: a private
# instance with its own configuration, prefix and pid file under
# ${URLGET_CI_DIR}, listening on 127.0.0.1 only, serving a root directory that
# the tests write their files into. Sourced by .ci/run and bench/http.sh.
#
# Exports:
#   URLGET_NGINX_URL      base URL, e.g. http://127.0.0.1:18080
#   URLGET_NGINX_TLS_URL  the same root over TLS (HTTP/1.1), e.g.
#                         https://127.0.0.1:18443
#   URLGET_NGINX_CERT     its self-signed certificate (PEM, for 127.0.0.1)
#   URLGET_NGINX_ROOT     the document root (autoindex on, sendfile on,
#                         gzip on for every type when asked)
#   URLGET_NGINX_MIRROR_LOG  the access log of the requests below /mirror/
#                         (the recursive retrieval tests read it): one line
#                         each, "METHOD STATUS BYTES URI", written as each
#                         request ends; nothing else is logged
# Ports: ${URLGET_NGINX_PORT:-18080}, ${URLGET_NGINX_TLS_PORT:-18443}.

start_nginx() {
	local dir="${URLGET_CI_DIR:?URLGET_CI_DIR must be set}/nginx"
	local port="${URLGET_NGINX_PORT:-18080}"
	local tls_port="${URLGET_NGINX_TLS_PORT:-18443}"
	local bin
	bin="$(command -v nginx || true)"
	if [ -z "$bin" ] && [ -x /usr/sbin/nginx ]; then
		bin=/usr/sbin/nginx
	fi
	if [ -z "$bin" ]; then
		# The tests use only the private instance started below, whatever
		# the package does with the system-wide one.
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
		bin=/usr/sbin/nginx
	fi
	mkdir -p "$dir/root" "$dir/tmp" "$dir/logs"
	if ! command -v openssl >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssl >/dev/null
	fi
	if ! [ -s "$dir/cert.pem" ]; then
		openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
			-addext subjectAltName=IP:127.0.0.1 \
			-keyout "$dir/key.pem" -out "$dir/cert.pem" >/dev/null 2>&1
	fi
	chmod 0755 "$dir" "$dir/root"
	local user_line=""
	if [ "$(id -u)" = 0 ]; then
		# Workers otherwise drop to "nobody", which cannot read the files
		# the tests create in a private temporary directory.
		user_line="user root root;"
	fi
	local mime_types=""
	if [ -r /etc/nginx/mime.types ]; then
		mime_types="include /etc/nginx/mime.types;"
	fi
	cat >"$dir/nginx.conf" <<CONF
daemon on;
$user_line
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 512; }
http {
	$mime_types
	default_type application/octet-stream;
	access_log off;
	# The recursive retrieval tests show from this log which files a run
	# transferred (a 200 with a body) and which it only checked (304).
	log_format urlget_mirror '\$request_method \$status \$body_bytes_sent \$request_uri';
	sendfile on;
	tcp_nopush on;
	keepalive_requests 100000;
	# Compressed only for a client that asks (Accept-Encoding), which
	# urlget does with --compressed alone: the other tests see the bytes
	# as stored, with ranges and sendfile.
	gzip on;
	gzip_types *;
	client_body_temp_path $dir/tmp/client;
	proxy_temp_path $dir/tmp/proxy;
	fastcgi_temp_path $dir/tmp/fastcgi;
	uwsgi_temp_path $dir/tmp/uwsgi;
	scgi_temp_path $dir/tmp/scgi;
	server {
		listen 127.0.0.1:$port;
		listen 127.0.0.1:$tls_port ssl;
		ssl_certificate $dir/cert.pem;
		ssl_certificate_key $dir/key.pem;
		server_name localhost;
		root $dir/root;
		autoindex on;
		location / { }
		location /mirror/ { access_log $dir/logs/mirror.log urlget_mirror; }
	}
}
CONF
	"$bin" -e "$dir/logs/error.log" -p "$dir" -c "$dir/nginx.conf"
	local i
	for i in $(seq 1 100); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			break
		fi
		if [ "$i" = 100 ]; then
			echo "nginx did not start listening on 127.0.0.1:$port" >&2
			cat "$dir/logs/error.log" >&2 || true
			return 1
		fi
		sleep 0.1
	done
	cp "$dir/nginx.pid" "$URLGET_CI_DIR/nginx.pid"
	export URLGET_NGINX_URL="http://127.0.0.1:$port"
	export URLGET_NGINX_TLS_URL="https://127.0.0.1:$tls_port"
	export URLGET_NGINX_CERT="$dir/cert.pem"
	export URLGET_NGINX_ROOT="$dir/root"
	export URLGET_NGINX_MIRROR_LOG="$dir/logs/mirror.log"
}

stop_nginx() {
	local pidfile="${URLGET_CI_DIR:?}/nginx.pid"
	if [ -s "$pidfile" ]; then
		local pid
		pid="$(cat "$pidfile")"
		kill "$pid" 2>/dev/null || true
		local i
		for i in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		rm -f "$pidfile"
	fi
}
