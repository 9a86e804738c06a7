package schemes

import (
	"errors"
	"io"
	"mime"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/uri"
)

func TestErrorIsAndMessage(t *testing.T) {
	u := uri.MustParse("ftp://anna:secret@h.example/pub/x")
	req := &Request{URL: u}
	cause := errors.New("boom")
	err := req.Fail(ErrNotFound, "RETR x", 550, "No such file\r\nor directory", cause)
	if !errors.Is(err, ErrNotFound) || !errors.Is(err, cause) {
		t.Fatal("errors.Is must see the kind and the cause")
	}
	msg := err.Error()
	for _, want := range []string{"ftp://anna:****@h.example/pub/x", "not found", "RETR x", "550 No such file | or directory", "boom"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "secret") || strings.ContainsAny(msg, "\r\n") {
		t.Errorf("message %q shows the password or spans lines", msg)
	}
}

func TestCheckArg(t *testing.T) {
	req := &Request{URL: uri.MustParse("gopher://h/")}
	for _, bad := range []string{"a\rb", "a\nb", "a\x00b"} {
		if err := req.CheckArg("selector", bad); !errors.Is(err, ErrBadURL) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if err := req.CheckArg("selector", "fine\tvalue"); err != nil {
		t.Errorf("TAB is the caller's to judge: %v", err)
	}
}

func TestLineLimitReader(t *testing.T) {
	ok := strings.Repeat("x", 100) + "\n" + strings.Repeat("y", 100) + "\n"
	b, err := io.ReadAll(LineLimitReader(strings.NewReader(ok), 100))
	if err != nil || string(b) != ok {
		t.Fatalf("lines at the limit: %v", err)
	}
	long := strings.Repeat("x", 10) + "\n" + strings.Repeat("z", 1<<20)
	_, err = io.ReadAll(LineLimitReader(strings.NewReader(long), 1000))
	if !errors.Is(err, ErrLineTooLong) || !errors.Is(err, ErrProtocol) {
		t.Fatalf("endless line: %v", err)
	}
	// A long line inside one read, followed by short ones, is still caught.
	mixed := "a\n" + strings.Repeat("b", 2000) + "\nc\n"
	_, err = io.ReadAll(LineLimitReader(strings.NewReader(mixed), 1000))
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("long line between short ones: %v", err)
	}
}

func TestKindString(t *testing.T) {
	if KindDirectory.String() != "directory" || Kind(99).String() != "other" {
		t.Error("kind names")
	}
}

func TestServerURL(t *testing.T) {
	for in, want := range map[string]string{
		"ftp://anna:secret@Host.Example:2121/a/b": "ftp://anna@host.example:2121/",
		"nntp://[::1]/group/7":                    "nntp://[::1]/",
		"gophers://h/1":                           "gophers://h/",
	} {
		if got := ServerURL(uri.MustParse(in)); got != want {
			t.Errorf("ServerURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTypeByExtension(t *testing.T) {
	for ext, want := range map[string]string{
		"":      "",
		".":     "",
		".txt":  "text/plain; charset=utf-8",
		".TXT":  "text/plain; charset=utf-8",
		".json": "application/json",
		".png":  "image/png",
		// Not in the built-in table: the mime package's own built-ins.
		".wasm": "application/wasm",
	} {
		if got := TypeByExtension(ext); got != want {
			t.Errorf("TypeByExtension(%q) = %q, want %q", ext, got, want)
		}
	}
	// The built-in answers agree with the mime package wherever it has
	// one (its own table, or the system's where that is installed).
	for _, ext := range []string{".txt", ".html", ".htm", ".css", ".csv", ".md", ".xml", ".js", ".json",
		".pdf", ".zip", ".gz", ".tar", ".bin", ".png", ".gif", ".jpg", ".jpeg", ".svg", ".webp"} {
		got := commonType(ext)
		if got == "" {
			t.Errorf("commonType(%q) is empty", ext)
		}
		if m := mime.TypeByExtension(ext); m != "" && m != got {
			t.Errorf("commonType(%q) = %q, the mime package says %q", ext, got, m)
		}
	}
}

// SameFile compares a validator made from a LIST line at the precision
// the line gave (the minute, or the day), and one made from MLSD or MDTM
// to the second; the size always exactly.
func TestSameFile(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.DateTime, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	mdtm := at("2025-05-01 10:04:07")
	for _, tc := range []struct {
		name      string
		validator string
		size      int64
		mod       time.Time
		want      bool
	}{
		{"to the second", FileValidator(100, mdtm), 100, mdtm, true},
		{"a second later", FileValidator(100, mdtm), 100, mdtm.Add(time.Second), false},
		{"LIST to the minute", FileValidator(100, at("2025-05-01 10:04:00")), 100, mdtm, true},
		{"LIST, the next minute", FileValidator(100, at("2025-05-01 10:04:00")), 100, mdtm.Add(time.Minute), false},
		{"LIST to the day", FileValidator(100, at("2025-05-01 00:00:00")), 100, mdtm, true},
		{"LIST, the next day", FileValidator(100, at("2025-05-01 00:00:00")), 100, mdtm.Add(24 * time.Hour), false},
		{"other size", FileValidator(100, mdtm), 101, mdtm, false},
		{"other size, LIST", FileValidator(100, at("2025-05-01 10:04:00")), 99, mdtm, false},
		{"no validator", "", 100, mdtm, false},
		{"no MDTM", FileValidator(100, mdtm), 100, time.Time{}, false},
		{"no SIZE", FileValidator(100, mdtm), -1, mdtm, false},
		{"garbage", "size=100 mdtm=garbage", 100, mdtm, false},
		{"an HTTP validator", `"abc"`, 100, mdtm, false},
	} {
		if got := SameFile(tc.validator, tc.size, tc.mod); got != tc.want {
			t.Errorf("%s: SameFile(%q, %d, %v) = %v", tc.name, tc.validator, tc.size, tc.mod, got)
		}
	}
}
