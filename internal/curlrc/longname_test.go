package curlrc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func nameSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Bool("compressed", false, "")
	fs.Bool("no-buffer", false, "")
	fs.Bool("remote-name-all", false, "")
	fs.Int("retry", 0, "")
	fs.Float64("retry-delay", 0, "")
	fs.StringP("output", "o", "", "")
	fs.BoolP("fail", "f", false, "")
	fs.BoolP("location", "L", false, "")
	fs.String("header", "", "")
	fs.Bool("head", false, "")
	return fs
}

// TestResolve: long options are found as curl finds them: exact names
// first, unambiguous prefixes, --no- before a switch, and the positive
// name of a switch curl lists as no-X.
func TestResolve(t *testing.T) {
	fs := nameSet()
	for _, c := range []struct {
		word, name, forced, err string
	}{
		{word: "compressed", name: "compressed"},
		{word: "compr", name: "compressed"},
		{word: "no-compressed", name: "compressed", forced: "false"},
		{word: "no-compr", name: "compressed", forced: "false"},
		{word: "no-buffer", name: "no-buffer"},
		{word: "buffer", name: "no-buffer", forced: "false"},
		{word: "buf", name: "no-buffer", forced: "false"},
		{word: "no-buf", name: "no-buffer", forced: "true"},
		{word: "retry", name: "retry"},
		{word: "retry-d", name: "retry-delay"},
		{word: "head", name: "head"},
		{word: "heade", name: "header"},
		{word: "re", err: "option --re is ambiguous: --remote-name-all, --retry, --retry-delay"},
		{word: "hea", err: "ambiguous: --head, --header"},
		{word: "no-retry", err: "--retry takes a value, so it has no --no- form"},
		{word: "nothing-like-it", name: "nothing-like-it"},
		{word: "", err: "ambiguous"},
	} {
		name, forced, set, err := Resolve(fs, c.word)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Resolve(%q): error %v, want %q", c.word, err, c.err)
			}
			continue
		}
		if err != nil || name != c.name || forced != c.forced || set != (c.forced != "") {
			t.Errorf("Resolve(%q) = %q, %q, %v, %v; want %q, %q", c.word, name, forced, set, err, c.name, c.forced)
		}
	}
}

// TestExpandResolvesNames: prefixes and --no- forms become full names on
// the command line and in config files, and a prefix of an option with a
// value still takes the next argument as its value.
func TestExpandResolvesNames(t *testing.T) {
	dir := t.TempDir()
	rc := filepath.Join(dir, "rc")
	if err := os.WriteFile(rc, []byte("compr\nbuf\nretry-d = 2\nno-remote\n-fL\n-fo = out\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Expand(nameSet(), []string{"--outp", "--head", "--retry-d=3", "--no-buf", "-K", rc, "--", "--compr"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--output", "--head", "--retry-delay=3", "--no-buffer=true",
		"--compressed", "--no-buffer=false", "--retry-delay=2", "--remote-name-all=false", "--fail", "--location", "--fail", "--output=out", "--", "--compr"}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	for _, args := range [][]string{{"--hea"}, {"--no-compressed=yes"}, {"--no-output", "x"}} {
		if _, err := Expand(nameSet(), args, "", nil); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	if err := os.WriteFile(rc, []byte("-oL x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Expand(nameSet(), []string{"-K", rc}, "", nil); err == nil || !strings.Contains(err.Error(), "-o is no switch") {
		t.Errorf("a letter with a value before another: %v", err)
	}
	if err := os.WriteFile(rc, []byte("re\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Expand(nameSet(), []string{"-K", rc}, "", nil); err == nil || !strings.Contains(err.Error(), "line 1: option --re is ambiguous") {
		t.Errorf("ambiguous config line: %v", err)
	}
}
