package cli

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/internal/hsts"
)

// addHSTSFlag defines --hsts, curl's HSTS cache (RFC 6797).
func addHSTSFlag(fs *pflag.FlagSet, o *options) {
	fs.StringVar(&o.hstsFile, "hsts", "", "keep the hosts that ask for https only in `file` (curl's format): http to them goes over https")
}

// loadHSTS reads --hsts's file into the http fetcher, before any
// transfer; a file that does not exist is an empty cache, as in curl.
func (o *options) loadHSTS() error {
	// Set either way: an http fetcher shared with an earlier operation
	// (--next) may hold its cache.
	o.http.HSTS = nil
	if o.hstsFile == "" {
		return nil
	}
	c, err := hsts.Load(o.hstsFile)
	if err != nil {
		return fmt.Errorf("--hsts %s: %w", o.hstsFile, err)
	}
	o.hsts = c
	o.http.HSTS = c
	return nil
}

// saveHSTS writes the cache back once the operation's transfers are
// done, as curl does; a failure is told, and changes nothing of the run's
// exit status, as in curl.
func (o *options) saveHSTS(stderr io.Writer) {
	if o.hsts == nil {
		return
	}
	if err := o.hsts.Save(o.hstsFile); err != nil && !o.silent {
		fmt.Fprintf(stderr, "urlget: --hsts: cannot write %s: %v\n", o.hstsFile, err)
	}
}
