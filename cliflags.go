package main

import (
	"github.com/spf13/pflag"
)

// addCLIFlags defines the flags of globbing.
func addCLIFlags(fs *pflag.FlagSet, o *options) {
	fs.BoolVarP(&o.globOff, "globoff", "g", false, "take {} and [] in URLs literally, not as sets and ranges")
}
