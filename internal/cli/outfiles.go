package cli

import (
	"fmt"
	"io"
	"net/url"

	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"github.com/urlget/urlget/internal/outfile"
)

// addOutFileFlags defines the flags of the files a run keeps: curl's
// --no-clobber, --remove-on-error and --xattr.
func addOutFileFlags(fs *pflag.FlagSet, x *outOptions) {
	fs.BoolVar(&x.noClobber, "no-clobber", false, "never overwrite a file: write FILE.1, FILE.2 … FILE.100 instead")
	fs.BoolVar(&x.removeOnError, "remove-on-error", false, "remove the output file on an error, what -C appended to and --fail-with-body's page too")
	fs.BoolVar(&x.xattr, "xattr", false, "store the URL and the media type in the file's extended attributes")
	curlNote(fs, "no-clobber", "with -C the file is resumed as -C says; a device or a FIFO is written as it is")
	curlNote(fs, "remove-on-error", "urlget never leaves a partial file of its own: the flag removes what -C appended to and --fail-with-body's page; a file there before the run, which nothing was written to, stays")
}

// maxClobberSuffix is the last ".N" --no-clobber tries, as curl's.
const maxClobberSuffix = 100

// setXattr stores the origin of a file written whole in its extended
// attributes, as curl's --xattr does (the freedesktop.org names
// user.xdg.origin.url and user.mime_type): the URL the body came from,
// without its user name and password, as curl strips them, and the
// media type when the server gave one. A file system without them is
// warned of on w, the file kept.
func setXattr(w io.Writer, path, rawURL, contentType string) {
	origin := rawURL
	if u, err := url.Parse(rawURL); err == nil {
		u.User = nil
		origin = u.String()
	}
	attrs := [][2]string{{"user.xdg.origin.url", origin}}
	if contentType != "" {
		attrs = append(attrs, [2]string{"user.mime_type", contentType})
	}
	for _, a := range attrs {
		if err := unix.Setxattr(path, a[0], []byte(a[1]), 0); err != nil {
			fmt.Fprintf(w, "Warning: --xattr: %s on %s: %v\n", a[0], path, err)
			return
		}
	}
}

// commit makes an output file visible and returns the name it took:
// target, or with --no-clobber the first free of target, target.1 …
// target.100. -C writes its file in place, as it says.
func (c *command) commit(file *outfile.File, target string) (string, error) {
	if c.opts.out.noClobber && c.opts.continueAt == "" {
		return file.CommitUnique(maxClobberSuffix)
	}
	return target, file.Commit()
}
