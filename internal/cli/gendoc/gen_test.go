package main

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urlget/urlget/internal/cli"
)

// root is the repository's root, seen from this package's directory.
const root = "../../.."

// readme returns the text of the repository's README.md.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGeneratedFilesUpToDate makes the man page and the completions again
// and compares them with the kept files, so that they cannot drift from
// the flags. To make them again: go generate (docs/usage.md).
func TestGeneratedFilesUpToDate(t *testing.T) {
	// generate writes what it makes into a copy of the tree's layout.
	dir := t.TempDir()
	for _, d := range []string{"docs", "completions"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	usage, err := os.ReadFile(filepath.Join(root, curlSection))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, curlSection), usage, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := generate(dir); err != nil {
		t.Fatal(err)
	}
	for _, path := range append(slices.Sorted(maps.Values(generatedFiles)), curlSection) {
		made, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			t.Fatal(err)
		}
		kept, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(made, kept) {
			t.Errorf("%s differs from what go generate makes; make it again: go generate", path)
		}
	}
}

func TestGenerateMan(t *testing.T) {
	var out bytes.Buffer
	text := readme(t)
	writeMan(&out, cli.Flags(), text)
	man := out.String()
	for _, want := range []string{
		".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS", ".SH EXIT STATUS",
		".SH ENVIRONMENT", ".SH FILES", ".SH EXAMPLES",
		`\fB\-o\fR, \fB\-\-output\fR \fIfile\fR`,
		".I ~/.urlgetrc", ".I ~/.netrc",
		// The README's table, every row.
		".TP\n0\nsuccess\n", ".TP\n78\nnot found", ".TP\n129, 130, 131, 143\n",
	} {
		if !strings.Contains(man, want) {
			t.Errorf("the man page lacks %q", want)
		}
	}
	if n := len(exitTable(text)); n < 18 {
		t.Errorf("the README's exit table has %d rows", n)
	}
	for i, l := range strings.Split(man, "\n") {
		if strings.ContainsFunc(l, func(r rune) bool { return r > 0x7f }) {
			t.Errorf("line %d is not ASCII: %q", i+1, l)
		}
	}
}

// TestBashCompletion runs the bash completion in bash: the options of a
// prefix, and file names after an option that takes a file.
func TestBashCompletion(t *testing.T) {
	var out bytes.Buffer
	writeBash(&out, cli.Flags())
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/c.bash", out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/notes.txt", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	complete := func(words ...string) string {
		script := `source c.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _urlget; echo "${COMPREPLY[*]}"`
		cmd := exec.Command("bash", append([]string{"-c", script, "bash"}, words...)...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v: %s", err, b)
		}
		return strings.TrimSpace(string(b))
	}
	if got := complete("urlget", "--limit-r"); got != "--limit-rate" {
		t.Errorf("--limit-r completes to %q", got)
	}
	if got := complete("urlget", "-o", "no"); got != "notes.txt" {
		t.Errorf("-o no completes to %q", got)
	}
	if got := complete("urlget", "--max-time", "no"); got != "" {
		t.Errorf("--max-time no completes to %q", got)
	}
}
