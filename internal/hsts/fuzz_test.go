package hsts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCacheFile: no file text makes Load fail other than by its error,
// and whatever it loads is written back in lines that read back the same.
func FuzzCacheFile(f *testing.F) {
	f.Add(".a.test \"20991231 23:59:59\"\nb.test \"unlimited\"\n# c\n")
	f.Add("x \"\n\"")
	f.Fuzz(func(t *testing.T, text string) {
		c := at(New(), t0)
		if err := c.read(strings.NewReader(text)); err != nil {
			return
		}
		path := filepath.Join(t.TempDir(), "h")
		if err := c.Save(path); err != nil {
			t.Fatal(err)
		}
		d := at(New(), t0)
		b, _ := os.ReadFile(path)
		if err := d.read(strings.NewReader(string(b))); err != nil || len(d.hosts) != len(c.hosts) {
			t.Fatalf("read back %d of %d entries (%v):\n%s", len(d.hosts), len(c.hosts), err, b)
		}
	})
}

// FuzzField: any field value from any host leaves only entries whose
// hosts can be written as lines of the file.
func FuzzField(f *testing.F) {
	f.Add("a.test", "max-age=31536000; includeSubDomains")
	f.Add("b.test", `max-age="0"`)
	f.Fuzz(func(t *testing.T, host, value string) {
		c := at(New(), t0)
		c.Observe(host, value)
		for h := range c.hosts {
			if !validHost(h) {
				t.Fatalf("kept host %q", h)
			}
		}
	})
}
