package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"
)

// addWriteOutFlags records how -w (defined with the output flags in
// cli.go; output.go prints it) differs from curl's, for the table of
// curl's options.
func addWriteOutFlags(fs *pflag.FlagSet, o *options) {
	curlNote(fs, "write-out", "passwords masked in url, url_effective, redirect_url and referer; "+
		"control characters of a server's text shown as '?' (%-encoded in redirect_url) and escaped as JSON escapes them in %{json} and %{header_json}, "+
		"whose fields between two of one name are kept; errormsg in urlget's words; curl_version names urlget; certs holds the certificates' PEM without OpenSSL's description of each")
}

// loadWriteOut reads -w's format from a file when it is given as @FILE
// (@- for standard input), as curl does: each line without its CR and
// LF, the lines joined. A file that cannot be read leaves no format, with
// a warning (not with -s), as curl goes on without one.
func (c *command) loadWriteOut() {
	name, ok := strings.CutPrefix(c.opts.writeOut, "@")
	if !ok {
		return
	}
	var r io.Reader
	if name == "-" {
		if c.stdin == nil {
			c.opts.writeOut = ""
			return
		}
		r = c.stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			c.opts.writeOut = ""
			if !c.opts.silent {
				fmt.Fprintf(c.stderr, "urlget: warning: failed to read the -w format: %v\n", err)
			}
			return
		}
		defer f.Close()
		r = f
	}
	var b strings.Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		b.WriteString(strings.TrimRight(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil && !c.opts.silent {
		fmt.Fprintf(c.stderr, "urlget: warning: failed to read the -w format: %v\n", err)
	}
	c.opts.writeOut = b.String()
}

// writeOutTimed reports whether the -w format reports times or speeds
// (%{time_…}, %{speed_…}, %{json}), which a transfer started ahead of its
// turn would make longer than the transfer's own.
func writeOutTimed(format string) bool {
	f := strings.ToLower(format)
	return strings.Contains(f, "time_") || strings.Contains(f, "speed_") || strings.Contains(f, "json")
}
