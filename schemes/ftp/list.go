package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/schemes"
)

// listEntry is what a listing line says about one name.
type listEntry struct {
	name   string
	kind   schemes.Kind
	size   int64
	mod    time.Time
	target string // a symbolic link's target
	fields map[string]string
	skip   bool // "." and "..": the directory itself and its parent
}

// parseMLSD reads one RFC 3659 §7 line: "fact=value;...; name".
func parseMLSD(line string) (listEntry, bool) {
	i := strings.IndexByte(line, ' ')
	if i < 0 || i == len(line)-1 {
		return listEntry{}, false
	}
	facts, name := line[:i], line[i+1:]
	e := listEntry{name: name, kind: schemes.KindFile, size: -1, fields: map[string]string{}}
	if facts != "" && !strings.HasSuffix(facts, ";") {
		return listEntry{}, false
	}
	for _, f := range strings.Split(strings.TrimSuffix(facts, ";"), ";") {
		if f == "" {
			continue
		}
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return listEntry{}, false
		}
		k = strings.ToLower(k)
		switch k {
		case "type":
			switch t := strings.ToLower(v); {
			case t == "file":
				e.kind = schemes.KindFile
			case t == "dir":
				e.kind = schemes.KindDirectory
			case t == "cdir" || t == "pdir":
				e.kind = schemes.KindDirectory
				e.skip = true
			case strings.HasPrefix(t, "os.unix=slink") || strings.HasPrefix(t, "os.unix=symlink"):
				e.kind = schemes.KindLink
				if _, target, ok := strings.Cut(v, ":"); ok {
					e.target = target
				}
			default:
				e.kind = schemes.KindOther
			}
		case "size":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return listEntry{}, false
			}
			e.size = n
		case "modify":
			t, ok := parseTimeVal(v)
			if !ok {
				return listEntry{}, false
			}
			e.mod = t
		default:
			e.fields[k] = v
		}
	}
	if e.kind == schemes.KindDirectory {
		e.size = -1
	}
	return e, true
}

// parseListLine reads one LIST line in any of the formats servers use:
// Unix "ls -l", MS-DOS/IIS and EPLF.
func parseListLine(line string, now time.Time) (listEntry, bool) {
	if e, ok := parseEPLF(line); ok {
		return e, true
	}
	if e, ok := parseUnix(line, now); ok {
		return e, true
	}
	return parseDOS(line)
}

// field is one blank-separated word of a line and where it ends.
type field struct {
	s          string
	start, end int
}

func splitFields(line string, max int) []field {
	var fs []field
	i := 0
	for i < len(line) && len(fs) < max {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) {
			break
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		fs = append(fs, field{line[i:j], i, j})
		i = j
	}
	return fs
}

var months = map[string]time.Month{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}

// parseUnix reads "drwxr-xr-x 2 owner group 4096 Jan 02 15:04 name", with
// or without the group column, with a year in place of the time for old
// files, and "name -> target" for links.
func parseUnix(line string, now time.Time) (listEntry, bool) {
	if len(line) < 10 || !strings.ContainsRune("-dlbcps", rune(line[0])) {
		return listEntry{}, false
	}
	fs := splitFields(line, 10)
	if len(fs) < 6 || len(fs[0].s) < 10 {
		return listEntry{}, false
	}
	for m := 2; m+3 < len(fs)+1 && m+2 < len(fs); m++ {
		mon, ok := months[strings.ToLower(fs[m].s)]
		if !ok {
			continue
		}
		day, err := strconv.Atoi(fs[m+1].s)
		if err != nil || day < 1 || day > 31 {
			continue
		}
		mod, ok := unixTime(mon, day, fs[m+2].s, now)
		if !ok {
			continue
		}
		nameStart := fs[m+2].end + 1
		if nameStart >= len(line) {
			return listEntry{}, false
		}
		e := listEntry{name: line[nameStart:], size: -1, mod: mod, fields: map[string]string{"mode": fs[0].s}}
		if n, err := strconv.ParseInt(fs[m-1].s, 10, 64); err == nil && n >= 0 {
			e.size = n
		}
		switch line[0] {
		case '-':
			e.kind = schemes.KindFile
		case 'd':
			e.kind = schemes.KindDirectory
			e.size = -1
		case 'l':
			e.kind = schemes.KindLink
			if name, target, ok := strings.Cut(e.name, " -> "); ok {
				e.name, e.target = name, target
			}
		default:
			// Devices show "major, minor" where the size goes.
			e.kind, e.size = schemes.KindOther, -1
		}
		if e.name == "" {
			// A link line with nothing before its " -> " names no
			// entry a listing can hold.
			return listEntry{}, false
		}
		if e.name == "." || e.name == ".." {
			e.skip = true
		}
		return e, true
	}
	return listEntry{}, false
}

// unixTime reads "15:04" (within the last year, RFC-less ls convention) or
// "2006" after a month and a day.
func unixTime(mon time.Month, day int, s string, now time.Time) (time.Time, bool) {
	if h, m, ok := strings.Cut(s, ":"); ok {
		hh, err1 := strconv.Atoi(h)
		mm, err2 := strconv.Atoi(m)
		if err1 != nil || err2 != nil || hh > 23 || mm > 59 || hh < 0 || mm < 0 {
			return time.Time{}, false
		}
		t := time.Date(now.Year(), mon, day, hh, mm, 0, 0, time.UTC)
		// ls shows the time instead of the year for the last six months;
		// a date ahead of today belongs to last year.
		if t.After(now.AddDate(0, 0, 2)) {
			t = t.AddDate(-1, 0, 0)
		}
		return t, true
	}
	y, err := strconv.Atoi(s)
	if err != nil || len(s) != 4 {
		return time.Time{}, false
	}
	return time.Date(y, mon, day, 0, 0, 0, 0, time.UTC), true
}

// parseDOS reads "04-27-00  09:09PM       <DIR>          name" and
// "07-18-2000  10:16AM   123 name" (MS-DOS and IIS).
func parseDOS(line string) (listEntry, bool) {
	fs := splitFields(line, 4)
	if len(fs) < 4 {
		return listEntry{}, false
	}
	var mo, d, y int
	parts := strings.Split(fs[0].s, "-")
	if len(parts) != 3 {
		return listEntry{}, false
	}
	var err error
	if mo, err = strconv.Atoi(parts[0]); err != nil || mo < 1 || mo > 12 {
		return listEntry{}, false
	}
	if d, err = strconv.Atoi(parts[1]); err != nil || d < 1 || d > 31 {
		return listEntry{}, false
	}
	if y, err = strconv.Atoi(parts[2]); err != nil || y < 0 {
		return listEntry{}, false
	}
	if len(parts[2]) == 2 {
		// Two-digit years pivot at 70, as IIS does.
		if y < 70 {
			y += 2000
		} else {
			y += 1900
		}
	}
	tm := strings.ToUpper(fs[1].s)
	if len(tm) < 6 || (!strings.HasSuffix(tm, "AM") && !strings.HasSuffix(tm, "PM")) {
		return listEntry{}, false
	}
	h, m, ok := strings.Cut(tm[:len(tm)-2], ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil || hh < 1 || hh > 12 || mm < 0 || mm > 59 {
		return listEntry{}, false
	}
	hh %= 12
	if strings.HasSuffix(tm, "PM") {
		hh += 12
	}
	e := listEntry{name: line[fs[3].start:], size: -1, mod: time.Date(y, time.Month(mo), d, hh, mm, 0, 0, time.UTC)}
	if strings.EqualFold(fs[2].s, "<DIR>") {
		e.kind = schemes.KindDirectory
	} else {
		n, err := strconv.ParseInt(fs[2].s, 10, 64)
		if err != nil || n < 0 {
			return listEntry{}, false
		}
		e.kind, e.size = schemes.KindFile, n
	}
	if e.name == "." || e.name == ".." {
		e.skip = true
	}
	return e, true
}

// parseEPLF reads an Easily Parsed LIST Format line (D. J. Bernstein,
// 1996): "+fact,fact,...\tname", where "/" marks a directory, "r" a
// retrievable file, "s" the size and "m" the time in Unix seconds.
func parseEPLF(line string) (listEntry, bool) {
	if len(line) < 3 || line[0] != '+' {
		return listEntry{}, false
	}
	facts, name, ok := strings.Cut(line[1:], "\t")
	if !ok || name == "" {
		return listEntry{}, false
	}
	e := listEntry{name: name, kind: schemes.KindOther, size: -1, fields: map[string]string{}}
	for _, f := range strings.Split(facts, ",") {
		if f == "" {
			continue
		}
		switch f[0] {
		case '/':
			e.kind = schemes.KindDirectory
		case 'r':
			if e.kind == schemes.KindOther {
				e.kind = schemes.KindFile
			}
		case 's':
			n, err := strconv.ParseInt(f[1:], 10, 64)
			if err != nil || n < 0 {
				return listEntry{}, false
			}
			e.size = n
		case 'm':
			n, err := strconv.ParseInt(f[1:], 10, 64)
			if err != nil {
				return listEntry{}, false
			}
			e.mod = time.Unix(n, 0).UTC()
		case 'i':
			e.fields["id"] = f[1:]
		case 'u':
			e.fields["mode"] = f[1:]
		}
	}
	if e.kind == schemes.KindDirectory {
		e.size = -1
	}
	return e, true
}
