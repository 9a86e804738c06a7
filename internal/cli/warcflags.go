package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
	noCompression   bool // --no-warc-compression
	keepCredentials bool // --warc-keep-credentials

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
	fs.StringVar(&w.file, "warc-file", "", "also archive what is fetched, every scheme, in `NAME`.warc.gz (WARC 1.1); an existing file is never written over")
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
// overwritten: an existing archive or index is an error naming it.
func openWarc(o *options) (*warcsink.Sink, func() error, error) {
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
	var closers []func() error
	closeAll := func() error {
		var errs []error
		for i := len(closers) - 1; i >= 0; i-- {
			errs = append(errs, closers[i]())
		}
		return errors.Join(errs...)
	}
	if w.cdx {
		cdx, err := warc.CreateCDX(w.file + ".cdx")
		if err != nil {
			return nil, nil, existErr("--warc-cdx", err)
		}
		closers = append(closers, cdx.Close)
		cdxj, err := warc.CreateCDXJ(w.file + ".cdxj")
		if err != nil {
			closeAll()
			os.Remove(w.file + ".cdx")
			return nil, nil, existErr("--warc-cdx", err)
		}
		closers = append(closers, cdxj.Close)
		opt.Indexes = []warc.Index{cdx, cdxj}
	}
	wr, err := warc.Create(w.file, opt)
	if err != nil {
		closeAll()
		if w.cdx {
			os.Remove(w.file + ".cdx")
			os.Remove(w.file + ".cdxj")
		}
		return nil, nil, existErr("--warc-file", err)
	}
	// The archive closes before its indexes, which name its records.
	closers = append(closers, wr.Close)
	return warcsink.New(wr, sopt), closeAll, nil
}

// existErr says which of the files exists: a name is never reused.
func existErr(flag string, err error) error {
	var pe *fs.PathError
	if errors.Is(err, fs.ErrExist) && errors.As(err, &pe) {
		return fmt.Errorf("%s: %s exists; an archive is never written over nor appended to: name another", flag, pe.Path)
	}
	return fmt.Errorf("%s: %w", flag, err)
}
