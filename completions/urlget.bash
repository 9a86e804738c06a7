# bash completion for urlget. Made by go generate (internal/cli/gendoc); do not edit.
_urlget() {
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	case $prev in
	--output|-o|--output-dir|--netrc-file|--cacert|--dump-header|-D|--config|-K|--hsts|--cookie-jar|-c|--etag-save|--etag-compare|--key|--capath|--crlfile|--proxy-cacert|--proxy-key|--proxy-capath|--proxy-crlfile|--stderr|--trace|--trace-ascii)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--url|--user|-u|--continue-at|-C|--max-time|-m|--connect-timeout|--speed-limit|-Y|--speed-time|-y|--retry|--retry-delay|--retry-max-time|--max-filesize|--write-out|-w|--search|--ftp-method|--ftp-port|-P|--ftp-anon-pass|--nntp-server|--max-articles|--user-agent|-A|--max-redirs|--proxy|-x|--noproxy|--proxy-user|-U|--header|-H|--referer|-e|--resolve|--parallel-max|--parallel-host|--parallel-max-host|--limit-rate|--level|--accept|--reject|--accept-regex|--reject-regex|--domains|--schemes|--cut-dirs|--max-delete|--execute|--wait|--max-entries|--range|-r|--json|--time-cond|-z|--cookie|-b|--cert|-E|--cert-type|--key-type|--pass|--ciphers|--tls13-ciphers|--pinnedpubkey|--tls-max|--curves|--proxy-cert|--proxy-cert-type|--proxy-key-type|--proxy-pass|--proxy-ciphers|--proxy-tls13-ciphers|--proxy-pinnedpubkey|--connect-to|--interface|--local-port|--unix-socket|--abstract-unix-socket|--keepalive-time|--happy-eyeballs-timeout-ms|--socks4|--socks4a|--socks5|--socks5-hostname|--proxy1.0|--preproxy|--quote|-Q|--ftp-account|--ftp-alternative-to-user|--ftp-ssl-ccc-mode|--proto|--proto-redir|--proto-default|--rate)
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '--url --output --remote-name --remote-name-all --output-dir --create-dirs --silent --show-error --verbose --user --netrc --netrc-optional --netrc-file --location-trusted --continue-at --max-time --connect-timeout --speed-limit --speed-time --retry --retry-delay --retry-max-time --max-filesize --head --write-out --json-lines --raw-listing --insecure --cacert --search --ftp-method --ssl-reqd --ftp-port --ftp-anon-pass --ftp-sync --nntp-server --max-articles --user-agent --max-redirs --proxy --noproxy --proxy-user --proxytunnel --location --fail --fail-with-body --header --referer --compressed --include --dump-header --remote-header-name --resolve --ipv4 --ipv6 --parallel --parallel-max --parallel-host --parallel-max-host --next --help --version --globoff --config --disable --limit-rate --hsts --recursive --mirror --level --no-parent --accept --reject --accept-regex --reject-regex --span-hosts --domains --schemes --no-host-directories --cut-dirs --timestamping --delete --delete-emptied --max-delete --dry-run --convert-links --execute --wait --random-wait --max-entries --range --no-buffer --buffer --raw --json --remote-time --time-cond --cookie --cookie-jar --junk-session-cookies --etag-save --etag-compare --cert --cert-type --key --key-type --pass --ciphers --tls13-ciphers --capath --crlfile --pinnedpubkey --tlsv1 --tlsv1.0 --tlsv1.1 --tlsv1.2 --tlsv1.3 --tls-max --cert-status --curves --proxy-cert --proxy-insecure --proxy-cacert --proxy-cert-type --proxy-key --proxy-key-type --proxy-pass --proxy-ciphers --proxy-tls13-ciphers --proxy-capath --proxy-crlfile --proxy-pinnedpubkey --proxy-tlsv1 --no-sessionid --no-alpn --ssl-no-revoke --ssl-revoke-best-effort --ssl-allow-beast --proxy-ssl-allow-beast --ssl-auto-client-cert --proxy-ssl-auto-client-cert --no-npn --false-start --connect-to --interface --local-port --unix-socket --abstract-unix-socket --keepalive-time --no-keepalive --tcp-nodelay --tcp-fastopen --happy-eyeballs-timeout-ms --socks4 --socks4a --socks5 --socks5-hostname --proxy1.0 --preproxy --socks5-basic --suppress-connect-headers --list-only --quote --use-ascii --ftp-pasv --ftp-skip-pasv-ip --disable-epsv --disable-eprt --ftp-pret --ftp-account --ftp-alternative-to-user --ssl --ftp-ssl --ftp-ssl-reqd --ftp-ssl-control --ftp-ssl-ccc --ftp-ssl-ccc-mode --retry-connrefused --retry-all-errors --fail-early --progress-bar --no-progress-meter --stderr --trace --trace-ascii --trace-time --no-clobber --remove-on-error --xattr --proto --proto-redir --proto-default --disallow-username-in-url --rate --parallel-immediate --manual --styled-output -o -O -s -S -v -u -n -C -m -Y -y -I -w -k -P -A -x -U -p -L -f -H -e -i -D -J -4 -6 -Z -: -h -V -g -K -q -r -N -R -z -b -c -j -E -1 -l -Q -B -# -M' -- "$cur"))
		return
	fi
	if [[ $COMP_CWORD == 1 ]]; then
		COMPREPLY=($(compgen -W 'parse resolve normalize equal' -- "$cur"))
	fi
}
complete -o default -F _urlget urlget
