package uri

// SchemeInfo is what urlget knows of a scheme apart from any URL of it:
// the one table of families, TLS twins and default ports, which the
// parser, the fetchers and the recursion all read.
type SchemeInfo struct {
	// Family is the protocol the scheme speaks, over TLS or not: "http"
	// for http and https, "ftp" for ftp and ftps, "gopher" for gopher and
	// gophers, "news" for news, snews, nntp and nntps (RFC 5538 §2), and
	// the scheme itself for the rest.
	Family string

	// TLS tells that the scheme speaks TLS from the first byte.
	TLS bool

	// Twin is the scheme of the same family and structure with TLS where
	// this one has none, or without it where it has: http and https,
	// ftp and ftps (RFC 4217), gopher and gophers, news and snews, nntp
	// and nntps (RFC 5538 §2.2, RFC 4642). "" when there is none.
	Twin string

	// Port is the port a URL that names none means (RFC 1738 §3, and
	// the RFCs of the TLS forms), "" when the scheme names no server.
	Port string
}

// schemeTable holds every scheme SchemeOf knows, in lower case.
var schemeTable = map[string]SchemeInfo{
	"http":  {Family: "http", Twin: "https", Port: "80"},
	"https": {Family: "http", TLS: true, Twin: "http", Port: "443"},
	"ftp":   {Family: "ftp", Twin: "ftps", Port: "21"},
	// RFC 4217 §8: implicit FTP over TLS listens on its own port.
	"ftps":   {Family: "ftp", TLS: true, Twin: "ftp", Port: "990"},
	"gopher": {Family: "gopher", Twin: "gophers", Port: "70"},
	// gophers has no port of its own; curl and the servers that speak it
	// keep gopher's.
	"gophers":  {Family: "gopher", TLS: true, Twin: "gopher", Port: "70"},
	"news":     {Family: "news", Twin: "snews", Port: "119"},
	"snews":    {Family: "news", TLS: true, Twin: "news", Port: "563"},
	"nntp":     {Family: "news", Twin: "nntps", Port: "119"},
	"nntps":    {Family: "news", TLS: true, Twin: "nntp", Port: "563"},
	"wais":     {Family: "wais", Port: "210"},
	"file":     {Family: "file"},
	"telnet":   {Family: "telnet", Port: "23"},
	"prospero": {Family: "prospero", Port: "1525"},
}

// SchemeOf returns what the scheme table says of scheme, matched without
// regard to case; ok is false for a scheme it does not hold, whose
// SchemeInfo has the scheme, in lower case, as its own family.
func SchemeOf(scheme string) (info SchemeInfo, ok bool) {
	s := lower(scheme)
	info, ok = schemeTable[s]
	if !ok {
		info.Family = s
	}
	return info, ok
}
