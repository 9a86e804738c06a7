package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

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
	case "ftp_entry_path":
		return t.entryPath, true
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
