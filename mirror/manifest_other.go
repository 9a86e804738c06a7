//go:build !unix

package mirror

import "os"

// oNoFollow is 0 where the platform has no O_NOFOLLOW; the Lstat before
// the open refuses a link there.
const oNoFollow = 0

// devIno returns 0, 0: the platform tells neither through os.FileInfo,
// and the size and time alone then say whether a file is unchanged.
func devIno(os.FileInfo) (uint64, uint64) { return 0, 0 }

// linkCount returns 1: the platform does not tell the link count.
func linkCount(os.FileInfo) uint64 { return 1 }
