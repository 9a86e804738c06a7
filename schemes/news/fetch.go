package news

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"sort"
	"strconv"
	"strings"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

const (
	// maxHeaderBytes bounds the header block read for -I and for a
	// listing built from HEAD; an article's own header streams unbounded
	// in count but each of its lines is bounded.
	maxHeaderBytes = 1 << 20
	// maxDescriptionBytes bounds the LIST NEWSGROUPS descriptions kept to
	// annotate LIST ACTIVE; past it the remaining groups go undescribed.
	maxDescriptionBytes = 8 << 20
)

// errHeaderTooLarge is the cause when a header block passes maxHeaderBytes.
var errHeaderTooLarge = errors.New("header block larger than " + strconv.Itoa(maxHeaderBytes) + " bytes")

// fetch serves one target on the session. owned reports that the returned
// resource's Body or Listing now owns the session and releases it when
// done; otherwise the caller releases it.
//
// ahead gives the commands the next fetches on this Fetcher will send, which
// an article by message-id sends ahead of need (session.pipelined).
func (s *session) fetch(t target, max int64, ahead func(skip, n int) []string) (res *schemes.Resource, owned bool, err error) {
	if !s.ready {
		if err := s.setup(); err != nil {
			return nil, false, err
		}
	}
	switch t.kind {
	case kindArticleByID:
		return s.article(t, "<"+t.messageID+">", articleName(t.messageID), ahead)
	case kindArticleByNumber:
		if _, err := s.group(t.group); err != nil {
			return nil, false, err
		}
		n := strconv.FormatInt(t.number, 10)
		return s.article(t, n, n, nil)
	case kindGroup:
		return s.groupListing(t, max)
	default:
		return s.allGroups(t)
	}
}

// articleVerb is the command that fetches an article for req, and the
// status code of its success.
func articleVerb(req *schemes.Request) (string, int) {
	if req.Head {
		return "HEAD", 221
	}
	return "ARTICLE", 220
}

// articleName is the suggested file name for an article fetched by its
// message-id: the id, with any '/' made harmless.
func articleName(id string) string {
	return strings.ReplaceAll(id, "/", "_")
}

// group selects a newsgroup (RFC 3977 §6.1.1).
func (s *session) group(name string) (groupStatus, error) {
	op := "GROUP " + name
	code, msg, err := s.cmd(op, op)
	if err != nil {
		return groupStatus{}, err
	}
	if code != 211 {
		return groupStatus{}, s.replyErr(op, code, msg)
	}
	g, err := parseGroup(msg)
	if err != nil {
		s.broken = true
		return groupStatus{}, s.req.Fail(schemes.ErrProtocol, op, code, msg, err)
	}
	return g, nil
}

// article sends ARTICLE (RFC 3977 §6.2.1), or HEAD (§6.2.2) for -I, for an
// article named by "<message-id>" or by number in the selected group. A
// request by message-id is pipelined with the commands ahead gives.
func (s *session) article(t target, arg, name string, ahead func(skip, n int) []string) (*schemes.Resource, bool, error) {
	req := s.req
	verb, want := articleVerb(req)
	op := verb + " " + arg
	var code int
	var msg string
	var err error
	if t.kind == kindArticleByID {
		code, msg, err = s.pipelined(op, ahead)
	} else {
		code, msg, err = s.cmd(op, op)
	}
	if err != nil {
		return nil, false, err
	}
	if code != want {
		return nil, false, s.replyErr(op, code, msg)
	}
	res := &schemes.Resource{
		URL:         req.URL.Redacted(),
		ContentType: "message/rfc822",
		Size:        -1,
		Name:        name,
	}
	if req.Head {
		h, err := s.readHeader(op)
		if err != nil {
			return nil, false, err
		}
		res.Header = h
		for _, f := range h {
			if strings.EqualFold(f[0], "Date") {
				res.ModTime = parseDate(f[1])
			}
		}
		return res, false, nil
	}
	// RFC 3977 §3.1.1: the lines of an article are not bounded; its
	// header lines are, by the body reader.
	s.line.bound(false)
	res.Body = newDotBody(s, op, true)
	return res, true, nil
}

// readHeader reads the header block of a 221 answer as name and value
// pairs in the server's order, continuation lines unfolded.
func (s *session) readHeader(op string) ([][2]string, error) {
	r := textproto.NewReader(bufio.NewReader(&cappedReader{r: newDotReader(s.tp.R), n: maxHeaderBytes}))
	var h [][2]string
	for {
		line, err := r.ReadContinuedLine()
		if err == io.EOF {
			return h, nil
		}
		if err != nil {
			return nil, s.ioErr(op, err)
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			continue
		}
		h = append(h, [2]string{name, strings.TrimSpace(value)})
	}
}

// cappedReader fails with errHeaderTooLarge past n bytes.
type cappedReader struct {
	r io.Reader
	n int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, errHeaderTooLarge
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	return n, err
}

// groupListing lists the newest articles of a group, or those of the range
// the URL named: GROUP, then OVER, XOVER or HEAD per article over the range
// (RFC 3977 §6.1.1, §8.3).
func (s *session) groupListing(t target, max int64) (*schemes.Resource, bool, error) {
	req := s.req
	g, err := s.group(t.group)
	if err != nil {
		return nil, false, err
	}
	res := &schemes.Resource{
		URL:  req.URL.Redacted(),
		Size: -1,
		Name: t.group,
		Header: [][2]string{
			{"Group", t.group},
			{"Count", strconv.FormatInt(g.Count, 10)},
			{"Low", strconv.FormatInt(g.Low, 10)},
			{"High", strconv.FormatInt(g.High, 10)},
		},
	}
	if req.Head {
		return res, false, nil
	}
	low, high, ok := g.articleRange(max)
	if t.span != nil {
		low, high, ok = g.spanRange(*t.span)
	}
	if !ok {
		return emptyListing(res, req.Raw), false, nil
	}
	mode, empty, err := s.overview(low, high)
	if err != nil {
		return nil, false, err
	}
	if empty {
		return emptyListing(res, req.Raw), false, nil
	}
	if mode == overHEAD {
		h := newHeadListing(s, t, low, high)
		if req.Raw {
			res.Body = &headRawBody{l: h}
		} else {
			res.Listing = h
		}
		return res, true, nil
	}
	op := "OVER"
	if mode == overXOVER {
		op = "XOVER"
	}
	if req.Raw {
		res.Body = newDotBody(s, op, false)
	} else {
		res.Listing = newLineListing(s, op, t.overviewEntry)
	}
	return res, true, nil
}

// emptyListing completes res for a group with no articles in range.
func emptyListing(res *schemes.Resource, raw bool) *schemes.Resource {
	if raw {
		res.Body = io.NopCloser(strings.NewReader(""))
	} else {
		res.Listing = &schemes.SliceListing{}
	}
	return res
}

// overview asks for the overview of articles low to high, trying what the
// server advertised first: OVER (RFC 3977 §8.3), else XOVER (RFC 2980
// §2.8), else nothing and the listing falls back to HEAD per article. On
// success the 224 answer's data block is next on the connection. empty
// reports a server that has no article in the range (423, §8.3.2).
func (s *session) overview(low, high int64) (mode overMode, empty bool, err error) {
	var try []overMode
	switch {
	case s.over != overUnknown:
		try = []overMode{s.over}
	case s.caps != nil && s.has("OVER"):
		try = []overMode{overOVER, overHEAD}
	case s.caps != nil:
		try = []overMode{overXOVER, overHEAD}
	default:
		try = []overMode{overXOVER, overOVER, overHEAD}
	}
	rng := fmt.Sprintf("%d-%d", low, high)
	for _, m := range try {
		if m == overHEAD {
			s.over = overHEAD
			return overHEAD, false, nil
		}
		verb := "OVER"
		if m == overXOVER {
			verb = "XOVER"
		}
		op := verb + " " + rng
		code, msg, err := s.cmd(op, op)
		if err != nil {
			return 0, false, err
		}
		switch code {
		case 224:
			s.over = m
			return m, false, nil
		case 420, 423:
			s.over = m
			return m, true, nil
		case 500, 501, 503:
			// Not known or not supported here: try the next way.
			continue
		}
		return 0, false, s.replyErr(op, code, msg)
	}
	return 0, false, s.req.Fail(schemes.ErrNotRetrievable, "OVER", 0, "", errors.New("the server offers no overview"))
}

// overviewEntry turns an overview line into a listing entry.
func (t target) overviewEntry(line string) schemes.Entry {
	o, err := parseOverview(line)
	if err != nil {
		return schemes.Entry{Name: line, Kind: schemes.KindInfo, Size: -1, Raw: line}
	}
	e := t.articleEntry(o)
	e.Raw = line
	return e
}

// articleEntry is the listing entry for one article: its URL (a news: URL by
// message-id, or an nntp: URL by number for nntp listings), its subject as
// the name, its size (the server's :bytes, which counts CRLF line ends) and
// its posting date, with the other overview fields alongside.
func (t target) articleEntry(o overview) schemes.Entry {
	e := schemes.Entry{
		Name:    decodeHeader(o.Subject),
		Kind:    schemes.KindArticle,
		Size:    o.Bytes,
		ModTime: parseDate(o.Date),
		Fields: map[string]string{
			"group":      t.group,
			"number":     strconv.FormatInt(o.Number, 10),
			"author":     decodeHeader(o.From),
			"date":       o.Date,
			"message-id": "<" + o.MessageID + ">",
		},
	}
	switch {
	case t.nntpBase != "":
		e.URL = t.nntpBase + uri.EscapeSegment(t.group) + "/" + strconv.FormatInt(o.Number, 10)
	case validMessageID(o.MessageID):
		e.URL = t.newsScheme + ":" + uri.EscapeSegment(o.MessageID)
	default:
		// A message-id no news: URL can name (HEAD fallback only:
		// overview lines with one are refused by parseOverview).
		e.Kind = schemes.KindInfo
	}
	if o.References != "" {
		e.Fields["references"] = o.References
	}
	if o.Lines >= 0 {
		e.Fields["lines"] = strconv.FormatInt(o.Lines, 10)
	}
	if o.Bytes >= 0 {
		e.Fields["bytes"] = strconv.FormatInt(o.Bytes, 10)
	}
	for _, x := range o.Extra {
		if _, dup := e.Fields[x[0]]; !dup {
			e.Fields[x[0]] = x[1]
		}
	}
	return e
}

// allGroups lists every group: LIST ACTIVE (RFC 3977 §7.6.3), each group
// described from LIST NEWSGROUPS (§7.6.6) where the server has that list.
func (s *session) allGroups(t target) (*schemes.Resource, bool, error) {
	req := s.req
	res := &schemes.Resource{URL: req.URL.Redacted(), Size: -1}
	if req.Head {
		res.Header = [][2]string{{"Server", s.greeting}}
		if s.caps != nil {
			labels := make([]string, 0, len(s.caps))
			for l := range s.caps {
				labels = append(labels, l)
			}
			sort.Strings(labels)
			res.Header = append(res.Header, [2]string{"Capabilities", strings.Join(labels, " ")})
		}
		return res, false, nil
	}
	var desc map[string]string
	if !req.Raw {
		var err error
		if desc, err = s.descriptions(); err != nil {
			return nil, false, err
		}
	}
	op := "LIST ACTIVE"
	code, msg, err := s.cmd(op, op)
	if err == nil && (code == 500 || code == 501) {
		// A server older than RFC 3977 knows only plain LIST (RFC 977).
		op = "LIST"
		code, msg, err = s.cmd(op, op)
	}
	if err != nil {
		return nil, false, err
	}
	if code != 215 {
		return nil, false, s.replyErr(op, code, msg)
	}
	if req.Raw {
		res.Body = newDotBody(s, op, false)
		return res, true, nil
	}
	res.Listing = newLineListing(s, op, func(line string) schemes.Entry { return t.groupEntry(line, desc) })
	return res, true, nil
}

// descriptions reads LIST NEWSGROUPS into a map, keeping at most
// maxDescriptionBytes of it. A server without the list gives none.
func (s *session) descriptions() (map[string]string, error) {
	op := "LIST NEWSGROUPS"
	code, _, err := s.cmd(op, op)
	if err != nil {
		return nil, err
	}
	if code != 215 {
		return nil, nil
	}
	desc := make(map[string]string)
	kept := 0
	r := textproto.NewReader(bufio.NewReader(newDotReader(s.tp.R)))
	for {
		line, err := r.ReadLine()
		if err == io.EOF {
			return desc, nil
		}
		if err != nil {
			return nil, s.ioErr(op, err)
		}
		g, d, ok := parseNewsgroups(line)
		if !ok || kept+len(line) > maxDescriptionBytes {
			continue
		}
		kept += len(line)
		desc[g] = d
	}
}

// groupEntry turns a LIST ACTIVE line into a listing entry.
func (t target) groupEntry(line string, desc map[string]string) schemes.Entry {
	a, err := parseActive(line)
	if err != nil {
		return schemes.Entry{Name: line, Kind: schemes.KindInfo, Size: -1, Raw: line}
	}
	e := schemes.Entry{
		URL:         t.newsScheme + ":" + uri.EscapeSegment(a.Group),
		Name:        a.Group,
		Kind:        schemes.KindDirectory,
		Size:        -1,
		Description: desc[a.Group],
		Raw:         line,
		Fields: map[string]string{
			"high": strconv.FormatInt(a.High, 10),
			"low":  strconv.FormatInt(a.Low, 10),
		},
	}
	if a.Status != "" {
		e.Fields["status"] = a.Status
	}
	return e
}
