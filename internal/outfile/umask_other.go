//go:build !unix

package outfile

// umask returns 0 where there is no file mode creation mask: the output
// file gets the permissions a new file would (0666 where modes apply).
func umask() uint32 { return 0 }

// processUmask is umask, read once.
func processUmask() uint32 { return 0 }
