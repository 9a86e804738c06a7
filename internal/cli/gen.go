package cli

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// The man page and the shell completions are made from the flag set by
// the program itself, `urlget __generate man|bash|zsh|fish`, and kept in
// docs/ and completions/; TestGeneratedFilesUpToDate fails when the kept
// files differ from what the program makes, so they cannot drift from
// the flags. docs/usage.md says how to make them again.

// readmePath is the README, whose exit status table the man page
// repeats, read when the man page is made.
var readmePath = "README.md"

// generators are the files __generate makes, by name.
var generators = map[string]func(io.Writer, *pflag.FlagSet){
	"man":  writeMan,
	"bash": writeBash,
	"zsh":  writeZsh,
	"fish": writeFish,
}

// generatedFiles are the paths the generated files are kept at.
var generatedFiles = map[string]string{
	"man":  "docs/urlget.1",
	"bash": "completions/urlget.bash",
	"zsh":  "completions/_urlget",
	"fish": "completions/urlget.fish",
}

// runGenerate is the hidden subcommand __generate KIND.
func runGenerate(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || generators[args[0]] == nil {
		fmt.Fprintln(stderr, "urlget: __generate takes one of man, bash, zsh, fish")
		return exitUsage
	}
	generators[args[0]](stdout, flagSet())
	return 0
}

// visibleFlags returns the flags of fs that help shows, in its order.
func visibleFlags(fs *pflag.FlagSet) []*pflag.Flag {
	var flags []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			flags = append(flags, f)
		}
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

// roff escapes text for a man page: backslashes, hyphens (which roff
// may otherwise render as dashes), characters past ASCII, and Markdown
// code spans, which become bold.
func roff(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		if i%2 == 1 {
			b.WriteString(`\fB` + part + `\fR`)
		} else {
			b.WriteString(part)
		}
	}
	var out strings.Builder
	for _, r := range b.String() {
		if r > 0x7f {
			fmt.Fprintf(&out, `\[u%04X]`, r)
		} else {
			out.WriteRune(r)
		}
	}
	// A line of text must not start with a control character.
	if t := out.String(); strings.HasPrefix(t, ".") || strings.HasPrefix(t, "'") {
		return `\&` + t
	}
	return out.String()
}

// exitTable returns the rows of the README's exit status table.
func exitTable() [][2]string {
	readme, _ := os.ReadFile(readmePath)
	_, rest, _ := strings.Cut(string(readme), "\n## Exit status\n")
	row := regexp.MustCompile(`^\|\s*([0-9][^|]*?)\s*\|\s*(.*?)\s*\|$`)
	var rows [][2]string
	for _, line := range strings.Split(rest, "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if m := row.FindStringSubmatch(line); m != nil {
			rows = append(rows, [2]string{m[1], m[2]})
		}
	}
	return rows
}

func writeMan(w io.Writer, fs *pflag.FlagSet) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p(`.\" Made by "urlget __generate man"; do not edit.`)
	p(`.TH URLGET 1 "" "urlget %s" "User Commands"`, version)
	p(".SH NAME")
	p(`urlget \- retrieve what a URL names: ftp, http(s), gopher, news, nntp, wais, file`)
	p(".SH SYNOPSIS")
	p(`.B urlget`)
	p(`[\fIoptions\fR] \fIURL\fR...`)
	p(".br")
	p(`.B urlget`)
	p(`[\fIoptions\fR] \fB\-\-url\fR @\fIFILE\fR`)
	p(".br")
	p(`.B urlget parse\fR|\fBresolve\fR|\fBnormalize\fR|\fBequal\fR \fIURL\fR...`)
	p(".SH DESCRIPTION")
	p(`.B urlget`)
	p(`retrieves each URL it is given and writes it to standard output, or to the`)
	p(`files \fB\-o\fR and \fB\-O\fR name. It speaks ftp, ftps, http, https, gopher,`)
	p(`gophers, news, nntp, nntps, wais and file, with curl's options and exit codes.`)
	p(`Listings (FTP directories, gopher menus, newsgroups, WAIS search results, local`)
	p(`directories) print one entry a line, each with its own URL; \fB\-\-json\fR prints`)
	p(`JSON lines instead.`)
	p(".PP")
	p(`With several URLs, urlget fetches them in order, reusing connections, and exits`)
	p(`with the status of the last one that failed. Sets and ranges in a URL,`)
	p(`\fB{a,b}\fR, \fB[1\-100]\fR, \fB[001\-100:10]\fR, \fB[a\-z]\fR, stand for one URL each,`)
	p(`as in curl; \fB#1\fR in an \fB\-o\fR name is the text of the first of them.`)
	p(`The subcommands \fBparse\fR, \fBresolve\fR, \fBnormalize\fR and \fBequal\fR`)
	p(`expose the URL toolkit.`)
	p(".SH OPTIONS")
	flags := visibleFlags(fs)
	for _, c := range categories {
		var in []*pflag.Flag
		for _, f := range flags {
			if mainCategory(f.Name) == c.name {
				in = append(in, f)
			}
		}
		if len(in) == 0 {
			continue
		}
		p(".SS %s", strings.ToUpper(c.desc[:1])+c.desc[1:])
		for _, f := range in {
			value, usage := flagValue(f)
			p(".TP")
			head := `\fB\-\-` + roff(f.Name) + `\fR`
			if f.Shorthand != "" {
				head = `\fB\-` + roff(f.Shorthand) + `\fR, ` + head
			}
			if value != "" {
				head += ` \fI` + roff(value) + `\fR`
			}
			p("%s", head)
			p("%s", roff(usage))
		}
	}
	p(".SH EXIT STATUS")
	p("The numbers are curl's where curl has the same condition.")
	for _, r := range exitTable() {
		p(".TP")
		p("%s", roff(r[0]))
		p("%s", roff(r[1]))
	}
	p(".SH ENVIRONMENT")
	p(".TP")
	p(".B HOME")
	p(`where \fI~/.urlgetrc\fR and \fI~/.netrc\fR are looked for.`)
	p(".TP")
	p(".B NETRC")
	p(`the .netrc file \fB\-\-netrc\fR reads instead of \fI~/.netrc\fR.`)
	p(".TP")
	p(".B NNTPSERVER")
	p(`the news server for news: URLs, when \fB\-\-nntp\-server\fR names none.`)
	p(".SH FILES")
	p(".TP")
	p(".I ~/.urlgetrc")
	p(`options read before the command line's, unless the first option is`)
	p(`\fB\-q\fR, in curl's config syntax: one option a line, \fIlong\-option = value\fR,`)
	p(`\fIlong\-option value\fR or \fI\-x value\fR, values with blanks in double quotes,`)
	p(`\fB#\fR comments, \fBurl = \fIURL\fR lines adding URLs. \fB\-K\fR reads another file.`)
	p(".TP")
	p(".I ~/.netrc")
	p(`credentials for hosts, read with \fB\-\-netrc\fR or \fB\-\-netrc\-optional\fR.`)
	p(".SH EXAMPLES")
	for _, ex := range [][2]string{
		{"urlget https://example.org/", "print a page"},
		{"urlget -O ftp://ftp.example.org/pub/file.tar.gz", "save a file under its own name"},
		{"urlget -C - -o big.iso https://example.org/big.iso", "resume where big.iso ends"},
		{"urlget -o 'page_#1.html' 'https://example.org/page[1-10].html'", "ten pages, ten files"},
		{"urlget --json ftp://ftp.example.org/pub/", "a directory listing as JSON lines"},
		{"urlget --url @urls.txt --output-dir dl", "every URL of a list, each into its own file"},
		{"urlget --limit-rate 100k -O https://example.org/big.iso", "at most 100 KiB a second"},
	} {
		p(".TP")
		p(`\fB%s\fR`, roff(ex[0]))
		p("%s", roff(ex[1]))
	}
	p(".SH SEE ALSO")
	p(".BR curl (1),")
	p(".BR wget (1)")
}

// longOpts returns the completion words of the flags: --name, and -x.
func longOpts(fs *pflag.FlagSet) (longs, shorts []string) {
	for _, f := range visibleFlags(fs) {
		longs = append(longs, "--"+f.Name)
		if f.Shorthand != "" {
			shorts = append(shorts, "-"+f.Shorthand)
		}
	}
	return longs, shorts
}

// fileValue reports whether a flag's value is a file or directory name,
// which the shells complete from the file system.
func fileValue(f *pflag.Flag) bool {
	v, _ := flagValue(f)
	return slices.Contains([]string{"file", "dir"}, v)
}

func writeBash(w io.Writer, fs *pflag.FlagSet) {
	longs, shorts := longOpts(fs)
	var files, values []string
	for _, f := range visibleFlags(fs) {
		if f.NoOptDefVal != "" {
			continue
		}
		names := []string{"--" + f.Name}
		if f.Shorthand != "" {
			names = append(names, "-"+f.Shorthand)
		}
		if fileValue(f) {
			files = append(files, names...)
		} else {
			values = append(values, names...)
		}
	}
	fmt.Fprintf(w, `# bash completion for urlget. Made by "urlget __generate bash"; do not edit.
_urlget() {
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	case $prev in
	%s)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	%s)
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '%s' -- "$cur"))
		return
	fi
	if [[ $COMP_CWORD == 1 ]]; then
		COMPREPLY=($(compgen -W 'parse resolve normalize equal' -- "$cur"))
	fi
}
complete -o default -F _urlget urlget
`, strings.Join(files, "|"), strings.Join(values, "|"), strings.Join(append(longs, shorts...), " "))
}

// shellQuote quotes s for the single quotes of a shell word.
func shellQuote(s string) string { return strings.ReplaceAll(s, "'", `'\''`) }

func writeZsh(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintln(w, "#compdef urlget")
	fmt.Fprintln(w, `# zsh completion for urlget. Made by "urlget __generate zsh"; do not edit.`)
	fmt.Fprintln(w, "_arguments -s -S \\")
	for _, f := range visibleFlags(fs) {
		value, usage := flagValue(f)
		// In _arguments, ] ends a description and % starts a prompt
		// escape; : separates a value's message from its action.
		desc := strings.NewReplacer("[", `\[`, "]", `\]`, "%", "%%").Replace(usage)
		action := ""
		if f.NoOptDefVal == "" {
			act := " "
			if fileValue(f) {
				act = "_files"
			}
			action = ":" + strings.ReplaceAll(value, ":", `\:`) + ":" + act
		}
		long, short := "--"+f.Name, ""
		if f.NoOptDefVal == "" {
			long += "="
		}
		if f.Shorthand != "" {
			short = "-" + f.Shorthand
			if f.NoOptDefVal == "" {
				short += "+"
			}
			fmt.Fprintf(w, "\t{%s,%s}'[%s]%s' \\\n", short, long, shellQuote(desc), shellQuote(action))
			continue
		}
		fmt.Fprintf(w, "\t'%s[%s]%s' \\\n", long, shellQuote(desc), shellQuote(action))
	}
	fmt.Fprintln(w, "\t'*:URL:_urls'")
}

func writeFish(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintln(w, `# fish completion for urlget. Made by "urlget __generate fish"; do not edit.`)
	fmt.Fprintln(w, `complete -c urlget -n '__fish_use_subcommand' -a 'parse resolve normalize equal' -d 'URL toolkit'`)
	for _, f := range visibleFlags(fs) {
		_, usage := flagValue(f)
		line := "complete -c urlget -l " + f.Name
		if f.Shorthand != "" {
			line += " -s " + f.Shorthand
		}
		if f.NoOptDefVal == "" {
			if fileValue(f) {
				line += " -r -F"
			} else {
				line += " -x"
			}
		}
		line += " -d '" + strings.ReplaceAll(strings.ReplaceAll(usage, `\`, `\\`), "'", `\'`) + "'"
		fmt.Fprintln(w, line)
	}
}
