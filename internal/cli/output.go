package cli

import (
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/schemes"
)

// -w (--write-out) prints a format after each transfer, curl 7.88's
// (src/tool_writeout.c) read as curl reads it: %{name} is a variable,
// named in any case; %header{name} the value of the last response's
// header field name; %% a '%'; \n, \r and \t a newline, a carriage return
// and a tab. Anything else is printed as it stands: a '%' or '\' before
// another character prints both, and "%{" or "%header{" without its '}'
// is printed as text. An unknown variable is told on stderr, each time
// it is met, and prints nothing.

// writeOut prints -w's format for the transfer t.
func (c *command) writeOut(t transfer) {
	format := c.opts.writeOut
	var w io.Writer = c.stdout
	var b []byte
	flush := func() {
		w.Write(b)
		b = b[:0]
	}
	var rep *schemes.MetricsReport
	report := func() *schemes.MetricsReport {
		if rep == nil {
			r := t.metrics.Report()
			rep = &r
		}
		return rep
	}
	for i := 0; i < len(format); {
		ch := format[i]
		switch {
		case ch == '%' && i+1 < len(format) && format[i+1] == '%':
			b = append(b, '%')
			i += 2
		case ch == '%' && i+1 < len(format) && format[i+1] == '{':
			end := strings.IndexByte(format[i+2:], '}')
			if end < 0 {
				b = append(b, "%{"...)
				i += 2
				continue
			}
			name := format[i+2 : i+2+end]
			i += 3 + end
			switch v := lookupVar(name); {
			case v == nil:
				flush()
				// The name as given, but on one line and without
				// control characters, which a format read from a file
				// may hold.
				fmt.Fprintf(c.stderr, "urlget: unknown --write-out variable: '%s'\n", strings.ReplaceAll(string(appendText(nil, name)), "\n", "?"))
			case v.name == "onerror":
				if t.err == nil {
					// The rest is for a transfer that failed.
					flush()
					return
				}
			case v.name == "stdout":
				flush()
				w = c.stdout
			case v.name == "stderr":
				flush()
				w = c.stderr
			case v.name == "json":
				b = c.appendJSON(b, &t, report())
			case v.name == "header_json":
				b = appendHeaderJSON(b, report().Head)
			default:
				b = v.appendText(b, c, &t, report())
			}
		case ch == '%' && strings.HasPrefix(format[i+1:], "header{"):
			end := strings.IndexByte(format[i+8:], '}')
			if end < 0 {
				b = append(b, "%header{"...)
				i += 8
				continue
			}
			name := format[i+8 : i+8+end]
			i += 9 + end
			if v, ok := headerValue(report().Head, name); ok {
				b = appendText(b, v)
			}
		case (ch == '%' || ch == '\\') && i+1 < len(format):
			if ch == '\\' {
				switch format[i+1] {
				case 'n':
					b = append(b, '\n')
					i += 2
					continue
				case 'r':
					b = append(b, '\r')
					i += 2
					continue
				case 't':
					b = append(b, '\t')
					i += 2
					continue
				}
			}
			// Not a sequence curl knows: both characters, as they are.
			b = append(b, ch, format[i+1])
			i += 2
		default:
			b = append(b, ch)
			i++
		}
	}
	flush()
}

// varKind is how a variable's value is written: the JSON types of curl's
// writeout table.
type varKind int

const (
	varControl varKind = iota // no value: it steers the output (stdout, stderr, onerror, json, header_json)
	varString                 // a string, or null in JSON when there is none
	varLong                   // an integer
	varCode                   // a status code: three digits in text (%03ld), a number in JSON
	varOffset                 // a byte count or speed
	varTime                   // seconds with six decimals
)

// writeOutVar is one variable of -w.
type writeOutVar struct {
	name string
	kind varKind
	// value returns the variable's value: str for varString (ok false
	// for none, curl's null), n for the numbers, d for varTime.
	value func(c *command, t *transfer, r *schemes.MetricsReport) (str string, ok bool, n int64, d time.Duration)
}

// appendText appends the variable's value as plain text.
func (v *writeOutVar) appendText(b []byte, c *command, t *transfer, r *schemes.MetricsReport) []byte {
	s, ok, n, d := v.value(c, t, r)
	switch v.kind {
	case varString:
		if ok {
			b = appendText(b, s)
		}
	case varCode:
		b = append(b, fmt.Sprintf("%03d", n)...)
	case varLong, varOffset:
		b = strconv.AppendInt(b, n, 10)
	case varTime:
		b = appendSeconds(b, d)
	}
	return b
}

// appendJSONValue appends the variable as a JSON member, "name":value.
func (v *writeOutVar) appendJSONValue(b []byte, c *command, t *transfer, r *schemes.MetricsReport) []byte {
	s, ok, n, d := v.value(c, t, r)
	b = appendJSONString(b, v.name)
	b = append(b, ':')
	switch v.kind {
	case varString:
		if !ok {
			return append(b, "null"...)
		}
		return appendJSONString(b, s)
	case varTime:
		return appendSeconds(b, d)
	}
	return strconv.AppendInt(b, n, 10)
}

// appendSeconds appends d as curl writes a time: seconds and six decimals.
func appendSeconds(b []byte, d time.Duration) []byte {
	us := d.Microseconds()
	b = strconv.AppendInt(b, us/1e6, 10)
	b = append(b, '.')
	frac := strconv.FormatInt(us%1e6, 10)
	b = append(b, "000000"[len(frac):]...)
	return append(b, frac...)
}

// lookupVar finds a variable by name, in any case, as curl does; nil when
// there is none.
func lookupVar(name string) *writeOutVar {
	for i := range writeOutVars {
		if strings.EqualFold(writeOutVars[i].name, name) {
			return &writeOutVars[i]
		}
	}
	return nil
}

// Value helpers for the table.
func str(s string) (string, bool, int64, time.Duration)        { return s, true, 0, 0 }
func optStr(s string) (string, bool, int64, time.Duration)     { return s, s != "", 0, 0 }
func num(n int64) (string, bool, int64, time.Duration)         { return "", false, n, 0 }
func dur(d time.Duration) (string, bool, int64, time.Duration) { return "", false, 0, d }

// writeOutVars is every variable of curl 7.88's -w, in its (alphabetical)
// order, which is the order of %{json}'s members.
var writeOutVars = []writeOutVar{
	// The server's certificates in PEM, without the description of
	// each that curl writes above it with OpenSSL's words.
	{"certs", varString, func(_ *command, _ *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		var b []byte
		for _, c := range r.Certificates {
			b = append(b, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
		}
		return str(string(b))
	}},
	{"content_type", varString, func(_ *command, t *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		if t.contentType == "" {
			// A status that failed the transfer (-f) still had its
			// type.
			v, _ := headerValue(r.Head, "Content-Type")
			return optStr(v)
		}
		return optStr(t.contentType)
	}},
	{"errormsg", varString, func(_ *command, t *transfer, _ *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		if t.err == nil {
			return optStr("")
		}
		return str(oneLine(t.err.Error()))
	}},
	{"exitcode", varLong, func(_ *command, t *transfer, _ *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return num(int64(t.code))
	}},
	{"filename_effective", varString, func(_ *command, t *transfer, _ *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return optStr(t.filename)
	}},
	{"ftp_entry_path", varString, func(_ *command, t *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		if r.EntryPath == "" {
			return optStr(t.entryPath)
		}
		return optStr(r.EntryPath)
	}},
	{"header_json", varControl, nil},
	{"http_code", varCode, responseCode},
	{"http_connect", varCode, func(_ *command, _ *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return num(int64(r.ProxyCode))
	}},
	{"http_version", varString, func(_ *command, _ *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return str(httpVersion(r.Head))
	}},
	{"json", varControl, nil},
	{"local_ip", varString, func(_ *command, _ *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		ip, _ := addrParts(r.Local)
		return str(ip)
	}},
	{"local_port", varLong, func(_ *command, t *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		if effectiveScheme(t, r) == "file" {
			// curl's file: transfers have no socket, and say -1.
			return num(-1)
		}
		_, port := addrParts(r.Local)
		return num(int64(port))
	}},
	{"method", varString, func(c *command, _ *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		if r.Method == "" {
			// curl names a method for every transfer, those
			// without an HTTP request of their own too (ftp:,
			// file:, one that never connected): HEAD with -I,
			// else GET.
			if c.opts.head {
				return str("HEAD")
			}
			return str("GET")
		}
		return str(r.Method)
	}},
	{"num_certs", varLong, func(_ *command, _ *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return num(int64(len(r.Certificates)))
	}},
	{"num_connects", varLong, func(_ *command, _ *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return num(int64(r.Connects))
	}},
	{"num_headers", varLong, func(_ *command, _ *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		if r.Head == nil {
			return num(0)
		}
		return num(int64(len(r.Head.Header)))
	}},
	{"num_redirects", varLong, func(_ *command, _ *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return num(int64(r.Redirects))
	}},
	{"onerror", varControl, nil},
	{"proxy_ssl_verify_result", varLong, func(*command, *transfer, *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return num(0)
	}},
	{"redirect_url", varString, func(_ *command, t *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return optStr(redirectURL(t, r))
	}},
	// -e's URL, whatever the scheme, as curl's; its password masked.
	{"referer", varString, func(c *command, _ *transfer, _ *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		if c.opts.http == nil {
			return optStr("")
		}
		return optStr(maskedText(c.opts.http.Referer))
	}},
	{"remote_ip", varString, func(_ *command, _ *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		ip, _ := addrParts(r.Remote)
		return str(ip)
	}},
	{"remote_port", varLong, func(_ *command, _ *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		_, port := addrParts(r.Remote)
		return num(int64(port))
	}},
	{"response_code", varCode, responseCode},
	{"scheme", varString, func(_ *command, t *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		if !t.reached && r.Connects == 0 && r.Head == nil {
			// As curl: no scheme for a transfer that never got
			// under way (a refused connection, a bad URL).
			return optStr("")
		}
		return str(strings.ToUpper(effectiveScheme(t, r)))
	}},
	{"size_download", varOffset, func(_ *command, t *transfer, _ *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return num(t.size)
	}},
	{"size_header", varOffset, func(_ *command, _ *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return num(r.HeaderBytes)
	}},
	{"size_request", varOffset, func(_ *command, _ *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return num(r.RequestBytes)
	}},
	{"size_upload", varOffset, func(*command, *transfer, *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return num(0)
	}},
	{"speed_download", varOffset, func(_ *command, t *transfer, _ *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		d := t.end.Sub(t.start).Seconds()
		if d <= 0 {
			return num(0)
		}
		return num(int64(float64(t.size) / d))
	}},
	{"speed_upload", varOffset, func(*command, *transfer, *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return num(0)
	}},
	// urlget fails a transfer whose certificate does not verify (unless
	// -k), so a transfer that got anywhere verified: X509_V_OK.
	{"ssl_verify_result", varLong, func(*command, *transfer, *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return num(0)
	}},
	{"stderr", varControl, nil},
	{"stdout", varControl, nil},
	{"time_appconnect", varTime, phaseTime(schemes.PhaseAppConnect)},
	{"time_connect", varTime, phaseTime(schemes.PhaseConnect)},
	{"time_namelookup", varTime, phaseTime(schemes.PhaseNameLookup)},
	{"time_pretransfer", varTime, phaseTime(schemes.PhasePreTransfer)},
	{"time_redirect", varTime, func(_ *command, _ *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return dur(r.Redirect)
	}},
	{"time_starttransfer", varTime, phaseTime(schemes.PhaseStartTransfer)},
	{"time_total", varTime, func(_ *command, t *transfer, _ *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return dur(t.end.Sub(t.start))
	}},
	// curl prints the URL as given, without the scheme it guessed,
	// password and all; urlget never shows a password (docs/usage.md,
	// Credentials).
	{"url", varString, func(_ *command, t *transfer, _ *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		if t.given != "" {
			return str(maskedText(t.given))
		}
		return str(maskedText(t.url))
	}},
	{"url_effective", varString, func(_ *command, t *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return str(maskedText(effectiveURL(t, r)))
	}},
	{"urlnum", varLong, func(_ *command, t *transfer, _ *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return num(int64(t.num))
	}},
}

// responseCode is %{response_code} and %{http_code}: the status that
// ended the transfer, else that of the last response that came (a
// redirect not followed past --max-redirs); FTP's last reply code.
func responseCode(_ *command, t *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
	if t.httpCode == 0 && r.Head != nil {
		return num(int64(r.Head.StatusCode))
	}
	return num(int64(t.httpCode))
}

// phaseTime is the value of the time of phase p.
func phaseTime(p schemes.Phase) func(*command, *transfer, *schemes.MetricsReport) (string, bool, int64, time.Duration) {
	return func(_ *command, _ *transfer, r *schemes.MetricsReport) (string, bool, int64, time.Duration) {
		return dur(r.Times[p])
	}
}

// appendJSON appends %{json}: every variable with a value, as curl 7.88
// writes them, in its order, then "curl_version", which names urlget's.
func (c *command) appendJSON(b []byte, t *transfer, r *schemes.MetricsReport) []byte {
	b = append(b, '{')
	for i := range writeOutVars {
		v := &writeOutVars[i]
		if v.kind == varControl {
			continue
		}
		b = v.appendJSONValue(b, c, t, r)
		b = append(b, ',')
	}
	b = append(b, `"curl_version":`...)
	b = appendJSONString(b, "urlget/"+version)
	return append(b, '}')
}

// appendHeaderJSON appends %{header_json}: the last response's header
// fields as one JSON object, each name lower-cased once, at its first
// place, with the values of every field of that name in an array, in the
// order they came, one member a line, as curl 7.88 writes them.
func appendHeaderJSON(b []byte, head *schemes.Resource) []byte {
	b = append(b, '{')
	var fields [][2]string
	if head != nil {
		fields = head.Header
	}
	for i, kv := range fields {
		name := strings.ToLower(kv[0])
		dup := false
		for _, before := range fields[:i] {
			if strings.EqualFold(before[0], name) {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		if i > 0 {
			b = append(b, ",\n"...)
		}
		b = appendJSONString(b, name)
		b = append(b, ":["...)
		n := 0
		for _, same := range fields[i:] {
			if strings.EqualFold(same[0], name) {
				if n > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, strings.Trim(same[1], " \t"))
				n++
			}
		}
		b = append(b, ']')
	}
	return append(b, "\n}"...)
}

// headerValue is %header{name}: the value of the first field name of the
// last response, without the blanks around it.
func headerValue(head *schemes.Resource, name string) (string, bool) {
	if head == nil {
		return "", false
	}
	for _, kv := range head.Header {
		if strings.EqualFold(kv[0], name) {
			return strings.Trim(kv[1], " \t"), true
		}
	}
	return "", false
}

// appendText appends s, text a server may have chosen, for a terminal:
// its control characters but the tab and the line feed (an escape
// sequence, a bare CR) as '?'. A server's header field holds no line
// feed; the lines of a value are urlget's own (%{certs}).
func appendText(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			c = '?'
		}
		b = append(b, c)
	}
	return b
}

// httpVersion is %{http_version}: the HTTP version of the last response,
// as curl names it ("1", "1.1", "2"), "0" when there was none.
func httpVersion(head *schemes.Resource) string {
	if head == nil {
		return "0"
	}
	switch head.Proto {
	case "HTTP/1.0":
		return "1"
	case "HTTP/1.1":
		return "1.1"
	case "HTTP/2", "HTTP/2.0":
		return "2"
	}
	return "0"
}

// addrParts splits a connection's address into its IP and port; "" and 0
// when there is none.
func addrParts(a net.Addr) (string, int) {
	if a == nil {
		return "", 0
	}
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return "", 0
	}
	n, _ := strconv.Atoi(port)
	return host, n
}

// effectiveURL is the URL the transfer ended at: that of its last HTTP
// request (the last redirect's, a status that failed it included), else
// the resource's, else the URL as given.
func effectiveURL(t *transfer, r *schemes.MetricsReport) string {
	switch {
	case r.Target != "":
		return r.Target
	case t.effective != "":
		return t.effective
	}
	return t.url
}

// effectiveScheme is the lower-case scheme of effectiveURL.
func effectiveScheme(t *transfer, r *schemes.MetricsReport) string {
	s, _, ok := strings.Cut(effectiveURL(t, r), ":")
	if !ok {
		return ""
	}
	return strings.ToLower(s)
}

// redirectURL is %{redirect_url}: where the last response, a redirect
// not followed (no -L, or --max-redirs reached), would have led, its
// Location resolved against the URL that answered. The password it
// names is masked, and its control characters are %-encoded: a Location
// is the server's text, and the URL goes to a terminal.
func redirectURL(t *transfer, r *schemes.MetricsReport) string {
	head := r.Head
	if head == nil || head.StatusCode < 300 || head.StatusCode > 399 {
		return ""
	}
	loc, ok := headerValue(head, "Location")
	if !ok || loc == "" {
		return ""
	}
	loc = escapeControls(loc)
	bu, err := url.Parse(effectiveURL(t, r))
	if err != nil {
		return ""
	}
	ru, err := bu.Parse(loc)
	if err != nil {
		return ""
	}
	return maskedText(ru.String())
}

// escapeControls %-encodes the control characters of s (RFC 3986 §2.1).
func escapeControls(s string) string {
	const hex = "0123456789ABCDEF"
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			if b == nil {
				b = append(b, s[:i]...)
			}
			b = append(b, '%', hex[c>>4], hex[c&0xF])
			continue
		}
		if b != nil {
			b = append(b, c)
		}
	}
	if b == nil {
		return s
	}
	return string(b)
}
