// Package news fetches news: and nntp: URLs (RFC 1738 §3.6–3.7) from a Usenet
// server over NNTP (RFC 3977, RFC 4643 authentication, TLS on port 563).
// It is built on net/textproto the way net/smtp is, and keeps one session per
// server open across the URLs of a run.
package news

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/urlget/urlget/internal/netconn"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// DefaultMaxArticles is how many of a group's newest articles a group
// listing shows when the request's NNTP.MaxArticles is 0.
const DefaultMaxArticles = 100

// maxIdlePerServer bounds the idle sessions kept per server: a run that
// fetches its URLs one after the other uses exactly one, and a parallel run
// or mirror (at most eight transfers to one server at once) keeps each of
// its sessions instead of ending some and logging in again.
const maxIdlePerServer = 8

// Fetcher retrieves news, snews, nntp and nntps URLs. Its zero value is ready
// to use. It keeps the NNTP sessions it opened so that every URL of a run that
// goes to one server (same host, port, TLS and user) is served by one
// connection; Close ends them. A Fetcher is safe for use by several
// goroutines; each concurrent fetch gets a session of its own.
//
// Its settings, as http.Transport's, hold for every URL it fetches; they
// must not be changed once it is in use.
type Fetcher struct {
	// Server is the "host[:port]" that news: and snews: URLs, which name
	// no server (RFC 1738 §3.6), are fetched from. Empty means the
	// NNTPSERVER environment variable; when that is empty too, such a
	// fetch fails with schemes.ErrNoNewsServer.
	Server string

	// MaxArticles is how many of a group's newest articles a group
	// listing holds: 0 means DefaultMaxArticles, and a negative value
	// lists them all.
	MaxArticles int

	once sync.Once
	pool netconn.Pool[poolKey, *session]

	// expected holds the runs of requests told by Expect.
	expected schemes.Expected
}

// sessions returns the pool of idle sessions, set up on first use so that
// the zero Fetcher is ready.
func (f *Fetcher) sessions() *netconn.Pool[poolKey, *session] {
	f.once.Do(func() {
		f.pool.MaxIdle = maxIdlePerServer
		f.pool.Drop = (*session).quit
	})
	return &f.pool
}

// Expect implements schemes.Expecter: the ARTICLE (or HEAD) commands of
// the articles by message-id among reqs go out on a session right behind
// the command of the request before them on the same server, under the
// same login (RFC 3977 §3.5: a client may pipeline commands, and these
// neither depend on nor change the session's state, §6.2.1.2).
func (f *Fetcher) Expect(reqs []*schemes.Request, end bool) {
	f.expected.Add(reqs, end)
}

// poolKey names the server and identity a session belongs to. news: and nntp:
// URLs that reach the same server share sessions; the password is part of the
// key so that a session is never reused under other credentials.
type poolKey struct {
	tls      bool
	addr     string
	user     string
	password string
}

// Schemes lists the URL schemes the Fetcher serves.
var Schemes = []string{"news", "nntp", "nntps", "snews"}

// urlKind says what a URL asks of the server.
type urlKind int

const (
	kindArticleByID     urlKind = iota // news:<message-id>
	kindGroup                          // news:<group>, nntp://host/group
	kindAllGroups                      // news:*
	kindArticleByNumber                // nntp://host/group/number
)

// target is a URL decoded into what to ask of which server.
type target struct {
	kind      urlKind
	tls       bool
	host      string // host name for TLS verification
	addr      string // host:port to dial
	group     string
	messageID string
	number    int64
	// nntpBase, when not empty, makes listing entries nntp URLs under
	// this prefix ("nntp://host:port/"); otherwise they are news URLs
	// with newsScheme ("news" or "snews").
	nntpBase   string
	newsScheme string
	// span, for a group listing, is the range of article numbers the URL
	// named (Lynx's group/first-last); nil for the newest MaxArticles.
	span *articleSpan
}

// articleSpan is a range of article numbers; last is -1 for "to the
// group's newest".
type articleSpan struct {
	first, last int64
}

// Fetch retrieves the article, group listing or group list req.URL names.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Resource, error) {
	t, err := decode(req, f.Server)
	if err != nil {
		return nil, err
	}
	max := maxArticles(f.MaxArticles)
	key := keyOf(req, t)
	ahead, _ := f.expected.Take(req)
	for attempt := 0; ; attempt++ {
		s, reused, err := f.get(ctx, req, key, t)
		if err != nil {
			return nil, err
		}
		s.begin(ctx, req)
		res, owned, err := s.fetch(t, max, aheadCommands(req, t, key, ahead, f.Server))
		if err == nil {
			if !owned {
				f.put(s)
			}
			return res, nil
		}
		// RFC 3977 §3.1: a server may close an idle connection (often
		// after a 400 reply); a session taken from the pool that fails
		// before its first reply is replaced once by a fresh one.
		stale := reused && s.broken && (s.replies == 0 || s.closing && s.replies == 1)
		f.put(s)
		if stale && attempt == 0 && ctx.Err() == nil {
			continue
		}
		return nil, err
	}
}

// keyOf is the pool key of req, decoded as t.
func keyOf(req *schemes.Request, t target) poolKey {
	key := poolKey{tls: t.tls, addr: t.addr}
	if req.User != nil {
		key.user = req.User.Username()
		key.password, _ = req.User.Password()
	}
	return key
}

// aheadCommands returns the function that turns ahead, the requests told
// to follow req (Expect), into the commands their fetches will send: from
// the skip-th on, at most n, as long as they are articles by message-id
// asked the same way of the same server under the same login (key), as t,
// itself one, is. Only those can be pipelined on req's session; the list
// stops at the first request that is not.
func aheadCommands(req *schemes.Request, t target, key poolKey, ahead []*schemes.Request, server string) func(skip, n int) []string {
	if t.kind != kindArticleByID || len(ahead) == 0 {
		return nil
	}
	return func(skip, n int) []string {
		verb, _ := articleVerb(req)
		var cmds []string
		for _, next := range ahead[min(skip, len(ahead)):] {
			if len(cmds) == n {
				break
			}
			if next.URL.Scheme() != req.URL.Scheme() {
				break
			}
			a, err := decode(next, server)
			if err != nil || a.kind != kindArticleByID || keyOf(next, a) != key {
				break
			}
			if v, _ := articleVerb(next); v != verb {
				break
			}
			cmds = append(cmds, verb+" <"+a.messageID+">")
		}
		return cmds
	}
}

// Close ends every idle session with QUIT and makes the Fetcher refuse
// further use of the pool; sessions still serving a body are closed when
// that body is closed.
func (f *Fetcher) Close() error {
	f.expected.Reset()
	return f.sessions().Close()
}

// get returns an idle session for key or opens a new one.
func (f *Fetcher) get(ctx context.Context, req *schemes.Request, key poolKey, t target) (*session, bool, error) {
	if s, ok := f.sessions().Take(key); ok {
		_, tls := s.nc.(*tls.Conn)
		schemes.MetricsFrom(ctx).Reused(s.nc, tls)
		if req.Capture != nil {
			// The session was dialled for an earlier fetch: this
			// one's archive learns its server here, and how the
			// session was opened (the greeting, CAPABILITIES, MODE
			// READER, AUTHINFO), so that its record reads on its
			// own.
			req.Capture.Connected(s.nc.RemoteAddr())
			s.opening.Replay(req.Capture)
		}
		return s, true, nil
	}
	s, err := dial(ctx, req, key, t)
	if err != nil {
		return nil, false, err
	}
	s.pool = f
	return s, false, nil
}

// put ends a fetch on s: a healthy session goes back to the pool (which
// ends it with QUIT when it holds maxIdlePerServer for the server
// already, or was closed), a broken one is closed.
func (f *Fetcher) put(s *session) {
	if !s.end() {
		s.close()
		return
	}
	f.sessions().Put(s.key, s)
}

// decode turns the request's URL into a target, checking every value that
// will go into a command; server is Fetcher.Server.
func decode(req *schemes.Request, server string) (target, error) {
	u := req.URL
	var t target
	if base, span, ok, err := splitSpan(req); err != nil {
		return t, err
	} else if ok {
		u, t.span = base, span
	}
	scheme := u.Scheme()
	info, _ := uri.SchemeOf(scheme)
	t.tls = info.TLS // snews and nntps (RFC 5538 §2.2)
	switch scheme {
	case "news", "snews":
		v, err := u.News()
		if err != nil {
			return t, req.Fail(schemes.ErrBadURL, "", 0, "", err)
		}
		t.newsScheme = scheme
		if u.HasAuthority() && u.Hostname() != "" {
			// RFC 5538 §2.1: news://server/... names its server.
			t.host, t.addr = u.Hostname(), u.Addr()
		} else {
			t.host, t.addr, err = newsServer(req, server, scheme)
			if err != nil {
				return t, err
			}
		}
		switch {
		case v.MessageID != "":
			t.kind, t.messageID = kindArticleByID, v.MessageID
		case v.Group == "*":
			t.kind = kindAllGroups
		default:
			t.kind, t.group = kindGroup, v.Group
		}
	case "nntp", "nntps":
		v, err := u.NNTP()
		if err != nil {
			return t, req.Fail(schemes.ErrBadURL, "", 0, "", err)
		}
		t.host, t.addr = u.Hostname(), u.Addr()
		t.group = v.Group
		t.kind = kindGroup
		if v.HasArticle {
			t.kind, t.number = kindArticleByNumber, v.Article
		}
		t.nntpBase = schemes.ServerURL(u)
	default:
		return t, req.Fail(schemes.ErrNotRetrievable, "", 0, "", errors.New("scheme "+strconv.Quote(scheme)+" is not served by the news fetcher"))
	}
	if t.span != nil && t.kind != kindGroup {
		return t, req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("an article range follows a newsgroup name, not "+strconv.Quote(u.Path())))
	}
	if t.group != "" {
		if err := checkGroup(req, t.group); err != nil {
			return t, err
		}
	}
	if t.messageID != "" {
		if err := checkMessageID(req, t.messageID); err != nil {
			return t, err
		}
	}
	return t, nil
}

// splitSpan finds an article range after a newsgroup, as Lynx takes it:
// nntp://host/group/first-last and news:group/first-last list the articles
// numbered first to last; "first-" lists from first to the newest. It
// returns the URL without the range. A range is explicit, so that
// Fetcher.MaxArticles does not cut it.
func splitSpan(req *schemes.Request) (base uri.URL, span *articleSpan, ok bool, err error) {
	u := req.URL.WithoutFragment()
	if _, q := u.Query(); q {
		return u, nil, false, nil
	}
	p := u.Path()
	i := strings.LastIndexByte(p, '/')
	if i < 0 || strings.Contains(p[:i], "@") || strings.Contains(p[:i], "%40") {
		// A message-id may hold a '/' (RFC 5536 §3.1.3).
		return u, nil, false, nil
	}
	seg := p[i+1:]
	first, last, dash := strings.Cut(seg, "-")
	if !dash || !allDigits(first) || (last != "" && !allDigits(last)) {
		return u, nil, false, nil
	}
	bad := func(why string) (uri.URL, *articleSpan, bool, error) {
		return u, nil, false, req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("article range "+strconv.Quote(seg)+" "+why))
	}
	sp := &articleSpan{last: -1}
	if sp.first, err = strconv.ParseInt(first, 10, 64); err != nil {
		return bad("is out of range")
	}
	if last != "" {
		if sp.last, err = strconv.ParseInt(last, 10, 64); err != nil {
			return bad("is out of range")
		}
		if sp.last < sp.first {
			return bad("ends before it starts")
		}
	}
	s := u.String()
	base, err = uri.Parse(s[:len(s)-len(seg)-1])
	if err != nil {
		return bad("follows no newsgroup")
	}
	return base, sp, true, nil
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// newsServer finds the server for a news: URL, which names none (RFC 1738
// §3.6): server (Fetcher.Server), then the NNTPSERVER environment variable
// that tin, slrn and Lynx read.
func newsServer(req *schemes.Request, server, scheme string) (host, addr string, err error) {
	s := server
	if s == "" {
		s = os.Getenv("NNTPSERVER")
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", "", req.Fail(schemes.ErrBadURL, "", 0, "", schemes.ErrNoNewsServer)
	}
	if strings.ContainsAny(s, "/\r\n\x00 \t") {
		return "", "", req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("news server "+strconv.Quote(s)+" is not host[:port]"))
	}
	h, p, splitErr := net.SplitHostPort(s)
	if splitErr != nil {
		// A bare host, or a bare IPv6 address.
		h, p = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"), uri.DefaultPort(scheme)
	}
	if h == "" {
		return "", "", req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("news server "+strconv.Quote(s)+" has no host"))
	}
	if p == "" {
		p = uri.DefaultPort(scheme)
	}
	if n, err := strconv.ParseUint(p, 10, 16); err != nil || n == 0 {
		return "", "", req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("news server "+strconv.Quote(s)+" has a bad port"))
	}
	// The server's name goes to the resolver and into TLS as its IDNA
	// A-labels, as a URL's host does (RFC 5891 §5).
	if h, err = uri.HostASCII(h); err != nil {
		return "", "", req.Fail(schemes.ErrBadURL, "", 0, "", err)
	}
	return h, net.JoinHostPort(h, p), nil
}

// maxArticles returns how many of a group's newest articles to list, 0
// for all of them, from Fetcher.MaxArticles, n.
func maxArticles(n int) int64 {
	switch {
	case n == 0:
		return DefaultMaxArticles
	case n < 0:
		return 0
	default:
		return int64(n)
	}
}

// checkGroup refuses a newsgroup name that cannot go into a command: RFC
// 3977 §4.1, a name is printable UTF-8 without white space or controls.
func checkGroup(req *schemes.Request, g string) error {
	if err := req.CheckArg("newsgroup name", g); err != nil {
		return err
	}
	if i := strings.IndexFunc(g, func(r rune) bool { return r <= ' ' || r == 0x7f }); i >= 0 {
		return req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("newsgroup name contains white space or a control byte, which cannot be sent in a command"))
	}
	// RFC 3977 §3.1: a command line is at most 512 octets.
	if len(g) > 497 {
		return req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("newsgroup name is longer than a command allows"))
	}
	return nil
}

// checkMessageID refuses a message-id that cannot go into a command: RFC
// 3977 §3.6, printable US-ASCII without '>' inside, at most 250 octets with
// its angle brackets (the URL carries the id without them, RFC 1738 §3.6).
func checkMessageID(req *schemes.Request, id string) error {
	if err := req.CheckArg("message-id", id); err != nil {
		return err
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c >= 0x7f || c == '>' {
			return req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("message-id contains white space, a control byte or a '>', which cannot be sent in a command"))
		}
	}
	if len(id)+2 > 250 {
		return req.Fail(schemes.ErrBadURL, "", 0, "", errors.New("message-id is longer than 250 octets"))
	}
	return nil
}

var _ io.Closer = (*Fetcher)(nil)
