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

// NewBar returns the bar drawn on w: percentage, bar, size, bytes, rate
// and the time left.
func NewBar(w io.Writer) *Bar { return &Bar{w: w, now: time.Now} }

// NewHashBar returns curl's --progress-bar (-#) drawn on w, width columns
// wide: a line of '#' and the percentage, or, while the size is unknown, a
// "-=O=-" going to and fro.
func NewHashBar(w io.Writer, width int) *Bar {
	if width < minHashWidth {
		width = minHashWidth
	}
	return &Bar{w: w, now: time.Now, hash: true, width: min(width, maxHashWidth)}
}

// The widths of a hash bar: curl's default when the terminal's is not
// known is 79 columns, and it draws at most 256.
const (
	DefaultHashWidth = 79
	minHashWidth     = 20
	maxHashWidth     = 256
)

// Bar draws one line on a terminal's stderr while a body arrives:
// percentage when the size is known, bytes and rate always, and the time
// left once the rate is known.
type Bar struct {
	w        io.Writer
	now      func() time.Time
	mu       sync.Mutex
	start    time.Time
	last     time.Time
	shown    bool
	inactive bool // the current body goes to the terminal: draw nothing

	hash  bool // curl's -# style
	width int  // its width in columns
	fly   int  // where its "-=O=-" is, for a body of unknown size
	back  bool // and whether it goes left
}

// SetActive says whether the next transfer's progress is drawn.
func (p *Bar) SetActive(on bool) {
	p.mu.Lock()
	p.inactive = !on
	p.mu.Unlock()
}

// meterBarWidth is the width of the default meter's bar, which leaves the
// whole line within 80 columns with the time left.
const meterBarWidth = 20

// Update draws a transfer's progress: done bytes of total (-1 when
// unknown), at most every Interval, and always the final one.
func (p *Bar) Update(done, total int64, final bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inactive {
		return
	}
	now := p.now()
	if p.start.IsZero() {
		p.start = now
	}
	if !final && now.Sub(p.last) < Interval {
		return
	}
	p.last = now
	if p.hash {
		p.drawHash(done, total)
		return
	}
	elapsed := now.Sub(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed
	}
	line := fmt.Sprintf("%10s  %10s/s", HumanBytes(done), HumanBytes(int64(rate)))
	if total > 0 {
		pct := float64(done) * 100 / float64(total)
		filled := int(pct / 100 * meterBarWidth)
		filled = max(0, min(filled, meterBarWidth))
		line = fmt.Sprintf("%5.1f%% [%s%s] of %s", pct, strings.Repeat("#", filled), strings.Repeat(" ", meterBarWidth-filled), HumanBytes(total)) + line
		if !final && rate > 0 && done < total {
			line += "  " + Clock(time.Duration(float64(total-done)/rate*float64(time.Second))) + " left"
		}
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	p.shown = true
}

// drawHash draws curl's -# line: with the size known, a '#' for every
// part of the width done and the percentage; without, a "-=O=-" that
// moves a column each time more bytes came.
func (p *Bar) drawHash(done, total int64) {
	barWidth := p.width - 7 // " 100.0%"
	if total > 0 {
		frac := min(float64(done)/float64(total), 1)
		n := int(float64(barWidth) * frac)
		fmt.Fprintf(p.w, "\r%-*s %5.1f%%", barWidth, strings.Repeat("#", n), frac*100)
		p.shown = true
		return
	}
	line := []byte(strings.Repeat(" ", p.width-1))
	copy(line[p.fly:], "-=O=-")
	fmt.Fprintf(p.w, "\r%s", line)
	p.shown = true
	if p.back {
		p.fly--
	} else {
		p.fly++
	}
	if p.fly >= p.width-6 {
		p.fly, p.back = p.width-6, true
	} else if p.fly <= 0 {
		p.fly, p.back = 0, false
	}
}

// Clock writes a duration as curl's meter writes its times: hours,
// minutes and seconds, "0:00:05", and "--:--:--" past 99 hours.
func Clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s < 0 || s >= 100*3600 {
		return "--:--:--"
	}
	return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
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
	p.fly, p.back = 0, false
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
