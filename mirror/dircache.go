package mirror

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
)

// dirCacheSize is how many directories a Store keeps open at once. A
// recursion writes the files of a few directories at a time (those of the
// listings its transfers came from), so a few dozen cover the working set
// of any tree, at one descriptor each.
const dirCacheSize = 64

// dirRoot is one directory of the tree, open as an os.Root of its own.
//
// os.Root resolves a path one component at a time, each with its own
// openat, so that no component can be a link that leads out of the tree:
// a file four directories deep costs some twenty system calls for the
// handful of operations that write it (about 24 openat and close pairs
// counted for each file of a benchmark tree). Opened once, a directory's
// own Root (os.Root.OpenRoot, confined to it, and so still inside the
// tree) reaches its files in one step each.
type dirRoot struct {
	r     *os.Root
	dir   string
	refs  int    // operations using r now; it is closed only at 0
	used  uint64 // the cache's clock at the last use, for eviction
	stale bool   // dropped from the cache while in use: closed at release
}

// dirCache holds the open directories of a Store.
type dirCache struct {
	mu    sync.Mutex
	dirs  map[string]*dirRoot
	clock uint64
	// made, when not nil, is told each directory acquire creates, for
	// the manifest: --delete removes only directories urlget made.
	made func(dir string)
}

// acquire returns dir's Root, opened through root; with create, the
// directories are made first when missing (os.Root.MkdirAll). The caller
// calls release when done with it.
func (c *dirCache) acquire(root *os.Root, dir string, create bool) (*dirRoot, error) {
	c.mu.Lock()
	c.clock++
	if d := c.dirs[dir]; d != nil {
		d.refs++
		d.used = c.clock
		c.mu.Unlock()
		return d, nil
	}
	c.mu.Unlock()

	r, err := root.OpenRoot(dir)
	if err != nil && create && errors.Is(err, fs.ErrNotExist) {
		var missing []string
		if c.made != nil {
			for d := dir; d != "." && d != "/" && d != ""; d = path.Dir(d) {
				if _, lerr := root.Lstat(d); lerr == nil {
					break
				}
				missing = append(missing, d)
			}
		}
		if err = root.MkdirAll(dir, 0o755); err == nil {
			for _, d := range missing {
				c.made(d)
			}
			r, err = root.OpenRoot(dir)
		}
	}
	if err != nil {
		return nil, err
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.dirs[dir]; d != nil {
		// Another goroutine opened it meanwhile: use that one.
		r.Close()
		d.refs++
		d.used = c.clock
		return d, nil
	}
	if c.dirs == nil {
		c.dirs = map[string]*dirRoot{}
	}
	if len(c.dirs) >= dirCacheSize {
		c.evict()
	}
	d := &dirRoot{r: r, dir: dir, refs: 1, used: c.clock}
	c.dirs[dir] = d
	return d, nil
}

// evict closes the least recently used directory that nothing uses.
// c.mu is held.
func (c *dirCache) evict() {
	var old *dirRoot
	for _, d := range c.dirs {
		if d.refs == 0 && (old == nil || d.used < old.used) {
			old = d
		}
	}
	if old != nil {
		delete(c.dirs, old.dir)
		old.r.Close()
	}
}

func (c *dirCache) release(d *dirRoot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d.refs--
	if d.refs == 0 && d.stale {
		d.r.Close()
	}
}

// forget drops dir and every directory below it, which are being removed:
// a Root left open on a removed directory would write where no one looks.
func (c *dirCache) forget(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, d := range c.dirs {
		if k == dir || strings.HasPrefix(k, dir+"/") || dir == "." {
			delete(c.dirs, k)
			if d.refs == 0 {
				d.r.Close()
			} else {
				d.stale = true
			}
		}
	}
}

// closeAll closes every directory; the Store is closing.
func (c *dirCache) closeAll() {
	c.forget(".")
}

// splitRel returns rel's directory and name, for the cache.
func splitRel(rel string) (dir, name string) {
	return path.Dir(rel), path.Base(rel)
}
