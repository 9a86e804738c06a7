package cli

import (
	"io"
	"os"
	"reflect"
	"strings"

	"github.com/spf13/pflag"
)

// globalFlags are the options that, as curl's, hold for every operation
// of a command line split by -:/--next, wherever they are given: curl
// 7.88's global options (its manual says "This option is global") and
// urlget's own options of the same kind. Every other option holds only
// for the operation it is given in.
var globalFlags = map[string]bool{
	"verbose": true, "silent": true, "show-error": true, "fail-early": true,
	"parallel": true, "parallel-immediate": true, "parallel-max": true,
	"parallel-host": true, "parallel-max-host": true,
	"progress-bar": true, "no-progress-meter": true, "styled-output": true,
	"stderr": true, "trace": true, "trace-ascii": true, "trace-time": true,
	"disable": true,
}

// splitNext splits the command line args, its config files already read
// into it, at each -: or --next into the arguments of each operation, as
// curl does: every operation starts from the defaults, and the global
// options (globalFlags), from whichever operation, are put before each
// operation's own. A command line without --next is returned whole.
func splitNext(fs *pflag.FlagSet, args []string) [][]string {
	var globals []string
	var groups [][]string
	var local []string
	split := false
	add := func(f *pflag.Flag, a ...string) {
		if f != nil && globalFlags[f.Name] {
			globals = append(globals, a...)
		} else {
			local = append(local, a...)
		}
	}
	next := func() {
		groups = append(groups, local)
		local = nil
		split = true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() []string {
			if i+1 < len(args) {
				i++
				return []string{args[i]}
			}
			return nil
		}
		switch {
		case a == "--":
			local = append(local, args[i:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			if name == "next" {
				next()
				continue
			}
			f := fs.Lookup(name)
			if f != nil && f.NoOptDefVal == "" && !hasValue {
				add(f, append([]string{a}, value()...)...)
			} else {
				add(f, a)
			}
		case len(a) > 1 && a[0] == '-':
			// A cluster of letters: each becomes an argument of its own,
			// so that a global letter (-sS) and a local one (-fL) can
			// part.
			for j := 1; j < len(a); j++ {
				f := fs.ShorthandLookup(a[j : j+1])
				switch {
				case f == nil:
					// Left to the flag set to report.
					local = append(local, "-"+a[j:])
					j = len(a)
				case f.Name == "next":
					next()
				case f.NoOptDefVal == "" && j+1 < len(a):
					add(f, "-"+a[j:j+1], a[j+1:])
					j = len(a)
				case f.NoOptDefVal == "":
					add(f, append([]string{"-" + a[j:j+1]}, value()...)...)
				default:
					add(f, "-"+a[j:j+1])
				}
			}
		default:
			local = append(local, a)
		}
	}
	if !split {
		return [][]string{args}
	}
	groups = append(groups, local)
	for i, g := range groups {
		groups[i] = append(append([]string(nil), globals...), g...)
	}
	return groups
}

// operation is one part of a command line split by --next: its options
// and its URLs.
type operation struct {
	opts *options
	urls []string
}

// parseCommandLine parses args into its operations. The config files
// (~/.urlgetrc and -K) are read once, as curl reads them: ~/.urlgetrc's
// options belong to the first operation. It returns nil and the exit
// status when the command line is wrong or asks only for help.
func parseCommandLine(args []string, stdout, stderr io.Writer) ([]operation, int) {
	fs := flagSet()
	expanded, code := withConfig(fs, args, stderr)
	if code != 0 {
		return nil, code
	}
	groups := splitNext(fs, expanded)
	if len(groups) == 1 {
		o, urls, code := parseFlags(args, stdout, stderr)
		if o == nil {
			return nil, code
		}
		return []operation{{o, urls}}, 0
	}
	ops := make([]operation, len(groups))
	for i, g := range groups {
		// The files are read: -q keeps ~/.urlgetrc from being read again.
		o, urls, code := parseFlags(append([]string{"-q"}, g...), stdout, stderr)
		if o == nil {
			return nil, code
		}
		ops[i] = operation{o, urls}
	}
	shareFetchers(ops)
	return ops, 0
}

// shareFetchers gives an operation the fetchers of an earlier one whose
// options for that protocol are the same, so that its transfers reuse the
// connections the earlier one left idle, as curl reuses connections
// across --next. They are compared before any is used.
func shareFetchers(ops []operation) {
	for k := 1; k < len(ops); k++ {
		o := ops[k].opts
		for j := 0; j < k; j++ {
			p := ops[j].opts
			if reflect.DeepEqual(o.ftp, p.ftp) {
				o.ftp = p.ftp
			}
			if reflect.DeepEqual(o.news, p.news) {
				o.news = p.news
			}
			if reflect.DeepEqual(o.gopher, p.gopher) {
				o.gopher = p.gopher
			}
			if reflect.DeepEqual(o.http, p.http) {
				o.http = p.http
			}
		}
	}
}

// closeFetchers closes the fetchers of every operation, each once.
func closeFetchers(ops []operation) {
	seen := map[any]bool{}
	for _, op := range ops {
		for _, f := range op.opts.registry {
			if seen[f] {
				continue
			}
			seen[f] = true
			if c, ok := f.(io.Closer); ok {
				c.Close()
			}
		}
	}
}

// runOperations runs each operation in turn and returns the exit status
// of the last that failed, as for the URLs of one operation.
func runOperations(ops []operation, stdin *os.File, stdout, stderr io.Writer) int {
	if len(ops) > 1 {
		defer closeFetchers(ops)
	}
	status := exitOK
	for _, op := range ops {
		code := runOperation(op, len(ops) > 1, stdin, stdout, stderr)
		if code != exitOK {
			status = code
			if op.opts.out.failEarly {
				// --fail-early ends the command line at its first
				// failure, the operations after it too.
				break
			}
		}
	}
	return status
}

// adopt takes the streams and the trace that from's open chose: --stderr
// and --trace are global options, their files opened once for every
// operation of the command line.
func (x *outOptions) adopt(from *outOptions) {
	x.stdout, x.stderr, x.stdoutTTY, x.trace = from.stdout, from.stderr, from.stdoutTTY, from.trace
}
