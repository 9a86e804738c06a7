package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// writeList writes a URL list into the test's directory and opens it.
func writeList(t *testing.T, text string) *urlList {
	t.Helper()
	name := filepath.Join(t.TempDir(), "list")
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := openURLList(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.close)
	return l
}

// drain reads a queue to its end: each URL, or for an entry that failed,
// "!" and its error; with its place among the command line's URLs.
func drain(q *urlQueue) []string {
	var got []string
	for {
		raw, _, m, ok := q.next()
		if !ok {
			return got
		}
		if m.err != nil {
			raw = "!" + m.err.Error()
		}
		got = append(got, fmt.Sprintf("%d %s", m.cli, raw))
	}
}

func TestURLListLines(t *testing.T) {
	long := "http://h/" + strings.Repeat("a", maxListLine)
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"empty", "", nil},
		{"comments and blanks", "# a comment\n\n   \n\thttp://h/a \n  # indented comment\nhttp://h/b\n", []string{"-1 http://h/a", "-1 http://h/b"}},
		{"CRLF", "http://h/a\r\nhttp://h/b\r\n", []string{"-1 http://h/a", "-1 http://h/b"}},
		{"no final newline", "http://h/a\nhttp://h/b", []string{"-1 http://h/a", "-1 http://h/b"}},
		{"a URL with # in it", "http://h/a#frag\n", []string{"-1 http://h/a#frag"}},
		{"too long a line", "http://h/a\n" + long + "\nhttp://h/b\n", []string{"-1 http://h/a", "-1 !--url @LIST, line 2: longer than 65536 bytes", "-1 http://h/b"}},
		{"too long a last line", "http://h/a\n" + long, []string{"-1 http://h/a", "-1 !--url @LIST, line 2: longer than 65536 bytes"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := writeList(t, c.text)
			got := drain(newURLQueue(nil, []urlArg{{value: "@" + l.name, list: l}}))
			for i := range got {
				got[i] = strings.ReplaceAll(got[i], l.name, "LIST")
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestURLListLineError checks the kind of a line that is no URL (exit 3,
// as a malformed URL) and of a list that cannot be read (exit 26).
func TestURLListLineError(t *testing.T) {
	l := writeList(t, strings.Repeat("x", maxListLine+1))
	_, _, m, ok := newURLQueue(nil, []urlArg{{value: "@" + l.name, list: l}}).next()
	if !ok || !errors.Is(m.err, schemes.ErrBadURL) || exitCode(m.err) != exitBadURL {
		t.Errorf("a long line: %v (ok %v), exit %d; want a bad URL, exit %d", m.err, ok, exitCode(m.err), exitBadURL)
	}
	_, err := openURLList(filepath.Join(t.TempDir(), "none"), nil)
	if exitCode(err) != exitRead || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing list: %v, exit %d; want exit %d", err, exitCode(err), exitRead)
	}
	if _, err := openURLList(t.TempDir(), nil); exitCode(err) != exitRead {
		t.Errorf("a directory for a list: %v, exit %d; want exit %d", err, exitCode(err), exitRead)
	}
}

// TestURLQueueOrder checks that positional URLs, --url values and the
// URLs of lists come in the command line's order, and that -o and -O go
// with the command line's URLs only.
func TestURLQueueOrder(t *testing.T) {
	l1 := writeList(t, "http://h/l1a\nhttp://h/l1b\n")
	l2 := writeList(t, "http://h/l2a\n")
	args := []string{"-o", "o1", "http://h/p1", "--url", "@" + l1.name, "--url", "http://h/u1", "-o", "o2", "http://h/p2", "http://h/p3", "--url", "@" + l2.name, "-O"}
	var out, errOut strings.Builder
	o, urls, code := parseFlags(args, &out, &errOut)
	if o == nil {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	o.urlArgs[0].list, o.urlArgs[2].list = l1, l2
	got := drain(newURLQueue(urls, o.urlArgs))
	want := []string{"0 http://h/p1", "-1 http://h/l1a", "-1 http://h/l1b", "1 http://h/u1", "2 http://h/p2", "3 http://h/p3", "-1 http://h/l2a"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	c := &command{opts: o}
	specs := []outputSpec{c.spec(0), c.spec(1), c.spec(2), c.spec(3), c.spec(-1)}
	wantSpecs := []outputSpec{{file: "o1"}, {file: "o2"}, {remote: true}, {}, {remote: true}}
	if !reflect.DeepEqual(specs, wantSpecs) {
		t.Errorf("outputs %+v, want %+v", specs, wantSpecs)
	}

	// Four outputs for four command-line URLs are right, five are not:
	// a list's URLs have their own.
	for _, c := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"-o", "a", "-o", "b", "--url", "u1", "-o", "c", "--url", "@x", "u2", "-O", "u3", "u4"}, true},
		{[]string{"-o", "a", "-o", "b", "-o", "c", "--url", "@x", "u2"}, false},
		{[]string{"--url", "@"}, false},
		{[]string{"--url", "@x"}, true},
	} {
		var out, errOut strings.Builder
		o, _, code := parseFlags(c.args, &out, &errOut)
		if (o != nil) != c.ok || o == nil && code != exitUsage {
			t.Errorf("%q: exit %d (%s), want ok %v", c.args, code, errOut.String(), c.ok)
		}
	}
}

// TestURLQueueLongList walks a list of many URLs as the command does and
// checks that the queue holds a bounded number of them however long the
// list, that each URL comes parsed, that each hint (ahead) keeps its
// URLs while the queue moves on, and that only the last URL is known to
// be last.
func TestURLQueueLongList(t *testing.T) {
	const n = 5000
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "http://h/%d\n", i)
	}
	l := writeList(t, b.String())
	q := newURLQueue(nil, []urlArg{{value: "@" + l.name, list: l}})
	var hints [][]uri.URL
	for i := 0; ; i++ {
		raw, u, _, ok := q.next()
		if !ok {
			if i != n {
				t.Fatalf("the list ended after %d URLs, want %d", i, n)
			}
			break
		}
		if want := "http://h/" + strconv.Itoa(i); raw != want || u.String() != want {
			t.Fatalf("URL %d is %q, parsed %q, want %q", i, raw, u, want)
		}
		if last := q.last(); last != (i == n-1) {
			t.Fatalf("URL %d: last %v", i, last)
		}
		ahead := q.ahead(maxAhead)
		if want := min(maxAhead, n-1-i); len(ahead) != want {
			t.Fatalf("URL %d: %d URLs ahead, want %d", i, len(ahead), want)
		}
		hints = append(hints, ahead)
		if len(hints) > 3*maxAhead {
			hints = hints[1:]
		}
		// Every hint still held names the URLs it named.
		for j, h := range hints {
			first := i - len(hints) + 1 + j + 1
			for k, u := range h {
				if want := "http://h/" + strconv.Itoa(first+k); u.String() != want {
					t.Fatalf("at URL %d, a hint given out at URL %d reads %q, want %q", i, first-1, u, want)
				}
			}
		}
		if cap(q.raws) > 4*maxAhead {
			t.Fatalf("at URL %d the queue holds room for %d URLs", i, cap(q.raws))
		}
	}
}

// TestURLQueueBadURL: a URL that does not parse is handed out with its
// error, as a bad URL, and a hint stops before it.
func TestURLQueueBadURL(t *testing.T) {
	q := newURLQueue([]string{"http://h/a", "http://h/b", "http://h/c d", "http://h/e"}, nil)
	q.next()
	if a := q.ahead(maxAhead); len(a) != 1 || a[0].String() != "http://h/b" {
		t.Errorf("ahead %v, want http://h/b alone", a)
	}
	q.next()
	raw, u, m, _ := q.next()
	if raw != "http://h/c d" || u != (uri.URL{}) || !errors.Is(m.err, schemes.ErrBadURL) {
		t.Errorf("%q: %q, %v; want a bad URL", raw, u, m.err)
	}
	if _, u, m, _ := q.next(); u.String() != "http://h/e" || m.err != nil {
		t.Errorf("after it: %q, %v", u, m.err)
	}
}

// TestURLQueuePipe checks a list still being written: the queue looks
// ahead only at the lines already there, and a URL is handed out as soon
// as its line is.
func TestURLQueuePipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	l, err := openURLList("-", r)
	if err != nil {
		t.Fatal(err)
	}
	if !l.wait {
		t.Fatal("a pipe is taken for a list that cannot make a reader wait")
	}
	q := newURLQueue([]string{"http://h/first"}, []urlArg{{at: 1, value: "@-", list: l}})
	if raw, _, _, _ := q.next(); raw != "http://h/first" {
		t.Fatalf("first URL %q", raw)
	}
	// Neither looking ahead nor asking for the last may wait for the
	// pipe's writer.
	nowait := func(f func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { f(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("waits for the list's writer")
		}
	}
	nowait(func() {
		if q.last() {
			t.Error("the URL before a list still being written taken for the last")
		}
	})
	nowait(func() {
		if a := q.ahead(maxAhead); len(a) != 0 {
			t.Errorf("ahead of an empty pipe: %q", a)
		}
	})
	w.WriteString("http://h/a\n# comment\nhttp://h/b\nhttp://h/c-partial")
	if raw, _, _, _ := q.next(); raw != "http://h/a" {
		t.Fatalf("next URL %q, want http://h/a", raw)
	}
	if a := q.ahead(maxAhead); len(a) != 1 || a[0].String() != "http://h/b" {
		t.Errorf("ahead %v, want the one whole line written", a)
	}
	if q.last() {
		t.Error("a URL taken for the last while its list is still open")
	}
	done := make(chan string)
	go func() {
		q.next() // http://h/b
		raw, _, _, _ := q.next()
		done <- raw
	}()
	w.WriteString("\n")
	if raw := <-done; raw != "http://h/c-partial" {
		t.Errorf("got %q, want the line finished later", raw)
	}
	// Whether it was the last is known only by reading on, which could
	// have waited: it is not taken for the last.
	w.Close()
	if q.last() {
		t.Error("the end of a pipe known without reading it")
	}
	if raw, _, _, ok := q.next(); ok {
		t.Errorf("after the end: %q", raw)
	}
}

// TestURLListStreams runs the command over a list written as it goes
// (--url @- on a pipe): each URL is fetched once its line is written,
// while the list is still open, and each body goes to its own file.
func TestURLListStreams(t *testing.T) {
	requests := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "body of "+r.URL.Path+"\n")
		requests <- r.URL.Path
	}))
	defer srv.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	dir := t.TempDir()
	var errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"-s", "-S", "--output-dir", dir, "--url", "@-"}, r, io.Discard, &errOut)
	}()
	expect := func(path string) {
		t.Helper()
		select {
		case got := <-requests:
			if got != path {
				t.Fatalf("request for %s, want %s", got, path)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no request for %s while the list is open", path)
		}
	}
	fmt.Fprintf(w, "%s/one\n", srv.URL)
	expect("/one")
	fmt.Fprintf(w, "# between the two\n%s/two\n", srv.URL)
	expect("/two")
	w.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end with its list")
	}
	for _, name := range []string{"one", "two"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != "body of /"+name+"\n" {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
}

// TestGlobQueue checks that the run's queue takes a glob's URLs one at a
// time, each paired with the command line's place of the glob (for -o),
// and holds no more of them than it looks ahead at.
func TestGlobQueue(t *testing.T) {
	q := newURLQueue([]string{"http://h/[1-1000000]", "http://h/{a,b}"}, nil)
	q.globbing = true
	for i := 1; i <= 1000; i++ {
		raw, _, m, ok := q.next()
		if want := "http://h/" + strconv.Itoa(i); !ok || raw != want || m.cli != 0 || m.globs[0] != strconv.Itoa(i) {
			t.Fatalf("URL %d: %q %+v, want %q", i, raw, m, want)
		}
		q.ahead(maxAhead)
	}
	if c := cap(q.raws); c > 4*maxAhead {
		t.Errorf("the queue holds room for %d URLs", c)
	}
	if q.last() {
		t.Error("last() with 999000 URLs to go")
	}

	q = newURLQueue([]string{"http://h/{a,b}", "http://h/[z-x]", "http://h/{c}"}, nil)
	q.globbing = true
	var got []string
	for {
		raw, _, m, ok := q.next()
		if !ok {
			break
		}
		got = append(got, fmt.Sprintf("%d %s %v", m.cli, raw, m.err != nil))
	}
	want := []string{"0 http://h/a false", "0 http://h/b false", "1 http://h/[z-x] true", "2 http://h/c false"}
	if !slices.Equal(got, want) {
		t.Errorf("queue gave %q, want %q", got, want)
	}

	// A malformed glob's message masks the password, and its column is
	// the one in the URL shown.
	q = newURLQueue([]string{"ftp://u:secret@h/{a"}, nil)
	q.globbing = true
	_, _, m, _ := q.next()
	if m.err == nil || m.err.Error() != "ftp://u:****@h/{a: bad URL: unmatched brace at column 16" {
		t.Errorf("a malformed glob with a password: %v", m.err)
	}

	// With -g, the URL is taken as it is.
	q = newURLQueue([]string{"http://h/{a,b}"}, nil)
	if raw, _, _, _ := q.next(); raw != "http://h/{a,b}" {
		t.Errorf("with -g the queue gave %q", raw)
	}
}
