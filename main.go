// Command urlget retrieves whatever an RFC 1738 URL names — ftp, http(s),
// gopher, news, nntp, wais, file — and writes it to standard output. Its flags
// follow curl's names and meanings; `urlget parse|resolve|normalize|equal`
// expose the URL toolkit. The command is package internal/cli.
package main

// The man page and the shell completions are made from the flags.
//go:generate go run ./internal/cli/gendoc

import (
	"os"

	"github.com/urlget/urlget/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
