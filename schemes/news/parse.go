package news

import (
	"errors"
	"mime"
	"net/mail"
	"strconv"
	"strings"
	"time"
)

// overview is one line of an OVER or XOVER answer (RFC 3977 §8.3.2, §8.4):
// the article number, then Subject, From, Date, Message-ID, References,
// :bytes and :lines in that fixed order, then any extra fields from
// LIST OVERVIEW.FMT as "Name: value".
type overview struct {
	Number     int64
	Subject    string
	From       string
	Date       string
	MessageID  string // without its angle brackets
	References string
	Bytes      int64 // -1 when the server left it empty
	Lines      int64 // -1 when the server left it empty
	Extra      [][2]string
}

var (
	errOverviewShort  = errors.New("overview line has fewer than the five fields up to Message-ID")
	errOverviewNumber = errors.New("overview line does not start with an article number")
	errOverviewID     = errors.New("overview line has no valid message-id")
)

// parseOverview reads one overview line (RFC 3977 §8.3.2). Servers may
// leave :bytes and :lines empty or omit the trailing fields; the fields up
// to the message-id must be there.
func parseOverview(line string) (overview, error) {
	o := overview{Bytes: -1, Lines: -1}
	f := strings.Split(line, "\t")
	if len(f) < 5 {
		return o, errOverviewShort
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || n < 0 {
		return o, errOverviewNumber
	}
	o.Number = n
	o.Subject, o.From, o.Date = f[1], f[2], f[3]
	id := strings.TrimSpace(f[4])
	if len(id) < 3 || id[0] != '<' || id[len(id)-1] != '>' || !validMessageID(id[1:len(id)-1]) {
		return o, errOverviewID
	}
	o.MessageID = id[1 : len(id)-1]
	if len(f) > 5 {
		o.References = f[5]
	}
	if len(f) > 6 {
		o.Bytes = parseCount(f[6])
	}
	if len(f) > 7 {
		o.Lines = parseCount(f[7])
	}
	for _, x := range f[min(len(f), 8):] {
		// RFC 3977 §8.4.2: extra fields carry their header name
		// ("Xref: host group:1"); an empty field carries nothing.
		name, value, ok := strings.Cut(x, ":")
		if !ok || name == "" {
			continue
		}
		o.Extra = append(o.Extra, [2]string{strings.ToLower(name), strings.TrimSpace(value)})
	}
	return o, nil
}

// parseCount reads a :bytes or :lines value, -1 when absent or malformed.
func parseCount(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// validMessageID reports whether id (without its angle brackets) is a
// message-id as RFC 3977 §3.6 has it, printable US-ASCII without '>', that
// a news: URL can name: RFC 1738 §3.6 tells a message-id from a group by
// its '@', and the id must not itself start with '<'.
func validMessageID(id string) bool {
	if id == "" || id[0] == '<' || len(id)+2 > 250 || !strings.Contains(id, "@") {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c >= 0x7f || c == '>' {
			return false
		}
	}
	return true
}

// trimAngles removes a message-id's angle brackets (RFC 3977 §3.6).
func trimAngles(id string) string {
	if len(id) >= 2 && id[0] == '<' && id[len(id)-1] == '>' {
		return id[1 : len(id)-1]
	}
	return id
}

// groupStatus is the answer to GROUP (RFC 3977 §6.1.1.2):
// "211 number low high group".
type groupStatus struct {
	Count, Low, High int64
	Name             string
}

var errGroupReply = errors.New("GROUP answer is not \"211 count low high group\"")

// parseGroup reads the text of a 211 answer to GROUP.
func parseGroup(msg string) (groupStatus, error) {
	f := strings.Fields(msg)
	if len(f) < 3 {
		return groupStatus{}, errGroupReply
	}
	var g groupStatus
	var err [3]error
	g.Count, err[0] = strconv.ParseInt(f[0], 10, 64)
	g.Low, err[1] = strconv.ParseInt(f[1], 10, 64)
	g.High, err[2] = strconv.ParseInt(f[2], 10, 64)
	if err[0] != nil || err[1] != nil || err[2] != nil || g.Count < 0 || g.Low < 0 || g.High < 0 {
		return groupStatus{}, errGroupReply
	}
	if len(f) > 3 {
		g.Name = f[3]
	}
	return g, nil
}

// articleRange is the span of article numbers to list: the newest max
// articles of the group (all when max is 0). ok is false for an empty group
// (RFC 3977 §6.1.1.2: count 0, or high below low).
func (g groupStatus) articleRange(max int64) (low, high int64, ok bool) {
	if g.Count == 0 || g.High < g.Low || g.High == 0 {
		return 0, 0, false
	}
	low, high = g.Low, g.High
	if low == 0 {
		low = 1
	}
	if max > 0 && high-low+1 > max {
		low = high - max + 1
	}
	return low, high, true
}

// spanRange is the part of span the group holds: from its first number
// (the group's lowest at least) to its last (the group's highest at most,
// which it also is when span names no last). ok is false when none of it
// is in the group.
func (g groupStatus) spanRange(span articleSpan) (low, high int64, ok bool) {
	low, high, ok = g.articleRange(0)
	if !ok {
		return 0, 0, false
	}
	low = max(low, span.first)
	if span.last >= 0 {
		high = min(high, span.last)
	}
	return low, high, low <= high
}

// activeLine is one line of LIST ACTIVE (RFC 3977 §7.6.3):
// "group high low status".
type activeLine struct {
	Group     string
	High, Low int64
	Status    string
}

var errActiveLine = errors.New("LIST ACTIVE line is not \"group high low status\"")

// parseActive reads one LIST ACTIVE line.
func parseActive(line string) (activeLine, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return activeLine{}, errActiveLine
	}
	a := activeLine{Group: f[0]}
	var e1, e2 error
	a.High, e1 = strconv.ParseInt(f[1], 10, 64)
	a.Low, e2 = strconv.ParseInt(f[2], 10, 64)
	if e1 != nil || e2 != nil || a.High < 0 || a.Low < 0 {
		return activeLine{}, errActiveLine
	}
	if len(f) > 3 {
		a.Status = f[3]
	}
	return a, nil
}

// parseNewsgroups reads one LIST NEWSGROUPS line (RFC 3977 §7.6.6): the
// group name, white space, and the description.
func parseNewsgroups(line string) (group, description string, ok bool) {
	i := strings.IndexAny(line, " \t")
	if i <= 0 {
		return "", "", false
	}
	return line[:i], strings.TrimSpace(line[i:]), true
}

// parseCapability splits a capability line (RFC 3977 §5.2.2) into its
// label, upper-cased, and arguments.
func parseCapability(line string) (string, []string) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return "", nil
	}
	return strings.ToUpper(f[0]), f[1:]
}

// decodeHeader decodes RFC 2047 encoded-words in a Subject or From field;
// a field that does not decode is shown as the server gave it. Raw UTF-8
// (RFC 6532) passes through unchanged.
func decodeHeader(s string) string {
	if !strings.Contains(s, "=?") {
		return s
	}
	d, err := wordDecoder.DecodeHeader(s)
	if err != nil {
		return s
	}
	return d
}

var wordDecoder = new(mime.WordDecoder)

// parseDate reads a Date field (RFC 5536 §3.1.1, RFC 5322 §3.3), the zero
// time when it does not parse.
func parseDate(s string) time.Time {
	s = strings.TrimSpace(s)
	// The form servers and posting agents write (RFC 5322 §3.3, with and
	// without the day of the week) first: mail.ParseDate tries 48 layouts
	// in turn, and each one that fails allocates its error, which made
	// dates most of the work of listing a group. Where one of these
	// parses, mail.ParseDate's first match is the same layout.
	for _, layout := range [...]string{"Mon, 2 Jan 2006 15:04:05 -0700", "2 Jan 2006 15:04:05 -0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	t, err := mail.ParseDate(s)
	if err != nil {
		return time.Time{}
	}
	return t
}
