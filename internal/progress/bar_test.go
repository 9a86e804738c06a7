package progress

import (
	"bytes"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
)

func TestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	p := NewBar(&buf)
	p.Update(fetch.Progress{Done: 512 << 10, Total: 1 << 20})
	p.Update(fetch.Progress{Done: 1 << 20, Total: 1 << 20, Final: true})
	p.Finish()
	out := buf.String()
	if !strings.Contains(out, " 50.0% [###############               ]") {
		t.Errorf("half-way line missing: %q", out)
	}
	if !strings.Contains(out, "100.0% [##############################] of 1.0 MiB") {
		t.Errorf("final line missing: %q", out)
	}
	if !strings.HasSuffix(out, "\n") {
		t.Error("finish must end the line")
	}
	// A body going to the terminal draws nothing.
	buf.Reset()
	p.SetActive(false)
	p.Update(fetch.Progress{Done: 10, Total: 100, Final: true})
	p.Finish()
	if buf.Len() != 0 {
		t.Errorf("inactive bar drew %q", buf.String())
	}
	p.SetActive(true)

	// Unknown size: bytes only.
	buf.Reset()
	p.Update(fetch.Progress{Done: 3000, Total: -1, Final: true})
	if strings.Contains(buf.String(), "%") || !strings.Contains(buf.String(), "2.9 KiB") {
		t.Errorf("unknown size: %q", buf.String())
	}
}
