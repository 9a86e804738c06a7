// Package hsts keeps the hosts that asked to be reached only over https
// (HTTP Strict Transport Security, RFC 6797), in curl's HSTS cache file
// format, so that one file serves urlget and curl alike (curl's --hsts).
//
// A file holds one host a line, a leading dot for a host whose
// subdomains are covered too (includeSubDomains), and the time the entry
// expires, in UTC, or "unlimited":
//
//	# comment
//	.example.com "20271231 23:59:59"
//	example.org "unlimited"
package hsts

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// timeLayout is how curl writes an entry's expiry.
const timeLayout = "20060102 15:04:05"

// maxEntries bounds a cache read from a file or grown by servers' fields,
// so that neither can take the process's memory.
const maxEntries = 100000

// Cache is a set of known HSTS hosts (RFC 6797 §8.1). Its methods may be
// called from several goroutines.
type Cache struct {
	mu    sync.Mutex
	hosts map[string]entry
	now   func() time.Time
}

type entry struct {
	expire     time.Time // zero: never
	subdomains bool
}

// New returns an empty cache.
func New() *Cache { return &Cache{hosts: map[string]entry{}, now: time.Now} }

// Load reads the cache file path; a file that does not exist is an empty
// cache, as curl takes it. Lines that are not entries are skipped, as
// curl skips them, and so are expired entries.
func Load(path string) (*Cache, error) {
	c := New()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return c, c.read(f)
}

// read adds the entries of a cache file's text.
func (c *Cache) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), 4096)
	now := c.now()
	for sc.Scan() {
		host, e, ok := parseLine(sc.Text())
		if !ok || (!e.expire.IsZero() && !e.expire.After(now)) || len(c.hosts) >= maxEntries {
			continue
		}
		c.hosts[host] = e
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return errors.New("a line longer than 4096 bytes: not an HSTS cache")
	}
	return sc.Err()
}

// parseLine reads one line of a cache file: [.]host "expiry".
func parseLine(line string) (string, entry, bool) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return "", entry{}, false
	}
	host, rest, ok := strings.Cut(line, " ")
	if !ok {
		return "", entry{}, false
	}
	rest = strings.TrimSpace(rest)
	if len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
		return "", entry{}, false
	}
	var e entry
	if h, ok := strings.CutPrefix(host, "."); ok {
		host, e.subdomains = h, true
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if !validHost(host) {
		return "", entry{}, false
	}
	if when := rest[1 : len(rest)-1]; when != "unlimited" {
		t, err := time.Parse(timeLayout, when)
		if err != nil {
			return "", entry{}, false
		}
		e.expire = t
	}
	return host, e, true
}

// validHost reports whether host is a domain name an entry may hold: no
// IP literal (RFC 6797 §8.1.1), no blank, quote or control byte that
// would break the file's lines.
func validHost(host string) bool {
	if host == "" || len(host) > 253 || net.ParseIP(host) != nil {
		return false
	}
	for i := 0; i < len(host); i++ {
		b := host[i]
		if b <= ' ' || b == '"' || b == 0x7f || b == '/' || b == ':' {
			return false
		}
	}
	return true
}

// Secure reports whether host is a known HSTS host (RFC 6797 §8.2): an
// entry for host itself, or for a superdomain of it that covers its
// subdomains, not expired.
func (c *Cache) Secure(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if net.ParseIP(host) != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	live := func(e entry) bool { return e.expire.IsZero() || e.expire.After(now) }
	if e, ok := c.hosts[host]; ok && live(e) {
		return true
	}
	for h := host; ; {
		_, parent, ok := strings.Cut(h, ".")
		if !ok {
			return false
		}
		if e, ok := c.hosts[parent]; ok && e.subdomains && live(e) {
			return true
		}
		h = parent
	}
}

// Observe takes the Strict-Transport-Security field value a response
// from host gave over a secure connection (RFC 6797 §8.1): it adds,
// renews or (max-age=0) removes host's entry. A field that does not
// parse, and a host that is an IP literal, are ignored (§8.1.1, §6.1).
func (c *Cache) Observe(host, value string) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if !validHost(host) {
		return
	}
	maxAge, sub, ok := parseField(value)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if maxAge == 0 {
		delete(c.hosts, host)
		return
	}
	if _, known := c.hosts[host]; !known && len(c.hosts) >= maxEntries {
		return
	}
	// A max-age past what a time can hold is a very long time, not an
	// overflow into the past.
	const longest = 100 * 365 * 24 * time.Hour
	d := longest
	if maxAge < uint64(longest/time.Second) {
		d = time.Duration(maxAge) * time.Second
	}
	c.hosts[host] = entry{expire: c.now().Add(d).UTC().Truncate(time.Second), subdomains: sub}
}

// parseField parses a Strict-Transport-Security value (RFC 6797 §6.1):
// directives separated by ';', max-age required, a directive given twice
// making the field invalid, unknown directives ignored.
func parseField(v string) (maxAge uint64, subdomains, ok bool) {
	seen := map[string]bool{}
	hasAge := false
	for _, d := range strings.Split(v, ";") {
		d = strings.TrimSpace(d)
		if d == "" {
			continue
		}
		name, val, hasVal := strings.Cut(d, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		val = strings.TrimSpace(val)
		if seen[name] {
			return 0, false, false
		}
		seen[name] = true
		switch name {
		case "max-age":
			if !hasVal {
				return 0, false, false
			}
			if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
				val = val[1 : len(val)-1]
			}
			n, err := strconv.ParseUint(val, 10, 64)
			if err != nil {
				if ne, isNum := err.(*strconv.NumError); isNum && ne.Err == strconv.ErrRange && allDigits(val) {
					n = ^uint64(0)
				} else {
					return 0, false, false
				}
			}
			maxAge, hasAge = n, true
		case "includesubdomains":
			if hasVal {
				return 0, false, false
			}
			subdomains = true
		}
	}
	return maxAge, subdomains, hasAge
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Save writes the cache to path in curl's format, whole or not at all: a
// temporary file beside it is renamed over it.
func (c *Cache) Save(path string) error {
	c.mu.Lock()
	now := c.now()
	hosts := make([]string, 0, len(c.hosts))
	for h, e := range c.hosts {
		if e.expire.IsZero() || e.expire.After(now) {
			hosts = append(hosts, h)
		}
	}
	sort.Strings(hosts)
	var b strings.Builder
	b.WriteString("# Your HSTS cache. https://curl.se/docs/hsts.html\n# Written by urlget in curl's format.\n")
	for _, h := range hosts {
		e := c.hosts[h]
		if e.subdomains {
			b.WriteByte('.')
		}
		when := "unlimited"
		if !e.expire.IsZero() {
			when = e.expire.UTC().Format(timeLayout)
		}
		fmt.Fprintf(&b, "%s \"%s\"\n", h, when)
	}
	c.mu.Unlock()
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(b.String()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
