package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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

// expandArgs runs withConfig on args with ~/.urlgetrc holding rc ("" for
// none) and standard input holding stdin.
func expandArgs(t *testing.T, rc, stdin string, args ...string) ([]string, string, int) {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, ".urlgetrc")
	if rc != "" {
		if err := os.WriteFile(home, []byte(rc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	oldDefault, oldStdin := defaultConfig, configStdin
	defaultConfig = func() string { return home }
	configStdin = strings.NewReader(stdin)
	t.Cleanup(func() { defaultConfig, configStdin = oldDefault, oldStdin })
	var errw bytes.Buffer
	out, code := withConfig(flagSet(), args, &errw)
	return out, errw.String(), code
}

func TestConfigArgs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a", "# options\nsilent\n-o out\nurl = \"http://h/a b\"\nmax-time: 5\n")
	b := write("b", "verbose\nconfig = "+a+"\n")
	loop := write("loop", "")
	write("loop", "config "+loop+"\n")

	for _, tt := range []struct {
		rc, stdin string
		args      []string
		want      []string
	}{
		{args: []string{"u"}, want: []string{"u"}},
		{rc: "silent\n", args: []string{"u"}, want: []string{"--silent", "u"}},
		// -q first skips ~/.urlgetrc; elsewhere it does not.
		{rc: "silent\n", args: []string{"-q", "u"}, want: []string{"-q", "u"}},
		{rc: "silent\n", args: []string{"--disable", "u"}, want: []string{"--disable", "u"}},
		{rc: "silent\n", args: []string{"u", "-q"}, want: []string{"--silent", "u", "-q"}},
		{args: []string{"-K", a, "u"}, want: []string{"--silent", "--output=out", "--url=http://h/a b", "--max-time=5", "u"}},
		{args: []string{"-vK" + a}, want: []string{"-v", "--silent", "--output=out", "--url=http://h/a b", "--max-time=5"}},
		{args: []string{"--config=" + b}, want: []string{"--verbose", "--silent", "--output=out", "--url=http://h/a b", "--max-time=5"}},
		{args: []string{"--config", "-", "u"}, stdin: "head\n", want: []string{"--head", "u"}},
		// The values of other options, and what follows --, are no -K.
		{args: []string{"-o", "-K", "--user-agent", "--config", "-oK", "--", "-K"}, want: []string{"-o", "-K", "--user-agent", "--config", "-oK", "--", "-K"}},
	} {
		got, errs, code := expandArgs(t, tt.rc, tt.stdin, tt.args...)
		if code != 0 || !slices.Equal(got, tt.want) {
			t.Errorf("withConfig(%q) with rc %q = %q, exit %d (%s), want %q", tt.args, tt.rc, got, code, errs, tt.want)
		}
	}

	for _, tt := range []struct {
		rc   string
		args []string
		code int
		msg  string
	}{
		{args: []string{"-K", filepath.Join(dir, "none")}, code: exitRead, msg: "config " + filepath.Join(dir, "none") + ": no such file or directory"},
		{args: []string{"-K", loop}, code: exitRead, msg: "more than 10 config files"},
		{rc: "\nno-such-option\n", code: exitUsage, msg: "line 2: unknown option --no-such-option"},
		{rc: "output\n", code: exitUsage, msg: "line 1: --output needs a value"},
		{rc: "silent = yes\n", code: exitUsage, msg: "line 1: --silent takes no value"},
		{rc: "-W x\n", code: exitUsage, msg: "unknown option -W"},
		{args: []string{"-K"}, code: exitUsage, msg: "-K needs a file"},
	} {
		_, errs, code := expandArgs(t, tt.rc, "", tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.msg) || strings.Count(errs, "\n") != 1 {
			t.Errorf("withConfig(%q) with rc %q: exit %d, %q; want exit %d and %q", tt.args, tt.rc, code, errs, tt.code, tt.msg)
		}
	}
}
