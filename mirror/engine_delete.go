package mirror

import (
	"io"
	"path"

	"github.com/urlget/urlget/uri"
)

// sweep removes, below the local directory of each http(s) start URL, the
// files this run neither saved nor found unchanged (--delete). HTML pages
// are not listings: a page names some of its directory's files, and others
// come through other pages, so only the whole run tells what the server
// still has. It runs only after a run in which nothing failed: a page that
// could not be fetched would otherwise take the files below it along.
func (e *engine) sweep(start []uri.URL) {
	for _, u := range start {
		if s := u.Scheme(); s != "http" && s != "https" {
			continue
		}
		dir, err := e.o.Layout.Dir(u)
		if err != nil {
			continue
		}
		if _, err := e.sweepDir(dir); err != nil {
			e.fail(u.Redacted(), dir, err)
		}
	}
}

// sweepDir sweeps one directory and reports whether anything is left in it.
func (e *engine) sweepDir(dir string) (bool, error) {
	d, err := e.store.Open(dir)
	if err != nil {
		return true, nil
	}
	var subdirs []string
	for {
		ents, err := d.ReadDir(pruneBatch)
		for _, ent := range ents {
			if ent.IsDir() && !(dir == "." && ent.Name() == StateDir) {
				subdirs = append(subdirs, ent.Name())
			}
		}
		if err == io.EOF || err != nil {
			break
		}
	}
	d.Close()
	full := map[string]bool{}
	for _, s := range subdirs {
		left, err := e.sweepDir(path.Join(dir, s))
		if err != nil {
			return true, err
		}
		full[s] = left
	}
	kept := false
	removed, err := e.store.Prune(dir, func(name string) bool {
		p := path.Join(dir, name)
		e.mu.Lock()
		ok := e.saved.has(p)
		e.mu.Unlock()
		if left, isDir := full[name]; isDir {
			ok = left
		}
		kept = kept || ok
		return ok
	})
	for _, p := range removed {
		e.report(Report{Path: p, Status: Deleted})
	}
	return kept, err
}
