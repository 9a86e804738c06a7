package mirror

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/urlget/urlget/internal/outfile"
)

// StateDir is the directory at the top of the output tree that holds
// urlget's own state: the files being written, under StateDir/parts, with
// what a later run needs to resume them, and the manifest of the files it
// wrote, with its journal. No remote name may land there (a URL whose
// local path would is skipped), and what is found there is read as hostile input: a
// record only ever names its own part file, and a link, a hard link or a
// file the record does not describe is removed, never written into.
const StateDir = ".urlget"

// partsSub is the subdirectory of StateDir the part files are in.
const partsSub = "parts"

// recordSuffix ends the name of a part file's record; tmpSuffix the name
// the record is written under before it is renamed to its own.
const (
	recordSuffix = ".rec"
	tmpSuffix    = ".tmp"
)

// recordMax bounds what is read of a record: its URL is the longest field.
const recordMax = 64 << 10

// ErrStateDir is what an error with urlget's state directory is
// (errors.Is): StateDir, or its parts directory, is a symbolic link or no
// directory. It ends a run, since no file can be written then.
var ErrStateDir = errors.New("the state directory " + StateDir + " is not a directory of urlget's")

// partName is the name, in StateDir/parts, of the part file of the local
// path rel: a hash, so that no remote name can choose it, and every path
// has one of the same short length.
func partName(rel string) string {
	h := sha256.Sum256([]byte(rel))
	return hex.EncodeToString(h[:16])
}

// partsDir is StateDir/parts, open as an os.Root of its own, the
// outfile.Dir the part files are made in.
type partsDir struct {
	mu  sync.Mutex
	d   *outfile.Dir
	err error
}

// open opens StateDir/parts below root once, making it when missing.
func (p *partsDir) open(root *os.Root) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.d != nil || p.err != nil {
		return p.err
	}
	state, err := openOwnDir(root, StateDir)
	if err != nil {
		p.err = err
		return err
	}
	defer state.Close()
	r, err := openOwnDir(state, partsSub)
	if err != nil {
		p.err = err
		return err
	}
	p.d = outfile.NewDir(r, root, StateDir+"/"+partsSub)
	return nil
}

// openOwnDir opens the directory name of parent, making it when missing,
// and refuses a symbolic link or anything but a directory there: os.Root
// would follow a link that stays inside the tree, and the state would be
// written into a directory of the user's. The directory opened is checked
// to be the one looked at, so that none swapped in meanwhile is used.
func openOwnDir(parent *os.Root, name string) (*os.Root, error) {
	if err := parent.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	fi, err := parent.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s is a %s; remove it", ErrStateDir, name, kindOf(fi))
	}
	r, err := parent.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	if got, err := r.Stat("."); err != nil || !os.SameFile(fi, got) {
		r.Close()
		return nil, fmt.Errorf("%w: %s changed while it was opened", ErrStateDir, name)
	}
	return r, nil
}

// kindOf names what a directory entry that should be a directory is.
func kindOf(fi fs.FileInfo) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "symbolic link"
	case fi.Mode().IsRegular():
		return "file"
	}
	return "special file"
}

func (p *partsDir) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.d != nil {
		p.d.Close()
		p.d = nil
	}
}

// create makes the part file name anew (outfile.CreatePart, O_EXCL),
// which refuses any entry that is there (a link of any kind included);
// one that is there is removed, with its record, and the create tried
// again once.
func (p *partsDir) create(name string) (*outfile.Part, error) {
	f, err := outfile.CreatePart(p.d, name, false)
	if errors.Is(err, fs.ErrExist) {
		p.remove(name)
		f, err = outfile.CreatePart(p.d, name, false)
	}
	return f, err
}

// remove removes the part file name and its record. What is there is
// removed as a name: a link's target stays as it was.
func (p *partsDir) remove(name string) {
	if err := p.d.Root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		// A directory planted under the name.
		p.d.Root.RemoveAll(name)
	}
	p.d.Root.Remove(name + recordSuffix)
}

// partial is what store.Partial found of a part file a run before kept.
type partial struct {
	Offset    int64  // the bytes there, where the transfer resumes
	Validator string // the server's strong validator when the part began
	id        partID
}

// partID is what identifies a part file urlget made: a file with a single
// link, on the device and inode recorded, of the size and modification
// time recorded when it was kept.
type partID struct {
	dev, ino uint64
	size     int64
	mtime    int64 // nanoseconds
}

// Partial returns what a run before left of rel's transfer from url,
// when it can be resumed: a part file urlget itself kept, as its record
// describes it, of this URL, with a validator to resume it on. Anything
// else is removed and the result is the zero partial: the file is fetched
// afresh.
func (s *store) Partial(rel, url string) partial {
	if err := s.parts.open(s.root); err != nil {
		return partial{}
	}
	name := partName(rel)
	pd := &s.parts
	rec, err := pd.d.Root.Open(name + recordSuffix)
	if err != nil {
		return partial{}
	}
	p, ok := readRecord(rec, rel, url)
	rec.Close()
	if ok {
		if fi, err := pd.d.Root.Lstat(name); err == nil {
			if id, isOwn := idOf(fi); isOwn && id == p.id {
				return p
			}
		}
	}
	pd.remove(name)
	return partial{}
}

// reopen opens the part file name for writing at p.Offset, when it is
// still the file p describes.
func (p *partsDir) reopen(name string, want partial) (*outfile.Part, error) {
	f, err := outfile.OpenPart(p.d, name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		if id, ok := idOf(fi); !ok || id != want.id {
			err = errors.New("the part file is not the one recorded")
		}
	}
	if err == nil {
		_, err = f.Seek(want.Offset, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// keep writes the record of f's part file, so that a later run can resume
// it: written under a temporary name with O_EXCL and renamed over the
// record's, so that nothing found there is written into.
func (p *partsDir) keep(f *storeFile) error {
	fi, err := f.File.Stat()
	if err != nil {
		return err
	}
	id, ok := idOf(fi)
	if !ok {
		return errors.New("the part file is not a file of its own")
	}
	tmp := f.part + tmpSuffix
	p.d.Root.Remove(tmp)
	w, err := p.d.Root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, formatRecord(f.rel, f.url, f.valid, id))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = p.d.Root.Rename(tmp, f.part+recordSuffix)
	}
	if err != nil {
		p.d.Root.Remove(tmp)
	}
	return err
}

// recordMagic opens every record, with its version.
const recordMagic = "urlget part 1"

// formatRecord is a part file's record: one field a line, the strings
// quoted (strconv.Quote), so that no name or URL can add a line.
func formatRecord(rel, url, validator string, id partID) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\npath %s\nurl %s\nvalidator %s\n", recordMagic, strconv.Quote(rel), strconv.Quote(url), strconv.Quote(validator))
	fmt.Fprintf(&b, "dev %d\nino %d\nsize %d\nmtime %d\n", id.dev, id.ino, id.size, id.mtime)
	return b.String()
}

// readRecord reads a record as hostile input: every field must be there
// once and well formed, and it must be of rel and url; a path it names is
// only compared, never opened.
func readRecord(r io.Reader, rel, url string) (partial, bool) {
	sc := bufio.NewScanner(io.LimitReader(r, recordMax))
	sc.Buffer(make([]byte, 0, 4096), recordMax)
	if !sc.Scan() || sc.Text() != recordMagic {
		return partial{}, false
	}
	fields := map[string]string{}
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if _, dup := fields[k]; !ok || dup {
			return partial{}, false
		}
		fields[k] = v
	}
	if sc.Err() != nil || len(fields) != 7 {
		return partial{}, false
	}
	var p partial
	str := func(k string) (string, bool) {
		s, err := strconv.Unquote(fields[k])
		return s, err == nil
	}
	num := func(k string) (int64, bool) {
		n, err := strconv.ParseInt(fields[k], 10, 64)
		return n, err == nil
	}
	gotRel, ok1 := str("path")
	gotURL, ok2 := str("url")
	val, ok3 := str("validator")
	dev, ok4 := num("dev")
	ino, ok5 := num("ino")
	size, ok6 := num("size")
	mtime, ok7 := num("mtime")
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || gotRel != rel || gotURL != url || val == "" || size <= 0 {
		return partial{}, false
	}
	p.Offset, p.Validator = size, val
	p.id = partID{dev: uint64(dev), ino: uint64(ino), size: size, mtime: mtime}
	return p, true
}

// refusedName returns why the local path rel is refused, or "" when it is
// not: a component named StateDir, at any level (--cut-dirs and -nH can
// bring a deep remote directory to the top), or one ending in partSuffix
// or linkSuffix, which are, or were, names of urlget's own files. A
// server that lists them is not trusted to mean its own files.
func refusedName(rel string) string {
	for c := range strings.SplitSeq(rel, "/") {
		switch {
		case c == StateDir:
			return "refused: " + StateDir + " is the name of urlget's state directory"
		case strings.HasSuffix(c, partSuffix), strings.HasSuffix(c, linkSuffix):
			return "refused: " + c + " is named like a file urlget writes"
		}
	}
	return ""
}
