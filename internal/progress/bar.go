// Package progress draws the command's progress on a terminal: Bar, the
// line of one transfer, and Jobs, the line of a whole parallel run or
// recursion. The caller decides whether the terminal is there.
package progress

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Interval is the least time between two drawings of a line.
const Interval = 200 * time.Millisecond

// NewBar returns the bar drawn on w.
func NewBar(w io.Writer) *Bar { return &Bar{w: w} }

// Bar draws one line on a terminal's stderr while a body arrives:
// percentage when the size is known, bytes and rate always.
type Bar struct {
	w        io.Writer
	mu       sync.Mutex
	start    time.Time
	last     time.Time
	shown    bool
	inactive bool // the current body goes to the terminal: draw nothing
}

// SetActive says whether the next transfer's progress is drawn.
func (p *Bar) SetActive(on bool) {
	p.mu.Lock()
	p.inactive = !on
	p.mu.Unlock()
}

// Update draws a transfer's progress: done bytes of total (-1 when
// unknown), at most every Interval, and always the final one.
func (p *Bar) Update(done, total int64, final bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inactive {
		return
	}
	now := time.Now()
	if p.start.IsZero() {
		p.start = now
	}
	if !final && now.Sub(p.last) < Interval {
		return
	}
	p.last = now
	elapsed := now.Sub(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed
	}
	line := fmt.Sprintf("%10s  %10s/s", HumanBytes(done), HumanBytes(int64(rate)))
	if total > 0 {
		pct := float64(done) * 100 / float64(total)
		const width = 30
		filled := int(pct / 100 * width)
		if filled > width {
			filled = width
		}
		line = fmt.Sprintf("%5.1f%% [%s%s] of %s", pct, strings.Repeat("#", filled), strings.Repeat(" ", width-filled), HumanBytes(total)) + line
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	p.shown = true
}

// Finish ends the progress line so that later messages start on their own.
func (p *Bar) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprintln(p.w)
	}
	p.shown = false
	p.start = time.Time{}
	p.last = time.Time{}
}

// HumanBytes writes n bytes in B, KiB, MiB and larger units of 1024.
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	f := float64(n)
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		f /= unit
		if f < unit {
			return fmt.Sprintf("%.1f %s", f, u)
		}
	}
	return fmt.Sprintf("%.1f PiB", f/unit)
}
