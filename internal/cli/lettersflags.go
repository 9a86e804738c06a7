package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	httpscheme "github.com/urlget/urlget/schemes/http"
)

// The letters, names and defaults urlget shares with curl and once gave
// other meanings: -r is curl's --range and -N curl's --no-buffer, where
// wget has them for --recursive and --timestamping, which keep their
// long names only (recurse.go); -L and -f are off unless given.

// addLettersFlags defines -r/--range and -N/--no-buffer with curl's
// letters. What a range fetches and how output is flushed are the
// transfer's concern; these define the flags and check their values.
func addLettersFlags(fs *pflag.FlagSet, o *options) {
	fs.VarP(rangeValue{&o.rangeSpec}, "range", "r", "fetch only the bytes of `range`: N-M, N- or -N (the last N bytes); N-M,P-Q… for http(s)")
	curlNote(fs, "range", "a range of other characters than digits, '-' and ',' is refused (curl warns and sends it); gopher, news and wais ignore it, as curl does for protocols without ranges; a 206 whose Content-Range is not the range asked for fails (exit 8)")
	fs.BoolVarP(&o.noBuffer, "no-buffer", "N", false, "write each piece of a body as soon as it arrives")
	// curl's negation of --no-buffer is --buffer.
	buf := fs.VarPF(negatedBool{&o.noBuffer}, "buffer", "", "take -N back")
	buf.NoOptDefVal = "true"
	// curl's --raw and --json: urlget's own listing formats are
	// --raw-listing and --json-lines.
	fs.BoolVar(&o.curlRaw, "raw", false, "http(s): pass the body on without undoing its content or transfer coding")
	fs.Var(refusedValue{err: errJSON}, "json", "curl's: send `data` as JSON; refused, urlget sends no data (listings as JSON: --json-lines)")
	curlNote(fs, "json", "refused: urlget sends no data")
}

// errJSON refuses curl's --json, which posts data; a listing as JSON
// lines, this option's meaning here once, is --json-lines. It is told
// as the value is read, so that "--json URL", which takes the URL for
// the data, says so rather than that no URL was given.
var errJSON = errors.New("--json sends data (curl's meaning), and urlget sends none; for listings and reports as JSON lines use --json-lines")

// refusedValue is the value of an option urlget refuses whatever it is:
// setting it returns err, as a *refusal. A switch (curl's --ntlm) has the
// type "bool", so that its --no- form is refused the same way.
type refusedValue struct {
	err      error
	isSwitch bool
}

func (v refusedValue) String() string { return "" }
func (v refusedValue) Type() string {
	if v.isSwitch {
		return "bool"
	}
	return "data"
}
func (v refusedValue) Set(string) error { return &refusal{v.err} }

// refusal is the error of an option urlget refuses: parseFlags prints it
// alone, without pflag's "invalid argument" around it, since the
// argument is not what is wrong.
type refusal struct{ err error }

func (r *refusal) Error() string { return r.err.Error() }

// checkLettersFlags checks the letters' flags once parsed: a range is
// part of one resource, which a recursion does not fetch.
func checkLettersFlags(fs *pflag.FlagSet, o *options) error {
	if o.rangeSpec != "" && o.rec.recursive {
		return errors.New("--range fetches part of one resource; leave it out of --recursive and --mirror")
	}
	return nil
}

// rangeValue is -r's value, checked as curl reads it (see checkRange);
// the last one given stands, and an empty one takes it back.
type rangeValue struct{ spec *string }

func (v rangeValue) String() string { return *v.spec }
func (v rangeValue) Type() string   { return "range" }
func (v rangeValue) Set(s string) error {
	r, err := checkRange(s)
	if err != nil {
		return err
	}
	*v.spec = r
	return nil
}

// checkRange checks a byte range as curl's -r takes it: "N-M" (bytes N
// to M, both included), "N-" (from N to the end), "-N" (the last
// N bytes), or several of these separated by commas, which only an HTTP
// server answers (RFC 9110 §14.1.2's ranges, a multipart/byteranges
// response). A bare number N reads as "N-", as curl reads it after
// warning that a range needs a dash. It returns the range as it is to
// be sent.
func checkRange(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	if isDigits(s) {
		// A number alone is the range from it on; its size is held
		// to what an offset can be, as for any range.
		s += "-"
	}
	for _, part := range strings.Split(s, ",") {
		first, last, ok := strings.Cut(part, "-")
		switch {
		case !ok || strings.Contains(last, "-"):
			return "", fmt.Errorf("not a range: %q; ranges are N-M, N- or -N, separated by commas", s)
		case first == "" && last == "":
			return "", fmt.Errorf("not a range: %q; a range needs a first or last byte", s)
		case first != "" && !isDigits(first), last != "" && !isDigits(last):
			return "", fmt.Errorf("not a range: %q; only digits may stand before and after the dash", s)
		}
		// A range that ends before it starts (3-1) is sent as curl
		// sends it: an HTTP server ignores it (RFC 9110 §14.2), and
		// ftp and file fail on it with curl's exit 33.
		_, aerr := parseOffset(first)
		_, berr := parseOffset(last)
		if aerr != nil || berr != nil {
			return "", fmt.Errorf("not a range: %q; a number is too large", s)
		}
	}
	return s, nil
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// parseOffset reads one end of a range, "" as 0.
func parseOffset(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	return strconv.ParseInt(s, 10, 64)
}

// negatedBool is a flag that sets a boolean to the opposite of its own
// value: curl's --buffer, which takes -N back.
type negatedBool struct{ b *bool }

func (v negatedBool) String() string { return "" }
func (v negatedBool) Type() string   { return "bool" }
func (v negatedBool) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("takes no value")
	}
	*v.b = !on
	return nil
}

// followRedirects sets the http fetcher's redirect and error policy from
// -L, --location-trusted, --max-redirs, -f and --fail-with-body, as curl
// reads them for a single transfer: without -L (or --location-trusted,
// which implies it) a 3xx response is the answer, its body written and
// its Location kept for -w, and --max-redirs does not count; with -L at
// most maxRedirs are followed (-1: no limit, 0: a redirect is exit 47).
// Without -f or --fail-with-body an HTTP error's page is written and the
// transfer succeeds (curl exits 0); with -f it is exit 22 and no body,
// with -I its headers shown.
//
// A recursion (--recursive, --mirror) keeps wget's behaviour whatever
// these say: it follows redirects (at most --max-redirs when given, else
// wget's 20) and reports an error status as a failed URL it skips.
func followRedirects(fs *pflag.FlagSet, o *options, maxRedirs int) {
	follow := o.location || o.locationTrusted
	switch {
	case o.rec.recursive:
		if !fs.Changed("max-redirs") {
			maxRedirs = httpscheme.MaxRedirects
		}
	case !follow:
		o.http.NoFollow = true
	}
	if !o.http.NoFollow {
		switch maxRedirs {
		case 0:
			o.http.MaxRedirects = httpscheme.NoRedirects
		case -1:
			o.http.MaxRedirects = math.MaxInt
		default:
			o.http.MaxRedirects = maxRedirs
		}
	}
	// With -I an error's headers are written whatever -f says, and the
	// command then fails the transfer under -f (finish).
	o.http.NoFail = !o.rec.recursive && (o.head || !o.fail && !o.http.FailWithBody)
}
