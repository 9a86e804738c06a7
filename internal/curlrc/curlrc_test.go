package curlrc

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestConfigLine(t *testing.T) {
	for _, tt := range []struct {
		line, opt, value string
		hasValue         bool
	}{
		{"", "", "", false},
		{"   # a comment", "", "", false},
		{"silent", "--silent", "", false},
		{"  --silent  ", "--silent", "", false},
		{"output = out.txt", "--output", "out.txt", true},
		{"output=out.txt", "--output", "out.txt", true},
		{"output: out.txt", "--output", "out.txt", true},
		{"output out.txt", "--output", "out.txt", true},
		{"--output\tout.txt\r", "--output", "out.txt", true},
		{"-o out.txt", "-o", "out.txt", true},
		{`user-agent = "a b \"c\" \\ \t"`, "--user-agent", "a b \"c\" \\ \t", true},
		{`url = "http://h/a b"   `, "--url", "http://h/a b", true},
		{`url = ""`, "--url", "", true},
	} {
		opt, value, has, err := configLine(tt.line)
		if err != nil || opt != tt.opt || value != tt.value || has != tt.hasValue {
			t.Errorf("configLine(%q) = %q %q %v %v, want %q %q %v", tt.line, opt, value, has, err, tt.opt, tt.value, tt.hasValue)
		}
	}
	for _, line := range []string{
		"output = a b",
		`output = "a b" c`,
		`output = "a b`,
	} {
		if _, _, _, err := configLine(line); err == nil {
			t.Errorf("configLine(%q) takes it", line)
		}
	}
}

// testFlags is a flag set like the command's, for the options the tests
// use: which take a value decides how -K is found among the arguments.
func testFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("urlget", pflag.ContinueOnError)
	fs.BoolP("silent", "s", false, "")
	fs.BoolP("verbose", "v", false, "")
	fs.BoolP("disable", "q", false, "")
	fs.StringP("output", "o", "", "")
	fs.StringP("config", "K", "", "")
	fs.String("url", "", "")
	return fs
}

// TestExpand reads ~/.urlgetrc (unless -q) and -K files, standard input
// among them, and tells a file that cannot be read (Line 0) from a line
// that is no option.
func TestExpand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	home := write("home", "silent\n")
	a := write("a", "-o out\nurl = \"http://h/a b\"\n")
	loop := write("loop", "")
	write("loop", "config "+loop+"\n")

	for _, tt := range []struct {
		home, stdin string
		args        []string
		want        []string
	}{
		{home: home, args: []string{"u"}, want: []string{"--silent", "u"}},
		{home: home, args: []string{"-q", "u"}, want: []string{"-q", "u"}},
		{home: filepath.Join(dir, "none"), args: []string{"u"}, want: []string{"u"}},
		{args: []string{"-vK" + a}, want: []string{"-v", "--output=out", "--url=http://h/a b"}},
		{args: []string{"-K", "-", "u"}, stdin: "verbose\n", want: []string{"--verbose", "u"}},
		{args: []string{"-o", "-K"}, want: []string{"-o", "-K"}},
	} {
		got, err := Expand(testFlags(), tt.args, tt.home, strings.NewReader(tt.stdin))
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("Expand(%q) with home %q = %q, %v; want %q", tt.args, tt.home, got, err, tt.want)
		}
	}

	for _, tt := range []struct {
		args []string
		line int // the *Error's line; -1 for an error of another type
		msg  string
	}{
		{[]string{"-K", filepath.Join(dir, "none")}, 0, "config " + filepath.Join(dir, "none") + ": no such file or directory"},
		{[]string{"-K", loop}, 0, "more than 10 config files"},
		{[]string{"-K", write("bad", "\nno-such-option\n")}, 2, "line 2: unknown option --no-such-option"},
		{[]string{"-K", write("novalue", "output\n")}, 1, "--output needs a value"},
		{[]string{"-K"}, -1, "-K needs a file"},
	} {
		_, err := Expand(testFlags(), tt.args, "", nil)
		var ce *Error
		line := -1
		if errors.As(err, &ce) {
			line = ce.Line
		}
		if err == nil || line != tt.line || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Expand(%q) = %v (line %d); want line %d and %q", tt.args, err, line, tt.line, tt.msg)
		}
	}
}
