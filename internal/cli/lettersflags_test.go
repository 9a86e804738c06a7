package cli

import (
	"io"
	"strings"
	"testing"
)

// TestCurlLetters checks that -r and -N are curl's --range and
// --no-buffer: "-r 0-3 URL" is one URL fetched with a range, never a
// recursion that reads "0-3" as a URL and writes the site into the
// current directory.
func TestCurlLetters(t *testing.T) {
	for _, c := range []struct {
		args     string
		rng      string
		noBuffer bool
	}{
		{"-r 0-3 http://127.0.0.1/f", "0-3", false},
		{"-r0-3 http://127.0.0.1/f", "0-3", false},
		{"--range=-500 http://127.0.0.1/f", "-500", false},
		{"-r 9500- http://127.0.0.1/f", "9500-", false},
		{"-r 0-0,-1 http://127.0.0.1/f", "0-0,-1", false},
		{"-r 100-199,500-599 http://127.0.0.1/f", "100-199,500-599", false},
		// A bare number is a start, as curl reads it ("appending a dash").
		{"-r 7 http://127.0.0.1/f", "7-", false},
		// The last one given stands; an empty one takes it back.
		{"-r 1-2 -r 3-4 http://127.0.0.1/f", "3-4", false},
		{"-r 1-2 --range= http://127.0.0.1/f", "", false},
		{"-N http://127.0.0.1/f", "", true},
		{"-Nr 0-1 http://127.0.0.1/f", "0-1", true},
		{"--no-buffer http://127.0.0.1/f", "", true},
		{"-N --buffer http://127.0.0.1/f", "", false},
		{"--buffer -N http://127.0.0.1/f", "", true},
	} {
		o, urls, code := parseFlags(strings.Fields(c.args), io.Discard, io.Discard)
		if o == nil {
			t.Errorf("%s: exit %d", c.args, code)
			continue
		}
		if o.rangeSpec != c.rng || o.noBuffer != c.noBuffer {
			t.Errorf("%s: range %q, no-buffer %v; want %q, %v", c.args, o.rangeSpec, o.noBuffer, c.rng, c.noBuffer)
		}
		if o.rec.recursive || o.rec.timestamping {
			t.Errorf("%s: a recursion (timestamping %v)", c.args, o.rec.timestamping)
		}
		if len(urls) != 1 || urls[0] != "http://127.0.0.1/f" {
			t.Errorf("%s: URLs %q", c.args, urls)
		}
	}
}

// TestRangeRefused checks that a value no server could read as a byte
// range is a usage error naming it, before any URL is fetched.
func TestRangeRefused(t *testing.T) {
	for _, r := range []string{"abc", "1-2-3", "-", "0x10-", "1 -2", "1-2,", ",1-2", "+1-2", "99999999999999999999-", "1-2,x"} {
		var errOut strings.Builder
		code := run([]string{"-r", r, "http://127.0.0.1:1/f"}, nil, io.Discard, &errOut)
		if code != exitUsage || !strings.Contains(errOut.String(), "not a range") || !strings.Contains(errOut.String(), r) {
			t.Errorf("-r %q: exit %d, %q; want %d naming the range", r, code, errOut.String(), exitUsage)
		}
	}
}

// TestWgetLongNames checks that wget's recursion and timestamping keep
// their long names, and that with them -N and -r are still curl's.
func TestWgetLongNames(t *testing.T) {
	o, urls, _ := parseFlags([]string{"--recursive", "--timestamping", "-N", "-nH", "http://127.0.0.1/d/"}, io.Discard, io.Discard)
	if o == nil || !o.rec.recursive || !o.rec.timestamping || !o.noBuffer || !o.rec.noHostDirs || len(urls) != 1 {
		t.Fatalf("got %+v %q", o, urls)
	}
	var errOut strings.Builder
	if code := run([]string{"--mirror", "-r", "0-3", "http://127.0.0.1:1/d/"}, nil, io.Discard, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "--range fetches part of one resource") {
		t.Errorf("--mirror -r 0-3: exit %d, %q", code, errOut.String())
	}
}

// FuzzCheckRange checks that a range checkRange accepts holds only
// digits, dashes and commas, and is accepted again unchanged, as it is
// sent.
func FuzzCheckRange(f *testing.F) {
	for _, s := range []string{"0-3", "-500", "9500-", "0-0,-1", "7", "3-1", "1-2-3", ",", "1-2,,3-4", "٣-4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := checkRange(s)
		if err != nil {
			return
		}
		if strings.Trim(r, "0123456789-,") != "" {
			t.Fatalf("%q: accepted as %q", s, r)
		}
		if again, err := checkRange(r); err != nil || again != r {
			t.Fatalf("%q: %q, then %q, %v", s, r, again, err)
		}
	})
}

// TestRawJSONAreCurls checks that --raw and --json are curl's options:
// --raw is a switch of its own, not the listing as the server's bytes
// (--raw-listing), and --json, which sends data in curl, is refused with
// a line naming --json-lines, whatever its value (a URL after it too).
func TestRawJSONAreCurls(t *testing.T) {
	o, _, _ := parseFlags([]string{"--raw", "http://127.0.0.1/"}, io.Discard, io.Discard)
	if o == nil || !o.curlRaw || o.rawListing || o.jsonLines {
		t.Errorf("--raw: %+v", o)
	}
	o, _, _ = parseFlags([]string{"--raw-listing", "--json-lines=false", "ftp://127.0.0.1/"}, io.Discard, io.Discard)
	if o == nil || o.curlRaw || !o.rawListing {
		t.Errorf("--raw-listing: %+v", o)
	}
	o, _, _ = parseFlags([]string{"--json-lines", "ftp://127.0.0.1/"}, io.Discard, io.Discard)
	if o == nil || !o.jsonLines || o.rawListing {
		t.Errorf("--json-lines: %+v", o)
	}
	for _, args := range [][]string{
		{"--json", "http://127.0.0.1:1/"},
		{"--json", `{"a":1}`, "http://127.0.0.1:1/"},
		{"--json=@file", "http://127.0.0.1:1/"},
	} {
		var out, errOut strings.Builder
		code := run(args, nil, &out, &errOut)
		if code != exitUsage || out.Len() != 0 || !strings.Contains(errOut.String(), "--json sends data") || !strings.Contains(errOut.String(), "--json-lines") {
			t.Errorf("%q: exit %d, %q", args, code, errOut.String())
		}
	}
	var errOut strings.Builder
	if code := run([]string{"--json-lines", "--raw-listing", "ftp://127.0.0.1:1/"}, nil, io.Discard, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "--json-lines and --raw-listing exclude each other") {
		t.Errorf("--json-lines --raw-listing: exit %d, %q", code, errOut.String())
	}
}
