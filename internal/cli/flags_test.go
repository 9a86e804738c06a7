package cli

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/urlget/urlget/schemes"
)

// TestFlagsFillSchemeOptions checks that the command line's scheme flags
// become the library's typed options, and that flags left alone leave the
// defaults.
func TestFlagsFillSchemeOptions(t *testing.T) {
	for _, c := range []struct {
		args []string
		ftp  schemes.FTPOptions
		nntp schemes.NNTPOptions
		http schemes.HTTPOptions
	}{
		{args: []string{"u"},
			nntp: schemes.NNTPOptions{MaxArticles: 100},
			http: schemes.HTTPOptions{MaxRedirects: 20, UserAgent: "urlget"}},
		{args: []string{"--ftp-method", "nocwd", "--ssl-reqd", "-P", "-", "--ftp-sync", "--ftp-anon-pass", "me@", "u"},
			ftp:  schemes.FTPOptions{Method: schemes.FTPNoCWD, RequireTLS: true, ActiveAddr: "-", Sync: true, AnonymousPassword: "me@"},
			nntp: schemes.NNTPOptions{MaxArticles: 100},
			http: schemes.HTTPOptions{MaxRedirects: 20, UserAgent: "urlget"}},
		{args: []string{"--ftp-method", "singlecwd", "--nntp-server", "news.example:119", "--max-articles", "5", "u"},
			ftp:  schemes.FTPOptions{Method: schemes.FTPSingleCWD},
			nntp: schemes.NNTPOptions{Server: "news.example:119", MaxArticles: 5},
			http: schemes.HTTPOptions{MaxRedirects: 20, UserAgent: "urlget"}},
		// --max-redirs 0 follows none, where 0 in HTTPOptions is the
		// default; -A '' sends no User-Agent, where "" is the default.
		{args: []string{"--max-redirs", "0", "-A", "", "u"},
			nntp: schemes.NNTPOptions{MaxArticles: 100},
			http: schemes.HTTPOptions{MaxRedirects: schemes.NoRedirects, NoUserAgent: true}},
		{args: []string{"--max-redirs", "3", "-A", "a/1", "u"},
			nntp: schemes.NNTPOptions{MaxArticles: 100},
			http: schemes.HTTPOptions{MaxRedirects: 3, UserAgent: "a/1"}},
		// -L states the default; the other http flags fill theirs.
		{args: []string{"-sSL", "-H", "X-A: 1", "-H", "Accept:", "-e", "http://r/;auto", "--compressed", "--fail-with-body", "u"},
			nntp: schemes.NNTPOptions{MaxArticles: 100},
			http: schemes.HTTPOptions{MaxRedirects: 20, UserAgent: "urlget", Header: []string{"X-A: 1", "Accept:"},
				Referer: "http://r/", AutoReferer: true, Compressed: true, FailWithBody: true}},
	} {
		var out, errOut strings.Builder
		o, _, code := parseFlags(c.args, &out, &errOut)
		if o == nil {
			t.Errorf("%q: exit %d: %s", c.args, code, errOut.String())
			continue
		}
		if o.ftp != c.ftp || o.nntp != c.nntp || !reflect.DeepEqual(o.http, c.http) {
			t.Errorf("%q:\n got %+v %+v %+v\nwant %+v %+v %+v", c.args, o.ftp, o.nntp, o.http, c.ftp, c.nntp, c.http)
		}
	}
}

// TestFlagHint checks that the library's errors for what the command line
// can give get the flags that give it, and others nothing.
func TestFlagHint(t *testing.T) {
	for _, c := range []struct {
		cause error
		hint  string
	}{
		{schemes.ErrNoNewsServer, "; use --nntp-server or set NNTPSERVER"},
		{schemes.ErrNoSearchTerms, "; give them with --search TERMS"},
		{schemes.ErrNoCredentials, "; give them in the URL, with -u user:password or in .netrc (--netrc)"},
		{schemes.ErrActiveFTPProxy, "; leave -P out"},
		{errors.New("something else"), ""},
	} {
		err := &schemes.Error{Kind: schemes.ErrBadURL, URL: "x:y", Err: c.cause}
		got := withFlagHint(err)
		if want := err.Error() + c.hint; got.Error() != want {
			t.Errorf("%v: %q, want %q", c.cause, got, want)
		}
		if exitCode(got) != exitBadURL {
			t.Errorf("%v: exit %d, want %d", c.cause, exitCode(got), exitBadURL)
		}
	}
	if withFlagHint(nil) != nil {
		t.Error("a hint for no error")
	}
}
