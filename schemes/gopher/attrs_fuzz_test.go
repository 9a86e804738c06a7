package gopher

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
)

// FuzzAttrListing reads a reply to a Gopher+ attribute request ("TAB $",
// Gopher+ §2.6) as the fetcher does: one entry for each +INFO line and no
// more, a size only from a view given in bytes and never negative, a
// time only in UTC, a description of one bounded line (its lines
// joined), and every failure an error of the taxonomy.
func FuzzAttrListing(f *testing.F) {
	for _, s := range []string{
		"+INFO: 0About\t/about.txt\th\t70\t+\r\n+ADMIN:\r\n Admin: Me <me@h>\r\n Mod-Date: Wed Jul 28 17:02:01 1993 <19930728170201>\r\n+VIEWS:\r\n text/plain: <512b>\r\n text/html: <1k>\r\n+ABSTRACT:\r\n One\r\n two\r\n.\r\n",
		"+INFO: 1Dir\t/d\th\t70\t+\r\n+VIEWS: application/gopher-menu: <12b>\r\n+INFO: 0F\t/f\th\t70\t+\r\n+VIEWS:\r\n text/plain: <-5b>\r\n",
		"+INFO: 0F\t/f\th\t70\r\n+ADMIN:\r\n Mod-Date: <99999999999999>\r\n Mod-Date: >< \r\n+VIEWS:\r\n text/plain: <99999999999999999999b>\r\n",
		"+INFO:\r\n+INFO: \r\n+\r\n+:\r\n.\r\n",
		"+INFO: iinfo\r\n+ABSTRACT:\r\n" + strings.Repeat(" x\r\n", 100),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m := fuzzMenuListing(data, 256, 200)
		first, err := m.line()
		if err != nil || !strings.HasPrefix(first, "+INFO:") {
			return
		}
		a := &attrListing{m: m, next: first, hasNext: true}
		infos := 0
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "+INFO:") {
				infos++
			}
		}
		for n := 0; ; n++ {
			e, err := a.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				var se *schemes.Error
				if !errors.As(err, &se) {
					t.Fatalf("error outside the taxonomy: %v", err)
				}
				break
			}
			if n >= infos {
				t.Fatalf("more entries than +INFO lines in %q", data)
			}
			if e.Size < -1 || e.Size > 0 && e.Kind == schemes.KindDirectory {
				t.Fatalf("entry %+v: size %d", e, e.Size)
			}
			if !e.ModTime.IsZero() && e.ModTime.Location() != time.UTC {
				t.Fatalf("entry %+v: time %v not in UTC", e, e.ModTime)
			}
			if len(e.Description) > maxAbstract || strings.Contains(e.Description, "\n") {
				t.Fatalf("description %q", e.Description)
			}
		}
		a.Close()
	})
}

// FuzzPlusError reads the text of a Gopher+ error block (Gopher+ §2.4):
// its code is the number the first line starts with, at most four
// digits, and the message the whole text, trimmed.
func FuzzPlusError(f *testing.F) {
	for _, s := range []string{"1 Item is not available.\r\n", "2 Try again later.\r\nPlease.\r\n", "3 Item has moved\r\n0Here\t/new\th\t70\r\n", "", "  42", "123456 long", "x 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, block string) {
		e := parsePlusError(block)
		if e.code < 0 || e.code > 9999 {
			t.Fatalf("%q: code %d", block, e.code)
		}
		if e.message != strings.TrimSpace(e.message) || !strings.Contains(strings.ReplaceAll(block, "\r\n", "\n"), e.message) {
			t.Fatalf("%q: message %q", block, e.message)
		}
	})
}
