package cli

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/ftp"
	httpscheme "github.com/urlget/urlget/schemes/http"
	"github.com/urlget/urlget/schemes/news"
)

// TestFlagsFillSchemeOptions checks that the command line's scheme flags
// configure each protocol's fetcher, and that flags left alone leave the
// defaults.
func TestFlagsFillSchemeOptions(t *testing.T) {
	for _, c := range []struct {
		args []string
		ftp  *ftp.Fetcher
		news *news.Fetcher
		http *httpscheme.Fetcher
	}{
		{args: []string{"u"},
			ftp:  &ftp.Fetcher{},
			news: &news.Fetcher{MaxArticles: 100},
			http: &httpscheme.Fetcher{NoFollow: true, NoFail: true, UserAgent: "urlget"}},
		{args: []string{"--ftp-method", "nocwd", "--ssl-reqd", "-P", "-", "--ftp-sync", "--ftp-anon-pass", "me@", "u"},
			ftp:  &ftp.Fetcher{Method: ftp.NoCWD, RequireTLS: true, ActiveAddr: "-", Sync: true, AnonymousPassword: "me@"},
			news: &news.Fetcher{MaxArticles: 100},
			http: &httpscheme.Fetcher{NoFollow: true, NoFail: true, UserAgent: "urlget"}},
		{args: []string{"--ftp-method", "singlecwd", "--nntp-server", "news.example:119", "--max-articles", "5", "u"},
			ftp:  &ftp.Fetcher{Method: ftp.SingleCWD},
			news: &news.Fetcher{Server: "news.example:119", MaxArticles: 5},
			http: &httpscheme.Fetcher{NoFollow: true, NoFail: true, UserAgent: "urlget"}},
		// With -L, --max-redirs 0 follows none, where 0 in the Fetcher
		// is the default, and -1 has no limit; -A '' sends no
		// User-Agent, where "" is the default.
		{args: []string{"-L", "--max-redirs", "0", "-A", "", "u"},
			ftp:  &ftp.Fetcher{},
			news: &news.Fetcher{MaxArticles: 100},
			http: &httpscheme.Fetcher{MaxRedirects: httpscheme.NoRedirects, NoFail: true, RemoveHeader: []string{"User-Agent"}}},
		{args: []string{"-fL", "--max-redirs", "-1", "u"},
			ftp:  &ftp.Fetcher{},
			news: &news.Fetcher{MaxArticles: 100},
			http: &httpscheme.Fetcher{MaxRedirects: math.MaxInt, UserAgent: "urlget"}},
		// Without -L, --max-redirs does not count (curl).
		{args: []string{"--max-redirs", "3", "-A", "a/1", "u"},
			ftp:  &ftp.Fetcher{},
			news: &news.Fetcher{MaxArticles: 100},
			http: &httpscheme.Fetcher{NoFollow: true, NoFail: true, UserAgent: "a/1"}},
		// --location-trusted implies -L, with curl's 50 redirects.
		{args: []string{"--location-trusted", "-f", "u"},
			ftp:  &ftp.Fetcher{},
			news: &news.Fetcher{MaxArticles: 100},
			http: &httpscheme.Fetcher{MaxRedirects: 50, UserAgent: "urlget"}},
		// A recursion follows redirects (wget's 20) and fails on errors
		// whatever -L and -f say.
		{args: []string{"--recursive", "u"},
			ftp:  &ftp.Fetcher{},
			news: &news.Fetcher{MaxArticles: 100},
			http: &httpscheme.Fetcher{MaxRedirects: 20, UserAgent: "urlget"}},
		{args: []string{"-sSL", "-H", "X-A: 1", "-H", "Accept:", "-e", "http://r/;auto", "--compressed", "--fail-with-body", "u"},
			ftp:  &ftp.Fetcher{},
			news: &news.Fetcher{MaxArticles: 100},
			http: &httpscheme.Fetcher{MaxRedirects: 50, UserAgent: "urlget", Header: []httpscheme.Field{{Name: "X-A", Value: "1"}}, RemoveHeader: []string{"Accept"},
				Referer: "http://r/", AutoReferer: true, Compressed: true, FailWithBody: true}},
		// -H's forms as curl keeps them: every field in the order
		// given and spelled as given, "Name:" drops only the default
		// field, "Name;" is sent empty, every Host kept (the fetcher
		// sends the first).
		{args: []string{"-H", "X-B: 1", "-H", "x-b: 2", "-H", "X-C: 1", "-H", "X-C:", "-H", "X-C: 3", "-H", "X-D;", "-H", "Host: a", "-H", "Host: b", "-H", "Host:", "u"},
			ftp:  &ftp.Fetcher{},
			news: &news.Fetcher{MaxArticles: 100},
			http: &httpscheme.Fetcher{NoFollow: true, NoFail: true, UserAgent: "urlget",
				Header:       []httpscheme.Field{{Name: "X-B", Value: "1"}, {Name: "x-b", Value: "2"}, {Name: "X-C", Value: "1"}, {Name: "X-C", Value: "3"}, {Name: "X-D"}, {Name: "Host", Value: "a"}, {Name: "Host", Value: "b"}},
				RemoveHeader: []string{"X-C", "Host"}}},
	} {
		var out, errOut strings.Builder
		o, _, code := parseFlags(c.args, &out, &errOut)
		if o == nil {
			t.Errorf("%q: exit %d: %s", c.args, code, errOut.String())
			continue
		}
		if !reflect.DeepEqual(o.ftp, c.ftp) || !reflect.DeepEqual(o.news, c.news) || !reflect.DeepEqual(o.http, c.http) {
			t.Errorf("%q:\n got %+v %+v %+v\nwant %+v %+v %+v", c.args, o.ftp, o.news, o.http, c.ftp, c.news, c.http)
		}
		if o.gopher.Attributes {
			t.Errorf("%q: Gopher+ attributes asked for without --timestamping", c.args)
		}
	}
	// --timestamping compares a gopher menu's sizes and times: its
	// fetcher asks for them.
	var out, errOut strings.Builder
	if o, _, _ := parseFlags([]string{"--recursive", "--timestamping", "gopher://h/"}, &out, &errOut); o == nil || !o.gopher.Attributes {
		t.Errorf("--recursive --timestamping: gopher fetcher without Attributes: %s", errOut.String())
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

// expandArgs runs withConfig on args with ~/.urlgetrc holding rc ("" for
// none) and standard input holding stdin.
func expandArgs(t *testing.T, rc, stdin string, args ...string) ([]string, string, int) {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, ".urlgetrc")
	if rc != "" {
		if err := os.WriteFile(home, []byte(rc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	oldDefault, oldStdin := defaultConfig, configStdin
	defaultConfig = func() string { return home }
	configStdin = strings.NewReader(stdin)
	t.Cleanup(func() { defaultConfig, configStdin = oldDefault, oldStdin })
	var errw bytes.Buffer
	out, code := withConfig(flagSet(), args, &errw)
	return out, errw.String(), code
}

func TestConfigArgs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a", "# options\nsilent\n-o out\nurl = \"http://h/a b\"\nmax-time: 5\n")
	b := write("b", "verbose\nconfig = "+a+"\n")
	loop := write("loop", "")
	write("loop", "config "+loop+"\n")

	for _, tt := range []struct {
		rc, stdin string
		args      []string
		want      []string
	}{
		{args: []string{"u"}, want: []string{"u"}},
		{rc: "silent\n", args: []string{"u"}, want: []string{"--silent", "u"}},
		// -q first skips ~/.urlgetrc; elsewhere it does not.
		{rc: "silent\n", args: []string{"-q", "u"}, want: []string{"-q", "u"}},
		{rc: "silent\n", args: []string{"--disable", "u"}, want: []string{"--disable", "u"}},
		{rc: "silent\n", args: []string{"u", "-q"}, want: []string{"--silent", "u", "-q"}},
		{args: []string{"-K", a, "u"}, want: []string{"--silent", "--output=out", "--url=http://h/a b", "--max-time=5", "u"}},
		{args: []string{"-vK" + a}, want: []string{"-v", "--silent", "--output=out", "--url=http://h/a b", "--max-time=5"}},
		{args: []string{"--config=" + b}, want: []string{"--verbose", "--silent", "--output=out", "--url=http://h/a b", "--max-time=5"}},
		{args: []string{"--config", "-", "u"}, stdin: "head\n", want: []string{"--head", "u"}},
		// The values of other options, and what follows --, are no -K.
		{args: []string{"-o", "-K", "--user-agent", "--config", "-oK", "--", "-K"}, want: []string{"-o", "-K", "--user-agent", "--config", "-oK", "--", "-K"}},
	} {
		got, errs, code := expandArgs(t, tt.rc, tt.stdin, tt.args...)
		if code != 0 || !slices.Equal(got, tt.want) {
			t.Errorf("withConfig(%q) with rc %q = %q, exit %d (%s), want %q", tt.args, tt.rc, got, code, errs, tt.want)
		}
	}

	for _, tt := range []struct {
		rc   string
		args []string
		code int
		msg  string
	}{
		{args: []string{"-K", filepath.Join(dir, "none")}, code: exitRead, msg: "config " + filepath.Join(dir, "none") + ": no such file or directory"},
		{args: []string{"-K", loop}, code: exitRead, msg: "more than 10 config files"},
		{rc: "\nno-such-option\n", code: exitUsage, msg: "line 2: unknown option --no-such-option"},
		{rc: "output\n", code: exitUsage, msg: "line 1: --output needs a value"},
		{rc: "silent = yes\n", code: exitUsage, msg: "line 1: --silent takes no value"},
		{rc: "-W x\n", code: exitUsage, msg: "unknown option -W"},
		{args: []string{"-K"}, code: exitUsage, msg: "-K needs a file"},
	} {
		_, errs, code := expandArgs(t, tt.rc, "", tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.msg) || strings.Count(errs, "\n") != 1 {
			t.Errorf("withConfig(%q) with rc %q: exit %d, %q; want exit %d and %q", tt.args, tt.rc, code, errs, tt.code, tt.msg)
		}
	}
}
