package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/fetch"
)

// progressBar draws one line on a terminal's stderr while a body arrives:
// percentage when the size is known, bytes and rate always.
type progressBar struct {
	w        io.Writer
	mu       sync.Mutex
	start    time.Time
	last     time.Time
	shown    bool
	inactive bool // the current body goes to the terminal: draw nothing
}

// setActive says whether the next transfer's progress is drawn.
func (p *progressBar) setActive(on bool) {
	p.mu.Lock()
	p.inactive = !on
	p.mu.Unlock()
}

func (p *progressBar) update(pr fetch.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inactive {
		return
	}
	now := time.Now()
	if p.start.IsZero() {
		p.start = now
	}
	if !pr.Final && now.Sub(p.last) < progressInterval {
		return
	}
	p.last = now
	elapsed := now.Sub(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(pr.Done) / elapsed
	}
	line := fmt.Sprintf("%10s  %10s/s", humanBytes(pr.Done), humanBytes(int64(rate)))
	if pr.Total > 0 {
		pct := float64(pr.Done) * 100 / float64(pr.Total)
		const width = 30
		filled := int(pct / 100 * width)
		if filled > width {
			filled = width
		}
		line = fmt.Sprintf("%5.1f%% [%s%s] of %s", pct, strings.Repeat("#", filled), strings.Repeat(" ", width-filled), humanBytes(pr.Total)) + line
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	p.shown = true
}

// finish ends the progress line so that later messages start on their own.
func (p *progressBar) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprintln(p.w)
	}
	p.shown = false
	p.start = time.Time{}
	p.last = time.Time{}
}

func humanBytes(n int64) string {
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

// writeOut prints -w's format for one transfer, with curl's variable names
// and its \n, \t, \r and %% escapes; %{stderr} and %{stdout} switch where
// the rest goes.
func (c *command) writeOut(t transfer) {
	format := c.opts.writeOut
	var w io.Writer = c.stdout
	var b strings.Builder
	flush := func() {
		io.WriteString(w, b.String())
		b.Reset()
	}
	for i := 0; i < len(format); i++ {
		ch := format[i]
		switch {
		case ch == '\\' && i+1 < len(format):
			i++
			switch format[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '\\':
				b.WriteByte('\\')
			default:
				b.WriteByte('\\')
				b.WriteByte(format[i])
			}
		case ch == '%' && i+1 < len(format) && format[i+1] == '%':
			b.WriteByte('%')
			i++
		case ch == '%' && i+1 < len(format) && format[i+1] == '{':
			end := strings.IndexByte(format[i+2:], '}')
			if end < 0 || end > writeOutMaxVarName {
				b.WriteByte(ch)
				continue
			}
			name := format[i+2 : i+2+end]
			i += 2 + end
			switch name {
			case "stdout":
				flush()
				w = c.stdout
			case "stderr":
				flush()
				w = c.stderr
			default:
				v, ok := writeOutVar(name, t)
				if !ok {
					// curl prints unknown variables back as they were written.
					b.WriteString("%{" + name + "}")
					continue
				}
				b.WriteString(v)
			}
		default:
			b.WriteByte(ch)
		}
	}
	flush()
}

func writeOutVar(name string, t transfer) (string, bool) {
	switch name {
	case "url":
		// curl prints the URL as given, password and all; urlget never
		// shows a password (docs/usage.md, Credentials).
		return maskedText(t.url), true
	case "url_effective":
		if t.effective != "" {
			return maskedText(t.effective), true
		}
		return maskedText(t.url), true
	case "size_download":
		return strconv.FormatInt(t.size, 10), true
	case "content_type":
		return t.contentType, true
	case "exitcode":
		return strconv.Itoa(t.code), true
	case "errormsg":
		if t.err == nil {
			return "", true
		}
		return oneLine(t.err.Error()), true
	case "filename_effective":
		return t.filename, true
	case "http_code", "response_code":
		return fmt.Sprintf("%03d", t.httpCode), true
	case "time_total":
		return fmt.Sprintf("%.6f", t.end.Sub(t.start).Seconds()), true
	case "speed_download":
		d := t.end.Sub(t.start).Seconds()
		if d <= 0 {
			return "0", true
		}
		return strconv.FormatInt(int64(float64(t.size)/d), 10), true
	}
	return "", false
}
