package cookies

import (
	"strconv"
	"strings"
	"time"
)

// ParseDate reads a date as curl's curl_getdate reads one, for a cookie's
// Expires attribute and for curl's -z: the forms of RFC 9110 §5.6.7 (RFC
// 1123 "Sun, 06 Nov 1994 08:49:37 GMT", RFC 850 "Sunday, 06-Nov-94
// 08:49:37 GMT", asctime "Sun Nov  6 08:49:37 1994"), and any other order
// of the same pieces ("20 Nov 2024", "Nov 20 2024 10:00", "20241120
// 10:00:00 +0100"): words name a weekday (ignored), a month or a time
// zone; "hh:mm[:ss]" is the time of day; an eight-digit number is
// yyyymmdd; "+hhmm" or "-hhmm" is a zone's offset; of the other numbers
// the first from 1 to 31 is the day and the next the year (two digits:
// 1970 to 2069). A missing time is midnight, a missing zone GMT; a missing
// day, month or year, or a word or number left over, fails.
func ParseDate(s string) (time.Time, bool) {
	var (
		wday            bool
		mday, mon, year = -1, -1, -1
		hour, min, sec  = -1, -1, -1
		tzoff           int // seconds east of UTC, once haveTZ
		haveTZ          bool
		expectYear      bool
	)
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case isAlpha(c):
			j := i
			for j < len(s) && isAlpha(s[j]) {
				j++
			}
			word := strings.ToLower(s[i:j])
			switch {
			case !wday && weekday(word):
				wday = true
			case mon < 0 && month(word) >= 0:
				mon = month(word)
			case !haveTZ && zoneOffset(word) != noZone:
				tzoff, haveTZ = zoneOffset(word), true
			default:
				return time.Time{}, false
			}
			i = j
		case isDigit(c):
			j := i
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			num := s[i:j]
			if hour < 0 && j < len(s) && s[j] == ':' {
				if h, m, sc, n, ok := clock(s[i:]); ok {
					hour, min, sec = h, m, sc
					i += n
					continue
				}
			}
			sign := byte(0)
			if i > 0 {
				sign = s[i-1]
			}
			v, err := strconv.Atoi(num)
			if err != nil || len(num) > 9 {
				return time.Time{}, false
			}
			switch {
			case (sign == '+' || sign == '-') && len(num) == 4 && !haveTZ && v%100 < 60 && v/100 <= 14:
				off := (v/100)*3600 + (v%100)*60
				if sign == '-' {
					off = -off
				}
				tzoff, haveTZ = off, true
			case len(num) == 8 && mday < 0 && mon < 0 && year < 0:
				year, mon, mday = v/10000, v/100%100-1, v%100
			case !expectYear && mday < 0 && v >= 1 && v <= 31:
				mday = v
				expectYear = true
			case year < 0:
				year = v
				if len(num) <= 2 {
					if year >= 70 {
						year += 1900
					} else {
						year += 2000
					}
				}
				if mday < 0 {
					expectYear = false
				}
			default:
				return time.Time{}, false
			}
			i = j
		default:
			i++
		}
	}
	if mday < 1 || mday > 31 || mon < 0 || mon > 11 || year < 1601 || year > 9999 {
		return time.Time{}, false
	}
	if hour < 0 {
		hour, min, sec = 0, 0, 0
	}
	t := time.Date(year, time.Month(mon+1), mday, hour, min, sec, 0, time.UTC)
	if t.Day() != mday {
		// 31 Feb and the like.
		return time.Time{}, false
	}
	return t.Add(-time.Duration(tzoff) * time.Second), true
}

// clock reads "hh:mm" or "hh:mm:ss" at the start of s, and how many bytes
// it took.
func clock(s string) (h, m, sec, n int, ok bool) {
	part := func(at int) (int, int, bool) {
		j := at
		for j < len(s) && j-at < 2 && isDigit(s[j]) {
			j++
		}
		if j == at {
			return 0, at, false
		}
		v, _ := strconv.Atoi(s[at:j])
		return v, j, true
	}
	h, n, ok = part(0)
	if !ok || n >= len(s) || s[n] != ':' {
		return 0, 0, 0, 0, false
	}
	m, n, ok = part(n + 1)
	if !ok {
		return 0, 0, 0, 0, false
	}
	if n < len(s) && s[n] == ':' {
		if sec, n, ok = part(n + 1); !ok {
			return 0, 0, 0, 0, false
		}
	}
	if n < len(s) && isDigit(s[n]) || h > 23 || m > 59 || sec > 60 {
		return 0, 0, 0, 0, false
	}
	return h, m, sec, n, true
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

var weekdays = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// weekday reports whether word names a day of the week, whole or by its
// first three letters.
func weekday(word string) bool {
	for _, d := range weekdays {
		if word == d || word == d[:3] {
			return true
		}
	}
	return false
}

var months = []string{"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december"}

// month returns the month word names, whole or by its first three letters,
// from 0; -1 for none.
func month(word string) int {
	for i, m := range months {
		if word == m || word == m[:3] {
			return i
		}
	}
	return -1
}

// noZone is zoneOffset's answer for a word that names no zone.
const noZone = -1 << 30

// zones are the time zones curl's date parser knows, with their offsets
// east of UTC in minutes.
var zones = map[string]int{
	"gmt": 0, "ut": 0, "utc": 0, "wet": 0, "bst": 60,
	"wat": -60, "ast": -240, "adt": -180,
	"est": -300, "edt": -240, "cst": -360, "cdt": -300,
	"mst": -420, "mdt": -360, "pst": -480, "pdt": -420,
	"yst": -540, "ydt": -480, "hst": -600, "hdt": -540,
	"cat": -600, "ahst": -600, "nt": -660, "idlw": -720,
	"cet": 60, "met": 60, "mewt": 60, "mest": 120, "cest": 120,
	"mesz": 120, "fwt": 60, "fst": 120, "eet": 120, "wast": 420,
	"wadt": 480, "cct": 480, "jst": 540, "east": 600, "eadt": 660,
	"gst": 600, "nzt": 720, "nzst": 720, "nzdt": 780, "idle": 720,
	"z": 0,
}

// zoneOffset returns the offset in seconds east of UTC of the zone word
// names, or noZone.
func zoneOffset(word string) int {
	if m, ok := zones[word]; ok {
		return m * 60
	}
	return noZone
}
