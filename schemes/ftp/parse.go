package ftp

import (
	"strconv"
	"strings"
	"time"
)

// parseEPSV reads the port from "229 Entering Extended Passive Mode
// (|||6446|)" (RFC 2428 §3): the delimiter is the first character inside
// the parentheses and the network address fields must be empty.
func parseEPSV(line string) (int, bool) {
	i := strings.IndexByte(line, '(')
	j := strings.LastIndexByte(line, ')')
	if i < 0 || j < i+6 {
		return 0, false
	}
	s := line[i+1 : j]
	d := s[0]
	if d < 33 || d > 126 || len(s) < 5 || s[1] != d || s[2] != d || s[len(s)-1] != d {
		return 0, false
	}
	return parsePort(s[3 : len(s)-1])
}

// parsePASV reads the port from "227 Entering Passive Mode
// (h1,h2,h3,h4,p1,p2)" (RFC 959 §4.1.2). The address is checked for form
// only: the data connection goes to the control connection's peer.
func parsePASV(line string) (int, bool) {
	i := strings.IndexByte(line, '(')
	j := strings.LastIndexByte(line, ')')
	var s string
	if i >= 0 && j > i {
		s = line[i+1 : j]
	} else {
		// RFC 1123 §4.1.2.6: some servers omit the parentheses.
		k := strings.IndexAny(line[min(4, len(line)):], "0123456789")
		if k < 0 {
			return 0, false
		}
		s = strings.TrimRight(line[4+k:], ". ")
	}
	f := strings.Split(s, ",")
	if len(f) != 6 {
		return 0, false
	}
	var n [6]int
	for k, x := range f {
		v, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil || v < 0 || v > 255 {
			return 0, false
		}
		n[k] = v
	}
	port := n[4]<<8 | n[5]
	if port == 0 {
		return 0, false
	}
	return port, true
}

func parsePort(s string) (int, bool) {
	if s == "" || len(s) > 5 {
		return 0, false
	}
	p, err := strconv.Atoi(s)
	if err != nil || p <= 0 || p > 65535 {
		return 0, false
	}
	return p, true
}

// parsePWD reads the directory from `257 "/a ""quoted"" dir" is current`
// (RFC 959 appendix II: embedded quotes are doubled).
func parsePWD(line string) (string, bool) {
	i := strings.IndexByte(line, '"')
	if i < 0 {
		return "", false
	}
	var b strings.Builder
	for k := i + 1; k < len(line); k++ {
		if line[k] == '"' {
			if k+1 < len(line) && line[k+1] == '"' {
				b.WriteByte('"')
				k++
				continue
			}
			return b.String(), b.Len() > 0
		}
		b.WriteByte(line[k])
	}
	return "", false
}

// parseSize150 reads the size a server announces in its 150 reply, "150
// Opening BINARY mode data connection for f (1024 bytes)." — the form
// vsftpd, proftpd and wu-ftpd use; -1 when absent.
func parseSize150(line string) int64 {
	j := strings.LastIndex(line, " bytes)")
	if j < 0 {
		return -1
	}
	i := strings.LastIndexByte(line[:j], '(')
	if i < 0 {
		return -1
	}
	n, err := strconv.ParseInt(line[i+1:j], 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// parseSize reads "213 1024" (RFC 3659 §4).
func parseSize(line string) (int64, bool) {
	if len(line) < 5 {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(line[4:]), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// parseMDTM reads "213 YYYYMMDDHHMMSS[.sss]" (RFC 3659 §3), always UTC.
func parseMDTM(line string) (time.Time, bool) {
	if len(line) < 5 {
		return time.Time{}, false
	}
	return parseTimeVal(strings.TrimSpace(line[4:]))
}

func parseTimeVal(s string) (time.Time, bool) {
	layout := "20060102150405"
	if i := strings.IndexByte(s, '.'); i >= 0 {
		if i != len(layout) || len(s) > i+10 {
			return time.Time{}, false
		}
		layout += "." + strings.Repeat("0", len(s)-i-1)
	}
	t, err := time.ParseInLocation(layout, s, time.UTC)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}
