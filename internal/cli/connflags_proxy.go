package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
)

// proxyNames are curl's proxy flags besides -x: the SOCKS proxies by
// name (--socks5-hostname HOST is -x socks5h://HOST), --proxy1.0, and
// --preproxy, a SOCKS proxy on the way to the HTTP proxy.
type proxyNames struct {
	seq      int    // the order the proxy flags were given in
	proxyAt  int    // when -x was given last
	named    string // the proxy of the last --socks*/--proxy1.0, as -x would take it
	namedAt  int
	http10   bool // the last one was --proxy1.0
	preproxy string
	basic    bool // --socks5-basic: the default
	suppress bool // --suppress-connect-headers
}

// orderedValue records when a flag was set, so that the last of -x and
// its shorthands wins, as in curl.
type orderedValue struct {
	pflag.Value
	seq *int
	at  *int
}

func (v orderedValue) Set(s string) error {
	*v.seq++
	*v.at = *v.seq
	return v.Value.Set(s)
}

// namedProxy is one of --socks4, --socks4a, --socks5, --socks5-hostname
// and --proxy1.0: a proxy given with its kind in the flag's name.
type namedProxy struct {
	p      *proxyNames
	scheme string
}

func (v namedProxy) Set(s string) error {
	v.p.seq++
	v.p.namedAt = v.p.seq
	v.p.http10 = v.scheme == "http"
	if !strings.Contains(s, "://") {
		s = v.scheme + "://" + s
	}
	v.p.named = s
	return nil
}
func (v namedProxy) String() string { return "" }
func (v namedProxy) Type() string   { return "host[:port]" }

func addProxyNameFlags(fs *pflag.FlagSet, p *proxyNames) {
	if f := fs.Lookup("proxy"); f != nil {
		f.Value = orderedValue{Value: f.Value, seq: &p.seq, at: &p.proxyAt}
	}
	fs.Var(namedProxy{p, "socks4"}, "socks4", "go through the SOCKS4 proxy `host[:port]`, resolving names here (as -x socks4://)")
	fs.Var(namedProxy{p, "socks4a"}, "socks4a", "go through the SOCKS4a proxy `host[:port]`, which resolves names (as -x socks4a://)")
	fs.Var(namedProxy{p, "socks5"}, "socks5", "go through the SOCKS5 proxy `host[:port]`, resolving names here (as -x socks5://)")
	fs.Var(namedProxy{p, "socks5h"}, "socks5-hostname", "go through the SOCKS5 proxy `host[:port]`, which resolves names (as -x socks5h://)")
	fs.Var(namedProxy{p, "http"}, "proxy1.0", "go through the HTTP proxy `host[:port]`, asking CONNECT in HTTP/1.0")
	fs.StringVar(&p.preproxy, "preproxy", "", "reach the HTTP proxy through the SOCKS proxy `[scheme://]host[:port]` (socks4 without a scheme)")
	fs.BoolVar(&p.basic, "socks5-basic", false, "SOCKS5 with user name and password (RFC 1929), the default")
	fs.BoolVar(&p.suppress, "suppress-connect-headers", false, "leave the proxy's answer to an https: URL's CONNECT out of -i and -D")
	curlNote(fs, "socks5-basic", "no-op: user name and password, or none, are the only SOCKS5 methods offered")
	curlNote(fs, "suppress-connect-headers", "https: URLs only: a -p tunnel's or --proxy1.0's CONNECT answer is never in -i or -D output")
	curlNote(fs, "preproxy", "reaches an http or https proxy only; a SOCKS -x is reached directly")
}

// check makes the last of -x and the named proxies the proxy, and reads
// --preproxy.
func (p *proxyNames) check(fs *pflag.FlagSet, o *options) error {
	if p.named != "" && p.namedAt > p.proxyAt {
		if _, err := fetch.ParseProxy(p.named); err != nil {
			return err
		}
		// Through the flag, so that -x's own reading (and Changed)
		// holds.
		if err := fs.Set("proxy", p.named); err != nil {
			return err
		}
	} else {
		p.http10 = false
	}
	if p.preproxy != "" {
		s := p.preproxy
		if !strings.Contains(s, "://") {
			s = "socks4://" + s // curl's default kind for --preproxy
		}
		px, err := fetch.ParseProxy(s)
		if err != nil {
			return fmt.Errorf("--preproxy: %v", err)
		}
		if k := px.URL.Scheme(); !strings.HasPrefix(k, "socks") {
			return fmt.Errorf("--preproxy %s: a pre-proxy is a SOCKS proxy, not %s", px.URL.Redacted(), k)
		}
		p.preproxy = s
	}
	return nil
}

// configure sets the pre-proxy and HTTP/1.0 CONNECT on the client.
func (p *proxyNames) configure(o *options, cl *fetch.Client) error {
	if p.preproxy != "" {
		px, _ := fetch.ParseProxy(p.preproxy)
		cl.PreProxy = px
	}
	if p.http10 && cl.Proxy != nil {
		// --proxy1.0 is -x's proxy with HTTP/1.0 CONNECTs.
		policy := cl.Proxy
		cl.Proxy = fetch.ConnectHTTP10(policy)
	}
	return nil
}
