package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// Help, as curl's --help: `urlget --help` shows the options most runs need
// and the list of categories, `urlget --help CATEGORY` the options of one
// category, `urlget --help all` every option. Lines fit 80 columns.

// helpWidth is the width help text is wrapped to.
const helpWidth = 80

// category is one group of options of --help CATEGORY.
type category struct {
	name, desc string
}

// categories are the groups --help knows, in the order --help lists them.
var categories = []category{
	{"auth", "user names, passwords and .netrc"},
	{"connection", "timeouts, speed limits, retries, resuming"},
	{"dns", "host name resolution"},
	{"ftp", "ftp: and ftps: URLs"},
	{"gopher", "gopher: URLs"},
	{"http", "http: and https: URLs"},
	{"important", "the options most runs need"},
	{"news", "news: and nntp: URLs"},
	{"output", "where bodies and listings go, and how they look"},
	{"proxy", "proxies, for every scheme"},
	{"recursive", "--recursive and --mirror: whole trees into a local directory"},
	{"tls", "certificates and TLS"},
	{"urlget", "the command itself: URLs, globbing, config files, help"},
	{"verbose", "what a run tells on stderr"},
	{"wais", "wais: URLs"},
}

// flagCategories maps each flag's long name to its categories, separated
// by blanks. Every flag of the command has an entry (TestEveryFlagHasCategory);
// a new flag gets its line here.
var flagCategories = map[string]string{
	// urlget
	"url":     "urlget",
	"help":    "important urlget",
	"version": "important urlget",
	"globoff": "urlget",
	"config":  "urlget",
	"next":    "urlget",
	"disable": "urlget",

	// output
	"output":             "important output",
	"remote-name":        "important output",
	"remote-name-all":    "output",
	"output-dir":         "output",
	"create-dirs":        "output",
	"json-lines":         "output",
	"raw-listing":        "output",
	"include":            "http output",
	"dump-header":        "http output",
	"remote-header-name": "http output",

	// verbose
	"silent":     "important verbose",
	"show-error": "important verbose",
	"verbose":    "important verbose",
	"write-out":  "verbose",

	// auth
	"user":           "important auth",
	"netrc":          "auth",
	"netrc-optional": "auth",
	"netrc-file":     "auth",

	"location-trusted": "auth http",

	// connection
	"continue-at":       "connection",
	"max-time":          "important connection",
	"connect-timeout":   "connection",
	"speed-limit":       "connection",
	"speed-time":        "connection",
	"retry":             "connection",
	"retry-delay":       "connection",
	"retry-max-time":    "connection",
	"max-filesize":      "connection",
	"limit-rate":        "connection",
	"hsts":              "http",
	"parallel":          "connection urlget",
	"parallel-max":      "connection urlget",
	"parallel-host":     "connection urlget",
	"parallel-max-host": "connection",

	// dns
	"resolve": "dns connection",
	"ipv4":    "dns connection",
	"ipv6":    "dns connection",

	// tls
	"insecure": "tls",
	"cacert":   "tls",

	// http
	"head":           "important http ftp",
	"user-agent":     "http",
	"max-redirs":     "http",
	"location":       "important http",
	"fail":           "important http",
	"fail-with-body": "http",
	"header":         "important http",
	"referer":        "http",
	"compressed":     "http",

	// curl's letters: -r, -N
	"range":     "connection http ftp",
	"no-buffer": "output",
	"buffer":    "output",
	"raw":       "http",
	"json":      "http",
	// what a transfer carries between runs (stateflags.go)
	"remote-time":          "output",
	"time-cond":            "http ftp",
	"cookie":               "http",
	"cookie-jar":           "http output",
	"junk-session-cookies": "http",
	"etag-save":            "http",
	"etag-compare":         "http",

	// recursive
	"recursive":           "important recursive",
	"mirror":              "important recursive",
	"level":               "recursive",
	"no-parent":           "recursive",
	"accept":              "recursive",
	"reject":              "recursive",
	"accept-regex":        "recursive",
	"reject-regex":        "recursive",
	"span-hosts":          "recursive",
	"domains":             "recursive",
	"schemes":             "recursive",
	"no-host-directories": "recursive output",
	"cut-dirs":            "recursive output",
	"timestamping":        "recursive",
	"delete":              "recursive",
	"delete-emptied":      "recursive",
	"max-delete":          "recursive",
	"dry-run":             "recursive",
	"convert-links":       "recursive output",
	"execute":             "recursive",
	"wait":                "recursive",
	"random-wait":         "recursive",
	"max-entries":         "recursive",

	// ftp
	"ftp-method":    "ftp",
	"ssl-reqd":      "ftp tls",
	"ftp-port":      "ftp",
	"ftp-anon-pass": "ftp auth",
	"ftp-sync":      "ftp",

	// ftp (ftpflags.go)
	"list-only":               "ftp",
	"quote":                   "ftp",
	"use-ascii":               "ftp",
	"ftp-pasv":                "ftp",
	"ftp-skip-pasv-ip":        "ftp",
	"disable-epsv":            "ftp",
	"disable-eprt":            "ftp",
	"ftp-pret":                "ftp",
	"ftp-account":             "ftp auth",
	"ftp-alternative-to-user": "ftp auth",
	"ssl":                     "ftp tls",
	"ftp-ssl":                 "ftp tls",
	"ftp-ssl-reqd":            "ftp tls",
	"ftp-ssl-control":         "ftp tls",
	"ftp-ssl-ccc":             "ftp tls",
	"ftp-ssl-ccc-mode":        "ftp tls",

	// gopher, news, wais
	"search":       "gopher wais",
	"nntp-server":  "news",
	"max-articles": "news",

	// proxy
	"proxy":       "important proxy",
	"noproxy":     "proxy",
	"proxy-user":  "proxy auth",
	"proxytunnel": "proxy",
}

// valueNames name the value of flags whose usage text does not (pflag
// takes a name in backquotes from the text, else its type).
var valueNames = map[string]string{
	"ftp-method":    "method",
	"user-agent":    "name",
	"ftp-anon-pass": "password",
}

// inCategory reports whether the flag named name is in category cat.
func inCategory(name, cat string) bool {
	return cat == "all" || slices.Contains(strings.Fields(flagCategories[name]), cat)
}

// flagSink is a writer that writeHelp does not write to: it keeps the
// flag set instead, for flagSet.
type flagSink struct {
	fs *pflag.FlagSet
}

func (*flagSink) Write(p []byte) (int, error) { return len(p), nil }

// flagSet returns the command's flag set, every flag defined as parseFlags
// defines it, for the man page and the completions.
func flagSet() *pflag.FlagSet {
	sink := &flagSink{}
	parseFlags([]string{"-q", "--help"}, sink, io.Discard)
	return sink.fs
}

// writeHelp writes to w the help for the arguments after --help: none, a
// category, "all" or "category" (the list of categories). It returns the
// exit status: 2 for a category it does not know, which it tells on
// errw.
func writeHelp(w, errw io.Writer, fs *pflag.FlagSet, args []string) int {
	if s, ok := w.(*flagSink); ok {
		s.fs = fs
		return 0
	}
	cat := "important"
	if len(args) > 0 {
		cat = strings.ToLower(args[0])
	}
	switch {
	case cat == "category":
		writeCategories(w)
		return 0
	case cat != "all" && !slices.ContainsFunc(categories, func(c category) bool { return c.name == cat }):
		fmt.Fprintf(errw, "urlget: --help: no category %q; the categories are:\n", cat)
		writeCategories(errw)
		return exitUsage
	}
	if len(args) == 0 || cat == "all" {
		fmt.Fprint(w, usageText)
	} else {
		fmt.Fprintf(w, "Usage: urlget [options] URL...\n\nOptions (%s):\n", cat)
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || !inCategory(f.Name, cat) {
			return
		}
		writeFlag(w, f)
	})
	if len(args) == 0 {
		fmt.Fprint(w, "\nThis is not the full help: the options come in categories.\n")
		fmt.Fprint(w, "Use \"--help CATEGORY\" for one of them, \"--help all\" for every option:\n")
		writeCategories(w)
	}
	return 0
}

func writeCategories(w io.Writer) {
	for _, c := range categories {
		fmt.Fprintf(w, " %-11s %s\n", c.name, c.desc)
	}
}

// helpIndent is where the descriptions of help's options start.
const helpIndent = 30

// writeFlag writes one option: its names and value, then its description
// wrapped to helpWidth, starting on a line of its own when the names are
// too long to leave room.
func writeFlag(w io.Writer, f *pflag.Flag) {
	names, usage := flagSynopsis(f)
	line := " " + names
	if len(line) < helpIndent-1 {
		line += strings.Repeat(" ", helpIndent-len(line))
	} else {
		fmt.Fprintln(w, line)
		line = strings.Repeat(" ", helpIndent)
	}
	for i, l := range wrap(usage, helpWidth-helpIndent) {
		if i > 0 {
			line = strings.Repeat(" ", helpIndent)
		}
		fmt.Fprintln(w, line+l)
	}
}

// flagSynopsis returns "-o, --output <file>" and the description of f.
func flagSynopsis(f *pflag.Flag) (names, usage string) {
	value, usage := flagValue(f)
	names = "    --" + f.Name
	if f.Shorthand != "" {
		names = "-" + f.Shorthand + ", --" + f.Name
	}
	if value != "" {
		names += " <" + value + ">"
	}
	return names, usage
}

// flagValue returns the name of f's value, "" for a flag that takes none,
// and its description.
func flagValue(f *pflag.Flag) (value, usage string) {
	value, usage = pflag.UnquoteUsage(f)
	if f.NoOptDefVal != "" {
		return "", usage
	}
	if v, ok := valueNames[f.Name]; ok {
		return v, usage
	}
	switch value {
	case "string":
		value = "text"
	case "int", "int64", "uint", "uint64":
		value = "n"
	case "float64", "float32", "duration":
		value = "seconds"
	case "stringArray", "stringSlice", "strings":
		value = "text"
	case "":
		value = "value"
	}
	return value, usage
}

// wrap breaks s into lines of at most width columns, at blanks; a word
// longer than width has a line of its own.
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}
