package mirror

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/urlget/urlget/internal/outfile"
)

// dirCacheSize is how many directories a store keeps open at once. A
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
//
// Its outfile.Dir is what a part file is renamed into (outfile.Part),
// by the directory's descriptor, opened on first use.
type dirRoot struct {
	*outfile.Dir
	dir   string
	refs  int    // operations using it now; it is closed only at 0
	used  uint64 // the cache's clock at the last use, for eviction
	stale bool   // dropped from the cache while in use: closed at release
}

// close closes the directory and its descriptor.
func (d *dirRoot) close() { d.Dir.Close() }

// dirCache holds the open directories of a store.
type dirCache struct {
	mu    sync.Mutex
	dirs  map[string]*dirRoot
	clock uint64
	// made, when not nil, is told each directory acquire creates, for
	// the manifest: --delete removes only directories urlget made.
	made func(dir string)
}

// acquire returns dir's Root, opened through root; with create, the
// directories are made first when missing (openDir). The caller
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
	// The nearest directory above that is open already is where the
	// walk down starts: a file's directory is most often a sibling of
	// one the run has open, one component away.
	var base *dirRoot
	for a := path.Dir(dir); a != "." && a != "/" && base == nil; a = path.Dir(a) {
		if base = c.dirs[a]; base != nil {
			base.refs++
		}
	}
	c.mu.Unlock()

	from, rest, made := root, dir, c.made
	if base != nil {
		from, rest = base.Root, dir[len(base.dir)+1:]
		if c.made != nil {
			made = func(d string) { c.made(base.dir + "/" + d) }
		}
	}
	r, err := openDir(from, rest, create, made)
	if base != nil {
		c.release(base)
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
	d := &dirRoot{Dir: outfile.NewDir(r, root, dir), dir: dir, refs: 1, used: c.clock}
	c.dirs[dir] = d
	return d, nil
}

// errLinkInPath is openDir's refusal of a symbolic link where a directory
// of the path should be.
var errLinkInPath = errors.New("a symbolic link stands where a directory is needed")

// openDir opens dir below root one component at a time, making the
// missing ones when create is set, and refuses a component that is a
// symbolic link. os.Root follows a link that stays inside the root, so a
// listing that made "d" a link to "sub" (or to the user's own files
// beside the mirror, under -nH) would have "d/x" written into what the
// link leads to: the tree's directories are urlget's own, never a link's
// target. Each component is checked again once open (os.SameFile), so a
// link swapped in between the two looks is refused as well. made, when
// not nil, is told each directory openDir makes.
func openDir(root *os.Root, dir string, create bool, made func(dir string)) (*os.Root, error) {
	if dir == "." {
		return root.OpenRoot(".")
	}
	parent := root
	for i, name := range strings.Split(dir, "/") {
		fi, err := parent.Lstat(name)
		if err != nil && create && errors.Is(err, fs.ErrNotExist) {
			if err = parent.Mkdir(name, 0o755); err == nil {
				if made != nil {
					made(strings.Join(strings.Split(dir, "/")[:i+1], "/"))
				}
				fi, err = parent.Lstat(name)
			} else if errors.Is(err, fs.ErrExist) {
				fi, err = parent.Lstat(name)
			}
		}
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			err = &fs.PathError{Op: "open", Path: strings.Join(strings.Split(dir, "/")[:i+1], "/"), Err: errLinkInPath}
		}
		var next *os.Root
		if err == nil {
			next, err = parent.OpenRoot(name)
		}
		if err == nil {
			var opened os.FileInfo
			if opened, err = next.Stat("."); err == nil && !os.SameFile(fi, opened) {
				err = &fs.PathError{Op: "open", Path: dir, Err: errLinkInPath}
			}
			if err != nil {
				next.Close()
			}
		}
		if parent != root {
			parent.Close()
		}
		if err != nil {
			return nil, err
		}
		parent = next
	}
	return parent, nil
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
		old.close()
	}
}

func (c *dirCache) release(d *dirRoot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d.refs--
	if d.refs == 0 && d.stale {
		d.close()
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
				d.close()
			} else {
				d.stale = true
			}
		}
	}
}

// closeAll closes every directory; the store is closing.
func (c *dirCache) closeAll() {
	c.forget(".")
}

// splitRel returns rel's directory and name, for the cache.
func splitRel(rel string) (dir, name string) {
	return path.Dir(rel), path.Base(rel)
}
