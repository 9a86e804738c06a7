//go:build !unix

package outfile

import "os"

// noFollow has no equivalent here: OpenResume then checks the name with
// Lstat only.
const noFollow = 0

// linkCount is 1 where the platform does not say.
func linkCount(os.FileInfo) uint64 { return 1 }
