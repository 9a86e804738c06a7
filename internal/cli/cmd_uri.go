package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urlget/urlget/uri"
)

// The URL toolkit subcommands: parse, resolve, normalize and equal. Each
// argument goes through uri.FromText first, so that a URL pasted with its
// <URL:…> wrapper or broken across lines is taken as the URL it names.

const (
	parseUsage     = "Usage: urlget parse URL...\nPrints one JSON object a line per URL: its components as written and its scheme's decoded view.\n"
	resolveUsage   = "Usage: urlget resolve [--draft2003] [--nonstrict] BASE REF...\nPrints each REF resolved against BASE (RFC 3986 §5.2), one a line.\n  --draft2003  resolve as draft-fielding-uri-rfc2396bis-01 does (keeps leading \"..\")\n  --nonstrict  read \"http:g\" against an http base as the relative \"g\"\n"
	normalizeUsage = "Usage: urlget normalize URL...\nPrints the normal form of each URL (RFC 3986 §6, RFC 8141 §3.1 for URNs), one a line.\n"
	equalUsage     = "Usage: urlget equal URL1 URL2\nPrints \"equal\" (exit 0) or \"different\" (exit 1): whether the two normal forms are the same.\n"
)

// uriArgs separates the options of a subcommand from its operands. It
// returns help when -h or --help is given, and an error for an unknown option.
func uriArgs(args []string, known map[string]*bool) (operands []string, help bool, err error) {
	for i, a := range args {
		switch {
		case a == "--":
			return append(operands, args[i+1:]...), false, nil
		case a == "-h" || a == "--help":
			return nil, true, nil
		case len(a) > 1 && a[0] == '-':
			p, ok := known[a]
			if !ok {
				return nil, false, fmt.Errorf("unknown flag: %s", a)
			}
			*p = true
		default:
			operands = append(operands, a)
		}
	}
	return operands, false, nil
}

// usageError prints a usage error and returns the usage exit status.
func usageError(stderr io.Writer, msg, usage string) int {
	fmt.Fprintf(stderr, "urlget: %s\n%s", msg, usage)
	return exitUsage
}

// parseArg turns one command-line argument into an absolute URL, checked
// against its scheme's own rules (RFC 1738 §3, RFC 8141) as well as RFC 3986.
func parseArg(arg string) (uri.URL, error) {
	text, err := uri.FromText(arg)
	if err != nil {
		return uri.URL{}, err
	}
	u, err := uri.Parse(text)
	if err != nil {
		return uri.URL{}, err
	}
	if _, err := schemeView(u); err != nil {
		return uri.URL{}, err
	}
	if _, err := u.HostASCII(); err != nil {
		return uri.URL{}, err
	}
	return u, nil
}

// runParse implements `urlget parse URL...`.
func runParse(args []string, stdout, stderr io.Writer) int {
	urls, help, err := uriArgs(args, nil)
	switch {
	case help:
		fmt.Fprint(stdout, parseUsage)
		return exitOK
	case err != nil:
		return usageError(stderr, err.Error(), parseUsage)
	case len(urls) == 0:
		return usageError(stderr, "parse: no URL given", parseUsage)
	}
	code := exitOK
	for _, a := range urls {
		u, err := parseArg(a)
		if err != nil {
			fmt.Fprintf(stderr, "urlget: %v\n", err)
			code = exitBadURL
			continue
		}
		view, _ := schemeView(u)
		var o jsonObject
		o.str("scheme", u.RawScheme())
		if s, ok := u.RawUser(); ok {
			o.str("user", s)
		}
		if s, ok := u.RawPassword(); ok {
			o.str("password", s)
		}
		if u.HasAuthority() {
			o.str("host", u.RawHost())
			if h := u.Hostname(); h != "" && strings.ContainsFunc(h, func(r rune) bool { return r >= 0x80 }) {
				// An international name: as the person wrote it, and
				// as it goes on the wire (IDNA A-labels, RFC 5891 §5).
				a, _ := u.HostASCII()
				o.str("host_unicode", h)
				o.str("host_ascii", a)
			}
		}
		if s, ok := u.Port(); ok {
			o.str("port", s)
		}
		o.str("path", u.Path())
		if s, ok := u.Query(); ok {
			o.str("query", s)
		}
		if s, ok := u.Fragment(); ok {
			o.str("fragment", s)
		}
		if view != nil {
			o.raw(u.Scheme(), view.bytes())
		}
		stdout.Write(append(o.bytes(), '\n'))
	}
	return code
}

// schemeView returns the JSON object of the decoded view of u's scheme, nil
// for a scheme without a view, or the error of a URL that breaks the rules of
// its scheme.
func schemeView(u uri.URL) (*jsonObject, error) {
	var o jsonObject
	switch u.Scheme() {
	case "ftp":
		v, err := u.FTP()
		if err != nil {
			return nil, err
		}
		o.strs("dirs", v.Dirs)
		o.str("name", v.Name)
		if v.Type != "" {
			o.str("type", v.Type)
		}
	case "gopher":
		v, err := u.Gopher()
		if err != nil {
			return nil, err
		}
		o.str("type", string([]byte{v.Type}))
		o.str("selector", v.Selector)
		if v.HasSearch {
			o.str("search", v.Search)
		}
		if v.HasPlus {
			o.str("plus", v.Plus)
		}
	case "news":
		v, err := u.News()
		if err != nil {
			return nil, err
		}
		if v.MessageID != "" {
			o.str("message_id", v.MessageID)
		} else {
			o.str("group", v.Group)
		}
	case "nntp":
		v, err := u.NNTP()
		if err != nil {
			return nil, err
		}
		o.str("group", v.Group)
		if v.HasArticle {
			o.int("article", v.Article)
		}
	case "wais":
		v, err := u.WAIS()
		if err != nil {
			return nil, err
		}
		o.str("database", v.Database)
		if v.HasSearch {
			o.str("search", v.Search)
		}
		if v.WType != "" {
			o.str("wtype", v.WType)
			o.str("wpath", v.WPath)
		}
	case "file":
		v, err := u.File()
		if err != nil {
			return nil, err
		}
		o.str("host", v.Host)
		o.str("path", v.Path)
	case "urn":
		v, err := u.URN()
		if err != nil {
			return nil, err
		}
		o.str("nid", v.NID)
		o.str("nss", v.NSS)
	case "telnet":
		v, err := u.Telnet()
		if err != nil {
			return nil, err
		}
		if v.HasUser {
			o.str("user", v.User)
		}
		if v.HasPassword {
			o.str("password", v.Password)
		}
		o.str("host", v.Host)
		if v.Port != "" {
			o.str("port", v.Port)
		}
	case "mailto":
		v, err := u.Mailto()
		if err != nil {
			return nil, err
		}
		o.str("address", v.Address)
	case "prospero":
		v, err := u.Prospero()
		if err != nil {
			return nil, err
		}
		o.str("hsoname", v.HSOName)
		o.strMap("fields", v.Fields)
	default:
		return nil, nil
	}
	return &o, nil
}

// runResolve implements `urlget resolve [--draft2003] [--nonstrict] BASE REF...`.
func runResolve(args []string, stdout, stderr io.Writer) int {
	var draft, nonStrict bool
	ops, help, err := uriArgs(args, map[string]*bool{"--draft2003": &draft, "--nonstrict": &nonStrict})
	switch {
	case help:
		fmt.Fprint(stdout, resolveUsage)
		return exitOK
	case err != nil:
		return usageError(stderr, err.Error(), resolveUsage)
	case len(ops) < 2:
		return usageError(stderr, "resolve: needs a BASE URL and at least one REF", resolveUsage)
	}
	var opts []uri.ResolveOption
	if draft {
		opts = append(opts, uri.Draft2003)
	}
	if nonStrict {
		opts = append(opts, uri.NonStrict)
	}
	base, err := parseArg(ops[0])
	if err != nil {
		fmt.Fprintf(stderr, "urlget: base: %v\n", err)
		return exitBadURL
	}
	code := exitOK
	for _, a := range ops[1:] {
		// The empty reference is valid: it names the base itself (RFC 3986 §4.4).
		var text string
		var err error
		if strings.TrimSpace(a) != "" {
			text, err = uri.FromText(a)
		}
		var ref uri.URL
		if err == nil {
			ref, err = uri.ParseReference(text)
		}
		if err != nil {
			fmt.Fprintf(stderr, "urlget: %v\n", err)
			code = exitBadURL
			continue
		}
		fmt.Fprintln(stdout, base.ResolveReference(ref, opts...).String())
	}
	return code
}

// normalArg parses one argument and returns its normal form.
func normalArg(arg string) (string, error) {
	u, err := parseArg(arg)
	if err != nil {
		return "", err
	}
	return uri.Normalize(u.String())
}

// runNormalize implements `urlget normalize URL...`.
func runNormalize(args []string, stdout, stderr io.Writer) int {
	urls, help, err := uriArgs(args, nil)
	switch {
	case help:
		fmt.Fprint(stdout, normalizeUsage)
		return exitOK
	case err != nil:
		return usageError(stderr, err.Error(), normalizeUsage)
	case len(urls) == 0:
		return usageError(stderr, "normalize: no URL given", normalizeUsage)
	}
	code := exitOK
	for _, a := range urls {
		n, err := normalArg(a)
		if err != nil {
			fmt.Fprintf(stderr, "urlget: %v\n", err)
			code = exitBadURL
			continue
		}
		fmt.Fprintln(stdout, n)
	}
	return code
}

// runEqual implements `urlget equal URL1 URL2`: exit 0 and "equal" when the
// normal forms match, exit 1 and "different" otherwise.
func runEqual(args []string, stdout, stderr io.Writer) int {
	ops, help, err := uriArgs(args, nil)
	switch {
	case help:
		fmt.Fprint(stdout, equalUsage)
		return exitOK
	case err != nil:
		return usageError(stderr, err.Error(), equalUsage)
	case len(ops) != 2:
		return usageError(stderr, "equal: needs exactly two URLs", equalUsage)
	}
	a, err := normalArg(ops[0])
	if err != nil {
		fmt.Fprintf(stderr, "urlget: %v\n", err)
		return exitBadURL
	}
	b, err := normalArg(ops[1])
	if err != nil {
		fmt.Fprintf(stderr, "urlget: %v\n", err)
		return exitBadURL
	}
	if a != b {
		fmt.Fprintln(stdout, "different")
		return 1
	}
	fmt.Fprintln(stdout, "equal")
	return exitOK
}
