// Package glob expands URL globs, as curl's: a URL given on the command
// line may hold sets, {a,b,c}, and ranges, [1-100], [001-100] (zero-padded
// to the width of the first bound), [a-z], with an optional step,
// [1-100:10]. The URL stands for every combination, the last glob varying
// fastest, and an -o name may take the current text of the n-th glob as
// #n. The combinations are made one at a time as the run takes them, so
// that [1-1000000] costs no more memory than [1-2]. -g/--globoff turns
// globbing off.
//
// Neither RFC 3986 nor RFC 1738 lets {, }, [ or ] stand unescaped in a
// path or query, and [ ] in the host only around an IP literal (RFC 3986
// §3.2.2): a URL that holds them for real writes them %-escaped, or is
// given with -g. As in curl, a [ that opens an IPv6 literal in the host is
// left alone, and \ before one of the four characters makes it literal.
package glob

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/urlget/urlget/uri"
)

// Limits that keep a pattern's expansion countable: curl's.
const (
	maxGlobs     = 100     // sets and ranges in one URL
	maxGlobTotal = 1 << 62 // combinations of one URL
)

// globPat is one set or range of a globbed URL.
type globPat struct {
	alts     []string // a set's alternatives; nil for a range
	lo, step int64    // a range's first value and step
	n        int64    // how many texts it has
	pad      int      // a numeric range's width, zero-padded
	char     bool     // a letter range
}

// text returns the pattern's i-th text.
func (p *globPat) text(i int64) string {
	switch {
	case p.alts != nil:
		return p.alts[i]
	case p.char:
		return string(rune(p.lo + i*p.step))
	}
	s := strconv.FormatInt(p.lo+i*p.step, 10)
	if len(s) < p.pad {
		s = strings.Repeat("0", p.pad-len(s)) + s
	}
	return s
}

// Pattern is a globbed URL and where its expansion stands: lits[i] is the
// fixed text before pats[i], and the last of lits follows the last
// pattern.
type Pattern struct {
	lits []string
	pats []globPat
	idx  []int64 // the current text of each pattern
	more bool    // next has a combination left to give
}

// Parse reads raw's sets and ranges. It returns nil, and no error,
// when raw holds neither a glob nor an escape: such a URL is taken as it
// is.
// A malformed pattern is a *uri.Error naming its column, as curl names
// the position (exit 3).
func Parse(raw string) (*Pattern, error) {
	if !strings.ContainsAny(raw, "{}[]") {
		return nil, nil
	}
	g := &Pattern{}
	hostStart, hostEnd := hostSpan(raw)
	var lit strings.Builder
	total := int64(1)
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\' && i+1 < len(raw) && strings.IndexByte("{}[]", raw[i+1]) >= 0:
			lit.WriteByte(raw[i+1])
			i += 2
			continue
		case c == '[' && i+1 < len(raw) && raw[i+1] == ']':
			// [] is no range: curl passes it through (a query's a[]=1).
			lit.WriteString("[]")
			i += 2
			continue
		case c == '[' && i >= hostStart && i < hostEnd && ipLiteral(raw[i:hostEnd]):
			end := i + strings.IndexByte(raw[i:], ']') + 1
			lit.WriteString(raw[i:end])
			i = end
			continue
		case c == '}' || c == ']':
			return nil, globError(raw, i, "unmatched close brace/bracket")
		case c != '{' && c != '[':
			lit.WriteByte(c)
			i++
			continue
		}
		if len(g.pats) == maxGlobs {
			return nil, globError(raw, i, "too many globs")
		}
		var p globPat
		var end int
		var err error
		if c == '{' {
			p, end, err = parseSet(raw, i)
		} else {
			p, end, err = parseRange(raw, i)
		}
		if err != nil {
			return nil, err
		}
		if total > maxGlobTotal/p.n {
			return nil, globError(raw, i, "range overflow")
		}
		total *= p.n
		g.lits = append(g.lits, lit.String())
		lit.Reset()
		g.pats = append(g.pats, p)
		i = end
	}
	if len(g.pats) == 0 && lit.String() == raw {
		return nil, nil
	}
	// With no glob but an escape, the glob is the one URL without its
	// backslashes.
	g.lits = append(g.lits, lit.String())
	g.idx = make([]int64, len(g.pats))
	g.more = true
	return g, nil
}

// parseSet reads the set that opens at raw[i], returning it and the index
// after its closing brace. An alternative may be empty ({a,}); \ makes the
// next character literal.
func parseSet(raw string, i int) (globPat, int, error) {
	var p globPat
	var alt strings.Builder
	for j := i + 1; j < len(raw); j++ {
		switch c := raw[j]; c {
		case '\\':
			if j+1 < len(raw) {
				j++
				alt.WriteByte(raw[j])
			}
		case '{', '[':
			return p, 0, globError(raw, j, "nested brace")
		case ',', '}':
			p.alts = append(p.alts, alt.String())
			alt.Reset()
			if c == '}' {
				p.n = int64(len(p.alts))
				return p, j + 1, nil
			}
		case ']':
			return p, 0, globError(raw, j, "unmatched close brace/bracket")
		default:
			alt.WriteByte(c)
		}
	}
	return p, 0, globError(raw, i, "unmatched brace")
}

// parseRange reads the range that opens at raw[i]: a-z, A-Z or a numeric
// one, each with an optional :step.
func parseRange(raw string, i int) (globPat, int, error) {
	var p globPat
	end := strings.IndexByte(raw[i:], ']')
	if end < 0 {
		return p, 0, globError(raw, i, "unmatched bracket")
	}
	body := raw[i+1 : i+end]
	if j := strings.IndexAny(body, "[{"); j >= 0 {
		return p, 0, globError(raw, i+1+j, "nested brace")
	}
	bad := globError(raw, i, "bad range")
	spec, stepText, hasStep := strings.Cut(body, ":")
	p.step = 1
	if hasStep {
		s, err := strconv.ParseInt(stepText, 10, 64)
		if err != nil || s < 1 || stepText[0] == '+' {
			return p, 0, globError(raw, i+1+len(spec), "bad range step")
		}
		p.step = s
	}
	lo, hi, ok := strings.Cut(spec, "-")
	if !ok || lo == "" || hi == "" {
		return p, 0, bad
	}
	var first, last int64
	switch {
	case len(lo) == 1 && len(hi) == 1 && isLetter(lo[0]) && isLetter(hi[0]):
		if isLower(lo[0]) != isLower(hi[0]) {
			return p, 0, bad
		}
		p.char = true
		first, last = int64(lo[0]), int64(hi[0])
	case isDigits(lo) && isDigits(hi):
		var err1, err2 error
		first, err1 = strconv.ParseInt(lo, 10, 64)
		last, err2 = strconv.ParseInt(hi, 10, 64)
		if err1 != nil || err2 != nil {
			return p, 0, bad
		}
		if lo[0] == '0' && len(lo) > 1 {
			p.pad = len(lo)
		}
	default:
		return p, 0, bad
	}
	if last < first {
		return p, 0, bad
	}
	p.lo = first
	p.n = (last-first)/p.step + 1
	return p, i + end + 1, nil
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isLower(c byte) bool  { return 'a' <= c && c <= 'z' }

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// hostSpan returns where raw's authority lies, [start, end): after "//"
// up to the path, query or fragment; an empty span when raw has none.
func hostSpan(raw string) (int, int) {
	i := strings.Index(raw, "://")
	if i < 0 {
		return 0, 0
	}
	start := i + 3
	end := len(raw)
	// The authority ends at the first /, ? or # outside an IP literal.
	depth := 0
	for j := start; j < len(raw); j++ {
		switch raw[j] {
		case '[':
			depth++
		case ']':
			depth--
		case '/', '?', '#':
			if depth <= 0 {
				return start, j
			}
		}
	}
	return start, end
}

// ipLiteral reports whether s starts with an RFC 3986 IP-literal: an IPv6
// address in brackets, with an optional %25 zone (RFC 6874).
func ipLiteral(s string) bool {
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return false
	}
	addr := s[1:end]
	if a, zone, ok := strings.Cut(addr, "%25"); ok {
		if zone == "" {
			return false
		}
		addr = a
	}
	ip, err := netip.ParseAddr(addr)
	return err == nil && ip.Is6()
}

func globError(raw string, i int, msg string) error {
	return &uri.Error{Input: raw, Col: i + 1, Msg: msg}
}

// Next returns the next combination: the URL and the text each glob
// stands for in it (for #n in -o names). ok is false once all are given.
func (g *Pattern) Next() (url string, texts []string, ok bool) {
	if !g.more {
		return "", nil, false
	}
	var b strings.Builder
	texts = make([]string, len(g.pats))
	for k := range g.pats {
		b.WriteString(g.lits[k])
		texts[k] = g.pats[k].text(g.idx[k])
		b.WriteString(texts[k])
	}
	b.WriteString(g.lits[len(g.pats)])
	// The last pattern varies fastest, as in curl.
	g.more = false
	for k := len(g.pats) - 1; k >= 0; k-- {
		g.idx[k]++
		if g.idx[k] < g.pats[k].n {
			g.more = true
			break
		}
		g.idx[k] = 0
	}
	return b.String(), texts, true
}

// Name replaces #n in an -o name by the text of the URL's n-th glob,
// as curl does; a # that names no glob stays as it is.
func Name(name string, texts []string) string {
	if len(texts) == 0 || !strings.Contains(name, "#") {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] != '#' {
			b.WriteByte(name[i])
			continue
		}
		j := i + 1
		for j < len(name) && name[j] >= '0' && name[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(name[i+1 : j])
		if err != nil || n < 1 || n > len(texts) {
			b.WriteByte('#')
			continue
		}
		b.WriteString(texts[n-1])
		i = j - 1
	}
	return b.String()
}
