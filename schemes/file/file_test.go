package file

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

func TestFSErrorKinds(t *testing.T) {
	req := &schemes.Request{URL: uri.MustParse("file:///srv/x")}
	for _, tc := range []struct {
		errno syscall.Errno
		kind  error
	}{
		{syscall.ENOENT, schemes.ErrNotFound},
		{syscall.ENOTDIR, schemes.ErrNotFound},
		{syscall.EACCES, schemes.ErrAccessDenied},
		{syscall.EPERM, schemes.ErrAccessDenied},
		{syscall.EIO, schemes.ErrNotRetrievable},
	} {
		err := fsError(req, "open", &fs.PathError{Op: "open", Path: "/srv/x", Err: tc.errno})
		if !errors.Is(err, tc.kind) || !errors.Is(err, tc.errno) {
			t.Errorf("%v: got %v, want kind %v wrapping the errno", tc.errno, err, tc.kind)
		}
		var se *schemes.Error
		if !errors.As(err, &se) || se.URL != "file:///srv/x" {
			t.Errorf("%v: error %v does not carry the URL", tc.errno, err)
		}
	}
}

func TestDirURLPath(t *testing.T) {
	for in, want := range map[string]string{
		"/":         "/",
		"/tmp":      "/tmp/",
		"/a b/c#d/": "/a%20b/c%23d/",
		"/x;y/ü":    "/x%3By/%C3%BC/",
		"/100%/q?":  "/100%25/q%3F/",
	} {
		if got := dirURLPath(in); got != want {
			t.Errorf("dirURLPath(%q) = %q, want %q", in, got, want)
		}
	}
}
