package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fakeClock returns a clock that moves on by step at each reading.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(step)
		return t
	}
}

func TestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	p := NewBar(&buf)
	p.now = fakeClock(time.Second)
	p.Update(0, 1<<20, false)
	p.Update(512<<10, 1<<20, false)
	p.Update(1<<20, 1<<20, true)
	p.Finish()
	out := buf.String()
	// Half of it in one second: the other half takes one more.
	if !strings.Contains(out, " 50.0% [##########          ] of 1.0 MiB") || !strings.Contains(out, "0:00:01 left") {
		t.Errorf("half-way line missing or without the time left: %q", out)
	}
	if !strings.Contains(out, "100.0% [####################] of 1.0 MiB") {
		t.Errorf("final line missing: %q", out)
	}
	for _, l := range strings.Split(out, "\r") {
		if n := len(strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\x1b[K")); n >= 80 {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
	if strings.Contains(out[strings.LastIndex(out, "\r"):], "left") {
		t.Errorf("the final line tells a time left: %q", out)
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

// TestHashBar draws curl's -# line: '#'s over the width less the
// percentage's seven columns, and a moving "-=O=-" for an unknown size.
func TestHashBar(t *testing.T) {
	var buf bytes.Buffer
	p := NewHashBar(&buf, DefaultHashWidth)
	p.now = fakeClock(time.Second)
	p.Update(1, 4, false)
	p.Update(4, 4, true)
	p.Finish()
	want := "\r" + strings.Repeat("#", 18) + strings.Repeat(" ", 72-18) + "  25.0%" +
		"\r" + strings.Repeat("#", 72) + " 100.0%\n"
	if buf.String() != want {
		t.Errorf("got  %q\nwant %q", buf.String(), want)
	}
	buf.Reset()
	p.Update(1, -1, false)
	p.Update(2, -1, false)
	p.Finish()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\r")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "-=O=-") || !strings.HasPrefix(lines[2], " -=O=-") || len(lines[2]) != 78 {
		t.Errorf("unknown size: %q", lines)
	}
}

func TestClock(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                       "0:00:00",
		1500 * time.Millisecond: "0:00:02",
		3725 * time.Second:      "1:02:05",
		100 * time.Hour:         "--:--:--",
	} {
		if got := Clock(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}
