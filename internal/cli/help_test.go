package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestEveryFlagHasCategory checks that each flag of the command is in at
// least one known category of --help, so that none is missing from it.
func TestEveryFlagHasCategory(t *testing.T) {
	known := map[string]bool{}
	for _, c := range categories {
		known[c.name] = true
	}
	flagSet().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			// Only curl's options out of scope, which refuse.
			return
		}
		cats := strings.Fields(flagCategories[f.Name])
		if len(cats) == 0 {
			t.Errorf("--%s has no help category: give it one in flagCategories (help.go)", f.Name)
		}
		for _, c := range cats {
			if !known[c] {
				t.Errorf("--%s is in category %q, which is not in categories", f.Name, c)
			}
		}
	})
}

func TestHelp(t *testing.T) {
	help := func(args ...string) (string, string, int) {
		var out, errw bytes.Buffer
		code := run(append([]string{"-q"}, args...), nil, &out, &errw)
		return out.String(), errw.String(), code
	}
	all, _, code := help("--help", "all")
	if code != 0 {
		t.Fatalf("--help all: exit %d", code)
	}
	for _, l := range strings.Split(all, "\n") {
		if len([]rune(l)) > helpWidth {
			t.Errorf("a line of %d columns: %q", len([]rune(l)), l)
		}
	}
	if strings.Contains(all, "true|false") || strings.Contains(all, "[=") {
		t.Errorf("--help all shows the values of switches:\n%s", all)
	}
	flagSet().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if !strings.Contains(all, "--"+f.Name+" ") && !strings.Contains(all, "--"+f.Name+"\n") {
			t.Errorf("--help all leaves out --%s", f.Name)
		}
	})

	short, _, _ := help("--help")
	for _, want := range []string{"-o, --output <file>", "-O, --remote-name  ", "--help all", " proxy "} {
		if !strings.Contains(short, want) {
			t.Errorf("--help lacks %q:\n%s", want, short)
		}
	}
	if strings.Contains(short, "--ftp-sync") {
		t.Errorf("--help shows more than the important options:\n%s", short)
	}

	ftp, _, _ := help("--help", "ftp")
	if !strings.Contains(ftp, "--ftp-method <method>") || strings.Contains(ftp, "--output") {
		t.Errorf("--help ftp:\n%s", ftp)
	}
	cats, _, _ := help("-h", "category")
	if !strings.HasPrefix(cats, " auth ") {
		t.Errorf("--help category:\n%s", cats)
	}
	out, errs, code := help("--help", "gardening")
	if code != exitUsage || out != "" || !strings.HasPrefix(errs, `urlget: --help: no category "gardening"`) {
		t.Errorf("--help gardening: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestWrap(t *testing.T) {
	got := wrap("one two three four five", 9)
	if want := []string{"one two", "three", "four five"}; !slices.Equal(got, want) {
		t.Errorf("wrap = %q, want %q", got, want)
	}
	if got := wrap("averyveryverylongword x", 5); !slices.Equal(got, []string{"averyveryverylongword", "x"}) {
		t.Errorf("a long word: %q", got)
	}
}
