package fetch

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"unicode"

	"github.com/urlget/urlget/uri"
)

// Netrc is the parsed content of a .netrc file: the machine entries and the
// default entry, in the format ftp(1) and curl read.
type Netrc struct {
	Machines []NetrcMachine
}

// NetrcMachine is one "machine" (or "default") entry of a .netrc file.
type NetrcMachine struct {
	Name string // host name; "" for the default entry

	// User holds the entry's login and, when it gives one, its password
	// (User.Password's ok); nil when it gives neither.
	User *url.Userinfo
}

// ReadNetrc reads and parses a .netrc file.
func ReadNetrc(path string) (*Netrc, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	n, err := ParseNetrc(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// ParseNetrc parses .netrc text: tokens separated by white space, "machine
// NAME", "default", "login", "password", "account" and "macdef" (whose body
// runs to the next empty line and is skipped). Double-quoted tokens may hold
// white space, as curl allows.
func ParseNetrc(text string) (*Netrc, error) {
	toks, err := netrcTokens(text)
	if err != nil {
		return nil, err
	}
	n := &Netrc{}
	var cur *NetrcMachine
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		next := func() (string, error) {
			if i+1 >= len(toks) {
				return "", fmt.Errorf("netrc: %q needs a value", t.text)
			}
			i++
			return toks[i].text, nil
		}
		switch t.text {
		case "machine":
			name, err := next()
			if err != nil {
				return nil, err
			}
			n.Machines = append(n.Machines, NetrcMachine{Name: strings.ToLower(name)})
			cur = &n.Machines[len(n.Machines)-1]
		case "default":
			n.Machines = append(n.Machines, NetrcMachine{})
			cur = &n.Machines[len(n.Machines)-1]
		case "login", "password", "account":
			v, err := next()
			if err != nil {
				return nil, err
			}
			if cur == nil {
				return nil, fmt.Errorf("netrc: %q before any machine entry", t.text)
			}
			switch t.text {
			case "login":
				if pw, ok := cur.User.Password(); ok {
					cur.User = url.UserPassword(v, pw)
				} else {
					cur.User = url.User(v)
				}
			case "password":
				cur.User = url.UserPassword(cur.User.Username(), v)
			}
		case "macdef":
			// Skip the macro name and its body, which ends at an empty line.
			if _, err := next(); err != nil {
				return nil, err
			}
			end := strings.Index(text[t.end:], "\n\n")
			stop := len(text)
			if end >= 0 {
				stop = t.end + end
			}
			for i+1 < len(toks) && toks[i+1].start < stop {
				i++
			}
		default:
			return nil, fmt.Errorf("netrc: unknown token %q", t.text)
		}
	}
	return n, nil
}

type netrcToken struct {
	text       string
	start, end int
}

func netrcTokens(s string) ([]netrcToken, error) {
	var toks []netrcToken
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '#' && (i == 0 || s[i-1] == '\n'):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case unicode.IsSpace(rune(c)):
			i++
		case c == '"':
			start := i
			var b strings.Builder
			i++
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
				i++
			}
			if i >= len(s) {
				return nil, errors.New("netrc: unterminated quoted token")
			}
			i++
			toks = append(toks, netrcToken{b.String(), start, i})
		default:
			start := i
			for i < len(s) && !unicode.IsSpace(rune(s[i])) {
				i++
			}
			toks = append(toks, netrcToken{s[start:i], start, i})
		}
	}
	return toks, nil
}

// Lookup finds the entry for u: the first machine entry that names u's
// host (whose login is user's name, when user is not nil), and where the entry's
// name also gives a port ("host:port") or a scheme ("ftp://host"), those
// of u; else, when withDefault, the default entry. A machine entry serves
// every URL of its host, as curl reads it; the default entry, which names
// no host, stands only for the start URL's origin (withDefault), so that a
// walk to another host never sends it there.
func (n *Netrc) Lookup(u uri.URL, user *url.Userinfo, withDefault bool) (NetrcMachine, bool) {
	for _, m := range n.Machines {
		if m.Name != "" && machineMatches(m.Name, u) && (user == nil || m.User.Username() == user.Username()) {
			return m, true
		}
	}
	if !withDefault {
		return NetrcMachine{}, false
	}
	for _, m := range n.Machines {
		if m.Name == "" {
			if user == nil || m.User.Username() == user.Username() {
				return m, true
			}
			break
		}
	}
	return NetrcMachine{}, false
}

// machineMatches reports whether a .netrc machine name, "host",
// "host:port", "[v6addr]:port" or "scheme://host[:port]", names u's host,
// and its port and scheme where it gives them.
func machineMatches(name string, u uri.URL) bool {
	host, err := u.HostASCII()
	if err != nil {
		return false
	}
	if name == host {
		return true
	}
	scheme, rest, hasScheme := strings.Cut(name, "://")
	if !hasScheme {
		scheme, rest = u.Scheme(), name
	}
	// FromText %-encodes a name in Unicode, which HostASCII then turns
	// into the A-labels the URL's host is in.
	text, err := uri.FromText(scheme + "://" + rest + "/")
	if err != nil {
		return false
	}
	m, err := uri.Parse(text)
	if err != nil || m.Path() != "/" {
		return false
	}
	if _, ok := m.User(); ok {
		return false
	}
	if _, ok := m.Port(); ok {
		// The same origin: the port's default and leading zeros as
		// uri.URL.Origin compares them.
		return m.Origin() == u.Origin()
	}
	h, err := m.HostASCII()
	return err == nil && h == host && m.Scheme() == u.Scheme()
}

// DefaultNetrcPath returns the .netrc path curl uses: $NETRC, else
// $HOME/.netrc.
func DefaultNetrcPath() string {
	if p := os.Getenv("NETRC"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".netrc"
	}
	return home + "/.netrc"
}
