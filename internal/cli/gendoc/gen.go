// Command gendoc makes the man page (docs/urlget.1) and the bash, zsh and
// fish completions (completions/) from the command's flags; `go generate`
// in the repository's root runs it (main.go). It reads README.md for the
// exit status table the man page repeats: at generate time, so that the
// program does not carry the README. TestGeneratedFilesUpToDate fails
// when the kept files differ from what it makes, so that they cannot
// drift from the flags.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/urlget/urlget/internal/cli"
)

// generators make the files, by kind; readme is README.md's text.
var generators = map[string]func(w io.Writer, flags []cli.Flag, readme string){
	"man":  writeMan,
	"bash": func(w io.Writer, flags []cli.Flag, _ string) { writeBash(w, flags) },
	"zsh":  func(w io.Writer, flags []cli.Flag, _ string) { writeZsh(w, flags) },
	"fish": func(w io.Writer, flags []cli.Flag, _ string) { writeFish(w, flags) },
}

// generatedFiles are the paths the generated files are kept at.
var generatedFiles = map[string]string{
	"man":  "docs/urlget.1",
	"bash": "completions/urlget.bash",
	"zsh":  "completions/_urlget",
	"fish": "completions/urlget.fish",
}

func main() {
	root := flag.String("root", ".", "the repository's root: where README.md is read and the files are written")
	flag.Parse()
	if err := generate(*root); err != nil {
		fmt.Fprintln(os.Stderr, "gendoc:", err)
		os.Exit(1)
	}
}

// generate writes every generated file under root.
func generate(root string) error {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		return err
	}
	if err := writeCurlSection(root); err != nil {
		return err
	}
	flags := cli.Flags()
	for kind, path := range generatedFiles {
		var b bytes.Buffer
		generators[kind](&b, flags, string(readme))
		if err := os.WriteFile(filepath.Join(root, path), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// curlSection is the file that holds the table of curl's options, and
// the lines its generated part starts and ends with.
const (
	curlSection      = "docs/usage.md"
	curlSectionStart = "<!-- The table below is made by go generate (internal/cli/gendoc) from the flags; do not edit it. -->"
	curlSectionEnd   = "<!-- End of the table of curl's options. -->"
)

// writeCurlSection writes the table of curl's options (cli.CurlTable)
// into curlSection, between its marker lines.
func writeCurlSection(root string) error {
	path := filepath.Join(root, curlSection)
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text := string(b)
	start := strings.Index(text, curlSectionStart)
	end := strings.Index(text, curlSectionEnd)
	if start < 0 || end < start {
		return fmt.Errorf("%s: the marker lines of the table of curl's options are missing", curlSection)
	}
	var t strings.Builder
	t.WriteString(curlSectionStart + "\n\n")
	writeCurlTable(&t, cli.CurlTable())
	t.WriteString("\n")
	text = text[:start] + t.String() + text[end:]
	return os.WriteFile(path, []byte(text), 0o644)
}

// writeCurlTable writes rows as a Markdown table.
func writeCurlTable(w io.Writer, rows []cli.CurlRow) {
	fmt.Fprintln(w, "| curl 7.88 | urlget |")
	fmt.Fprintln(w, "|---|---|")
	for _, r := range rows {
		status := "yes"
		switch {
		case r.Taken && r.Status != "":
			status = "yes; " + r.Status
		case !r.Taken:
			status = r.Status
		}
		fmt.Fprintf(w, "| `%s` | %s |\n", strings.ReplaceAll(r.Option, "|", "\\|"), strings.ReplaceAll(status, "|", "\\|"))
	}
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
func exitTable(readme string) [][2]string {
	_, rest, _ := strings.Cut(readme, "\n## Exit status\n")
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

func writeMan(w io.Writer, flags []cli.Flag, readme string) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p(`.\" Made by go generate (internal/cli/gendoc); do not edit.`)
	p(`.TH URLGET 1 "" "urlget %s" "User Commands"`, cli.Version)
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
	for _, c := range cli.Categories() {
		var in []cli.Flag
		for _, f := range flags {
			if f.Category == c.Name {
				in = append(in, f)
			}
		}
		if len(in) == 0 {
			continue
		}
		p(".SS %s", strings.ToUpper(c.Desc[:1])+c.Desc[1:])
		for _, f := range in {
			value, usage := f.Value, f.Usage
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
	for _, r := range exitTable(readme) {
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
		{"urlget --json-lines ftp://ftp.example.org/pub/", "a directory listing as JSON lines"},
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
func longOpts(flags []cli.Flag) (longs, shorts []string) {
	for _, f := range flags {
		longs = append(longs, "--"+f.Name)
		if f.Shorthand != "" {
			shorts = append(shorts, "-"+f.Shorthand)
		}
	}
	return longs, shorts
}

func writeBash(w io.Writer, flags []cli.Flag) {
	longs, shorts := longOpts(flags)
	var files, values []string
	for _, f := range flags {
		if f.Value == "" {
			continue
		}
		names := []string{"--" + f.Name}
		if f.Shorthand != "" {
			names = append(names, "-"+f.Shorthand)
		}
		if f.File {
			files = append(files, names...)
		} else {
			values = append(values, names...)
		}
	}
	fmt.Fprintf(w, `# bash completion for urlget. Made by go generate (internal/cli/gendoc); do not edit.
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

func writeZsh(w io.Writer, flags []cli.Flag) {
	fmt.Fprintln(w, "#compdef urlget")
	fmt.Fprintln(w, `# zsh completion for urlget. Made by go generate (internal/cli/gendoc); do not edit.`)
	fmt.Fprintln(w, "_arguments -s -S \\")
	for _, f := range flags {
		value, usage := f.Value, f.Usage
		// In _arguments, ] ends a description and % starts a prompt
		// escape; : separates a value's message from its action.
		desc := strings.NewReplacer("[", `\[`, "]", `\]`, "%", "%%").Replace(usage)
		action := ""
		if f.Value != "" {
			act := " "
			if f.File {
				act = "_files"
			}
			action = ":" + strings.ReplaceAll(value, ":", `\:`) + ":" + act
		}
		long, short := "--"+f.Name, ""
		if f.Value != "" {
			long += "="
		}
		if f.Shorthand != "" {
			short = "-" + f.Shorthand
			if f.Value != "" {
				short += "+"
			}
			fmt.Fprintf(w, "\t{%s,%s}'[%s]%s' \\\n", short, long, shellQuote(desc), shellQuote(action))
			continue
		}
		fmt.Fprintf(w, "\t'%s[%s]%s' \\\n", long, shellQuote(desc), shellQuote(action))
	}
	fmt.Fprintln(w, "\t'*:URL:_urls'")
}

func writeFish(w io.Writer, flags []cli.Flag) {
	fmt.Fprintln(w, `# fish completion for urlget. Made by go generate (internal/cli/gendoc); do not edit.`)
	fmt.Fprintln(w, `complete -c urlget -n '__fish_use_subcommand' -a 'parse resolve normalize equal' -d 'URL toolkit'`)
	for _, f := range flags {
		usage := f.Usage
		line := "complete -c urlget -l " + f.Name
		if f.Shorthand != "" {
			line += " -s " + f.Shorthand
		}
		if f.Value != "" {
			if f.File {
				line += " -r -F"
			} else {
				line += " -x"
			}
		}
		line += " -d '" + strings.ReplaceAll(strings.ReplaceAll(usage, `\`, `\\`), "'", `\'`) + "'"
		fmt.Fprintln(w, line)
	}
}
