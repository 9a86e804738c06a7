package http

import "testing"

// FuzzPartRange reads a server's Content-Range as checkPart does: what
// it accepts is a real part, first to last within the complete length.
func FuzzPartRange(f *testing.F) {
	for _, s := range []string{"bytes 0-9/20", "bytes 2-5/*", "bytes 5-2/20", "bytes 0-19/20", "bytes */20", "bytes 0-9/5", "bytes -1-2/3", "bytes 0-9223372036854775807/*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		first, last, total, ok := partRange(v)
		if !ok {
			return
		}
		if first < 0 || last < first || total != -1 && total <= last {
			t.Fatalf("partRange(%q) = %d, %d, %d", v, first, last, total)
		}
	})
}
