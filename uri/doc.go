// Package uri parses, resolves, normalizes and compares URLs and URNs: RFC 3986
// generic syntax, the RFC 1738 scheme views (ftp, gopher, news, nntp, wais, file,
// telnet, mailto, prospero) and RFC 8141 URNs.
// It is the one parser every part of urlget shares, so that no fetcher re-parses
// a URL string: a URL is a small value holding the text as written, with decoded
// views given on demand.
//
// # What Parse accepts
//
// Parse and ParseReference follow the ABNF of RFC 3986 appendix A exactly. They
// reject, with an *Error naming the problem and its 1-based column: spaces,
// control bytes (TAB, CR, LF, NUL and the rest of 0x00–0x1F and 0x7F), every
// byte ≥ 0x80, any character outside the RFC 3986 repertoire (such as `<`, `>`,
// `"`, `{`, `}`, `|`, `\`, `^` and the backquote), a `%` not followed by two hex
// digits, a port that is not all digits or exceeds 65535, an unbalanced `[` or
// `]`, a malformed IPv6 or IPvFuture literal, an IPv6 zone identifier, a second
// `@` in the authority, a second `#`, and a scheme that does not start with a
// letter.
//
// # Non-ASCII text (IRIs)
//
// Parse accepts no byte ≥ 0x80: a URL is ASCII (RFC 3986 §2). Text a person
// typed goes through FromText first, which maps an IRI to a URI the way RFC 3987
// §3.1 describes: every byte of valid UTF-8 ≥ 0x80 is %-encoded. FromText
// refuses invalid UTF-8.
//
// # International host names
//
// A host name with non-ASCII characters, typed as such or %-encoded as UTF-8
// (RFC 3986 §3.2.2), is kept as written; Hostname decodes it. It is looked up
// by its A-labels (xn--…, RFC 5891 §5): HostASCII and URL.HostASCII convert it
// with IDNA (UTS #46 non-transitional processing, as curl does with libidn2),
// and URL.ASCII returns the URL with that host, the form fetchers put on the
// wire. An ASCII host is never changed.
//
// # Undefined and empty
//
// Every optional component keeps undefined apart from empty (RFC 1738 §3.1,
// RFC 3986 §5.3): "ftp://@host/" has an empty user, "ftp://host/" has none,
// "http://h:/" has an empty port, "http://h/?" an empty query.
//
// # Deliberate differences from net/url
//
// On inputs both accept, the scheme, userinfo, host, port, path, query and
// fragment agree with net/url's Scheme, User, Host, Port, RawPath/EscapedPath,
// RawQuery and EscapedFragment, except that:
//
//   - net/url accepts many inputs that RFC 3986 forbids (the characters listed
//     above, non-ASCII bytes, a second '@', a second '#', zone identifiers); this
//     package rejects them.
//   - net/url lower-cases the scheme in place; Scheme here also returns it in
//     lower case, but String keeps the case as written.
//   - net/url accepts a port it cannot use ("h:99999"); here a port above
//     65535 is a parse error.
//   - net/url decodes the path eagerly into Path; here Path is always the text
//     as written and decoding happens in the scheme views.
//   - net/url reads a relative reference starting with "///" as a path;
//     RFC 3986 §4.2 (and this package) as an empty authority and a path.
//   - net/url splits "scheme:opaque" into Opaque; here the opaque part of a
//     non-hierarchical URL (news:, mailto:, urn:) is its Path, as RFC 3986 §3.3
//     defines it.
//
// # Scheme views
//
// The views decode exactly what RFC 1738 §3 defines for each scheme. Where RFC
// 1738's BNF lets '?' appear unescaped inside a path segment (ftp fsegment,
// gopher selector, file and prospero segments), the view joins the RFC 3986
// query back onto the path, so "gopher://h/1a?b" has the selector "a?b".
package uri
