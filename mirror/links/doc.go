// Package links finds the links of HTML pages and rewrites them, and
// those of gopher menus, to point at a local copy of the documents they
// name, as wget's --convert-links does. It stands on package uri,
// x/net/html's tokenizer and the standard library alone, so that any
// crawler or archiver can use it, not only urlget's recursion (package
// mirror).
//
// FromHTML calls a function with every link a crawler follows in a page
// (a[href], img[src] and srcset, link, script, frame and iframe, source),
// each resolved against the page's URL or its <base href> by RFC 3986 §5.
// IsHTML tells, from a Content-Type or a file name, whether a body is a
// page to read links from.
//
// ConvertHTML copies a page with the links whose targets have a local
// copy made relative to it, and every other relative link made absolute,
// so that the copy works from the disk; ConvertGophermap does the same
// for a gopher menu (RFC 1436 §3.8), in the form a gopher server serving
// the local tree (gophernicus) reads as a gophermap. Both ask the caller,
// link by link, where the target's local copy is: the package knows no
// tree layout.
//
// Pages of any size are streamed, never held whole: a page costs the
// memory of its longest token, bounded at about 1 MiB, and every byte the
// conversions do not change is copied as it came, so that a page with no
// link to convert comes out byte for byte as it went in.
package links
