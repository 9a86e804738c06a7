package mirror

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/mirror/links"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// ErrConflict is the cause given when two URLs of one run map to the same
// local name and their bodies differ: the first is kept under the name,
// the second under ConflictDir, and the run fails naming both.
var ErrConflict = errors.New("two URLs of this run map to one local name and sent different bytes")

// maxTwins bounds the twins of one run: each is fetched and held in a
// temporary file until the run's transfers are over, and a hostile
// server could spell one name many ways. Past it, a URL whose name was
// taken is a collision, reported and not fetched.
var maxTwins = 1000

// ConflictDir is where, below the output directory, the copy of a URL
// that lost its local name to another URL with other content is kept:
// ConflictDir/N/PATH, N counting the conflicts of the run.
const ConflictDir = ".urlget/conflicts"

// A twin is a URL whose local name another URL of the run claimed first.
// Two spellings can name one resource without the strings saying so
// (gophernicus serves the selectors "" and "/" as one menu), so the twin
// is fetched into a temporary file, and once the run's transfers are
// over its bytes are compared with what the first left under the name:
// the same, and it was one resource, saved once; different, and it is a
// conflict in which neither copy is lost.
type twin struct {
	rel    string // the local name both map to
	url    string // the twin's URL, password masked
	owner  string // the first URL's, password masked
	tmp    string // the twin's bytes
	menu   bool   // a gopher menu, whose links are converted with its twin's
	commit time.Time
}

// claimFor records rel as the local name of u, a URL of this run, and
// writes down which URL took it, so that a second URL mapping to it can
// be compared and named; false when another URL has it already. The
// names claimed are also what --delete keeps (sweep). The owners are
// kept in a temporary file, read back only when a name is claimed
// twice, so that the run's memory does not grow with the tree.
func (e *engine) claimFor(rel string, u uri.URL) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.saved.add(rel) {
		return false
	}
	if e.owners == nil {
		f, err := os.CreateTemp("", "urlget-names-")
		if err != nil {
			return true
		}
		os.Remove(f.Name())
		e.owners, e.ownersW = f, bufio.NewWriterSize(f, 32<<10)
	}
	// Only the name and the URL: the key sameResource compares is worked
	// out when a second URL wants the name, which few ever do.
	b := strconv.AppendQuote(e.ownersBuf[:0], rel)
	b = append(b, '\t')
	b = strconv.AppendQuote(b, u.Redacted())
	e.ownersBuf = append(b, '\n')
	e.ownersW.Write(e.ownersBuf)
	return true
}

// owner returns the visit key and the masked URL of the URL that claimed
// rel first; "" when not known.
func (e *engine) owner(rel string) (key, masked string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.owners == nil || e.ownersW.Flush() != nil {
		return "", ""
	}
	if _, err := e.owners.Seek(0, io.SeekStart); err != nil {
		return "", ""
	}
	defer e.owners.Seek(0, io.SeekEnd)
	want := strconv.Quote(rel) + "\t"
	sc := bufio.NewScanner(e.owners)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), want)
		if !ok {
			continue
		}
		m, err := strconv.Unquote(line)
		if err != nil {
			return "", ""
		}
		return maskedKey(m), m
	}
	return "", ""
}

// sameResource reports whether u is provably the URL that claimed rel:
// the same once normalized, as when a redirect to u was saved under
// u's name before u's own turn came.
func (e *engine) sameResource(rel string, u uri.URL) (owner string, same bool) {
	k, m := e.owner(rel)
	return m, k != "" && k == maskedKey(u.Redacted())
}

// maskedKey is the visit key of a URL given as masked (its password
// hidden): both sides of a comparison are taken masked, so that the
// names' record on disk holds no password.
func maskedKey(masked string) string {
	u, err := uri.Parse(masked)
	if err != nil {
		return ""
	}
	return visitKey(u.WithoutFragment())
}

// mayTwin reports whether another twin may be fetched (maxTwins), and
// counts it.
func (e *engine) mayTwin() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.twinCount >= maxTwins {
		return false
	}
	e.twinCount++
	return true
}

// collided fails u, whose local name rel the URL owner took first.
func (e *engine) collided(u uri.URL, rel, owner string) {
	masked := u.Redacted()
	e.fail(masked, rel, &schemes.Error{Kind: schemes.ErrWrite, URL: masked, Op: "saving " + rel, Err: fmt.Errorf("%w: %s", ErrCollided, owner)})
}

// twinFile makes the temporary file a twin's bytes go to.
func twinFile() (*os.File, error) {
	return os.CreateTemp("", "urlget-twin-")
}

// addTwin records a twin fetched whole into tmp.
func (e *engine) addTwin(t twin) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.twins = append(e.twins, t)
}

// settleTwins compares every twin with what its name holds, once the
// run's transfers are over, and reports it: one resource, a conflict, or
// (when the first URL left nothing there) the name's only copy.
func (e *engine) settleTwins() {
	e.mu.Lock()
	twins := e.twins
	e.twins = nil
	e.mu.Unlock()
	for _, t := range twins {
		e.settle(t)
		os.Remove(t.tmp)
	}
}

func (e *engine) settle(t twin) {
	fi, err := e.store.Stat(t.rel)
	if err != nil || !fi.Mode().IsRegular() {
		// The first URL failed or left nothing: the twin's copy is the
		// name's, and nothing is lost.
		n, err := e.copyIn(t.tmp, t.rel, t.commit)
		if err != nil {
			e.fail(t.url, t.rel, &schemes.Error{Kind: schemes.ErrWrite, URL: t.url, Op: "writing " + t.rel, Err: err})
			return
		}
		if t.menu {
			if u, err := uri.Parse(t.url); err == nil {
				e.notePage('g', t.rel, u)
			}
		}
		e.report(Report{URL: t.url, Path: t.rel, Size: n, Status: Fetched})
		return
	}
	same, err := sameBytes(e, t.rel, t.tmp)
	if err != nil {
		e.fail(t.url, t.rel, &schemes.Error{Kind: schemes.ErrWrite, URL: t.url, Op: "comparing " + t.rel, Err: err})
		return
	}
	if same {
		e.report(Report{URL: t.url, Path: t.rel, Status: Skipped, Reason: "the same resource as " + t.owner + ", saved once"})
		return
	}
	e.mu.Lock()
	e.conflicts++
	n := e.conflicts
	e.mu.Unlock()
	keep := path.Join(ConflictDir, strconv.Itoa(n), t.rel)
	if _, err := e.copyIn(t.tmp, keep, t.commit); err != nil {
		keep = ""
	}
	cause := fmt.Errorf("%w: %s is kept under %s, %s under %s", ErrConflict, t.owner, t.rel, t.url, keep)
	if keep == "" {
		cause = fmt.Errorf("%w: %s is kept under %s; %s could not be kept", ErrConflict, t.owner, t.rel, t.url)
	}
	e.fail(t.url, keep, &schemes.Error{Kind: schemes.ErrWrite, URL: t.url, Op: "saving " + t.rel, Err: cause})
}

// copyIn commits the bytes of the temporary file tmp under rel.
func (e *engine) copyIn(tmp, rel string, mod time.Time) (int64, error) {
	src, err := os.Open(tmp)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	f, err := e.store.Create(rel)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f.File, src)
	if err == nil {
		err = f.Commit(mod)
	}
	if err != nil {
		f.Abort(false)
	}
	return n, err
}

// sameBytes reports whether the local file rel holds what tmp does.
func sameBytes(e *engine, rel, tmp string) (bool, error) {
	a, err := e.store.Open(rel)
	if err != nil {
		return false, err
	}
	defer a.Close()
	b, err := os.Open(tmp)
	if err != nil {
		return false, err
	}
	defer b.Close()
	ra, rb := bufio.NewReaderSize(a, 32<<10), bufio.NewReaderSize(b, 32<<10)
	bufA, bufB := make([]byte, 32<<10), make([]byte, 32<<10)
	for {
		na, ea := io.ReadFull(ra, bufA)
		nb, eb := io.ReadFull(rb, bufB)
		if na != nb || !bytes.Equal(bufA[:na], bufB[:nb]) {
			return false, nil
		}
		aEnd := ea == io.EOF || ea == io.ErrUnexpectedEOF
		bEnd := eb == io.EOF || eb == io.ErrUnexpectedEOF
		switch {
		case ea != nil && !aEnd:
			return false, ea
		case eb != nil && !bEnd:
			return false, eb
		case aEnd || bEnd:
			return aEnd == bEnd, nil
		}
	}
}

// saveTwin writes a twin's body to a temporary file, to be settled once
// the run's transfers are over. An HTML page's links are followed as the
// first's are: when its bytes differ, what it links to is not lost
// either.
func (e *engine) saveTwin(ctx context.Context, u uri.URL, rel string, it item, res *schemes.Resource) {
	masked := u.Redacted()
	tmp, err := twinFile()
	if err != nil {
		e.fail(masked, rel, &schemes.Error{Kind: schemes.ErrWrite, URL: masked, Op: "saving " + rel, Err: err})
		return
	}
	_, err = io.Copy(tmp, res.Body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		e.fail(masked, rel, err)
		return
	}
	mod := it.mod
	if mod.IsZero() {
		mod = res.ModTime
	}
	_, owner := e.owner(rel)
	e.addTwin(twin{rel: rel, url: masked, owner: owner, tmp: tmp.Name(), commit: mod})
	if links.IsHTML(res.ContentType, rel) && (e.o.Level < 0 || it.depth < e.o.Level) {
		if f, err := os.Open(tmp.Name()); err == nil {
			e.linksFrom(ctx, it, u, rel, f)
			f.Close()
		}
	}
}
