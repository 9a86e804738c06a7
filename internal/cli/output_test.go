package cli

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/urlget/urlget/schemes"
)

func TestWriteOutEscapes(t *testing.T) {
	var out, errOut bytes.Buffer
	c := &command{opts: &options{writeOut: `a\tb %% %{url} %{nosuch} %{stderr}e=%{exitcode}\n`}, stdout: &out, stderr: &errOut}
	c.writeOut(transfer{url: "http://h/x", code: 22, err: errors.New("x")})
	if out.String() != "a\tb % http://h/x  " {
		t.Errorf("stdout %q", out.String())
	}
	if errOut.String() != "urlget: unknown --write-out variable: 'nosuch'\ne=22\n" {
		t.Errorf("stderr %q", errOut.String())
	}
}

func TestExitCodes(t *testing.T) {
	mk := func(kind error, url string, code int) error {
		return &schemes.Error{Kind: kind, URL: url, Code: code}
	}
	cases := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{mk(schemes.ErrNotFound, "ftp://h/x", 550), 78},
		{mk(schemes.ErrNotFound, "http://h/x", 404), 22},
		{mk(schemes.ErrLoginFailed, "ftp://h/x", 530), 67},
		{mk(schemes.ErrAccessDenied, "gopher://h/", 0), 9},
		{mk(schemes.ErrBadURL, "x", 0), 3},
		{mk(schemes.ErrNotRetrievable, "mailto:x", 0), 1},
		{mk(schemes.ErrResolve, "x", 0), 6},
		{mk(schemes.ErrConnect, "x", 0), 7},
		{mk(schemes.ErrProtocol, "x", 0), 8},
		{mk(schemes.ErrTruncated, "x", 0), 18},
		{mk(schemes.ErrWrite, "x", 0), 23},
		{mk(schemes.ErrTimeout, "x", 0), 28},
		{mk(schemes.ErrTooLarge, "x", 0), 63},
		{&schemes.Error{Kind: schemes.ErrProtocol, Err: errRange}, 33},
		{&schemes.Error{Kind: errInterrupted}, 130},
	}
	for _, tc := range cases {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

func TestSafeName(t *testing.T) {
	for _, bad := range []string{"", ".", "..", "a/b", "a\x00b"} {
		if safeName(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, good := range []string{"a", "a b;c#d", "naïve.txt", "...", ".hidden"} {
		if err := safeName(good); err != nil {
			t.Errorf("%q refused: %v", good, err)
		}
	}
}

// TestOutputSpecs checks where each URL's body goes (-o and -O in order,
// then --remote-name-all or standard output).
func TestOutputSpecs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []outputSpec
	}{
		{[]string{"u1", "u2"}, []outputSpec{{}, {}}},
		{[]string{"-o", "a", "u1", "u2", "-O", "u3"}, []outputSpec{{file: "a"}, {remote: true}, {}}},
		{[]string{"--remote-name-all", "u1", "-o", "b", "u2"}, []outputSpec{{file: "b"}, {remote: true}}},
		{[]string{"--remote-name-all", "-o", "a", "-o", "b", "u1", "u2"}, []outputSpec{{file: "a"}, {file: "b"}}},
		{[]string{"-C", "-", "u1"}, []outputSpec{{}}},
	} {
		var out, errOut bytes.Buffer
		o, urls, code := parseFlags(c.args, &out, &errOut)
		if o == nil {
			t.Fatalf("%q: exit %d, %s", c.args, code, errOut.String())
		}
		cmd := &command{opts: o}
		var got []outputSpec
		for i := range len(urls) {
			got = append(got, cmd.spec(i))
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%q: outputs %+v, want %+v", c.args, got, c.want)
		}
	}
}
