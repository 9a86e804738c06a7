package curlrc

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// FuzzConfigLine checks the reader of config files (-K, .urlgetrc, in
// curl's syntax): an option it reads starts with '-', and its value,
// written back quoted with curl's escapes, reads the same.
func FuzzConfigLine(f *testing.F) {
	for _, s := range []string{
		"url = \"http://h/a b\"", "-o out", "--output=\"x\\ty\\\\z\\\"\"", "silent", "# comment", "   ",
		"user: \"a:b c\"\r", "header = \"X: 1\" trailing", "header = \"unterminated", "url=http://h/ x",
		"=value", "-", "--", "location", "config = \"other.rc\"",
	} {
		f.Add(s)
	}
	quote := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`, "\n", `\n`, "\r", `\r`, "\v", `\v`)
	f.Fuzz(func(t *testing.T, line string) {
		opt, value, hasValue, err := configLine(line)
		if err != nil || opt == "" {
			return
		}
		if opt[0] != '-' || strings.ContainsAny(opt, " \t=:") {
			t.Fatalf("%q: option %q", line, opt)
		}
		if !hasValue {
			return
		}
		again := opt + " = \"" + quote.Replace(value) + "\""
		o2, v2, h2, err := configLine(again)
		if err != nil || o2 != opt || v2 != value || !h2 {
			t.Fatalf("%q: %q %q written as %q reads back as %q %q %v, %v", line, opt, value, again, o2, v2, h2, err)
		}
	})
}

// FuzzReadConfig reads a whole config file against a few flags: it fails
// with an error naming the file, or gives arguments pflag reads as they
// were meant ("--name=value" or "--name" of a flag that exists).
func FuzzReadConfig(f *testing.F) {
	for _, s := range []string{
		"url = \"http://h/\"\nsilent\n-o out\n", "# only a comment\n\n", "\xef\xbb\xbfsilent\n", "unknown-option\n",
		"output\n", "silent = yes\n", "-s\n-o=\"a b\"\n", strings.Repeat("x", 5000) + "\n", "url = \"a\nb\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fs := pflag.NewFlagSet("urlget", pflag.ContinueOnError)
		fs.StringP("output", "o", "", "")
		fs.String("url", "", "")
		fs.BoolP("silent", "s", false, "")
		args, err := (&expander{fs: fs}).read("test.rc", bytes.NewReader(data), 0)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), "test.rc") {
				t.Fatalf("error %v", err)
			}
			return
		}
		for _, a := range args {
			name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			if !strings.HasPrefix(a, "--") || fs.Lookup(name) == nil {
				t.Fatalf("%q: argument %q", data, a)
			}
		}
		if err := fs.Parse(args); err != nil {
			t.Fatalf("%q: arguments %q do not parse: %v", data, args, err)
		}
	})
}
