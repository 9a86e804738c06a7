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

// TestEveryCurlOptionTaken: every option of curl 7.88 is a flag of
// urlget, with curl's letter, or out of scope for a reason the table
// gives; none is both.
func TestEveryCurlOptionTaken(t *testing.T) {
	fs := flagSet()
	for _, c := range curlOptions {
		f := fs.Lookup(c.Name)
		why := outOfScope[c.Name]
		switch {
		case f != nil && why != "":
			if _, refuses := f.Value.(refusedValue); !refuses || !f.Hidden && c.Name != "json" {
				t.Errorf("--%s is out of scope (%s) but a flag that does not refuse it", c.Name, why)
			}
		case f == nil && why == "":
			t.Errorf("curl's --%s is neither a flag nor out of scope", c.Name)
		case f != nil && f.Shorthand != c.Short:
			t.Errorf("--%s: letter %q, curl's is %q", c.Name, f.Shorthand, c.Short)
		}
	}
	for name := range outOfScope {
		found := false
		for _, c := range curlOptions {
			found = found || c.Name == name
		}
		if !found {
			t.Errorf("out of scope: --%s is no curl option", name)
		}
	}
}

// TestCurlTableRows: the table in docs/usage.md has a row for each of
// curl's options, and no row says "not taken".
func TestCurlTableRows(t *testing.T) {
	rows := CurlTable()
	if len(rows) != len(curlOptions) {
		t.Fatalf("%d rows for %d options", len(rows), len(curlOptions))
	}
	for _, r := range rows {
		if !r.Taken && r.Status == "not taken" {
			t.Errorf("%s: not taken", r.Option)
		}
	}
}
