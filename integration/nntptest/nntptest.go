// Package nntptest runs an NNTP server (RFC 3977, RFC 4643) in the test's
// own process, in the shape of net/http/httptest: it listens on 127.0.0.1,
// serves the groups and articles it was given, and records every command
// line it receives so that tests can check exactly what a client sent.
//
// It can play servers of several ages and moods: with OVER, with only XOVER
// or with neither; before CAPABILITIES; mode-switching; requiring AUTHINFO;
// and answering chosen commands with canned faults.
package nntptest

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/integration/internal/testnet"
)

// Article is one article a server holds.
type Article struct {
	// Number is the article's number in its group; 0 gives it the next
	// number after the previous article's (starting at the group's Low).
	Number int64
	// MessageID is the article's message-id, without angle brackets.
	MessageID string
	// Header holds the header fields in order. A Message-ID field is
	// added in front when it has none.
	Header [][2]string
	// Body is the body text with LF line ends; lines may start with '.'.
	Body string
}

// Text is the article as a client should deliver it: header fields, an
// empty line and the body, with LF line ends and no dot-stuffing.
func (a Article) Text() string {
	var b strings.Builder
	for _, f := range a.Header {
		b.WriteString(f[0])
		b.WriteString(": ")
		b.WriteString(f[1])
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.WriteString(a.Body)
	if a.Body != "" && !strings.HasSuffix(a.Body, "\n") {
		b.WriteByte('\n')
	}
	return b.String()
}

// field returns the first header field named name, "" when absent.
func (a Article) field(name string) string {
	for _, f := range a.Header {
		if strings.EqualFold(f[0], name) {
			return f[1]
		}
	}
	return ""
}

// Overview is the article's overview line (RFC 3977 §8.3.2) as the server
// sends it: number, Subject, From, Date, Message-ID, References, :bytes
// and :lines, separated by TAB.
func (a Article) Overview() string {
	text := a.Text()
	lines := strings.Count(text, "\n")
	// :bytes counts the article on the wire, CRLF line ends, before
	// dot-stuffing (RFC 3977 §8.4.1); :lines counts the body's lines.
	bytes := len(text) + lines
	bodyLines := strings.Count(a.Body, "\n")
	if a.Body != "" && !strings.HasSuffix(a.Body, "\n") {
		bodyLines++
	}
	clean := strings.NewReplacer("\t", " ", "\r", " ", "\n", " ")
	f := []string{
		strconv.FormatInt(a.Number, 10),
		clean.Replace(a.field("Subject")),
		clean.Replace(a.field("From")),
		clean.Replace(a.field("Date")),
		"<" + a.MessageID + ">",
		clean.Replace(a.field("References")),
		strconv.Itoa(bytes),
		strconv.Itoa(bodyLines),
	}
	return strings.Join(f, "\t")
}

// Group is one newsgroup.
type Group struct {
	Name        string
	Description string // for LIST NEWSGROUPS; "" leaves the group out of it
	Status      string // LIST ACTIVE status, "y" when empty
	Low         int64  // the first article number, 1 when 0
	Articles    []Article
}

// OverviewSupport says which overview commands a server knows.
type OverviewSupport int

// The overview commands a server may know.
const (
	OverRFC3977 OverviewSupport = iota // OVER, advertised, and XOVER (as INN does)
	OverXOVER                          // only XOVER (RFC 2980), OVER is unknown
	OverNone                           // neither: clients must read HEAD
)

// Fault replaces the answer to a command.
type Fault struct {
	// Command is matched against the start of each command line.
	Command string
	// Reply is written as it is, line ends included, instead of the
	// command's answer.
	Reply string
	// Endless, after Reply, sends bytes with no line end until the client
	// goes away or 64 MiB have gone.
	Endless bool
	// Hang, after Reply, sends nothing more and waits for the client to
	// close the connection.
	Hang bool
	// Close closes the connection after Reply (or the endless bytes).
	Close bool
	// Once plays the fault only the first time a command matches.
	Once bool
}

// Config describes the server to run.
type Config struct {
	Groups []Group
	// Overview says which overview commands the server knows.
	Overview OverviewSupport
	// User and Password, when User is set, make every reading command
	// answer 480 until AUTHINFO USER and PASS give them (RFC 4643).
	User, Password string
	// NoCapabilities answers CAPABILITIES with 500, as servers older
	// than RFC 3977 did.
	NoCapabilities bool
	// ModeSwitching makes a mode-switching server (RFC 3977 §3.4.2):
	// it advertises MODE-READER and answers reading commands with 502
	// until MODE READER.
	ModeSwitching bool
	// NoNewsgroups answers LIST NEWSGROUPS with 503.
	NoNewsgroups bool
	// Greeting replaces the first line, "200 nntptest ready".
	Greeting string
	// Faults are checked in order against every command.
	Faults []Fault
}

// Server is a running NNTP test server.
type Server struct {
	// URL is "nntp://127.0.0.1:port" ("nntps://…" for a TLS server).
	URL string
	// Addr is the listening address, "127.0.0.1:port".
	Addr string
	// Certificate is the TLS server's certificate, nil without TLS.
	Certificate *x509.Certificate

	cfg      Config
	l        *testnet.Listener
	groups   map[string]*Group
	byID     map[string]*Article
	commands testnet.Recorder[string]
	mu       sync.Mutex // guards played and ahead
	played   map[int]bool
	ahead    int
}

// NewServer starts a server on 127.0.0.1. The caller closes it.
func NewServer(cfg Config) *Server {
	return start(cfg, nil)
}

// NewTLSServer starts a server that speaks TLS from the first byte (NNTP
// over TLS on port 563, RFC 8143) with a fresh self-signed certificate for
// 127.0.0.1; ClientTLSConfig trusts it.
func NewTLSServer(cfg Config) *Server {
	cert, leaf := testnet.SelfSigned("nntptest")
	s := start(cfg, &tls.Config{Certificates: []tls.Certificate{cert}})
	s.Certificate = leaf
	s.URL = "nntps://" + s.Addr
	return s
}

// ClientTLSConfig returns a client configuration that trusts the server.
func (s *Server) ClientTLSConfig() *tls.Config {
	pool := x509.NewCertPool()
	if s.Certificate != nil {
		pool.AddCert(s.Certificate)
	}
	return &tls.Config{RootCAs: pool}
}

func start(cfg Config, tc *tls.Config) *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("nntptest: listen on 127.0.0.1: " + err.Error())
	}
	if tc != nil {
		ln = tls.NewListener(ln, tc)
	}
	s := &Server{
		Addr:   ln.Addr().String(),
		cfg:    cfg,
		groups: make(map[string]*Group),
		byID:   make(map[string]*Article),
	}
	s.URL = "nntp://" + s.Addr
	for gi := range cfg.Groups {
		g := &cfg.Groups[gi]
		if g.Low == 0 {
			g.Low = 1
		}
		if g.Status == "" {
			g.Status = "y"
		}
		next := g.Low
		for ai := range g.Articles {
			a := &g.Articles[ai]
			if a.Number == 0 {
				a.Number = next
			}
			next = a.Number + 1
			a.MessageID = strings.TrimSuffix(strings.TrimPrefix(a.MessageID, "<"), ">")
			if a.field("Message-ID") == "" {
				a.Header = append([][2]string{{"Message-ID", "<" + a.MessageID + ">"}}, a.Header...)
			}
			s.byID[a.MessageID] = a
		}
		s.groups[g.Name] = g
	}
	s.l = testnet.Serve(ln, func(c net.Conn, _ int) { s.session(c) })
	return s
}

// Close stops the server and closes every connection it has open.
func (s *Server) Close() {
	s.l.Close()
}

// Commands returns every command line received so far, over all
// connections, in order of arrival.
func (s *Server) Commands() []string {
	return s.commands.All()
}

// Pipelined returns how many commands the server read while the client's
// next command was already waiting behind it (RFC 3977 §3.5).
func (s *Server) Pipelined() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ahead
}

// ResetCommands forgets the commands recorded so far.
func (s *Server) ResetCommands() {
	s.commands.Reset()
}

// Connections returns how many connections the server has accepted.
func (s *Server) Connections() int {
	return s.l.Accepted()
}

// conn is one client's session state.
type conn struct {
	s       *Server
	c       net.Conn
	tp      *textproto.Conn
	group   *Group
	current int64 // current article number, 0 when none
	reader  bool
	user    string
	authed  bool
}

func (s *Server) session(c net.Conn) {
	k := &conn{s: s, c: c, tp: textproto.NewConn(c)}
	k.reader = !s.cfg.ModeSwitching
	greeting := s.cfg.Greeting
	if greeting == "" {
		greeting = "200 nntptest ready"
	}
	if k.tp.PrintfLine("%s", greeting) != nil {
		return
	}
	for {
		line, err := k.tp.ReadLine()
		if err != nil {
			return
		}
		s.commands.Record(line)
		if k.tp.R.Buffered() > 0 {
			// The next command came before this one's reply.
			s.mu.Lock()
			s.ahead++
			s.mu.Unlock()
		}
		if f, ok := s.fault(line); ok {
			if !k.fault(f) {
				return
			}
			continue
		}
		if !k.command(line) {
			return
		}
	}
}

func (s *Server) fault(line string) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.cfg.Faults {
		if !strings.HasPrefix(line, f.Command) || f.Once && s.played[i] {
			continue
		}
		if s.played == nil {
			s.played = make(map[int]bool)
		}
		s.played[i] = true
		return f, true
	}
	return Fault{}, false
}

// fault plays a fault; false ends the connection.
func (k *conn) fault(f Fault) bool {
	if _, err := io.WriteString(k.c, f.Reply); err != nil {
		return false
	}
	if f.Endless {
		chunk := []byte(strings.Repeat("x", 32<<10))
		for sent := 0; sent < 64<<20; sent += len(chunk) {
			if _, err := k.c.Write(chunk); err != nil {
				return false
			}
		}
	}
	if f.Hang {
		io.Copy(io.Discard, k.c)
		return false
	}
	return !f.Close
}

func (k *conn) reply(format string, args ...any) bool {
	return k.tp.PrintfLine(format, args...) == nil
}

// block sends a status line and a dot-stuffed data block (RFC 3977 §3.1.1).
func (k *conn) block(status string, lines []string) bool {
	if k.tp.PrintfLine("%s", status) != nil {
		return false
	}
	w := k.tp.DotWriter()
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		bw.WriteString(l)
		bw.WriteByte('\n')
	}
	if bw.Flush() != nil {
		return false
	}
	return w.Close() == nil
}

// command answers one command line; false ends the connection.
func (k *conn) command(line string) bool {
	cfg := &k.s.cfg
	f := strings.Fields(line)
	if len(f) == 0 {
		return k.reply("500 empty command")
	}
	verb := strings.ToUpper(f[0])
	args := f[1:]
	switch verb {
	case "QUIT":
		k.reply("205 closing connection")
		return false
	case "CAPABILITIES":
		if cfg.NoCapabilities {
			return k.reply("500 What?")
		}
		caps := []string{"VERSION 2", "IMPLEMENTATION nntptest"}
		if k.reader {
			caps = append(caps, "READER", "LIST ACTIVE NEWSGROUPS OVERVIEW.FMT")
			if cfg.Overview == OverRFC3977 {
				caps = append(caps, "OVER MSGID")
			}
		} else {
			caps = append(caps, "MODE-READER")
		}
		if cfg.User != "" && !k.authed {
			caps = append(caps, "AUTHINFO USER")
		}
		return k.block("101 Capability list:", caps)
	case "MODE":
		if len(args) == 1 && strings.EqualFold(args[0], "READER") {
			if cfg.NoCapabilities && !cfg.ModeSwitching {
				return k.reply("500 What?")
			}
			k.reader = true
			return k.reply("201 Reader mode, posting prohibited")
		}
		return k.reply("501 unknown MODE")
	case "AUTHINFO":
		// RFC 4643 §2.3.2: user names and passwords may hold spaces;
		// the argument is the rest of the line.
		rest := strings.SplitN(line, " ", 3)
		return k.authinfo(rest[1:])
	case "DATE":
		return k.reply("111 %s", time.Now().UTC().Format("20060102150405"))
	}
	if !k.reader {
		return k.reply("502 transit service only; send MODE READER")
	}
	if cfg.User != "" && !k.authed {
		return k.reply("480 authentication required")
	}
	switch verb {
	case "GROUP":
		if len(args) != 1 {
			return k.reply("501 GROUP needs one newsgroup")
		}
		g := k.s.groups[args[0]]
		if g == nil {
			return k.reply("411 no such newsgroup")
		}
		k.group = g
		low, high := groupRange(g)
		k.current = 0
		if len(g.Articles) > 0 {
			k.current = low
		}
		return k.reply("211 %d %d %d %s", len(g.Articles), low, high, g.Name)
	case "ARTICLE", "HEAD", "BODY", "STAT":
		return k.article(verb, args)
	case "OVER", "XOVER":
		if verb == "OVER" && cfg.Overview != OverRFC3977 || cfg.Overview == OverNone {
			return k.reply("500 unknown command")
		}
		return k.over(args)
	case "LIST":
		return k.list(args)
	}
	return k.reply("500 unknown command")
}

func groupRange(g *Group) (low, high int64) {
	if len(g.Articles) == 0 {
		return g.Low, g.Low - 1
	}
	low, high = g.Articles[0].Number, g.Articles[0].Number
	for _, a := range g.Articles {
		low, high = min(low, a.Number), max(high, a.Number)
	}
	return low, high
}

func (k *conn) authinfo(args []string) bool {
	cfg := &k.s.cfg
	if cfg.User == "" || k.authed {
		return k.reply("502 authentication not available")
	}
	if len(args) != 2 || args[1] == "" {
		return k.reply("501 AUTHINFO USER name | AUTHINFO PASS password")
	}
	switch strings.ToUpper(args[0]) {
	case "USER":
		k.user = args[1]
		return k.reply("381 password required")
	case "PASS":
		if k.user == "" {
			return k.reply("482 AUTHINFO USER first")
		}
		if k.user == cfg.User && args[1] == cfg.Password {
			k.authed = true
			return k.reply("281 authentication accepted")
		}
		k.user = ""
		return k.reply("481 authentication failed")
	}
	return k.reply("501 unknown AUTHINFO")
}

// find resolves an ARTICLE/HEAD/BODY/STAT/OVER argument: a message-id,
// a number in the current group, or the current article.
func (k *conn) find(args []string) (*Article, int64, string) {
	if len(args) == 1 && strings.HasPrefix(args[0], "<") {
		a := k.s.byID[strings.TrimSuffix(strings.TrimPrefix(args[0], "<"), ">")]
		if a == nil {
			return nil, 0, "430 no article with that message-id"
		}
		return a, 0, ""
	}
	if k.group == nil {
		return nil, 0, "412 no newsgroup selected"
	}
	n := k.current
	if len(args) == 1 {
		v, err := strconv.ParseInt(args[0], 10, 64)
		if err != nil {
			return nil, 0, "501 bad article number"
		}
		n = v
	} else if n == 0 {
		return nil, 0, "420 no current article"
	}
	for i := range k.group.Articles {
		if a := &k.group.Articles[i]; a.Number == n {
			return a, n, ""
		}
	}
	return nil, 0, "423 no article with that number"
}

func (k *conn) article(verb string, args []string) bool {
	a, n, errReply := k.find(args)
	if a == nil {
		return k.reply("%s", errReply)
	}
	if n != 0 {
		k.current = n
	}
	id := "<" + a.MessageID + ">"
	var head []string
	for _, f := range a.Header {
		head = append(head, f[0]+": "+f[1])
	}
	body := strings.Split(strings.TrimSuffix(a.Body, "\n"), "\n")
	if a.Body == "" {
		body = nil
	}
	switch verb {
	case "STAT":
		return k.reply("223 %d %s", n, id)
	case "HEAD":
		return k.block(fmt.Sprintf("221 %d %s", n, id), head)
	case "BODY":
		return k.block(fmt.Sprintf("222 %d %s", n, id), body)
	}
	all := append(append(head, ""), body...)
	return k.block(fmt.Sprintf("220 %d %s", n, id), all)
}

func (k *conn) over(args []string) bool {
	if len(args) == 1 && strings.HasPrefix(args[0], "<") {
		a, _, errReply := k.find(args)
		if a == nil {
			return k.reply("%s", errReply)
		}
		o := a.Overview()
		// RFC 3977 §8.3.2: by message-id, the number field is 0.
		o = "0" + o[strings.IndexByte(o, '\t'):]
		return k.block("224 overview follows", []string{o})
	}
	if k.group == nil {
		return k.reply("412 no newsgroup selected")
	}
	low, high := k.current, k.current
	if len(args) == 1 {
		lo, hi, ok := strings.Cut(args[0], "-")
		var e1, e2 error
		low, e1 = strconv.ParseInt(lo, 10, 64)
		high = low
		if ok {
			high = 1<<62 - 1
			if hi != "" {
				high, e2 = strconv.ParseInt(hi, 10, 64)
			}
		}
		if e1 != nil || e2 != nil {
			return k.reply("501 bad range")
		}
	} else if low == 0 {
		return k.reply("420 no current article")
	}
	var lines []string
	for _, a := range k.group.Articles {
		if a.Number >= low && a.Number <= high {
			lines = append(lines, a.Overview())
		}
	}
	if len(lines) == 0 {
		return k.reply("423 no articles in that range")
	}
	return k.block("224 overview follows", lines)
}

func (k *conn) list(args []string) bool {
	what := "ACTIVE"
	if len(args) > 0 {
		what = strings.ToUpper(args[0])
	}
	var lines []string
	switch what {
	case "ACTIVE":
		for _, g := range k.s.cfg.Groups {
			low, high := groupRange(&g)
			lines = append(lines, fmt.Sprintf("%s %d %d %s", g.Name, high, low, g.Status))
		}
		return k.block("215 list of newsgroups follows", lines)
	case "NEWSGROUPS":
		if k.s.cfg.NoNewsgroups {
			return k.reply("503 no newsgroup descriptions here")
		}
		for _, g := range k.s.cfg.Groups {
			if g.Description != "" {
				lines = append(lines, g.Name+"\t"+g.Description)
			}
		}
		return k.block("215 descriptions follow", lines)
	case "OVERVIEW.FMT":
		lines = []string{"Subject:", "From:", "Date:", "Message-ID:", "References:", ":bytes", ":lines"}
		return k.block("215 order of fields in overview database", lines)
	}
	return k.reply("503 no such list")
}
