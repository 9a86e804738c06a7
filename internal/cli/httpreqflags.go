package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
	httpscheme "github.com/urlget/urlget/schemes/http"
)

// httpReqOptions holds the flags of the shape of an http(s) request: method, query, target, protocol version, authentication, extra proxy fields, decoding.
type httpReqOptions struct {
	// get is -G: without the -d family it leaves the request a GET.
	get bool
	// query is what --url-query appends to every URL's query, the
	// parts joined by '&'; "" for none.
	query string
	// warnings are curl's warnings about files -H @FILE and
	// --url-query name@FILE could not read, printed as curl prints
	// them, unless -s, once the flags are read.
	warnings []string
}

// addHttpReqFlags defines the flags of the shape of an http(s) request: method, query, target, protocol version, authentication, extra proxy fields, decoding.
func addHttpReqFlags(fs *pflag.FlagSet, o *options) {
	fs.StringVarP(&o.http.Method, "request", "X", "", "send `method` in place of GET (http)")
	curlNote(fs, "request", "a token only, and for http(s) only: curl's FTP listing command in place of LIST is not sent")
	fs.BoolVarP(&o.httpReq.get, "get", "G", false, "send a GET (the -d family, which it turns into a query, is not supported)")
	curlNote(fs, "get", "urlget sends no data (-d), so -G only states the GET it sends anyway")
	fs.Var(urlQuery{&o.httpReq.query, &o.httpReq.warnings}, "url-query", "append `data` to each URL's query, url-encoded as curl's --data-urlencode ('+data' as it is)")
	fs.BoolVar(&o.http.PathAsIs, "path-as-is", false, "send the URL's path with its /./ and /../ as written (http)")
	curlNote(fs, "path-as-is", "dot segments are removed from http(s) paths only; other schemes send their paths as written")
	fs.StringVar(&o.http.RequestTarget, "request-target", "", "send `target` as the request target, e.g. '*' (http)")
	version := func(name, short string, v httpscheme.Version, usage string) {
		f := fs.VarPF(choiceFlag[httpscheme.Version]{&o.http.Version, v}, name, short, usage)
		f.NoOptDefVal = "true"
	}
	version("http1.0", "0", httpscheme.Version10, "speak HTTP/1.0")
	version("http1.1", "", httpscheme.Version11, "speak HTTP/1.1 only, not h2")
	version("http2", "", httpscheme.Version2, "speak HTTP/2 over TLS when the server agrees (the default)")
	curlNote(fs, "http2", "no upgrade to h2c over cleartext: http: URLs speak HTTP/1.1, as curl does when the server declines the upgrade")
	version("http2-prior-knowledge", "", httpscheme.Version2PriorKnowledge, "speak HTTP/2 from the first byte, over cleartext too")
	fs.BoolVar(&o.http.HTTP09, "http0.9", false, "take a response without a status line for an HTTP/0.9 one")
	curlNote(fs, "http0.9", "without it a response without a status line exits 8 (curl: 1)")
	fs.BoolVar(&o.http.TransferEncoding, "tr-encoding", false, "ask for a compressed transfer encoding (TE: gzip) and decode it")
	fs.BoolVar(&o.http.IgnoreContentLength, "ignore-content-length", false, "read the body until the connection ends, whatever its Content-Length")
	auth := func(name string, to *httpscheme.AuthScheme, v httpscheme.AuthScheme, usage string) {
		f := fs.VarPF(choiceFlag[httpscheme.AuthScheme]{to, v}, name, "", usage)
		f.NoOptDefVal = "true"
	}
	auth("basic", &o.http.Auth, httpscheme.AuthBasic, "send -u's credentials by HTTP Basic (the default)")
	auth("digest", &o.http.Auth, httpscheme.AuthDigest, "send -u's credentials by HTTP Digest (RFC 7616), answering the server's challenge")
	auth("anyauth", &o.http.Auth, httpscheme.AuthAny, "send -u's credentials by the strongest scheme the server offers (Digest, Basic)")
	curlNote(fs, "anyauth", "picks among Digest and Basic: NTLM and Negotiate are not supported")
	fs.StringVar(&o.http.Bearer, "oauth2-bearer", "", "send `token` as an OAuth 2.0 Bearer token (http)")
	auth("proxy-basic", &o.http.ProxyAuth, httpscheme.AuthBasic, "send --proxy-user's credentials by HTTP Basic (the default)")
	auth("proxy-digest", &o.http.ProxyAuth, httpscheme.AuthDigest, "send --proxy-user's credentials by HTTP Digest, answering the proxy's challenge")
	auth("proxy-anyauth", &o.http.ProxyAuth, httpscheme.AuthAny, "send --proxy-user's credentials by the strongest scheme the proxy offers")
	curlNote(fs, "proxy-anyauth", "picks among Digest and Basic: NTLM and Negotiate are not supported")
	fs.Var(headerList{&o.http.ProxyHeader, new([]string), &o.httpReq.warnings}, "proxy-header", "send header `'Name: value'` to an HTTP proxy only (@FILE reads them)")
}

// checkHttpReqFlags checks those flags once parsed. A method of HEAD
// given with -X gets curl's warning, on stderr unless -s: the response is
// read as a GET's, so a server that sends no body makes the transfer
// wait.
func checkHttpReqFlags(fs *pflag.FlagSet, o *options) error {
	if !o.silent {
		for _, w := range o.httpReq.warnings {
			fmt.Fprintf(fs.Output(), "Warning: %s\n", w)
		}
	}
	if m := o.http.Method; m != "" {
		if err := httpscheme.CheckMethod(m); err != nil {
			return fmt.Errorf("-X: %v", err)
		}
		if m == "HEAD" && !o.silent {
			fmt.Fprint(fs.Output(), "Warning: Setting custom HTTP method to HEAD with -X/--request may not work the \nWarning: way you want. Consider using -I/--head instead.\n")
		}
	}
	if fs.Changed("request-target") {
		if err := httpscheme.CheckRequestTarget(o.http.RequestTarget); err != nil {
			return fmt.Errorf("--request-target: %v", err)
		}
	}
	if strings.ContainsAny(o.http.Bearer, "\r\n\x00") {
		return errors.New("--oauth2-bearer: the token holds a CR, LF or NUL byte")
	}
	return nil
}

// configure sets those flags on the client. curl's --raw is urlget's
// --raw for http(s): bodies passed on undecoded.
func (x *httpReqOptions) configure(o *options, cl *fetch.Client) error {
	o.http.Raw = o.curlRaw
	return nil
}

// choiceFlag is one flag of a set that each set one setting, such as
// curl's HTTP versions or authentication schemes: it takes no value, and
// the last one given wins, as in curl.
type choiceFlag[T any] struct {
	to *T
	v  T
}

func (f choiceFlag[T]) String() string   { return "" }
func (f choiceFlag[T]) Type() string     { return "bool" }
func (f choiceFlag[T]) IsBoolFlag() bool { return true }
func (f choiceFlag[T]) Set(s string) error {
	if s != "true" {
		return errors.New("takes no value")
	}
	*f.to = f.v
	return nil
}

// urlQuery is --url-query: each value read as curl reads
// --data-urlencode's ("content", "=content", "name=content",
// "@file", "name@file"), its content url-encoded, or taken as it is
// after a '+'; the parts are joined by '&' in the order given.
type urlQuery struct {
	q    *string
	warn *[]string
}

func (u urlQuery) String() string { return "" }
func (u urlQuery) Type() string   { return "data" }
func (u urlQuery) Set(v string) error {
	part, err := queryPart(v)
	if err != nil {
		// curl warns and appends nothing.
		*u.warn = append(*u.warn, fmt.Sprintf("Couldn't read data from file %q, this makes an empty POST.", v))
		return nil
	}
	if part == "" {
		return nil
	}
	if *u.q != "" {
		*u.q += "&"
	}
	*u.q += part
	return nil
}

// queryPart is one --url-query value as it goes into the query.
func queryPart(v string) (string, error) {
	if raw, ok := strings.CutPrefix(v, "+"); ok {
		return raw, nil
	}
	i := strings.IndexAny(v, "=@")
	switch {
	case i < 0:
		return queryEscape(v), nil
	case v[i] == '=':
		if i == 0 {
			return queryEscape(v[1:]), nil
		}
		return v[:i] + "=" + queryEscape(v[i+1:]), nil
	}
	b, err := readDataFile(v[i+1:])
	if err != nil {
		return "", err
	}
	if i == 0 {
		return queryEscape(string(b)), nil
	}
	return v[:i] + "=" + queryEscape(string(b)), nil
}

// readDataFile reads the file a '@' names, "-" for standard input.
func readDataFile(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(name)
}

// queryEscape encodes s as curl's --data-urlencode does: the unreserved
// characters of RFC 3986 §2.3 as they are, a space as '+', every other
// byte as '%' and two lower-case hex digits.
func queryEscape(s string) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// withQuery appends q to the query of the URL raw, before any fragment,
// as curl's --url-query does: after '&' when there is a query already.
func withQuery(raw, q string) string {
	if q == "" {
		return raw
	}
	frag := ""
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		raw, frag = raw[:i], raw[i:]
	}
	switch {
	case strings.HasSuffix(raw, "?"):
		raw += q
	case strings.Contains(raw, "?"):
		raw += "&" + q
	default:
		raw += "?" + q
	}
	return raw + frag
}

// The help categories of these flags, added to flagCategories (help.go).
func init() {
	for name, cats := range map[string]string{
		"request":               "http",
		"get":                   "http",
		"url-query":             "http",
		"path-as-is":            "http",
		"request-target":        "http",
		"http1.0":               "http",
		"http1.1":               "http",
		"http2":                 "http",
		"http2-prior-knowledge": "http",
		"http0.9":               "http",
		"tr-encoding":           "http",
		"ignore-content-length": "http",
		"basic":                 "auth http",
		"digest":                "auth http",
		"anyauth":               "auth http",
		"oauth2-bearer":         "auth http",
		"proxy-basic":           "auth proxy",
		"proxy-digest":          "auth proxy",
		"proxy-anyauth":         "auth proxy",
		"proxy-header":          "http proxy",
	} {
		flagCategories[name] = cats
	}
}
