package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/term"
)

// Jobs is the one status line of a whole job, a parallel run or a
// recursion, on a terminal's stderr: files done, queued and failed, the
// bytes received, the rate, and the time left when the job's total is
// known. It takes the place of the per-transfer bar (Bar), which
// cannot show several bodies at once. The line is redrawn with \r at most
// every Interval, and fits the terminal's width, 80 columns at most.
//
// NewJobs returns nil where the line is not drawn (stderr is no
// terminal); every method of a nil *Jobs does nothing, so that a
// caller need not ask. The methods may be called from several goroutines.
type Jobs struct {
	w     io.Writer
	width int
	now   func() time.Time

	mu                          sync.Mutex
	start                       time.Time
	last                        time.Time // when the line was last drawn
	shown                       bool      // the line is on the screen
	held                        bool      // draw nothing for now (Hold)
	done, queued, failed, bytes int64
	total                       int64 // the job's bytes in all, -1 while unknown (SetTotal)

	// Trailing, set before the first count, draws counts that came too
	// soon after the last drawing once Interval has passed, even when no
	// count follows: a recursion's counts come in bursts (a page's
	// links, the first chunk of a large body), and the line must not sit
	// on the burst's first value while its last is known.
	Trailing bool
	late     *time.Timer // the trailing drawing's timer
}

// jobWidth is the widest the job line is drawn.
const jobWidth = 80

// NewJobs returns the job line drawn on w, or nil when w is no
// terminal, as the caller tells.
func NewJobs(w io.Writer, terminal bool) *Jobs {
	if !terminal {
		return nil
	}
	width := jobWidth
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 1 && cols <= jobWidth {
			// One column less: a line that fills the last column makes
			// some terminals wrap before the \r.
			width = cols - 1
		}
	}
	return &Jobs{w: w, width: width, now: time.Now, total: -1}
}

// Set records the job's counts: files done (fetched or failed), queued
// (known and not done yet: waiting or under way), failed, and the bytes
// received in all; and redraws the line when Interval has passed
// since it was last drawn.
func (p *Jobs) Set(done, queued, failed, bytes int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.queued, p.failed, p.bytes = done, queued, failed, bytes
	p.draw()
}

// AddBytes adds n to the bytes received, for a caller that counts them
// as they come rather than in all.
func (p *Jobs) AddBytes(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bytes += n
	p.draw()
}

// SetTotal gives the bytes the whole job receives, for the time left;
// a negative n means unknown.
func (p *Jobs) SetTotal(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.total = n
	p.mu.Unlock()
}

// hold stops the line from being drawn (on) while something else writes
// to the same terminal, a body going to standard output, and lets it be
// drawn again (off). The line is cleared while held.
func (p *Jobs) Hold(on bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if on {
		p.clear()
	}
	p.held = on
}

// stop clears the line, for good: the job is over.
func (p *Jobs) Stop() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.held = true
	if p.late != nil {
		p.late.Stop()
		p.late = nil
	}
}

// above returns a writer for messages to w, the line's terminal, that
// appear above the line: the line is cleared before each write and drawn
// again at the next count. Without a line it returns w.
func (p *Jobs) Above(w io.Writer) io.Writer {
	if p == nil {
		return w
	}
	return aboveLine{p, w}
}

type aboveLine struct {
	p *Jobs
	w io.Writer
}

func (a aboveLine) Write(b []byte) (int, error) {
	a.p.mu.Lock()
	defer a.p.mu.Unlock()
	a.p.clear()
	return a.w.Write(b)
}

// clear erases the line, if drawn; the next count draws it at once.
// p.mu is held.
func (p *Jobs) clear() {
	if p.shown {
		io.WriteString(p.w, "\r\x1b[K")
		p.shown = false
		p.last = time.Time{}
	}
}

// draw writes the line when due: at once after clear, else when
// Interval has passed. p.mu is held.
func (p *Jobs) draw() {
	if p.held {
		return
	}
	now := p.now()
	if p.start.IsZero() {
		p.start = now
	}
	if !p.last.IsZero() && now.Sub(p.last) < Interval {
		if p.Trailing && p.late == nil {
			p.late = time.AfterFunc(Interval-now.Sub(p.last), func() {
				p.mu.Lock()
				defer p.mu.Unlock()
				p.late = nil
				p.draw()
			})
		}
		return
	}
	p.last = now
	line := p.line(now.Sub(p.start))
	io.WriteString(p.w, "\r"+line+"\x1b[K")
	p.shown = true
}

// line is the text of the line after elapsed, cut to p.width:
// "12 done  28 queued  1 failed  3.4 MiB  1.2 MiB/s  ETA 0:12".
func (p *Jobs) line(elapsed time.Duration) string {
	b := make([]byte, 0, 2*jobWidth)
	b = strconv.AppendInt(b, p.done, 10)
	b = append(b, " done  "...)
	b = strconv.AppendInt(b, p.queued, 10)
	b = append(b, " queued"...)
	if p.failed > 0 {
		b = append(b, "  "...)
		b = strconv.AppendInt(b, p.failed, 10)
		b = append(b, " failed"...)
	}
	b = append(b, "  "+HumanBytes(p.bytes)...)
	var rate float64
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(p.bytes) / s
		b = append(b, "  "+HumanBytes(int64(rate))+"/s"...)
	}
	if p.total >= p.bytes && rate > 0 {
		left := time.Duration(float64(p.total-p.bytes) / rate * float64(time.Second))
		b = append(b, "  ETA "+clock(left)...)
	}
	if len(b) > p.width {
		b = b[:p.width]
	}
	return string(b)
}

// clock writes d as h:mm:ss, or m:ss under an hour.
func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
