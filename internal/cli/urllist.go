package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/glob"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// URL lists: --url @FILE reads the URLs of a run from FILE, one a line, and
// --url @- from standard input, as curl does since 8.13. The list is read
// as the run goes, a few lines ahead of the URL being fetched, so that a
// run of any number of URLs holds no more of them than it looks ahead at;
// on the command line, a run is bounded by the kernel's limit on the size
// of the arguments, and holds all of them from the start.

// maxListLine is the longest line of a URL list taken for a URL; a longer
// one is reported as a malformed URL and skipped. It is also the size of
// the list's read buffer.
const maxListLine = 64 << 10

// errList is the kind of error for a URL list that cannot be opened or
// read (exit status 26, curl's read error).
var errList = errors.New("cannot read the URL list")

// listError is a URL list's failure: to open or read it, or a line of it
// that cannot be a URL. It names the list and the line.
type listError struct {
	name string // the file as named after @; "-" is standard input
	line int    // 0 when the failure is not a line's
	kind error  // errList, or schemes.ErrBadURL for a line
	err  error
}

func (e *listError) Error() string {
	where := "--url @" + e.name
	if e.line > 0 {
		where = fmt.Sprintf("%s, line %d", where, e.line)
	}
	return where + ": " + e.err.Error()
}

func (e *listError) Unwrap() []error { return []error{e.kind, e.err} }

// urlArg is one --url of the command line: a URL, or @FILE.
type urlArg struct {
	at    int    // how many positional URLs come before it
	value string // as given
	list  *urlList
}

// isList reports whether a --url value names a list rather than a URL. No
// URL starts with @: a scheme starts with a letter (RFC 3986 §3.1).
func (a urlArg) isList() bool { return strings.HasPrefix(a.value, "@") }

// cliURLs counts the command line's own URLs: the positional ones and the
// --url values that are no list. -o and -O pair with these, in order.
func cliURLs(positional int, urls []urlArg) int {
	n := positional
	for _, a := range urls {
		if !a.isList() {
			n++
		}
	}
	return n
}

// urlList reads one URL list. Blank lines and lines whose first non-blank
// character is # are skipped, and the blanks around a URL are not part of
// it (RFC 3986 appendix C: white space around a URL in text is not part
// of it).
type urlList struct {
	name string
	f    *os.File
	r    *bufio.Reader
	// wait is set when a read may wait for a writer (a pipe, a terminal, a
	// socket): the run then looks ahead only at lines already read, so
	// that each URL is fetched as soon as its line arrives.
	wait bool
	line int
	end  bool
}

// openURLList opens the list that --url @name names; "-" is stdin.
func openURLList(name string, stdin *os.File) (*urlList, error) {
	l := &urlList{name: name}
	if name == "-" {
		if stdin == nil {
			return nil, &listError{name: name, kind: errList, err: errors.New("no standard input")}
		}
		l.f = stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, &listError{name: name, kind: errList, err: err}
		}
		l.f = f
	}
	fi, err := l.f.Stat()
	if err != nil {
		l.close()
		return nil, &listError{name: name, kind: errList, err: err}
	}
	if fi.IsDir() {
		l.close()
		return nil, &listError{name: name, kind: errList, err: errors.New("is a directory")}
	}
	l.wait = !fi.Mode().IsRegular()
	l.r = bufio.NewReaderSize(l.f, maxListLine)
	return l, nil
}

// close closes the list's file, unless it is standard input; again, it
// does nothing.
func (l *urlList) close() {
	if l.name != "-" && l.f != nil {
		l.f.Close()
	}
	l.f = nil
}

// ready reports whether the next line can be read without waiting.
func (l *urlList) ready() bool {
	if !l.wait || l.end {
		return true
	}
	n := l.r.Buffered()
	if n == l.r.Size() {
		return true // a line too long; reading it does not wait
	}
	b, _ := l.r.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}

// next returns the list's next URL. With wait false it reads only what
// can be read without waiting, and reports ok false when that is nothing.
// A line that cannot be a URL comes back as err, and reading goes on
// after it; a list that can no longer be read comes back as err with end
// set. ok is false, and end set, once the list is read to its end.
func (l *urlList) next(wait bool) (raw string, err error, ok bool) {
	for !l.end {
		if !wait && !l.ready() {
			return "", nil, false
		}
		b, rerr := l.r.ReadSlice('\n')
		if errors.Is(rerr, bufio.ErrBufferFull) {
			l.line++
			line := l.line
			// The rest of the line goes unread into the void.
			for errors.Is(rerr, bufio.ErrBufferFull) {
				_, rerr = l.r.ReadSlice('\n')
			}
			if rerr != nil {
				l.end = true
			}
			if rerr != nil && rerr != io.EOF {
				return "", &listError{name: l.name, kind: errList, err: rerr}, true
			}
			return "", &listError{name: l.name, line: line, kind: schemes.ErrBadURL, err: fmt.Errorf("longer than %d bytes", maxListLine)}, true
		}
		if rerr != nil {
			l.end = true
			if rerr != io.EOF {
				return "", &listError{name: l.name, kind: errList, err: rerr}, true
			}
		}
		if len(b) == 0 && l.end {
			break
		}
		l.line++
		s := bytes.TrimSpace(b)
		if len(s) == 0 || s[0] == '#' {
			continue
		}
		return string(s), nil, true
	}
	return "", nil, false
}

// queued is what goes with a URL of the run waiting its turn.
type queued struct {
	// cli is the URL's place among the command line's URLs, with which
	// -o and -O pair in order; -1 for a URL from a list, which goes to a
	// file named like the remote one (an implied -O, as in curl).
	cli   int
	err   error    // a line of a list that is no URL, or a list that failed
	globs []string // the text of each glob of the URL it came from, for #n in -o
	// num is the URL's place among the URLs given, those of lists too,
	// counting from 0; the URLs of one glob share it (-w's urlnum).
	num int
	// given is the text as given when it named no scheme and one was
	// guessed (-w's %{url} prints it, as curl's), "" otherwise.
	given string
}

// urlQueue hands out a run's URLs in the command line's order: positional
// URLs and --url values as they were given, each list's URLs in the place
// of its --url @FILE. It reads ahead only as far as the run looks (the
// next URL, the few started early, the hint of those that follow).
type urlQueue struct {
	args  []string // positional URLs not yet queued
	urls  []urlArg // --url values not yet queued
	pos   int      // positional URLs queued so far
	cli   int      // command-line URLs queued so far
	num   int      // URLs given queued so far, lists' too (queued.num)
	list  *urlList // the list being read
	lists []*urlList

	globbing bool          // expand the command line's URL globs (not -g)
	glob     *glob.Pattern // the command-line URL being expanded
	globCLI  int           // its place among the command line's URLs
	globNum  int           // its queued.num

	// raws[head:] are the URLs queued and not handed out, parsed[head:]
	// the same parsed (zero where meta's err is set), meta[head:] what
	// goes with them. Each URL is parsed once, as it is queued, for its
	// own transfer and for the hints of those before it. The arrays only
	// grow; when they are full the queued ones move to new arrays, so that
	// a slice given out as a hint (ahead) keeps its URLs.
	raws   []string
	parsed []uri.URL
	meta   []queued
	head   int

	// guessed, when set, hears of each URL given without a scheme and
	// the URL it was taken for (guessScheme), for -v.
	guessed func(url string)
	// guess, when set, stands for guessScheme (--proto-default).
	guess func(text string) (url string, ok bool)
	// query is what --url-query appends to every URL (withQuery).
	query string
}

// guessScheme gives the URL curl would take text for when it names no
// scheme: "example.com/x" and "localhost:8080/x" (whose "localhost:" reads
// as a scheme, but a port follows it) are http://, and a host name that
// begins "ftp." is ftp://. Text with "://", or with a scheme (news:g,
// file:/etc/hosts, mailto:x@y, whether urlget retrieves it or not), is
// left as it is: it says what it is. ok is false when nothing is guessed.
func guessScheme(text string) (url string, ok bool) {
	t := strings.TrimSpace(text)
	if t == "" || strings.Contains(t, "://") || strings.HasPrefix(t, "<") {
		return "", false
	}
	if scheme, rest, found := strings.Cut(t, ":"); found {
		if _, known := uri.SchemeOf(scheme); known {
			return "", false
		}
		// A scheme urlget does not know (mailto:, urn:) is still a
		// scheme, refused as such, unless what follows it is a port:
		// "localhost:8080" names a host.
		if isScheme(scheme) && (rest == "" || rest[0] < '0' || rest[0] > '9') {
			return "", false
		}
	}
	host := t
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	if i := strings.IndexAny(host, "/:?#"); i >= 0 {
		host = host[:i]
	}
	if len(host) > 4 && strings.EqualFold(host[:4], "ftp.") {
		return "ftp://" + t, true
	}
	return "http://" + t, true
}

// newURLQueue queues the positional URLs args and the --url values urls,
// whose lists are open.
func newURLQueue(args []string, urls []urlArg) *urlQueue {
	q := &urlQueue{args: args, urls: urls}
	for _, u := range urls {
		if u.list != nil {
			q.lists = append(q.lists, u.list)
		}
	}
	return q
}

// close closes the lists not read to their end.
func (q *urlQueue) close() {
	for _, l := range q.lists {
		l.close()
	}
}

// push queues one URL, parsed.
func (q *urlQueue) push(raw string, m queued) {
	if len(q.raws) == cap(q.raws) {
		n := len(q.raws) - q.head
		raws := make([]string, n, max(64, 2*n))
		parsed := make([]uri.URL, n, cap(raws))
		meta := make([]queued, n, cap(raws))
		copy(raws, q.raws[q.head:])
		copy(parsed, q.parsed[q.head:])
		copy(meta, q.meta[q.head:])
		q.raws, q.parsed, q.meta, q.head = raws, parsed, meta, 0
	}
	var u uri.URL
	if m.err == nil {
		guess := q.guess
		if guess == nil {
			guess = guessScheme
		}
		if g, ok := guess(raw); ok {
			if q.guessed != nil {
				q.guessed(g)
			}
			m.given = raw
			raw = g
		}
		raw = withQuery(raw, q.query)
		u, m.err = fetch.ParseURL(raw)
	}
	q.raws = append(q.raws, raw)
	q.parsed = append(q.parsed, u)
	q.meta = append(q.meta, m)
}

// take queues the run's next URL, and reports whether there was one. With
// wait false, a list that would have to wait for its writer counts as
// having none for now.
func (q *urlQueue) take(wait bool) bool {
	for {
		if q.glob != nil {
			raw, texts, ok := q.glob.Next()
			if ok {
				q.push(raw, queued{cli: q.globCLI, globs: texts, num: q.globNum})
				return true
			}
			q.glob = nil
		}
		if q.list != nil {
			raw, err, ok := q.list.next(wait)
			if ok {
				q.push(raw, queued{cli: -1, err: err, num: q.num})
				q.num++
				return true
			}
			if !q.list.end {
				return false
			}
			q.list.close()
			q.list = nil
		}
		if len(q.urls) > 0 && q.urls[0].at == q.pos {
			u := q.urls[0]
			q.urls = q.urls[1:]
			if u.list != nil {
				q.list = u.list
				continue
			}
			q.pushCLI(u.value)
			return true
		}
		if len(q.args) == 0 {
			return false
		}
		q.pushCLI(q.args[0])
		q.args = q.args[1:]
		q.pos++
		return true
	}
}

// maskedText returns raw, a URL's text as given (it need not parse: blanks
// around it, a <URL:…> wrapper, a bad port), with its password masked.
func maskedText(raw string) string { return uri.RedactText(raw) }

// pushCLI queues a URL of the command line, or the first URL of its glob
// with the glob kept for take to go on with. A malformed glob is queued as
// the URL's error (exit 3).
func (q *urlQueue) pushCLI(raw string) {
	cli, num := q.cli, q.num
	q.cli++
	q.num++
	if q.globbing {
		g, err := glob.Parse(raw)
		if err != nil {
			q.push(raw, queued{cli: cli, num: num, err: &schemes.Error{Kind: schemes.ErrBadURL, URL: maskedText(raw), Err: err}})
			return
		}
		if g != nil {
			q.glob, q.globCLI, q.globNum = g, cli, num
			u, texts, _ := g.Next()
			q.push(u, queued{cli: cli, num: num, globs: texts})
			return
		}
	}
	q.push(raw, queued{cli: cli, num: num})
}

// waiting returns how many URLs are queued.
func (q *urlQueue) waiting() int { return len(q.raws) - q.head }

// next hands out the run's next URL, as given and parsed (u is zero when
// m.err is set), waiting for a list's writer if need be; ok is false at
// the end of the run.
func (q *urlQueue) next() (raw string, u uri.URL, m queued, ok bool) {
	if q.waiting() == 0 && !q.take(true) {
		return "", uri.URL{}, queued{}, false
	}
	raw, u, m = q.raws[q.head], q.parsed[q.head], q.meta[q.head]
	q.head++
	return raw, u, m, true
}

// peek returns the URL after the i-th following one (i = 0 for the next)
// when it can be had without waiting.
func (q *urlQueue) peek(i int) (string, bool) {
	for q.waiting() <= i {
		if !q.take(false) {
			return "", false
		}
	}
	return q.raws[q.head+i], true
}

// ahead returns up to n of the URLs that follow the one last handed out,
// parsed, as far as they can be had without waiting and up to the first
// that is not a URL. The slice stays as it is when the queue moves on.
func (q *urlQueue) ahead(n int) []uri.URL {
	for q.waiting() < n && q.take(false) {
	}
	end := q.head
	for end < q.head+min(n, q.waiting()) && q.meta[end].err == nil {
		end++
	}
	return q.parsed[q.head:end:end]
}

// last reports whether the URL last handed out is the run's last. It is
// false when that is not known without waiting.
func (q *urlQueue) last() bool {
	if q.waiting() > 0 || q.take(false) {
		return false
	}
	return q.list == nil && len(q.urls) == 0 && len(q.args) == 0
}

// isScheme reports whether s has the syntax of a scheme (RFC 3986 §3.1):
// a letter, then letters, digits, '+', '-' and '.'.
func isScheme(s string) bool {
	if s == "" || !('a' <= s[0]|0x20 && s[0]|0x20 <= 'z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !('a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
