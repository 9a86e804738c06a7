// Package samples starts urlget's in-process test servers with sample
// content on loopback. The devservers command prints their URLs for trying
// things by hand, and the command-level script tests fetch from them.
package samples

// Sample is one running server and the URLs worth fetching from it.
type Sample struct {
	Name  string   // the protocol: "ftp", "gopher", …
	Base  string   // the server's base URL ("gopher://127.0.0.1:7070"), or a directory for file:
	Addr  string   // host:port, "" for file:
	URLs  []string // URLs to try; lines starting with "#" are notes
	Close func()   // stops the server
}

// Starter starts one protocol's server with its files under dir.
type Starter struct {
	Name  string
	Start func(dir string) (*Sample, error)
}

// All lists every protocol's sample server, in the order their URLs print.
var All = []Starter{
	{"file", File},
	{"http", HTTP},
	{"ftp", FTP},
	{"gopher", Gopher},
	{"news", News},
	{"wais", WAIS},
}
