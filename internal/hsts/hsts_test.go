package hsts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func at(c *Cache, t time.Time) *Cache { c.now = func() time.Time { return t }; return c }

// TestObserveAndSecure: a host that sent the field is known, for as long
// as max-age says, with its subdomains only under includeSubDomains
// (RFC 6797 §6.1, §8.1, §8.2); max-age=0 forgets it.
func TestObserveAndSecure(t *testing.T) {
	c := at(New(), t0)
	c.Observe("Example.COM.", "max-age=3600")
	c.Observe("sub.test", `max-age="60"; includeSubDomains`)
	for host, want := range map[string]bool{
		"example.com": true, "EXAMPLE.com": true, "www.example.com": false,
		"sub.test": true, "a.b.sub.test": true, "test": false, "xsub.test": false,
	} {
		if got := c.Secure(host); got != want {
			t.Errorf("Secure(%q) = %v, want %v", host, got, want)
		}
	}
	at(c, t0.Add(61*time.Second))
	if c.Secure("a.sub.test") || !c.Secure("example.com") {
		t.Error("expiry not kept")
	}
	c.Observe("example.com", "max-age=0")
	if c.Secure("example.com") {
		t.Error("max-age=0 did not remove the entry")
	}
}

// TestObserveRefuses: what a server may not make a cache hold: an IP
// literal (§8.1.1), a field without max-age or with a directive twice
// (§6.1), a host with a byte that would break the file's lines.
func TestObserveRefuses(t *testing.T) {
	c := at(New(), t0)
	for _, h := range []struct{ host, value string }{
		{"127.0.0.1", "max-age=100"},
		{"::1", "max-age=100"},
		{"a.test", "includeSubDomains"},
		{"b.test", "max-age=1; max-age=2"},
		{"c.test", "max-age=-5"},
		{"d.test", "max-age"},
		{"e.test", "max-age=1; includeSubDomains=yes"},
		{"f\" \"unlimited\"\nevil.test", "max-age=100"},
		{"g test", "max-age=100"},
	} {
		c.Observe(h.host, h.value)
	}
	if len(c.hosts) != 0 {
		t.Errorf("entries kept: %v", c.hosts)
	}
	c.Observe("huge.test", "max-age=99999999999999999999999")
	if !c.Secure("huge.test") {
		t.Error("a max-age past int64 is not taken as very long")
	}
}

// TestFileRoundTrip: Save writes curl's format, Load reads it back and
// skips what is no entry, or expired.
func TestFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hsts.txt")
	text := "# a comment\n" +
		".curl.test \"20991231 23:59:59\"\n" +
		"forever.test \"unlimited\"\n" +
		"old.test \"20000101 00:00:00\"\n" +
		"1.2.3.4 \"unlimited\"\n" +
		"broken.test 20991231\n" +
		"nodate.test\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	at(c, t0)
	if !c.Secure("x.curl.test") || !c.Secure("forever.test") || c.Secure("old.test") || c.Secure("broken.test") || c.Secure("nodate.test") || len(c.hosts) != 2 {
		t.Errorf("loaded %v", c.hosts)
	}
	c.Observe("new.test", "max-age=86400")
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := ".curl.test \"20991231 23:59:59\"\nforever.test \"unlimited\"\nnew.test \"20261128 12:00:00\"\n"
	if !strings.HasSuffix(string(b), want) || !strings.HasPrefix(string(b), "#") {
		t.Errorf("saved:\n%s\nwant lines:\n%s", b, want)
	}
	if c, err := Load(filepath.Join(dir, "none")); err != nil || len(c.hosts) != 0 {
		t.Errorf("a missing file: %v, %v", c, err)
	}
}
