package cli

import (
	"strings"

	"github.com/spf13/pflag"
)

// The command's flags described for the man page and the shell
// completions, which go generate makes from them (internal/cli/gendoc):
// they are made from the flag set itself, so that they cannot drift from
// the flags.

// Version is the program's version, printed by --version.
const Version = version

// Category is one group of options of --help CATEGORY.
type Category struct {
	Name, Desc string
}

// Categories returns the groups --help knows, in the order --help lists
// them.
func Categories() []Category {
	cs := make([]Category, len(categories))
	for i, c := range categories {
		cs[i] = Category{Name: c.name, Desc: c.desc}
	}
	return cs
}

// Flag describes one flag that --help shows.
type Flag struct {
	Name      string // the long name, without --
	Shorthand string // the one-letter name, without -; "" for none
	Value     string // the name of its value; "" for a flag that takes none
	Usage     string // what it does, with `code` in Markdown's backquotes
	Category  string // the category it is listed under in the man page
	File      bool   // its value names a file or directory
}

// Flags returns the flags --help shows, in its order.
func Flags() []Flag {
	var flags []Flag
	flagSet().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		value, usage := flagValue(f)
		flags = append(flags, Flag{
			Name:      f.Name,
			Shorthand: f.Shorthand,
			Value:     value,
			Usage:     usage,
			Category:  mainCategory(f.Name),
			File:      value == "file" || value == "dir",
		})
	})
	return flags
}

// mainCategory is the category a flag is listed under in the man page:
// its first besides "important".
func mainCategory(name string) string {
	for _, c := range strings.Fields(flagCategories[name]) {
		if c != "important" {
			return c
		}
	}
	return "urlget"
}

// CurlRow is one row of the table of curl's options in docs/usage.md.
type CurlRow struct {
	Option string // curl's letter, long name and value, as curl --help lists them
	Taken  bool   // urlget takes the option
	Status string // what urlget does with it: a difference from curl, or why it is out of scope
}

// CurlTable returns a row for each option of curl 7.88, in curl's order:
// whether urlget takes it, with the difference its flag records
// (curlNote), or why it is out of scope; "not taken" for an option in
// neither list, which the tests do not let stand.
func CurlTable() []CurlRow {
	fs := flagSet()
	rows := make([]CurlRow, 0, len(curlOptions))
	for _, c := range curlOptions {
		opt := "--" + c.Name
		if c.Short != "" {
			opt = "-" + c.Short + ", " + opt
		}
		if c.Arg != "" {
			opt += " " + c.Arg
		}
		r := CurlRow{Option: opt}
		switch f := fs.Lookup(c.Name); {
		case outOfScope[c.Name] != "":
			// A flag of that name, if any, only refuses it.
			r.Status = "out of scope: " + outOfScope[c.Name]
		case f != nil:
			r.Taken = true
			if note := f.Annotations["curl"]; len(note) > 0 {
				r.Status = note[0]
			}
		default:
			r.Status = "not taken"
		}
		rows = append(rows, r)
	}
	return rows
}
