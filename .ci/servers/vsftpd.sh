# vsftpd for urlget's ftp integration tests and the ftp benchmark: a private
# instance with its own configuration under ${URLGET_CI_DIR}, listening on
# 127.0.0.1 only, with anonymous read-only access and one local user with a
# password, explicit TLS offered (not required). Sourced by .ci/run and
# bench/ftp.sh; the tests write the tree they fetch into the exported roots.
#
# Exports:
#   URLGET_VSFTPD_ADDR  host:port, e.g. 127.0.0.1:2121
#   URLGET_VSFTPD_ROOT  the anonymous root (what ftp://host/ shows)
#   URLGET_VSFTPD_USER, URLGET_VSFTPD_PASS  the local user
#   URLGET_VSFTPD_HOME  the local user's login directory, as a local path;
#                       the server shows it as /home/$URLGET_VSFTPD_USER
#                       inside a chroot at URLGET_VSFTPD_CHROOT
#   URLGET_VSFTPD_CHROOT
#   URLGET_VSFTPD_CERT  the server's self-signed certificate (PEM)
#   URLGET_VSFTPD_LOG   its transfer log (vsftpd's own format: a line
#                       "OK DOWNLOAD: Client ..., "/path", N bytes" for
#                       each file sent, none for listings)
# Port: ${URLGET_VSFTPD_PORT:-2121}; passive ports
# ${URLGET_VSFTPD_PASV_PORTS:-30000-30999}. URLGET_VSFTPD_PASV_ADDRESS, when
# set, is the address PASV replies name instead of 127.0.0.1 (bench/mirror.sh
# puts a delaying proxy there).

# shellcheck source=.ci/servers/listen.bash
source "$(dirname "${BASH_SOURCE[0]}")/listen.bash"

start_vsftpd() {
	local dir="${URLGET_CI_DIR:?URLGET_CI_DIR must be set}/vsftpd"
	local port="${URLGET_VSFTPD_PORT:-2121}"
	ci_port_free vsftpd "$port" || return 1
	# One system account per port: the account's home names the instance's
	# chroot, so instances started side by side (CI, the benchmark) must
	# not share an account, or the last one started takes it from the rest.
	local user="${URLGET_VSFTPD_USER:-urlgetftp$port}"
	local pass="urlget-ftp-test"
	local pasv="${URLGET_VSFTPD_PASV_PORTS:-30000-30999}" pasv_address=""
	if [ -n "${URLGET_VSFTPD_PASV_ADDRESS:-}" ]; then
		pasv_address="pasv_address=$URLGET_VSFTPD_PASV_ADDRESS"
	fi
	if ! [ -x /usr/sbin/vsftpd ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq vsftpd openssl >/dev/null
	fi
	# The package's own instance (if its init script started one) listens
	# on port 21; ours is separate and private.
	# vsftpd enters the local user's home with the user's own rights:
	# the scratch directory (mode 0700 from mktemp) must be traversable.
	chmod o+x "${URLGET_CI_DIR}"
	mkdir -p "$dir/root" "$dir/empty" "$dir/chroot/home/$user" "$dir/log"
	chmod 0755 "$dir" "$dir/root" "$dir/chroot" "$dir/chroot/home" "$dir/chroot/home/$user"
	chmod 0555 "$dir/empty"
	if ! id "$user" >/dev/null 2>&1; then
		useradd --no-create-home --shell /bin/sh --home-dir "$dir/chroot/./home/$user" "$user"
		# stop_vsftpd removes the account again, as it was not there.
		echo "$user" >"${URLGET_CI_DIR}/vsftpd.user"
	else
		usermod --home "$dir/chroot/./home/$user" "$user" >/dev/null 2>&1 || true
	fi
	echo "$user:$pass" | chpasswd
	if ! [ -s "$dir/cert.pem" ]; then
		openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
			-addext subjectAltName=IP:127.0.0.1 \
			-keyout "$dir/key.pem" -out "$dir/cert.pem" >/dev/null 2>&1
	fi
	# A PAM service of its own: local users checked against the password
	# file without the failure delay, so that login-failure tests are quick.
	cat >/etc/pam.d/urlget-vsftpd <<'PAM'
auth	required	pam_unix.so nodelay
account	required	pam_unix.so
session	required	pam_permit.so
PAM
	cat >"$dir/vsftpd.conf" <<CONF
listen=YES
listen_ipv6=NO
listen_address=127.0.0.1
listen_port=$port
background=NO
anonymous_enable=YES
anon_root=$dir/root
no_anon_password=NO
anon_world_readable_only=YES
local_enable=YES
chroot_local_user=YES
passwd_chroot_enable=YES
write_enable=NO
ascii_download_enable=YES
pasv_enable=YES
pasv_min_port=${pasv%-*}
pasv_max_port=${pasv#*-}
$pasv_address
port_enable=YES
connect_from_port_20=NO
secure_chroot_dir=$dir/empty
pam_service_name=urlget-vsftpd
delay_failed_login=0
seccomp_sandbox=NO
max_clients=200
max_per_ip=200
utf8_filesystem=YES
dirmessage_enable=NO
xferlog_enable=YES
vsftpd_log_file=$dir/log/vsftpd.log
log_ftp_protocol=NO
ssl_enable=YES
allow_anon_ssl=YES
force_local_data_ssl=NO
force_local_logins_ssl=NO
force_anon_data_ssl=NO
force_anon_logins_ssl=NO
require_ssl_reuse=YES
ssl_ciphers=HIGH
rsa_cert_file=$dir/cert.pem
rsa_private_key_file=$dir/key.pem
CONF
	/usr/sbin/vsftpd "$dir/vsftpd.conf" >"$dir/log/stderr.log" 2>&1 &
	echo $! >"${URLGET_CI_DIR}/vsftpd.pid"
	ci_wait_listen vsftpd "$!" "$port" "$dir/log/stderr.log" "$dir/log/vsftpd.log" || return 1
	export URLGET_VSFTPD_ADDR="127.0.0.1:$port"
	export URLGET_VSFTPD_ROOT="$dir/root"
	export URLGET_VSFTPD_USER="$user"
	export URLGET_VSFTPD_PASS="$pass"
	export URLGET_VSFTPD_CHROOT="$dir/chroot"
	export URLGET_VSFTPD_HOME="$dir/chroot/home/$user"
	export URLGET_VSFTPD_CERT="$dir/cert.pem"
	export URLGET_VSFTPD_LOG="$dir/log/vsftpd.log"
}

stop_vsftpd() {
	local pidfile="${URLGET_CI_DIR:?}/vsftpd.pid"
	if [ -s "$pidfile" ]; then
		kill "$(cat "$pidfile")" 2>/dev/null || true
		rm -f "$pidfile"
	fi
	# The account start_vsftpd made, if it made one. Session processes
	# still ending may hold it for a moment: wait for them, boundedly.
	local userfile="${URLGET_CI_DIR}/vsftpd.user" i
	if [ -s "$userfile" ]; then
		for i in $(seq 1 20); do
			userdel "$(cat "$userfile")" 2>/dev/null && break
			sleep 0.1
		done
		rm -f "$userfile"
	fi
}
