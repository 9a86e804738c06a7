//go:build !linux

package mirror

import (
	"errors"
	"os"
)

// errNoXattrs stands for the platform's lack of user extended attributes:
// the entity tag is not kept, and --timestamping compares dates and sizes alone.
var errNoXattrs = errors.New("no user extended attributes")

var errNoAttr = errors.New("no such attribute")

func noXattrs(err error) bool { return errors.Is(err, errNoXattrs) }

func setXattr(*os.File, string, []byte) error { return errNoXattrs }

func removeXattr(*os.File, string) error { return errNoXattrs }

func getXattr(*os.File, string) ([]byte, error) { return nil, errNoXattrs }
