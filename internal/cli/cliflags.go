package cli

import (
	"github.com/spf13/pflag"
)

// addCLIFlags defines the flags of globbing, config files and the rate
// limit. -K and -q are read by withConfig before the flag set parses the
// command line; they are defined here so that help, the man page and the
// completions list them.
func addCLIFlags(fs *pflag.FlagSet, o *options) {
	fs.BoolVarP(&o.globOff, "globoff", "g", false, "take {} and [] in URLs literally, not as sets and ranges")
	fs.StringP("config", "K", "", "read options from `file` in curl's config syntax ('-' is standard input)")
	fs.BoolP("disable", "q", false, "as the first option: do not read ~/.urlgetrc")
	fs.Var(rateValue{&o.limitRate}, "limit-rate", "receive at most `speed` bytes a second, all transfers together (suffixes k, M, G)")
}

// rateValue is --limit-rate's value: bytes a second, with curl's k, M and
// G suffixes (powers of 1024).
type rateValue struct{ n *int64 }

func (v rateValue) String() string { return "" }
func (v rateValue) Type() string   { return "speed" }
func (v rateValue) Set(s string) error {
	if s == "" {
		*v.n = 0
		return nil
	}
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*v.n = n
	return nil
}

// curlNote records how flag name differs from curl's option of the same
// name, for the table of curl's options in docs/usage.md.
func curlNote(fs *pflag.FlagSet, name, note string) {
	_ = fs.SetAnnotation(name, "curl", []string{note})
}
