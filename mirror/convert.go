package mirror

import (
	"io"

	"github.com/urlget/urlget/uri"
)

// ConvertHTML copies the HTML document in to out with every link that
// local maps to a local file rewritten to the relative path it returns,
// and every other relative link made absolute against base, leaving all
// other bytes as they were (--convert-links). (Skeleton.)
func ConvertHTML(in io.Reader, out io.Writer, base uri.URL, local func(uri.URL) (rel string, ok bool)) error {
	_, err := io.Copy(out, in)
	return err
}

// ConvertGophermap does the same for a saved gopher menu: items local
// maps get a relative selector with the host and port left out, as a
// gophermap served from the tree has them. (Skeleton.)
func ConvertGophermap(in io.Reader, out io.Writer, local func(uri.URL) (rel string, ok bool)) error {
	_, err := io.Copy(out, in)
	return err
}
