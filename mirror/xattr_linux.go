//go:build linux

package mirror

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// errNoAttr is a file's answer for an attribute it does not have.
var errNoAttr error = unix.ENODATA

// noXattrs tells whether err says the file system keeps no user
// extended attributes (xattr(7): ENOTSUP, which is EOPNOTSUPP on Linux).
func noXattrs(err error) bool { return errors.Is(err, unix.ENOTSUP) }

// setXattr sets the attribute through the open file, so that no path is
// looked up again outside the store's root.
func setXattr(f *os.File, name string, value []byte) error {
	return control(f, "setxattr", func(fd int) error { return unix.Fsetxattr(fd, name, value, 0) })
}

func removeXattr(f *os.File, name string) error {
	return control(f, "removexattr", func(fd int) error { return unix.Fremovexattr(fd, name) })
}

// getXattr reads the attribute; an entity tag is short, so one read with
// a buffer of its size limit does (RFC 9110 sets none; 4 KiB is far more
// than any server sends).
func getXattr(f *os.File, name string) ([]byte, error) {
	buf := make([]byte, 4096)
	var n int
	err := control(f, "getxattr", func(fd int) error {
		var err error
		n, err = unix.Fgetxattr(fd, name, buf)
		return err
	})
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// control runs op on f's descriptor.
func control(f *os.File, what string, op func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	if err := rc.Control(func(fd uintptr) { opErr = op(int(fd)) }); err != nil {
		return err
	}
	if opErr != nil {
		return &os.PathError{Op: what, Path: f.Name(), Err: opErr}
	}
	return nil
}
