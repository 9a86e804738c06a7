package progress

import (
	"bytes"
	"strings"
	"testing"
)

func TestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	p := NewBar(&buf)
	p.Update(512<<10, 1<<20, false)
	p.Update(1<<20, 1<<20, true)
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
	p.Update(10, 100, true)
	p.Finish()
	if buf.Len() != 0 {
		t.Errorf("inactive bar drew %q", buf.String())
	}
	p.SetActive(true)

	// Unknown size: bytes only.
	buf.Reset()
	p.Update(3000, -1, true)
	if strings.Contains(buf.String(), "%") || !strings.Contains(buf.String(), "2.9 KiB") {
		t.Errorf("unknown size: %q", buf.String())
	}
}
