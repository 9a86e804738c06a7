package cli

import (
	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
)

// outOptions holds the flags of what the command prints and keeps: traces, the progress meter, buffering, retries told, files kept or removed, protocols allowed.
type outOptions struct{}

// addOutFlags defines the flags of what the command prints and keeps: traces, the progress meter, buffering, retries told, files kept or removed, protocols allowed.
func addOutFlags(fs *pflag.FlagSet, o *options) {}

// checkOutFlags checks those flags once parsed.
func checkOutFlags(fs *pflag.FlagSet, o *options) error { return nil }

// configure sets those flags on the client.
func (x *outOptions) configure(o *options, cl *fetch.Client) error { return nil }
