package schemes

import (
	"mime"
	"strings"
)

// commonTypes answers TypeByExtension for the extensions most fetched
// without loading the system's MIME tables: mime.TypeByExtension reads and
// parses them (tens of kilobytes) on first use, which costs a short-lived
// process more than the fetch itself. The values are those the mime
// package gives.
var commonTypes = map[string]string{
	".txt":  "text/plain; charset=utf-8",
	".html": "text/html; charset=utf-8",
	".htm":  "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".csv":  "text/csv; charset=utf-8",
	".md":   "text/markdown; charset=utf-8",
	".xml":  "text/xml; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".json": "application/json",
	".pdf":  "application/pdf",
	".zip":  "application/zip",
	".gz":   "application/gzip",
	".tar":  "application/x-tar",
	".bin":  "application/octet-stream",
	".png":  "image/png",
	".gif":  "image/gif",
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".svg":  "image/svg+xml",
	".webp": "image/webp",
}

// TypeByExtension returns the MIME type for a file name extension such as
// ".txt", or "" when none is known: common extensions from a built-in
// table, others from the system's tables through mime.TypeByExtension, and
// no extension at all without consulting anything.
func TypeByExtension(ext string) string {
	if ext == "" || ext == "." {
		return ""
	}
	if t, ok := commonTypes[strings.ToLower(ext)]; ok {
		return t
	}
	return mime.TypeByExtension(ext)
}
