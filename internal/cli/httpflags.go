package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/schemes"
	httpscheme "github.com/urlget/urlget/schemes/http"
	"github.com/urlget/urlget/uri"
)

// addHTTPFlags defines the http(s) flags curl users type without thinking:
// -L, -f, --fail-with-body, -H, -e, --compressed, -i, -D and -J. Without
// -L a redirect is the answer, and without -f an HTTP error's page is
// written and the run goes on as for any page, as in curl
// (followRedirects).
func addHTTPFlags(fs *pflag.FlagSet, o *options) {
	fs.BoolVarP(&o.location, "location", "L", false, "follow redirects (without it a 3xx response is the answer)")
	fs.BoolVarP(&o.fail, "fail", "f", false, "HTTP error: exit 22, no body (without it the error page is written, exit 0)")
	fs.BoolVar(&o.http.FailWithBody, "fail-with-body", false, "HTTP error: exit 22, error page written")
	fs.VarP(headerList{&o.http.Header, &o.http.RemoveHeader, &o.httpReq.warnings}, "header", "H", "send header `'Name: value'` ('Name:' removes it, @FILE reads them)")
	fs.VarP(refererFlag{o.http}, "referer", "e", "send `URL` as Referer (';auto': on redirects)")
	fs.BoolVar(&o.http.Compressed, "compressed", false, "ask for gzip, deflate, br, zstd; decode")
	fs.BoolVarP(&o.include, "include", "i", false, "write response headers before the body")
	fs.StringVarP(&o.dumpHeader, "dump-header", "D", "", "write response headers to `file` (- stdout)")
	curlNote(fs, "header", "a line that is no field (no colon, a name that is not a token, a CR or LF) is refused (exit 2), where curl drops it or sends it as given; 'Host:' keeps the URL's Host, where curl sends none; over HTTP/2 the fields go sorted by name")
	curlNote(fs, "include", "an HTTP/2 response's fields come sorted by name, not in the server's order")
	curlNote(fs, "dump-header", "an HTTP/2 response's fields come sorted by name, not in the server's order")
	fs.BoolVarP(&o.remoteHeaderName, "remote-header-name", "J", false, "with -O, name the file by Content-Disposition")
}

// checkHTTPFlags refuses the combinations of the http flags curl refuses.
func checkHTTPFlags(o *options) error {
	if o.fail && o.http.FailWithBody {
		return errors.New("-f/--fail and --fail-with-body exclude each other")
	}
	if o.remoteHeaderName && o.continueAt != "" {
		// The file to resume is not known before the response names it.
		return errors.New("--continue-at and --remote-header-name cannot be combined")
	}
	return nil
}

// headerList reads -H lines in curl's forms, each checked as it is given,
// into a list of the http fetcher's (Header, or ProxyHeader for
// --proxy-header) and its RemoveHeader: "Name: value" is sent in the
// order given, taking the place of a default field of that name;
// "Name:" removes the default field (not what other -H lines give);
// "Name;" sends the field empty; "@FILE" reads such lines from FILE, one
// a line ("@-": standard input), as curl does, with curl's warning and
// none of them when FILE cannot be read.
type headerList struct {
	list   *[]httpscheme.Field
	remove *[]string
	warn   *[]string // curl's warnings, printed once the flags are read
}

func (h headerList) String() string { return "" }
func (h headerList) Type() string   { return "header" }
func (h headerList) Set(v string) error {
	if file, ok := strings.CutPrefix(v, "@"); ok {
		return h.setFile(file)
	}
	name, value, remove, err := parseHeaderLine(v)
	if err != nil {
		return err
	}
	if remove {
		if !slices.ContainsFunc(*h.remove, func(n string) bool { return strings.EqualFold(n, name) }) {
			*h.remove = append(*h.remove, name)
		}
		return nil
	}
	*h.list = append(*h.list, httpscheme.Field{Name: name, Value: value})
	return nil
}

// setFile reads -H @FILE: every line a -H of its own; empty lines are
// skipped, a CR before the LF dropped.
func (h headerList) setFile(file string) error {
	var b []byte
	var err error
	if file == "-" {
		b, err = io.ReadAll(os.Stdin)
	} else {
		b, err = os.ReadFile(file)
	}
	if err != nil {
		// curl warns and goes on without them.
		*h.warn = append(*h.warn, "Failed to open "+file+"!")
		return nil
	}
	for line := range strings.Lines(string(b)) {
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := h.Set(line); err != nil {
			return err
		}
	}
	return nil
}

// refererFlag is -e: a URL, with ";auto" after it (or alone) to send the
// redirecting page's URL with each redirected request, as curl's.
type refererFlag struct{ http *httpscheme.Fetcher }

func (r refererFlag) String() string { return "" }
func (r refererFlag) Type() string   { return "url" }
func (r refererFlag) Set(v string) error {
	ref, auto := strings.CutSuffix(v, ";auto")
	if strings.ContainsAny(ref, "\r\n\x00") {
		return errors.New("the Referer holds a CR, LF or NUL byte")
	}
	r.http.Referer, r.http.AutoReferer = ref, auto
	return nil
}

// headerDump writes the response headers of each http(s) transfer for -D
// and -i: to the -D file as each response arrives, and for -i into pending,
// which the transfer writes before its body. The command starts no
// transfer ahead with either (prefetchable), so the responses arrive in the
// order of the URLs.
type headerDump struct {
	file    io.Writer // -D's destination, nil without -D
	closer  io.Closer // -D's file, closed at the end of the run
	include bool
	pending bytes.Buffer
}

// newHeaderDump opens what -D names; it returns nil without -D or -i.
func newHeaderDump(o *options, stdout io.Writer) (*headerDump, error) {
	if o.dumpHeader == "" && !o.include {
		return nil, nil
	}
	d := &headerDump{include: o.include}
	switch o.dumpHeader {
	case "":
	case "-":
		d.file = stdout
	default:
		f, err := os.Create(o.dumpHeader)
		if err != nil {
			return nil, fmt.Errorf("--dump-header: %w", err)
		}
		d.file, d.closer = f, f
	}
	return d, nil
}

// response is the http fetcher's OnResponse of the run: one response's
// status line and fields, CRLF after each, and an empty line, as curl
// writes them.
func (d *headerDump) response(head *schemes.Resource) {
	var b bytes.Buffer
	renderHead(head, &b)
	if d.file != nil {
		d.file.Write(b.Bytes())
	}
	if d.include {
		d.pending.Write(b.Bytes())
	}
}

// take returns the -i headers of the transfer just made and forgets them.
func (d *headerDump) take() []byte {
	if d == nil || d.pending.Len() == 0 {
		return nil
	}
	b := bytes.Clone(d.pending.Bytes())
	d.pending.Reset()
	return b
}

// close closes -D's file.
func (d *headerDump) close() error {
	if d == nil || d.closer == nil {
		return nil
	}
	return d.closer.Close()
}

// headerName is -J's file name: the one Content-Disposition suggests
// (RFC 6266, reduced to its last path segment as curl does) when -O would
// accept it (safeName), else "" and the URL's name stands.
func headerName(res *schemes.Resource) string {
	for _, h := range res.Header {
		if strings.EqualFold(h[0], "Content-Disposition") {
			if name := httpscheme.DispositionName(h[1]); safeName(name) == nil {
				return name
			}
		}
	}
	return ""
}

// nameFromHeader points a -O transfer at the file -J names (headerName),
// refusing, as curl does, to overwrite a file of that name: the server
// chose it, not the user.
func (c *command) nameFromHeader(st *started, res *schemes.Resource) error {
	name := headerName(res)
	if name == "" {
		return nil
	}
	name, _ = c.targetName(uri.URL{}, outputSpec{file: name})
	st.target, st.t.filename = name, name
	if _, err := os.Lstat(name); err == nil {
		return &schemes.Error{Kind: schemes.ErrWrite, URL: res.URL, Err: fmt.Errorf("-J: refusing to overwrite %s, the file the server names", name)}
	}
	return nil
}

// errorPageKept reports whether err is the HTTP status that ends a body
// --fail-with-body writes: the file then keeps the error page, as curl's.
func (c *command) errorPageKept(err error) bool {
	return c.opts.http.FailWithBody && exitCode(err) == exitHTTP
}
