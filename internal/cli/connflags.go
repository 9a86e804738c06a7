package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
)

// connOptions holds the flags of connections: TLS identity and versions, pinned keys, the proxy's own TLS, where and how to connect, SOCKS proxies by name.
type connOptions struct {
	tls      tlsFlags // the server's: -E, --key, --ciphers, --tlsv1.2, …
	proxyTLS tlsFlags // an https proxy's: --proxy-cert, --proxy-insecure, …

	noSessionID bool // --no-sessionid
	noALPN      bool // --no-alpn

	net  netFlags   // --connect-to, --interface, --local-port, …
	prox proxyNames // --socks5-hostname, --preproxy, --proxy1.0, …
}

// noOps are curl's TLS switches that ask for what Go's TLS already does,
// or that only another TLS library than curl's OpenSSL has: accepted, and
// each says why it changes nothing.
var noOps = []struct{ name, help, note string }{
	{"ssl-no-revoke", "do not check certificate revocation (Schannel's)", "no-op: revocation is checked only with --crlfile, as curl with OpenSSL"},
	{"ssl-revoke-best-effort", "ignore missing revocation data (Schannel's)", "no-op: revocation is checked only with --crlfile, as curl with OpenSSL"},
	{"ssl-allow-beast", "allow the BEAST attack (TLS 1.0 CBC)", "no-op: Go always splits TLS 1.0 CBC records against BEAST"},
	{"proxy-ssl-allow-beast", "allow the BEAST attack with an https proxy", "no-op: Go always splits TLS 1.0 CBC records against BEAST"},
	{"ssl-auto-client-cert", "present a client certificate from the system store (Schannel's)", "no-op: there is no system certificate store to take one from; use -E"},
	{"proxy-ssl-auto-client-cert", "present a client certificate from the system store to an https proxy (Schannel's)", "no-op: there is no system certificate store to take one from; use --proxy-cert"},
	{"no-npn", "do not offer NPN", "no-op: Go's TLS never offers NPN"},
	{"false-start", "TLS false start", "no-op: Go's TLS does not do false start; the handshake completes first"},
}

// addConnFlags defines the flags of connections: TLS identity and versions, pinned keys, the proxy's own TLS, where and how to connect, SOCKS proxies by name.
func addConnFlags(fs *pflag.FlagSet, o *options) {
	x := &o.conn
	addTLSFlags(fs, &x.tls, "")
	addTLSFlags(fs, &x.proxyTLS, "proxy-")
	fs.BoolVar(&x.noSessionID, "no-sessionid", false, "resume no TLS session: a full handshake on every connection")
	fs.BoolVar(&x.noALPN, "no-alpn", false, "https: do not offer HTTP/2 by ALPN")
	curlNote(fs, "no-alpn", "ALPN still names http/1.1, which changes nothing a server can choose")
	for _, n := range noOps {
		fs.Bool(n.name, false, n.help)
		curlNote(fs, n.name, n.note)
	}
	addNetFlags(fs, &x.net)
	addProxyNameFlags(fs, &x.prox)
}

// checkConnFlags checks those flags once parsed.
func checkConnFlags(fs *pflag.FlagSet, o *options) error {
	x := &o.conn
	if err := x.tls.check(""); err != nil {
		return err
	}
	if err := x.proxyTLS.check("proxy-"); err != nil {
		return err
	}
	if err := x.net.check(fs); err != nil {
		return err
	}
	if x.noALPN {
		o.http.HTTP1Only = true
	}
	// curl's -i and -D show the proxy's answer to CONNECT before the
	// site's response, unless --suppress-connect-headers.
	o.http.ConnectResponses = !x.prox.suppress && (o.include || o.dumpHeader != "")
	return x.prox.check(fs, o)
}

// configure sets those flags on the client.
func (x *connOptions) configure(o *options, cl *fetch.Client) error {
	if err := x.tls.apply(cl.TLSConfig, ""); err != nil {
		return err
	}
	if x.noSessionID {
		cl.TLSConfig.SessionTicketsDisabled = true
	}
	// curl's -k and --cacert are the server's: an https proxy has its
	// own (--proxy-insecure, --proxy-cacert), and the system's roots
	// otherwise.
	p, err := tlsConfig(x.proxyTLS.insecure, x.proxyTLS.cacert)
	if err != nil {
		return fmt.Errorf("proxy: %v", err)
	}
	if err := x.proxyTLS.apply(p, "proxy-"); err != nil {
		return err
	}
	if x.noSessionID {
		p.SessionTicketsDisabled = true
	}
	cl.ProxyTLSConfig = p
	if err := x.net.configure(o, cl); err != nil {
		return err
	}
	return x.prox.configure(o, cl)
}

// connCategories are the --help categories of the flags of connections,
// added to flagCategories.
var connCategories = map[string]string{
	"cert": "tls auth", "cert-type": "tls", "key": "tls auth", "key-type": "tls", "pass": "tls auth",
	"ciphers": "tls", "curves": "tls", "tls13-ciphers": "tls", "capath": "tls", "crlfile": "tls", "pinnedpubkey": "tls",
	"cert-status": "tls", "tlsv1": "tls", "tlsv1.0": "tls", "tlsv1.1": "tls", "tlsv1.2": "tls", "tlsv1.3": "tls",
	"tls-max": "tls", "no-sessionid": "tls", "no-alpn": "tls http",
	"ssl-no-revoke": "tls", "ssl-revoke-best-effort": "tls", "ssl-allow-beast": "tls", "ssl-auto-client-cert": "tls",
	"no-npn": "tls", "false-start": "tls",

	"proxy-cert": "proxy tls", "proxy-cert-type": "proxy tls", "proxy-key": "proxy tls", "proxy-key-type": "proxy tls",
	"proxy-pass": "proxy tls", "proxy-ciphers": "proxy tls", "proxy-tls13-ciphers": "proxy tls", "proxy-capath": "proxy tls",
	"proxy-crlfile": "proxy tls", "proxy-pinnedpubkey": "proxy tls", "proxy-tlsv1": "proxy tls", "proxy-insecure": "proxy tls",
	"proxy-cacert": "proxy tls", "proxy-ssl-allow-beast": "proxy tls", "proxy-ssl-auto-client-cert": "proxy tls",

	"connect-to": "connection dns", "interface": "connection", "local-port": "connection",
	"unix-socket": "connection", "abstract-unix-socket": "connection", "keepalive-time": "connection",
	"no-keepalive": "connection", "tcp-nodelay": "connection", "tcp-fastopen": "connection",
	"happy-eyeballs-timeout-ms": "connection",

	"socks4": "proxy", "socks4a": "proxy", "socks5": "proxy", "socks5-hostname": "proxy", "socks5-basic": "proxy",
	"preproxy": "proxy", "proxy1.0": "proxy", "suppress-connect-headers": "proxy",
}

func init() {
	for name, cats := range connCategories {
		flagCategories[name] = cats
	}
}
