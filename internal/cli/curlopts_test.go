package cli

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestNoCurlLetterMeansOtherwise: a letter curl gives an option means
// that option in urlget too, never one of urlget's own.
func TestNoCurlLetterMeansOtherwise(t *testing.T) {
	curlLetter := map[string]string{}
	for _, c := range curlOptions {
		if c.Short != "" {
			curlLetter[c.Short] = c.Name
		}
	}
	flagSet().VisitAll(func(f *pflag.Flag) {
		if f.Shorthand == "" {
			return
		}
		if name, ok := curlLetter[f.Shorthand]; ok && name != f.Name {
			t.Errorf("-%s is curl's --%s but urlget's --%s", f.Shorthand, name, f.Name)
		}
	})
}

// TestOutOfScopeRefused: an option of curl's that is out of scope fails
// with exit 2 and a line that says why, switch or not, its --no- form
// too, and never reaches a server.
func TestOutOfScopeRefused(t *testing.T) {
	for _, args := range [][]string{
		{"-d", "a=b"}, {"--data-binary", "@f"}, {"-F", "x=y"}, {"-T", "file"}, {"--ntlm"}, {"--no-ntlm"},
		{"-a"}, {"--negotiate"}, {"--http3"}, {"--doh-url", "https://127.0.0.1/"}, {"-t", "TTYPE=vt100"},
	} {
		code, out, errOut := runArgs(t, append(args, "http://127.0.0.1:1/")...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, "out of urlget's scope") || strings.Contains(errOut, "invalid argument") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// TestOnlyRefusalsHidden: the flags --help does not show are only curl's
// options out of scope, which refuse; every option urlget takes is shown.
func TestOnlyRefusalsHidden(t *testing.T) {
	flagSet().VisitAll(func(f *pflag.Flag) {
		if _, refuses := f.Value.(refusedValue); f.Hidden && (!refuses || outOfScope[f.Name] == "") {
			t.Errorf("--%s is hidden but no out-of-scope refusal", f.Name)
		}
	})
}
