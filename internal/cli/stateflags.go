package cli

import (
	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
)

// httpStateOptions holds the flags of what a transfer carries between runs: cookies, ETags, time conditions, remote times and byte ranges.
type httpStateOptions struct{}

// addHttpStateFlags defines the flags of what a transfer carries between runs: cookies, ETags, time conditions, remote times and byte ranges.
func addHttpStateFlags(fs *pflag.FlagSet, o *options) {}

// checkHttpStateFlags checks those flags once parsed.
func checkHttpStateFlags(fs *pflag.FlagSet, o *options) error { return nil }

// configure sets those flags on the client.
func (x *httpStateOptions) configure(o *options, cl *fetch.Client) error { return nil }
