package cli

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestGeneratedFilesUpToDate makes the man page and the completions again
// and compares them with the kept files, so that they cannot drift from
// the flags. To make them again: see docs/usage.md.
func TestGeneratedFilesUpToDate(t *testing.T) {
	readmePath = "../../README.md"
	for kind, path := range generatedFiles {
		var out, errw bytes.Buffer
		if code := run([]string{"__generate", kind}, nil, &out, &errw); code != 0 {
			t.Fatalf("__generate %s: exit %d, %s", kind, code, errw.String())
		}
		kept, err := os.ReadFile("../../" + path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), kept) {
			t.Errorf("%s differs from what __generate %s makes; make it again: go run . __generate %s > %s", path, kind, kind, path)
		}
	}
}

func TestGenerateMan(t *testing.T) {
	readmePath = "../../README.md"
	var out bytes.Buffer
	writeMan(&out, flagSet())
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
	if n := len(exitTable()); n < 18 {
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
	writeBash(&out, flagSet())
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
