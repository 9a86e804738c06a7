package mirror

import (
	"bufio"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/urlget/urlget/mirror/links"
	"github.com/urlget/urlget/uri"
)

// convertAll rewrites the links of every page the run saved
// (--convert-links), once the whole tree is there: a link to a URL whose
// copy is in the tree becomes a relative path to it, any other an
// absolute URL, as wget does. A page keeps its modification time, so
// that --timestamping still compares it with the remote one.
func (e *engine) convertAll() {
	if _, err := e.pages.Seek(0, io.SeekStart); err != nil {
		return
	}
	sc := bufio.NewScanner(e.pages)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 3)
		if len(f) != 3 {
			continue
		}
		rel, err := strconv.Unquote(f[1])
		if err != nil {
			continue
		}
		base, err := uri.Parse(f[2])
		if err != nil {
			continue
		}
		if err := e.convert(f[0] == "g", rel, base); err != nil {
			e.fail(base.Redacted(), rel, err)
		}
	}
}

// convert rewrites one saved page, rel, whose URL is base.
func (e *engine) convert(menu bool, rel string, base uri.URL) error {
	in, err := e.store.Open(rel)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := e.store.Create(rel)
	if err != nil {
		return err
	}
	out.ReplaceOwn()
	local := func(ref uri.URL) (string, bool) {
		target, err := e.o.Layout.path(ref.WithoutFragment(), pageKind(ref))
		if err != nil {
			return "", false
		}
		if fi, err := e.store.Stat(target); err != nil || !fi.Mode().IsRegular() {
			return "", false
		}
		// A file path: ConvertHTML and ConvertGophermap encode it for
		// the link they write, each as its reader decodes. Encoded here
		// as well, a name with "%" or a space came out encoded twice.
		return relPath(rel, target), true
	}
	w := bufio.NewWriterSize(out.File, 32<<10)
	if menu {
		err = links.ConvertGophermap(bufio.NewReader(in), w, base, path.Dir(rel), local)
	} else {
		err = links.ConvertHTML(bufio.NewReader(in), w, base, local)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		out.Abort(false)
		return err
	}
	return out.Commit(fi.ModTime())
}
