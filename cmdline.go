package main

import (
	"bytes"
	"strings"
	"unsafe"

	"github.com/spf13/pflag"
)

// The command line's URLs are read where the kernel put them.
//
// Before main runs, the Go runtime makes two arrays of string headers of
// the arguments, 16 bytes an argument each: its own, which it keeps, and
// os.Args, a copy. Each string points into the area at the top of the
// stack to which execve(2) copied the arguments, one after another with a
// NUL after each (the area /proc/PID/cmdline shows). A flag parser that
// returns the positional arguments as a slice adds a third array, and the
// run would hold two of them to its end: at the kernel's limit on the size
// of the arguments (ARG_MAX, 2 MiB here: some 36,000 URLs of 30 bytes, or
// 76,000 of 16), 0.6 to 1.2 MiB more of heap, on top of the area itself.
// So the flags are given to the parser one at a time, and the positional
// URLs are walked in the area itself, as main hands it over (argArea):
// one small slice of the flags' places is all the run keeps of them. A
// caller that gives its own arguments (the tests) has them read from its
// slice.

// argArea is the bytes that os.Args[1:] occupy, set by main when they lie
// one after another as the kernel wrote them (see argBytes); nil when not,
// and for tests that call run with arguments of their own.
var argArea []byte

// argBytes returns the bytes that args occupy when each one starts right
// after the previous one and the NUL that ends it, as execve(2) lays out a
// process's arguments; the last one's NUL is left out. It returns nil when
// they do not lie so.
func argBytes(args []string) []byte {
	if len(args) == 0 {
		return nil
	}
	start := unsafe.StringData(args[0])
	if start == nil {
		return nil
	}
	n := 0
	for _, a := range args {
		if unsafe.StringData(a) != (*byte)(unsafe.Add(unsafe.Pointer(start), n)) {
			return nil
		}
		n += len(a) + 1
	}
	area := unsafe.Slice(start, n-1)
	n = 0
	for _, a := range args[:len(args)-1] {
		n += len(a)
		if area[n] != 0 {
			return nil
		}
		n++
	}
	return area
}

// positionals hands out the positional arguments of a command line (its
// URLs) in order. It is a value: a copy walks them again from where the
// original stands, without moving it.
type positionals struct {
	n    int      // positional arguments not yet handed out
	i    int      // index of the next argument, flags included
	skip []int32  // indices ≥ i of the flags and their values, ascending
	args []string // the arguments from index i on
	area []byte   // or, when args is nil, their bytes (see argBytes)
}

// positionalsOf returns positionals that hand out urls.
func positionalsOf(urls []string) positionals {
	return positionals{n: len(urls), args: urls}
}

// next returns the next positional argument; n must be above zero.
func (p *positionals) next() string {
	for len(p.skip) > 0 && int(p.skip[0]) == p.i {
		p.advance()
		p.skip = p.skip[1:]
	}
	var s string
	if p.args != nil {
		s = p.args[0]
	} else if j := bytes.IndexByte(p.area, 0); j > 0 {
		s = unsafe.String(&p.area[0], j)
	} else if j < 0 && len(p.area) > 0 {
		s = unsafe.String(&p.area[0], len(p.area))
	}
	p.advance()
	p.n--
	return s
}

// advance steps over the next argument.
func (p *positionals) advance() {
	p.i++
	if p.args != nil {
		p.args = p.args[1:]
		return
	}
	if j := bytes.IndexByte(p.area, 0); j >= 0 {
		p.area = p.area[j+1:]
	} else {
		p.area = nil
	}
}

// parseArgs gives the flags of args to fs, one at a time with its value,
// and returns the positional arguments, read from area when it holds the
// bytes of args (argBytes), else from args. Before each flag, *pos is set
// to the number of positional arguments before it. The flags are told
// apart from the rest by pflag's own rules: an argument that starts with
// "-" and is longer than that is a flag, and all after "--" are
// positional; a flag takes the next argument as its value when it is
// given without "=" and has no value of its own to fall back on (a bool,
// -O); in a group of short flags ("-sSo"), only the last can take it.
func parseArgs(fs *pflag.FlagSet, args []string, area []byte, pos *int) (positionals, error) {
	p := positionals{args: args, area: area}
	if area != nil {
		p.args = nil
	}
	for i := 0; i < len(args); i++ {
		s := args[i]
		if len(s) < 2 || s[0] != '-' {
			p.n++
			continue
		}
		p.skip = append(p.skip, int32(i))
		if s == "--" {
			p.n += len(args) - i - 1
			break
		}
		w := args[i : i+1]
		if i+1 < len(args) && takesNext(fs, s) {
			w = args[i : i+2]
			p.skip = append(p.skip, int32(i+1))
			i++
		}
		*pos = p.n
		if err := fs.Parse(w); err != nil {
			return positionals{}, err
		}
	}
	return p, nil
}

// takesNext reports whether flag argument s of fs takes the argument after
// it as its value, by the rules pflag parses with (FlagSet.Parse). An
// unknown flag takes none: the parser then fails on it anyway.
func takesNext(fs *pflag.FlagSet, s string) bool {
	if strings.HasPrefix(s, "--") {
		name := s[2:]
		if strings.Contains(name, "=") {
			return false
		}
		f := fs.Lookup(name)
		return f != nil && f.NoOptDefVal == ""
	}
	// pflag passes over go test's flags ("-test.v"): none of them can take
	// the next argument here either, "." being no flag's shorthand.
	for j := 1; j < len(s); j++ {
		f := fs.ShorthandLookup(s[j : j+1])
		if f == nil || j+2 < len(s) && s[j+1] == '=' {
			return false
		}
		if f.NoOptDefVal == "" {
			return j == len(s)-1 // "-ovalue" holds its value
		}
	}
	return false
}
