package mirror

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestStoreETagUnsupported: on a file system without user extended
// attributes (procfs answers EOPNOTSUPP) the tag is silently not kept.
func TestStoreETagUnsupported(t *testing.T) {
	s, err := openStore("/proc")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetETag("version", `"x"`); err != nil {
		t.Errorf("SetETag on procfs: %v, want nil", err)
	}
	if err := s.SetETag("version", ""); err != nil {
		t.Errorf("SetETag(\"\") on procfs: %v, want nil", err)
	}
	if got := s.ETag("version"); got != "" {
		t.Errorf("ETag on procfs = %q", got)
	}
	if !noXattrs(&os.PathError{Op: "setxattr", Path: "x", Err: unix.EOPNOTSUPP}) {
		t.Error("EOPNOTSUPP is not read as a file system without attributes")
	}
	if noXattrs(&os.PathError{Op: "setxattr", Path: "x", Err: unix.EPERM}) {
		t.Error("EPERM is read as a file system without attributes")
	}
}
