# bash completion for urlget. Made by go generate (internal/cli/gendoc); do not edit.
_urlget() {
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	case $prev in
	--output|-o|--output-dir|--netrc-file|--cacert|--dump-header|-D|--config|-K)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--url|--user|-u|--continue-at|-C|--max-time|-m|--connect-timeout|--speed-limit|-Y|--speed-time|-y|--retry|--retry-delay|--retry-max-time|--max-filesize|--write-out|-w|--search|--ftp-method|--ftp-port|-P|--ftp-anon-pass|--nntp-server|--max-articles|--user-agent|-A|--max-redirs|--proxy|-x|--noproxy|--proxy-user|-U|--header|-H|--referer|-e|--resolve|--parallel-max|--parallel-host|--parallel-max-host|--limit-rate|--level|--accept|--reject|--accept-regex|--reject-regex|--domains|--schemes|--cut-dirs|--max-delete|--execute|--wait|--max-entries|--request|-X|--url-query|--request-target|--oauth2-bearer|--proxy-header)
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '--url --output --remote-name --remote-name-all --output-dir --create-dirs --silent --show-error --verbose --user --netrc --netrc-optional --netrc-file --location-trusted --continue-at --max-time --connect-timeout --speed-limit --speed-time --retry --retry-delay --retry-max-time --max-filesize --head --write-out --json --raw --insecure --cacert --search --ftp-method --ssl-reqd --ftp-port --ftp-anon-pass --ftp-sync --nntp-server --max-articles --user-agent --max-redirs --proxy --noproxy --proxy-user --proxytunnel --location --fail --fail-with-body --header --referer --compressed --include --dump-header --remote-header-name --resolve --ipv4 --ipv6 --parallel --parallel-max --parallel-host --parallel-max-host --help --version --globoff --config --disable --limit-rate --recursive --mirror --level --no-parent --accept --reject --accept-regex --reject-regex --span-hosts --domains --schemes --no-host-directories --cut-dirs --timestamping --delete --delete-emptied --max-delete --dry-run --convert-links --execute --wait --random-wait --max-entries --request --get --url-query --path-as-is --request-target --http1.0 --http1.1 --http2 --http2-prior-knowledge --http0.9 --tr-encoding --ignore-content-length --basic --digest --anyauth --oauth2-bearer --proxy-basic --proxy-digest --proxy-anyauth --proxy-header -o -O -s -S -v -u -n -C -m -Y -y -I -w -k -P -A -x -U -p -L -f -H -e -i -D -J -4 -6 -Z -h -V -g -K -q -r -N -X -G -0' -- "$cur"))
		return
	fi
	if [[ $COMP_CWORD == 1 ]]; then
		COMPREPLY=($(compgen -W 'parse resolve normalize equal' -- "$cur"))
	fi
}
complete -o default -F _urlget urlget
