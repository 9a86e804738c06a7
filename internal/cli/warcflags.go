package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/uri"
	"github.com/urlget/urlget/warc"
	"github.com/urlget/urlget/warc/warcsink"
)

// warcOptions are wget's WARC flags: the archive of what the run fetched,
// WARC 1.1 (ISO 28500:2017), written by the warc package through a
// fetch.Archive (warcsink.go).
type warcOptions struct {
	file            string // --warc-file NAME
	cdx             bool   // --warc-cdx
	dedup           string // --warc-dedup FILE.cdx
	maxSize         string // --warc-max-size, as given
	maxSizeN        int64
	noCompression   bool   // --no-warc-compression
	keepCredentials bool   // --warc-keep-credentials
	name            string // the archive's name as opened: file, or file-YYYYMMDDhhmmss when that is taken

	args []string // the operation's command line, for the warcinfo record
}

func init() {
	for name, cat := range map[string]string{
		"warc-file":             "output recursive",
		"warc-cdx":              "output recursive",
		"warc-dedup":            "output recursive",
		"warc-max-size":         "output recursive",
		"no-warc-compression":   "output recursive",
		"warc-keep-credentials": "output recursive auth",
	} {
		flagCategories[name] = cat
	}
}

// addWarcFlags defines the WARC flags, with wget's names.
func addWarcFlags(fs *pflag.FlagSet, o *options) {
	w := &o.warc
	fs.StringVar(&w.file, "warc-file", "", "also archive what is fetched, every scheme, in `NAME`.warc.gz (WARC 1.1); never over an existing file: NAME-YYYYMMDDhhmmss then")
	fs.BoolVar(&w.cdx, "warc-cdx", false, "with --warc-file, write its index as NAME.cdx (wget's) and NAME.cdxj (pywb's)")
	fs.StringVar(&w.dedup, "warc-dedup", "", "with --warc-file, write a revisit record for a payload the CDX index `file` holds")
	fs.StringVar(&w.maxSize, "warc-max-size", "", "with --warc-file, start a new file NAME-nnnnn.warc.gz past `size` (k, M, G)")
	fs.BoolVar(&w.noCompression, "no-warc-compression", false, "with --warc-file, write NAME.warc uncompressed")
	fs.BoolVar(&w.keepCredentials, "warc-keep-credentials", false, "with --warc-file, keep Authorization and Cookie values in request records (masked otherwise)")
}

// checkWarcFlags checks the WARC flags once parsed, the recursion flags
// before them: the archive is refused inside a recursive run's output
// tree, where a remote name could be the archive's and replace it.
func checkWarcFlags(fs *pflag.FlagSet, o *options, args []string) error {
	w := &o.warc
	if w.file == "" {
		for _, name := range []string{"warc-cdx", "warc-dedup", "warc-max-size", "no-warc-compression", "warc-keep-credentials"} {
			if fs.Changed(name) {
				return fmt.Errorf("--%s works with --warc-file", name)
			}
		}
		return nil
	}
	if strings.HasSuffix(w.file, "/") || filepath.Base(w.file) == "." || filepath.Base(w.file) == ".." {
		return fmt.Errorf("--warc-file takes a file name, not %q", w.file)
	}
	if w.maxSize != "" {
		n, err := parseSize(w.maxSize)
		if err != nil || n == 0 {
			return fmt.Errorf("--warc-max-size takes a size above 0, not %q", w.maxSize)
		}
		w.maxSizeN = n
	}
	w.args = args
	if !o.rec.recursive {
		return nil
	}
	return warcOutsideTree(w.file, o.outputDir, o.rec.noHostDirs)
}

// warcOutsideTree refuses an archive NAME whose files would lie in a
// recursive run's tree: dir itself with -nH, any directory below it (a
// host's) without.
func warcOutsideTree(name, dir string, noHostDirs bool) error {
	if dir == "" {
		dir = "."
	}
	root, err1 := filepath.Abs(dir)
	file, err2 := filepath.Abs(name)
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	// The tree's directories may be links: compare where they lead.
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	parent := filepath.Dir(file)
	if p, err := filepath.EvalSymlinks(parent); err == nil {
		parent = p
	}
	rel, err := filepath.Rel(root, parent)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	if rel == "." && !noHostDirs {
		// Beside the hosts' directories, not in one.
		return nil
	}
	return fmt.Errorf("--warc-file %s lies in the recursive run's output tree %s: name a file outside it", name, dir)
}

// secretFlags are the flags whose values hold a password or a token,
// masked in the warcinfo record: the password after the user's name, the
// whole of the others.
var secretFlags = map[string]bool{
	"user": true, "u": true, "proxy-user": true, "U": true,
	"oauth2-bearer": true, "pass": true, "ftp-account": true, "ftp-anon-pass": true,
	"header": true, "H": true, "cookie": true, "b": true,
}

// maskValue masks a secret flag's value: a user:password's password, an
// Authorization or Cookie header's value, anything else whole.
func maskValue(name, v string) string {
	switch name {
	case "user", "u", "proxy-user", "U":
		if u, _, ok := strings.Cut(v, ":"); ok {
			return u + ":****"
		}
		return v
	case "header", "H":
		k, _, ok := strings.Cut(v, ":")
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "authorization", "proxy-authorization", "cookie":
			if ok {
				return k + ": ****"
			}
		}
		return v
	case "cookie", "b":
		if !strings.Contains(v, "=") {
			return v // a file's name
		}
	}
	return "****"
}

// warcArguments returns the command line for the warcinfo record, its
// passwords masked: in URLs (uri.RedactText) and in the values of the
// flags that carry secrets.
func warcArguments(args []string) string {
	out := make([]string, 0, len(args))
	next := "" // a secret flag whose value is the next argument
	for _, a := range args {
		switch {
		case next != "":
			a = maskValue(next, a)
			next = ""
		case strings.HasPrefix(a, "--"):
			name, v, ok := strings.Cut(a[2:], "=")
			if secretFlags[name] {
				if ok {
					a = "--" + name + "=" + maskValue(name, v)
				} else {
					next = name
				}
			}
		case len(a) >= 2 && a[0] == '-' && secretFlags[a[len(a)-1:]] && !strings.ContainsAny(a, ":= "):
			// -u alone, or letters ending in one that takes a value
			// (-su): the value is the next argument.
			next = a[len(a)-1:]
		case len(a) > 2 && a[0] == '-' && a[1] != '-' && secretFlags[a[1:2]]:
			a = a[:2] + maskValue(a[1:2], a[2:])
		}
		out = append(out, uri.RedactText(a))
	}
	return strings.Join(out, " ")
}

// openWarc creates the archive and its indexes and reads --warc-dedup's
// index, for one operation; nil without --warc-file. Nothing is
// overwritten or appended to: when a file of NAME exists (an earlier
// run's archive, or one a killed run cut short), the run archives under
// NAME-YYYYMMDDhhmmss, its start in UTC (NAME-YYYYMMDDhhmmss-1, … if that
// is taken too), and says so on stderr unless -s; the name it took is
// w.name.
func openWarc(o *options, stderr io.Writer) (*warcsink.Sink, func() error, error) {
	w := &o.warc
	if w.file == "" {
		return nil, nil, nil
	}
	var sopt warcsink.Options
	if w.dedup != "" {
		f, err := os.Open(w.dedup)
		if err != nil {
			return nil, nil, fmt.Errorf("--warc-dedup: %w", err)
		}
		sopt.Dedup, err = warc.ReadCDX(f)
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("--warc-dedup %s: %w", w.dedup, err)
		}
	}
	opt := warc.Options{
		NoCompression: w.noCompression,
		MaxSize:       w.maxSizeN,
		Software:      "urlget/" + version,
		Info:          []warc.Field{{Name: "urlget-arguments", Value: warcArguments(w.args)}},
	}
	if o.rec.recursive {
		// wget's words for the policy the run followed.
		robots := "classic"
		if !o.rec.robots() {
			robots = "off"
		}
		opt.Info = append(opt.Info, warc.Field{Name: "robots", Value: robots})
	}
	stamp := warc.Timestamp(time.Now())
	var first error
	for i := 0; i <= maxWarcNames; i++ {
		name := w.file
		switch {
		case i == 1:
			name += "-" + stamp
		case i > 1:
			name += fmt.Sprintf("-%s-%d", stamp, i-1)
		}
		wr, closeAll, err := w.create(name, opt)
		if errors.Is(err, fs.ErrExist) {
			if first == nil {
				first = err
			}
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		w.name = name
		if i > 0 && !o.silent {
			var pe *fs.PathError
			errors.As(first, &pe)
			fmt.Fprintf(stderr, "Warning: --warc-file: %s exists, and an archive is never written over nor appended to: archiving to %s\n",
				pe.Path, warc.FileName(name, 0, !w.noCompression, w.maxSizeN))
		}
		return warcsink.New(wr, sopt), closeAll, nil
	}
	return nil, nil, first
}

// maxWarcNames bounds the names openWarc tries past NAME.
const maxWarcNames = 100

// create creates the archive name (and its indexes with --warc-cdx),
// all or none: a file of them that exists is an error for which
// errors.Is(err, fs.ErrExist) holds, in existErr's words, and leaves
// nothing created. The returned func closes them all, the archive
// before its indexes, which name its records.
func (w *warcOptions) create(name string, opt warc.Options) (*warc.Writer, func() error, error) {
	var closers []func() error
	closeAll := func() error {
		var errs []error
		for i := len(closers) - 1; i >= 0; i-- {
			errs = append(errs, closers[i]())
		}
		return errors.Join(errs...)
	}
	if w.cdx {
		cdx, err := warc.CreateCDX(name + ".cdx")
		if err != nil {
			return nil, nil, existErr("--warc-cdx", err)
		}
		closers = append(closers, cdx.Close)
		cdxj, err := warc.CreateCDXJ(name + ".cdxj")
		if err != nil {
			closeAll()
			os.Remove(name + ".cdx")
			return nil, nil, existErr("--warc-cdx", err)
		}
		closers = append(closers, cdxj.Close)
		opt.Indexes = []warc.Index{cdx, cdxj}
	}
	wr, err := warc.Create(name, opt)
	if err != nil {
		closeAll()
		if w.cdx {
			os.Remove(name + ".cdx")
			os.Remove(name + ".cdxj")
		}
		return nil, nil, existErr("--warc-file", err)
	}
	closers = append(closers, wr.Close)
	return wr, closeAll, nil
}

// existErr says which of the files exists: a name is never reused. It
// wraps err, so that errors.Is(err, fs.ErrExist) still tells it.
func existErr(flag string, err error) error {
	return &warcFileError{flag: flag, err: err}
}

// warcFileError is an archive's or index's file that could not be
// created, named by its flag.
type warcFileError struct {
	flag string
	err  error
}

func (e *warcFileError) Error() string {
	var pe *fs.PathError
	if errors.Is(e.err, fs.ErrExist) && errors.As(e.err, &pe) {
		return fmt.Sprintf("%s: %s exists; an archive is never written over nor appended to: name another", e.flag, pe.Path)
	}
	return fmt.Sprintf("%s: %v", e.flag, e.err)
}

func (e *warcFileError) Unwrap() error { return e.err }
