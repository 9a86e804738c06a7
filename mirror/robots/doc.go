// Package robots reads robots.txt files (RFC 9309) and answers whether a
// crawler may fetch a URL by them. It stands on package uri and the
// standard library alone, so that any crawler can use it, not only
// urlget's recursion (package mirror).
//
// A crawler asks Locate where the robots.txt governing a URL is and which
// of the URL's paths its rules are matched against, fetches that file
// once per server, and turns what the fetch gave into Rules (RFC 9309
// §2.3.1):
//
//   - a successful answer (2xx): Parse of its body, at most MaxSize bytes
//     of it (§2.5);
//   - unavailable, a 4xx status (§2.3.1.3), or more redirects than the
//     fetcher follows (§2.3.1.2): FromStatus gives no rules, everything
//     allowed;
//   - unreachable, a 5xx status, a network error or no answer at all
//     (§2.3.1.4): FromStatus gives everything disallowed. 429 (Too Many
//     Requests) is read as a server error: the server asks for less, not
//     for everything.
//
// Rules.Allowed then answers for each path: the longest matching pattern
// decides, an allow rule winning a tie (§2.2.2), with '*' and a final '$'
// as §2.2.3 has them, every path and pattern compared in one %-encoding.
//
// Gopher has no robots.txt of its own; as gopher crawlers do, the file is
// the document 0/robots.txt on the server (gopher://host:port/0/robots.txt),
// and the paths matched are selectors. A not-found error menu counts as
// unavailable, a failed connection as unreachable.
package robots
