package progress

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// fakeJobProgress returns a job line drawn on a buffer as on a terminal,
// with a clock the test moves.
func fakeJobProgress(t *testing.T) (*Jobs, *bytes.Buffer, *time.Time) {
	t.Helper()
	var b bytes.Buffer
	p := NewJobs(&b, true)
	now := time.Unix(1e9, 0)
	p.now = func() time.Time { return now }
	return p, &b, &now
}

// drawn splits what the line wrote into its drawings, checking that each
// is "\r", the text and "\x1b[K", on one line within 80 columns.
func drawn(t *testing.T, s string) []string {
	t.Helper()
	var lines []string
	for _, d := range strings.Split(s, "\r")[1:] {
		text, ok := strings.CutSuffix(d, "\x1b[K")
		if !ok || strings.ContainsAny(text, "\n\x1b") {
			t.Errorf("malformed drawing %q", d)
		}
		if n := len([]rune(text)); n > jobWidth {
			t.Errorf("a line of %d columns: %q", n, text)
		}
		lines = append(lines, text)
	}
	return lines
}

// TestJobProgress: the line is drawn at most every Interval, with
// the counts, the rate and, once the total is known, the time left; it is
// cut to 80 columns; messages clear it; stop leaves it cleared.
func TestJobProgress(t *testing.T) {
	p, b, now := fakeJobProgress(t)
	p.Set(0, 6, 0, 0)
	*now = now.Add(Interval / 2)
	p.Set(1, 5, 0, 1<<20) // too soon: not drawn
	if got := drawn(t, b.String()); len(got) != 1 || got[0] != "0 done  6 queued  0 B" {
		t.Fatalf("first drawings %q", got)
	}
	*now = now.Add(Interval)
	p.SetTotal(4 << 20)
	p.Set(2, 4, 1, 3<<20)
	got := drawn(t, b.String())
	if want := "2 done  4 queued  1 failed  3.0 MiB  10.0 MiB/s  ETA 0:00"; got[len(got)-1] != want {
		t.Errorf("line %q, want %q", got[len(got)-1], want)
	}

	// A message clears the line first; the next count draws it at once.
	b.Reset()
	io.WriteString(p.Above(b), "urlget: a failure\n")
	p.Set(3, 3, 1, 3<<20)
	if s := b.String(); !strings.HasPrefix(s, "\r\x1b[Kurlget: a failure\n\r3 done") {
		t.Errorf("message and redraw: %q", s)
	}

	// Counts too large for the line are cut to its width.
	b.Reset()
	*now = now.Add(time.Hour)
	p.SetTotal(1 << 62)
	p.Set(1<<62, 1<<62, 1<<62, 1<<40)
	if got := drawn(t, b.String()); len(got) != 1 || len(got[0]) != jobWidth {
		t.Errorf("the line of large counts: %q", got)
	}

	// Held, nothing is drawn; stop clears the line for good.
	p.Hold(true)
	b.Reset()
	*now = now.Add(time.Hour)
	p.Set(4, 2, 1, 1)
	if b.Len() != 0 {
		t.Errorf("held, the line wrote %q", b.String())
	}
	p.Hold(false)
	p.Set(5, 1, 1, 1)
	p.Stop()
	p.Set(6, 0, 1, 1)
	if s := b.String(); !strings.HasSuffix(s, "\r\x1b[K") || strings.Contains(s, "6 done") {
		t.Errorf("stop: %q", s)
	}
}

// TestJobProgressOff: off a terminal there is no line, and the nil line's
// methods do nothing.
func TestJobProgressOff(t *testing.T) {
	var b bytes.Buffer
	p := NewJobs(&b, false)
	if p != nil {
		t.Fatal("a line on a buffer")
	}
	p.Set(1, 2, 3, 4)
	p.AddBytes(5)
	p.SetTotal(6)
	p.Hold(true)
	p.Stop()
	if w := p.Above(&b); w != io.Writer(&b) {
		t.Errorf("above gave %T, want the writer itself", w)
	}
	if b.Len() != 0 {
		t.Errorf("wrote %q", b.String())
	}
}
