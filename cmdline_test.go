package main

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/spf13/pflag"
)

// setLog records every value a flag set is given, as name=value, and for
// --url the number of positional arguments before it.
type setLog struct {
	name string
	log  *[]string
	at   func() int
}

func (s setLog) String() string { return "" }
func (s setLog) Type() string   { return "string" }
func (s setLog) Set(v string) error {
	e := s.name + "=" + v
	if s.at != nil {
		e += fmt.Sprintf("@%d", s.at())
	}
	*s.log = append(*s.log, e)
	return nil
}

// testFlags makes a flag set with one flag of each kind the command has: a
// bool with a shorthand, a value with one, one with a value of its own to
// fall back on (-O), long-only values and bools.
func testFlags(log *[]string, at func() int) *pflag.FlagSet {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, f := range []struct {
		name, short string
		noOpt       string
	}{{"silent", "s", "true"}, {"verbose", "v", "true"}, {"output", "o", ""}, {"remote-name", "O", "true"}, {"json", "", "true"}, {"retry", "", ""}, {"url", "", ""}} {
		v := setLog{name: f.name, log: log}
		if f.name == "url" {
			v.at = at
		}
		fl := fs.VarPF(v, f.name, f.short, "")
		fl.NoOptDefVal = f.noOpt
	}
	return fs
}

// inArea returns args as strings that lie one after another, NUL after
// each, in one array, as the kernel lays out a process's arguments, and
// that array without the last NUL.
func inArea(args []string) ([]string, []byte) {
	buf := []byte(strings.Join(args, "\x00") + "\x00")
	out := make([]string, len(args))
	n := 0
	for i, a := range args {
		out[i] = unsafe.String(&buf[n], len(a))
		n += len(a) + 1
	}
	return out, buf[:len(buf)-1]
}

// TestParseArgsLikePflag checks that parseArgs, giving the parser one flag
// at a time and reading the positional arguments itself, from a slice or
// from the arguments' area, gets what pflag gets from the whole command
// line at once: the same values set, in order, each --url at the same
// place among the positional arguments, the same positional arguments,
// the same error.
func TestParseArgsLikePflag(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"u1", "u2"},
		{"-s", "u1", "-o", "f", "u2"},
		{"-sv", "u1"},
		{"-svo", "f", "u1"},
		{"-sof", "u1"},
		{"-o=f", "u1", "-o=", "u2"},
		{"-s=true", "u1", "-v=false"},
		{"-O", "u1", "-sO", "u2", "-Os", "u3"},
		{"--url", "x", "u1", "--url=y", "--url", "z"},
		{"u1", "--url", "--", "u2"},
		{"--json", "u1", "--json=false", "--retry", "3", "u2", "--retry=4"},
		{"--", "-s", "-o", "u1"},
		{"u1", "--", "--", "u2"},
		{"-", "u1", "", "u2", ""},
		{"-o", "--", "u1"},
		{"-o", "-s", "u1"},
		{"-o", "-", "-"},
		{"-test.v", "u1"},
		{"-s", "-test.count=1", "u1"},
		{"-o"},
		{"u1", "--url"},
		{"-so"},
		{"-x", "u1"},
		{"-sx", "u1"},
		{"--nope", "u1"},
		{"--nope=1", "u1"},
		{"---x", "u1"},
		{"--=x", "u1"},
		{"-Ou1"},
		{"-h"},
		{"--help"},
	} {
		var wantLog []string
		var ref *pflag.FlagSet
		ref = testFlags(&wantLog, func() int { return len(ref.Args()) })
		wantErr := ref.Parse(args)
		want := ref.Args()
		if wantErr != nil {
			want = nil
		}

		for _, fromArea := range []bool{false, true} {
			var gotLog []string
			var pos int
			fs := testFlags(&gotLog, func() int { return pos })
			a, area := args, []byte(nil)
			if fromArea {
				a, area = inArea(args)
				if len(args) > 0 && argBytes(a) == nil {
					t.Fatalf("%q: the arguments' area is not recognized", args)
				}
			}
			p, err := parseArgs(fs, a, area, &pos)
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Errorf("%q (area %v): error %v, want %v", args, fromArea, err, wantErr)
				continue
			}
			var got []string
			for p.n > 0 {
				got = append(got, p.next())
			}
			if !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
				t.Errorf("%q (area %v): positional %q, want %q", args, fromArea, got, want)
			}
			if !reflect.DeepEqual(gotLog, wantLog) {
				t.Errorf("%q (area %v): set %q, want %q", args, fromArea, gotLog, wantLog)
			}
		}
	}
}

// TestPositionalsCopy checks that a copy of positionals walks the
// arguments without moving the original, as holdLocalCPU walks them.
func TestPositionalsCopy(t *testing.T) {
	args, area := inArea([]string{"-s", "a", "-o", "f", "b", "c"})
	var log []string
	var pos int
	p, err := parseArgs(testFlags(&log, func() int { return pos }), args, area, &pos)
	if err != nil {
		t.Fatal(err)
	}
	if p.n != 3 {
		t.Fatalf("%d positional arguments, want 3", p.n)
	}
	first := p.next()
	for range 2 {
		c := p
		if got := []string{c.next(), c.next()}; !reflect.DeepEqual(got, []string{"b", "c"}) || c.n != 0 {
			t.Errorf("the copy walked %q, %d left; want [b c], 0", got, c.n)
		}
	}
	if first != "a" || p.n != 2 || p.next() != "b" {
		t.Errorf("the original moved with its copy")
	}
}

// TestArgBytes checks when arguments are taken for the kernel's layout:
// only when each starts right after the previous one's NUL.
func TestArgBytes(t *testing.T) {
	args, area := inArea([]string{"a", "", "bc", ""})
	if got := argBytes(args); string(got) != "a\x00\x00bc\x00" || unsafe.SliceData(got) != unsafe.SliceData(area) {
		t.Errorf("argBytes = %q, want the area %q", got, area)
	}
	if got := argBytes(nil); got != nil {
		t.Errorf("argBytes(nil) = %q", got)
	}
	// Strings that do not lie one after another.
	if got := argBytes([]string{strings.Repeat("a", 2), strings.Repeat("b", 2)}); got != nil {
		t.Errorf("argBytes of two separate strings = %q, want nil", got)
	}
	// One after another, but with no NUL between them.
	buf := []byte("ab-cd")
	if got := argBytes([]string{unsafe.String(&buf[0], 2), unsafe.String(&buf[3], 2)}); got != nil {
		t.Errorf("argBytes of strings with %q between them = %q, want nil", buf[2], got)
	}
	// A gap of more than one byte.
	buf = []byte("ab\x00\x00cd")
	if got := argBytes([]string{unsafe.String(&buf[0], 2), unsafe.String(&buf[4], 2)}); got != nil {
		t.Errorf("argBytes of strings two bytes apart = %q, want nil", got)
	}
	// This process's own arguments, as the kernel wrote them.
	if got := argBytes(os.Args); got == nil {
		t.Errorf("the process's arguments %q are not taken for the kernel's layout", os.Args)
	} else if want := strings.Join(os.Args, "\x00"); string(got) != want {
		t.Errorf("argBytes(os.Args) = %q, want %q", got, want)
	}
}

// TestParseFlagsArea checks that the command reads its URLs from argArea
// when that holds the arguments, and from the arguments otherwise.
func TestParseFlagsArea(t *testing.T) {
	args, area := inArea([]string{"-s", "http://h/a", "--url", "http://h/u", "-o", "f", "http://h/b"})
	defer func() { argArea = nil }()
	for _, a := range [][]byte{area, nil, []byte("x\x00y")} {
		argArea = a
		var out, errOut strings.Builder
		o, urls, code := parseFlags(args, &out, &errOut)
		if o == nil {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		if fromArea := urls.args == nil; fromArea != (unsafe.SliceData(a) == unsafe.SliceData(area)) {
			t.Errorf("argArea %q: URLs read from the area %v", a, fromArea)
		}
		got := drain(newURLQueue(urls, o.urlArgs))
		want := []string{"0 http://h/a", "1 http://h/u", "2 http://h/b"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("argArea %q: got %q, want %q", a, got, want)
		}
	}
}
