// Package curlrc reads the command's config files, as curl's: -K FILE
// (and -K - for standard input) reads options from FILE in the place of
// -K, and ~/.urlgetrc is read before the command line unless its first
// option is -q/--disable. Each line is one option, written
//
//	long-option = value
//	long-option value
//	long-option: value
//	-x value
//	silent
//	url = "http://example.com/a file"
//
// The leading -- of a long option may be left out. Long options, in
// files as on the command line, may be shortened to a prefix that names
// one option, and a switch is turned off by --no- before its name, as in
// curl (Resolve). A value with blanks is
// quoted, and in quotes \" \\ \t \n \r and \v are escapes. A line whose
// first non-blank character is # is a comment. url lines add URLs as
// --url does. The options become arguments for the same flag set as the
// command line's, so every flag can be given in a file. Errors are
// returned, for the command to map to its exit status.
package curlrc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
)

// maxConfigDepth bounds -K inside config files, which curl also allows, so
// that a file that reads itself fails instead of looping.
const maxConfigDepth = 10

// DefaultPath returns the path of ~/.urlgetrc, "" with no home.
func DefaultPath() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".urlgetrc")
}

// Error is a config file that cannot be read (Line 0: curl's read error,
// exit 26) or that holds a line that is no option (a usage error).
type Error struct {
	Name string // the file's name, "-" for standard input
	Line int    // the line, from 1; 0 when the file cannot be read
	Err  error
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("config %s, line %d: %v", e.Name, e.Line, e.Err)
	}
	return fmt.Sprintf("config %s: %v", e.Name, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Expand returns args with the options of the file home (~/.urlgetrc,
// DefaultPath; "" or a missing file for none) before them, unless the
// first of args is -q or --disable, and each -K FILE replaced by FILE's
// options; -K - reads stdin. fs tells which options take a value. A
// file that cannot be read or holds a line that is no option is an
// *Error; -K without a file is another error.
func Expand(fs *pflag.FlagSet, args []string, home string, stdin io.Reader) ([]string, error) {
	x := &expander{fs: fs, stdin: stdin}
	var out []string
	if home != "" && (len(args) == 0 || args[0] != "-q" && args[0] != "--disable") {
		f, err := os.Open(home)
		switch {
		case err == nil:
			out, err = x.read(home, f, 1)
			f.Close()
		case errors.Is(err, os.ErrNotExist):
			err = nil
		}
		if err != nil {
			return nil, err
		}
	}
	more, err := x.expand(args, 0)
	if err != nil {
		return nil, err
	}
	return append(out, more...), nil
}

// expander reads config files for the flag set fs; -K - reads stdin.
type expander struct {
	fs    *pflag.FlagSet
	stdin io.Reader
}

// expand replaces each -K FILE, -KFILE, --config FILE and
// --config=FILE of args by the options FILE holds. It steps over the
// values of other options, so that "-o -K" writes to a file named -K.
func (x *expander) expand(args []string, depth int) ([]string, error) {
	fs := x.fs
	var out []string
	include := func(name string) error {
		more, err := x.load(name, depth+1)
		out = append(out, more...)
		return err
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, bool) {
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return "", false
		}
		switch {
		case a == "--":
			return append(out, args[i:]...), nil
		case strings.HasPrefix(a, "--"):
			a, takes, err := canonical(fs, a)
			if err != nil {
				return nil, err
			}
			name, _, _ := strings.Cut(a[2:], "=")
			if name == "config" {
				file, ok := strings.CutPrefix(a, "--config=")
				if !ok {
					if file, ok = next(); !ok {
						return nil, errors.New("--config needs a file")
					}
				}
				if err := include(file); err != nil {
					return nil, err
				}
				continue
			}
			out = append(out, a)
			if takes {
				if v, ok := next(); ok {
					out = append(out, v)
				}
			}
		case len(a) > 1 && a[0] == '-':
			done := false
			for j := 1; j < len(a) && !done; j++ {
				if a[j] == 'K' {
					if j > 1 {
						out = append(out, a[:j])
					}
					file := a[j+1:]
					if file == "" {
						var ok bool
						if file, ok = next(); !ok {
							return nil, errors.New("-K needs a file")
						}
					}
					if err := include(file); err != nil {
						return nil, err
					}
					done = true
					continue
				}
				if f := fs.ShorthandLookup(a[j : j+1]); f != nil && f.NoOptDefVal == "" {
					// The rest of the cluster, or the next argument, is its value.
					out = append(out, a)
					if j == len(a)-1 {
						if v, ok := next(); ok {
							out = append(out, v)
						}
					}
					done = true
				}
			}
			if !done {
				out = append(out, a)
			}
		default:
			out = append(out, a)
		}
	}
	return out, nil
}

// load reads the options of the config file name; "-" is standard
// input.
func (x *expander) load(name string, depth int) ([]string, error) {
	if depth > maxConfigDepth {
		return nil, &Error{Name: name, Err: fmt.Errorf("more than %d config files inside each other", maxConfigDepth)}
	}
	if name == "-" {
		return x.read(name, x.stdin, depth)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, &Error{Name: name, Err: unwrapPath(err)}
	}
	defer f.Close()
	return x.read(name, f, depth)
}

// unwrapPath drops the *PathError's repetition of the file name.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// read turns the lines of a config file into arguments, each in the
// form --name=value or --name, so that pflag reads them unambiguously.
func (x *expander) read(name string, r io.Reader, depth int) ([]string, error) {
	fs := x.fs
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		opt, value, hasValue, err := configLine(sc.Text())
		if err != nil {
			return nil, &Error{Name: name, Line: n, Err: err}
		}
		if opt == "" {
			continue
		}
		if len(opt) > 2 && opt[0] == '-' && opt[1] != '-' {
			// Letters together (-fL), as curl reads them in a file too:
			// each a switch but the last, which may take the value.
			for i := 1; i < len(opt); i++ {
				if opt[i] >= 0x80 {
					return nil, &Error{Name: name, Line: n, Err: fmt.Errorf("unknown option %s", opt)}
				}
			}
			for _, l := range []byte(opt[1 : len(opt)-1]) {
				f := fs.ShorthandLookup(string(l))
				if f == nil || f.NoOptDefVal == "" {
					return nil, &Error{Name: name, Line: n, Err: fmt.Errorf("%s: -%c is no switch, so it cannot stand before other letters", opt, l)}
				}
				// By its long name, as every option read from a file.
				out = append(out, "--"+f.Name)
			}
			opt = "-" + opt[len(opt)-1:]
		}
		var f *pflag.Flag
		forced, set := "", false
		if long, ok := strings.CutPrefix(opt, "--"); ok {
			var flag string
			if flag, forced, set, err = Resolve(fs, long); err != nil {
				return nil, &Error{Name: name, Line: n, Err: err}
			}
			f = fs.Lookup(flag)
		} else if len(opt) == 2 && opt[0] == '-' {
			f = fs.ShorthandLookup(opt[1:])
		}
		if f == nil {
			return nil, &Error{Name: name, Line: n, Err: fmt.Errorf("unknown option %s", opt)}
		}
		takes := f.NoOptDefVal == ""
		switch {
		case set && hasValue:
			return nil, &Error{Name: name, Line: n, Err: fmt.Errorf("%s takes no value", opt)}
		case set:
			out = append(out, "--"+f.Name+"="+forced)
		case takes && !hasValue:
			return nil, &Error{Name: name, Line: n, Err: fmt.Errorf("%s needs a value", opt)}
		case !takes && hasValue:
			return nil, &Error{Name: name, Line: n, Err: fmt.Errorf("%s takes no value", opt)}
		case f.Name == "config":
			more, err := x.load(value, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, more...)
		case takes:
			out = append(out, "--"+f.Name+"="+value)
		default:
			out = append(out, "--"+f.Name)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{Name: name, Err: err}
	}
	return out, nil
}

// configLine splits one line of a config file into its option, with the
// leading -- added to a long one, and its value. A blank or comment line
// has no option.
func configLine(line string) (opt, value string, hasValue bool, err error) {
	s := strings.TrimLeft(line, " \t")
	s = strings.TrimSuffix(s, "\r")
	if s == "" || s[0] == '#' {
		return "", "", false, nil
	}
	end := strings.IndexAny(s, " \t=:")
	if end < 0 {
		end = len(s)
	}
	opt, s = s[:end], s[end:]
	if !strings.HasPrefix(opt, "-") {
		opt = "--" + opt
	}
	s = strings.TrimLeft(s, " \t")
	if s != "" && (s[0] == '=' || s[0] == ':') {
		s = strings.TrimLeft(s[1:], " \t")
	}
	if s == "" {
		return opt, "", false, nil
	}
	if s[0] != '"' {
		if end := strings.IndexAny(s, " \t"); end >= 0 {
			if strings.TrimSpace(s[end:]) != "" {
				return "", "", false, fmt.Errorf("text after the value of %s; quote a value with blanks", opt)
			}
			s = s[:end]
		}
		return opt, s, true, nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			if strings.TrimSpace(s[i+1:]) != "" {
				return "", "", false, fmt.Errorf("text after the quoted value of %s", opt)
			}
			return opt, b.String(), true, nil
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 'v':
				b.WriteByte('\v')
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false, fmt.Errorf("the quoted value of %s has no closing quote", opt)
}
