package ftp

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/urlget/urlget/schemes"
)

func TestParseEPSV(t *testing.T) {
	for line, want := range map[string]int{
		"229 Entering Extended Passive Mode (|||6446|)": 6446,
		"229 Entering Extended Passive Mode (!!!1!)":    1,
		"229 (|||65535|)": 65535,
		"229 Entering Extended Passive Mode (|||0|)":     0,
		"229 Entering Extended Passive Mode (|||65536|)": 0,
		"229 Entering Extended Passive Mode (||1|2|)":    0,
		"229 Entering Extended Passive Mode (|||x|)":     0,
		"229 Entering Extended Passive Mode":             0,
		"229 (|||)":                                      0,
	} {
		got, ok := parseEPSV(line)
		if ok != (want != 0) || got != want {
			t.Errorf("parseEPSV(%q) = %d, %v; want %d", line, got, ok, want)
		}
	}
}

func TestParsePASV(t *testing.T) {
	for line, want := range map[string]int{
		"227 Entering Passive Mode (127,0,0,1,4,1).":   1025,
		"227 Entering Passive Mode (10,0,0,1,255,255)": 65535,
		"227 =127,0,0,1,0,21":                          21,
		"227 Entering Passive Mode (127,0,0,1,300,1)":  0,
		"227 Entering Passive Mode (127,0,0,1,4)":      0,
		"227 Entering Passive Mode (127,0,0,1,-1,8)":   0,
		"227 Entering Passive Mode (1,2,3,4,0,0)":      0,
		"227 Entering Passive Mode":                    0,
	} {
		got, ok := parsePASV(line)
		if ok != (want != 0) || got != want {
			t.Errorf("parsePASV(%q) = %d, %v; want %d", line, got, ok, want)
		}
	}
}

func TestParsePWD(t *testing.T) {
	for line, want := range map[string]string{
		`257 "/" is the current directory`:        "/",
		`257 "/home/a ""quoted"" dir" is current`: `/home/a "quoted" dir`,
		`257 "/with space"`:                       "/with space",
		`257 no quotes`:                           "",
		`257 "unterminated`:                       "",
		`257 "" empty`:                            "",
	} {
		got, ok := parsePWD(line)
		if ok != (want != "") || got != want {
			t.Errorf("parsePWD(%q) = %q, %v; want %q", line, got, ok, want)
		}
	}
}

func TestParseSizes(t *testing.T) {
	if n := parseSize150("150 Opening BINARY mode data connection for a (b) (1048576 bytes)."); n != 1048576 {
		t.Errorf("parseSize150 = %d", n)
	}
	if n := parseSize150("150 Here comes the directory listing."); n != -1 {
		t.Errorf("parseSize150 without size = %d", n)
	}
	if n, ok := parseSize("213 4096"); !ok || n != 4096 {
		t.Errorf("parseSize = %d, %v", n, ok)
	}
	if _, ok := parseSize("213 -1"); ok {
		t.Error("parseSize accepted a negative size")
	}
	tm, ok := parseMDTM("213 20240304050607")
	if !ok || !tm.Equal(time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC)) {
		t.Errorf("parseMDTM = %v, %v", tm, ok)
	}
	tm, ok = parseMDTM("213 20240304050607.250")
	if !ok || tm.Nanosecond() != 250e6 {
		t.Errorf("parseMDTM with fraction = %v, %v", tm, ok)
	}
}

func TestReplyCode(t *testing.T) {
	for line, want := range map[string][3]int{
		"220 ready":    {220, 0, 1},
		"211-Features": {211, 1, 1},
		"226":          {226, 0, 1},
		"2260 x":       {0, 0, 0},
		"abc":          {0, 0, 0},
		"620 x":        {0, 0, 0},
		"22":           {0, 0, 0},
	} {
		code, multi, ok := replyCode(line)
		b := func(v bool) int {
			if v {
				return 1
			}
			return 0
		}
		if got := [3]int{code, b(multi), b(ok)}; got != want {
			t.Errorf("replyCode(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestParseListLine(t *testing.T) {
	now := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	type want struct {
		name   string
		kind   schemes.Kind
		size   int64
		mod    time.Time
		target string
		skip   bool
	}
	for line, w := range map[string]want{
		"-rw-r--r--    1 0        0            4096 Mar 04 05:06 file with  spaces.txt": {"file with  spaces.txt", schemes.KindFile, 4096, time.Date(2024, 3, 4, 5, 6, 0, 0, time.UTC), "", false},
		"drwxr-xr-x    2 ftp      ftp          4096 Dec 24  2019 pub":                   {"pub", schemes.KindDirectory, -1, time.Date(2019, 12, 24, 0, 0, 0, 0, time.UTC), "", false},
		"-rw-r--r--    1 owner            12 Nov 30 10:00 nogroup":                      {"nogroup", schemes.KindFile, 12, time.Date(2023, 11, 30, 10, 0, 0, 0, time.UTC), "", false},
		"lrwxrwxrwx    1 0        0               7 Jan 01  2020 link -> target":        {"link", schemes.KindLink, 7, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), "target", false},
		"drwxr-xr-x    2 0        0            4096 Jan 01  2020 ..":                    {"..", schemes.KindDirectory, -1, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), "", true},
		"crw-rw-rw-    1 0        0          1,   3 Jan 01  2020 null":                  {"null", schemes.KindOther, -1, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), "", false},
		"04-27-00  09:09PM       <DIR>          licensed":                               {"licensed", schemes.KindDirectory, -1, time.Date(2000, 4, 27, 21, 9, 0, 0, time.UTC), "", false},
		"07-18-2000  12:16AM                  123 read me.txt":                          {"read me.txt", schemes.KindFile, 123, time.Date(2000, 7, 18, 0, 16, 0, 0, time.UTC), "", false},
		"+i8388621.29609,m824255902,/,\tdev":                                            {"dev", schemes.KindDirectory, -1, time.Unix(824255902, 0).UTC(), "", false},
		"+i8388621.44468,m839956783,r,s10376,\tRFCEPLF":                                 {"RFCEPLF", schemes.KindFile, 10376, time.Unix(839956783, 0).UTC(), "", false},
	} {
		e, ok := parseListLine(line, now)
		if !ok {
			t.Errorf("%q: not parsed", line)
			continue
		}
		if e.name != w.name || e.kind != w.kind || e.size != w.size || !e.mod.Equal(w.mod) || e.target != w.target || e.skip != w.skip {
			t.Errorf("%q:\n got %q %v %d %v %q %v\nwant %q %v %d %v %q %v", line,
				e.name, e.kind, e.size, e.mod, e.target, e.skip, w.name, w.kind, w.size, w.mod, w.target, w.skip)
		}
	}
	for _, line := range []string{"total 12", "", "garbage line", "-rw-r--r-- 1 a b 12 Foo 1 10:00 x", "+\t", "13-01-00  09:09PM  <DIR> x"} {
		if e, ok := parseListLine(line, now); ok {
			t.Errorf("%q parsed as %+v", line, e)
		}
	}
}

func TestParseMLSD(t *testing.T) {
	e, ok := parseMLSD("type=file;size=1024;modify=20240304050607;UNIX.mode=0644; name; with semi")
	if !ok || e.name != "name; with semi" || e.kind != schemes.KindFile || e.size != 1024 || e.fields["unix.mode"] != "0644" {
		t.Errorf("file: %+v %v", e, ok)
	}
	e, ok = parseMLSD("type=cdir;modify=20240304050607; .")
	if !ok || !e.skip {
		t.Errorf("cdir: %+v %v", e, ok)
	}
	e, ok = parseMLSD("Type=OS.unix=slink:/target;size=3; ln")
	if !ok || e.kind != schemes.KindLink || e.target != "/target" {
		t.Errorf("slink: %+v %v", e, ok)
	}
	for _, line := range []string{"no facts", "type=file;size=x; a", "type=file", "size=1 a"} {
		if e, ok := parseMLSD(line); ok {
			t.Errorf("%q parsed as %+v", line, e)
		}
	}
}

func TestCRLFReader(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\nb\r\n":     "a\nb\n",
		"a\rb\r\n\r":     "a\rb\n\r",
		"\r\r\n":         "\r\n",
		"no line ends":   "no line ends",
		"":               "",
		"x\r":            "x\r",
		"\r\n\r\n\r\n":   "\n\n\n",
		"a\n\rb\r\r\n\n": "a\n\rb\r\n\n",
	} {
		for name, r := range map[string]io.Reader{
			"whole":    strings.NewReader(in),
			"bytewise": iotest.OneByteReader(strings.NewReader(in)),
			"half":     iotest.HalfReader(strings.NewReader(in)),
		} {
			got, err := io.ReadAll(newCRLFReader(r))
			if err != nil || string(got) != want {
				t.Errorf("%s %q: %q, %v; want %q", name, in, got, err, want)
			}
		}
	}
	// A one-byte buffer on the reading side.
	got, err := io.ReadAll(iotest.OneByteReader(newCRLFReader(strings.NewReader("a\r\nb"))))
	if err != nil || !bytes.Equal(got, []byte("a\nb")) {
		t.Errorf("one-byte reads: %q, %v", got, err)
	}
}

func FuzzParseListLine(f *testing.F) {
	for _, s := range []string{
		"-rw-r--r--    1 0        0            4096 Mar 04 05:06 file.txt",
		"drwxr-xr-x    2 ftp      ftp          4096 Dec 24  2019 pub",
		"lrwxrwxrwx    1 0        0               7 Jan 01  2020 link -> target",
		"04-27-00  09:09PM       <DIR>          licensed",
		"+i8388621.29609,m824255902,/,\tdev",
		"total 12",
	} {
		f.Add(s)
	}
	now := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, line string) {
		e, ok := parseListLine(line, now)
		if !ok {
			return
		}
		if e.name == "" || !strings.Contains(line, e.name) {
			t.Errorf("%q: name %q is not part of the line", line, e.name)
		}
		if e.size < -1 {
			t.Errorf("%q: size %d", line, e.size)
		}
	})
}

func FuzzParseMLSD(f *testing.F) {
	f.Add("type=file;size=1024;modify=20240304050607; name")
	f.Add("type=dir;modify=20240304050607.5; d")
	f.Add("; x")
	f.Fuzz(func(t *testing.T, line string) {
		e, ok := parseMLSD(line)
		if ok && (e.name == "" || !strings.HasSuffix(line, " "+e.name)) {
			t.Errorf("%q: name %q", line, e.name)
		}
	})
}

func FuzzParsePassive(f *testing.F) {
	f.Add("229 Entering Extended Passive Mode (|||6446|)")
	f.Add("227 Entering Passive Mode (127,0,0,1,4,1).")
	f.Add(`257 "/a ""b"""`)
	f.Fuzz(func(t *testing.T, line string) {
		if p, ok := parseEPSV(line); ok && (p < 1 || p > 65535) {
			t.Errorf("EPSV %q: port %d", line, p)
		}
		if p, ok := parsePASV(line); ok && (p < 1 || p > 65535) {
			t.Errorf("PASV %q: port %d", line, p)
		}
		if d, ok := parsePWD(line); ok && len(d) > len(line) {
			t.Errorf("PWD %q: %q", line, d)
		}
		if n := parseSize150(line); n < -1 {
			t.Errorf("150 %q: size %d", line, n)
		}
		if tm, ok := parseMDTM(line); ok && tm.Location() != time.UTC {
			t.Errorf("MDTM %q: %v not in UTC", line, tm)
		}
		if code, _, ok := replyCode(line); ok && (code < 100 || code > 599) {
			t.Errorf("reply %q: code %d", line, code)
		}
	})
}

func FuzzCRLFReader(f *testing.F) {
	f.Add([]byte("a\r\nb\r"), uint8(3))
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8) {
		want := bytes.ReplaceAll(in, []byte("\r\n"), []byte("\n"))
		var r io.Reader = bytes.NewReader(in)
		if chunk%2 == 1 {
			r = iotest.OneByteReader(r)
		}
		got, err := io.ReadAll(newCRLFReader(r))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	})
}

// TestNLSTEntries checks that a name list's "." and ".." (Pure-FTPd sends
// them) make no entries, and that other names become URLs in the
// directory.
func TestNLSTEntries(t *testing.T) {
	l := &listing{base: "ftp://h/d/", nlst: true}
	for _, line := range []string{".", "..", "sub/.", "sub/.."} {
		if e, ok := l.entry(line); ok {
			t.Errorf("%q: entry %+v, want none", line, e)
		}
	}
	for line, want := range map[string]string{"a b": "ftp://h/d/a%20b", "sub/x": "ftp://h/d/sub/x", ".hidden": "ftp://h/d/.hidden"} {
		if e, ok := l.entry(line); !ok || e.URL != want || e.Name != line {
			t.Errorf("%q: %+v, %v; want URL %q", line, e, ok, want)
		}
	}
}

// TestHostileListNames checks that names no directory can hold ("..",
// "../../etc", "a/../../b", an absolute path) are shown but given no URL,
// in NLST, MLSD and LIST alike: a walk that took them would leave the
// listed directory.
func TestHostileListNames(t *testing.T) {
	nlst := &listing{base: "ftp://h/d/", nlst: true}
	for _, line := range []string{"../../etc", "a/../../b", "/etc/passwd", "a//b", "./x"} {
		if e, ok := nlst.entry(line); ok && (e.URL != "" || e.Kind != schemes.KindInfo) {
			t.Errorf("NLST %q: %+v, want no URL", line, e)
		}
	}
	mlsd := &listing{base: "ftp://h/d/", mlsd: true}
	for _, line := range []string{"type=dir; ..", "type=dir; ../../etc", "type=file;size=1; a/../../b", "type=file;size=1; /etc/passwd", "type=file;size=1; a\x00b"} {
		if e, ok := mlsd.entry(line); ok && (e.URL != "" || e.Kind != schemes.KindInfo) {
			t.Errorf("MLSD %q: %+v, want no URL", line, e)
		}
	}
	list := &listing{base: "ftp://h/d/"}
	for _, line := range []string{"drwxr-xr-x 2 u g 4096 Mar 01 2025 ../../etc", "-rw-r--r-- 1 u g 1 Mar 01 2025 a/../../b"} {
		if e, ok := list.entry(line); ok && (e.URL != "" || e.Kind != schemes.KindInfo) {
			t.Errorf("LIST %q: %+v, want no URL", line, e)
		}
	}
}
