package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// addOutProtoFlags defines the flags of the protocols a run may use and
// of the pace of its transfers: --proto, --proto-redir, --proto-default,
// --disallow-username-in-url, --rate, --parallel-immediate, and -M and
// --styled-output, which curl has and urlget accepts.
func addOutProtoFlags(fs *pflag.FlagSet, x *outOptions) {
	fs.StringVar(&x.proto, "proto", "", "use only the protocols of `list` (curl's syntax: =http,https or -all,+ftp)")
	fs.StringVar(&x.protoRedir, "proto-redir", "", "follow redirects only to the protocols of `list`, as --proto")
	fs.StringVar(&x.protoDefault, "proto-default", "", "take a URL without a scheme for `protocol` (default: http, ftp for ftp. hosts)")
	fs.BoolVar(&x.noURLUsername, "disallow-username-in-url", false, "refuse a URL that names a user (exit 67)")
	fs.StringVar(&x.rate, "rate", "", "start at most `N/unit` transfers (s, m, h, d; /h when none), one after another")
	fs.BoolVar(&x.parallelImmed, "parallel-immediate", false, "with -Z, open new connections at once (urlget always does)")
	fs.BoolVarP(&x.manual, "manual", "M", false, "print every option and where the manual is")
	fs.BoolVar(&x.styledOutput, "styled-output", false, "accepted: urlget styles none of its output")
	curlNote(fs, "proto", "protocols are urlget's schemes (file ftp ftps gopher gophers http https news nntp nntps snews wais)")
	curlNote(fs, "proto-redir", "urlget follows redirects to http and https only, whatever the list allows")
	curlNote(fs, "parallel-immediate", "no effect: a -Z transfer never waits for a connection being set up to share it; it takes a ready one or opens its own at once")
	curlNote(fs, "manual", "prints --help all and points at `man urlget` and docs/usage.md, the manual not being built in")
	curlNote(fs, "styled-output", "no effect: urlget's headers are never styled")
	curlNote(fs, "rate", "no effect with -Z or --recursive, as curl's with --parallel")
}

// protoSet is a set of protocols, by scheme name; nil means every one.
type protoSet map[string]bool

// allows reports whether s allows scheme.
func (s protoSet) allows(scheme string) bool { return s == nil || s[scheme] }

// protocols are the protocols --proto names: every scheme urlget has a
// fetcher for.
func protocols() []string {
	var names []string
	for name := range fetch.DefaultFetchers() {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// parseProto reads --proto's list as curl's proto2num does: from every
// protocol, tokens separated by commas, each a protocol name or "all"
// after modifiers: '+' adds it (the default), '-' removes it, '=' allows
// only it (and those after). A name urlget does not know is skipped, as
// curl 7.88 skips it without a word, but for '=', which still clears the
// set; a modifier other than these is an error.
func parseProto(list string) (protoSet, error) {
	all := protocols()
	set := protoSet{}
	for _, p := range all {
		set[p] = true
	}
	for _, token := range strings.Split(list, ",") {
		action := byte('+')
		i := 0
		for i < len(token) && !isAlnum(token[i]) {
			switch token[i] {
			case '+', '-', '=':
				action = token[i]
			default:
				return nil, fmt.Errorf("%q: %q is no modifier (+, - or =)", list, token[i])
			}
			i++
		}
		name := strings.ToLower(token[i:])
		if name == "" {
			continue
		}
		if name == "all" {
			for _, p := range all {
				set[p] = action != '-'
			}
			continue
		}
		if action == '=' {
			clear(set)
		}
		if !slices.Contains(all, name) {
			continue
		}
		set[name] = action != '-'
	}
	return set, nil
}

func isAlnum(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9'
}

// writeManual is -M: curl prints the manual built into it; urlget prints
// the one it has built in, every option (--help all), and where the rest
// is: the man page and docs/.
func writeManual(w, errw io.Writer, fs *pflag.FlagSet) int {
	if code := writeHelp(w, errw, fs, []string{"all"}); code != 0 {
		return code
	}
	fmt.Fprintln(w, "\nThe whole manual: `man urlget`, and docs/usage.md with the source.")
	return 0
}

// checkOutProtoFlags reads --proto, --proto-redir, --proto-default and
// --rate.
func checkOutProtoFlags(fs *pflag.FlagSet, o *options) error {
	x := &o.out
	var err error
	if fs.Changed("proto") {
		if x.allowed, err = parseProto(x.proto); err != nil {
			return fmt.Errorf("--proto: %v", err)
		}
	}
	if fs.Changed("proto-redir") {
		if x.redirAllowed, err = parseProto(x.protoRedir); err != nil {
			return fmt.Errorf("--proto-redir: %v", err)
		}
	}
	if x.protoDefault != "" {
		x.protoDefault = strings.ToLower(x.protoDefault)
		if !slices.Contains(protocols(), x.protoDefault) {
			// curl refuses it at once, with exit 1 (unsupported
			// protocol) rather than 2.
			return &exitError{code: exitUnsupported, err: fmt.Errorf("--proto-default: protocol %q is not supported", x.protoDefault)}
		}
	}
	if x.rate != "" {
		gap, err := parseRate(x.rate)
		if err != nil {
			return fmt.Errorf("--rate: %v", err)
		}
		// curl: "This option has no effect when --parallel is used."
		if !o.parallel {
			x.rateGap.gap = gap
		}
	}
	return nil
}

// parseRate reads --rate's N/unit as the least gap between two transfer
// starts: N a second, minute, hour or day (s, m, h, d; an hour when no
// unit is given, as curl 7.84).
func parseRate(s string) (time.Duration, error) {
	num, unit, _ := strings.Cut(s, "/")
	n, err := strconv.ParseUint(num, 10, 31)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%q: not a number of transfers above 0", s)
	}
	per := time.Hour
	switch unit {
	case "s":
		per = time.Second
	case "m":
		per = time.Minute
	case "", "h":
	case "d":
		per = 24 * time.Hour
	default:
		return 0, fmt.Errorf("%q: the unit is s, m, h or d", s)
	}
	return per / time.Duration(n), nil
}

// rateLimiter keeps --rate's gap between the starts of transfers.
type rateLimiter struct {
	gap  time.Duration
	mu   sync.Mutex
	next time.Time
}

// wait returns when the next transfer may start, or when ctx ends.
func (r *rateLimiter) wait(ctx context.Context) {
	if r.gap <= 0 {
		return
	}
	r.mu.Lock()
	now := time.Now()
	at := r.next
	if at.Before(now) {
		at = now
	}
	r.next = at.Add(r.gap)
	r.mu.Unlock()
	if d := time.Until(at); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
}

// configureProto puts disabledFetcher in the place of the disabled
// protocols' fetchers in the client's registry, so that a URL of one of
// them, given or reached by a link, is refused (exit 1), and holds the http fetcher's redirects to what
// both --proto and --proto-redir allow.
func (x *outOptions) configureProto(o *options, cl *fetch.Client) error {
	if x.allowed != nil {
		for scheme := range cl.Fetchers {
			if !x.allowed.allows(scheme) {
				cl.Fetchers[scheme] = disabledFetcher{}
			}
		}
	}
	if x.allowed != nil || x.redirAllowed != nil {
		o.http.RedirectSchemes = []string{}
		for _, s := range []string{"http", "https"} {
			if x.allowed.allows(s) && x.redirAllowed.allows(s) {
				o.http.RedirectSchemes = append(o.http.RedirectSchemes, s)
			}
		}
	}
	return nil
}

// guess is the queue's guess of a URL given without a scheme:
// --proto-default's protocol when given, else curl's guess.
func (x *outOptions) guess(text string) (string, bool) {
	g, ok := guessScheme(text)
	if !ok || x.protoDefault == "" {
		return g, ok
	}
	_, rest, _ := strings.Cut(g, "://")
	return x.protoDefault + "://" + rest, true
}

// checkURL refuses, before any connection, what the out flags forbid of
// a URL: a protocol --proto disabled (curl's exit 1, "Protocol … not
// supported or disabled"), a user name with --disallow-username-in-url
// (curl's exit 67).
func (x *outOptions) checkURL(u uri.URL) error {
	if !x.allowed.allows(u.Scheme()) {
		return disabledError(u)
	}
	if !x.noURLUsername {
		return nil
	}
	if _, ok := u.RawUser(); ok {
		return &schemes.Error{Kind: schemes.ErrLoginFailed, URL: u.Redacted(),
			Err: errors.New("the URL names a user, which --disallow-username-in-url forbids")}
	}
	return nil
}

// disabledFetcher stands for the fetcher of a protocol --proto disabled:
// it refuses every URL, before any connection, in curl's words.
type disabledFetcher struct{}

// Fetch refuses req.
func (disabledFetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Resource, error) {
	return nil, disabledError(req.URL)
}

// disabledError is the error of a URL whose protocol --proto disabled.
func disabledError(u uri.URL) error {
	return &schemes.Error{Kind: schemes.ErrNotRetrievable, URL: u.Redacted(),
		Err: fmt.Errorf("protocol %q not supported or disabled (--proto)", u.Scheme())}
}

// exitError is a flag's error whose exit status is not 2 (a usage
// error) but the one curl gives it.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }
