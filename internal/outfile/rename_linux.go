package outfile

import (
	"errors"
	"runtime"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noReplaceUnsupported is set once a file system refused
// RENAME_NOREPLACE (EINVAL: some network and FUSE file systems): the
// renames after that replace at once.
var noReplaceUnsupported atomic.Bool

// renameAt renames old in from to new in to, one renameat(2) between the
// two directories held open. With noReplace it first asks the kernel not
// to replace anything (renameat2 RENAME_NOREPLACE), and returns EEXIST
// when something is there.
func renameAt(from *Dir, old string, to *Dir, new string, noReplace bool) error {
	ffd, err := from.File()
	if err != nil {
		return err
	}
	tfd, err := to.File()
	if err != nil {
		return err
	}
	// Fd leaves a directory's descriptor as it is (a directory is never
	// in non-blocking mode); the Dirs stay open until the call returns.
	a, b := int(ffd.Fd()), int(tfd.Fd())
	defer runtime.KeepAlive(ffd)
	defer runtime.KeepAlive(tfd)
	if noReplace && !noReplaceUnsupported.Load() {
		err := unix.Renameat2(a, old, b, new, unix.RENAME_NOREPLACE)
		switch {
		case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.ENOTSUP):
			noReplaceUnsupported.Store(true)
		default:
			return err
		}
	}
	return unix.Renameat(a, old, b, new)
}
