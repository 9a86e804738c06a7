//go:build !unix

package mirror

import "io/fs"

// idOf cannot tell a file's identity here: no part file is resumed, and
// every transfer starts afresh.
func idOf(fs.FileInfo) (partID, bool) { return partID{}, false }
