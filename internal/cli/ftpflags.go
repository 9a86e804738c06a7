package cli

import (
	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
)

// ftpXOptions holds the flags of the ftp: flags curl has beyond the method and the port.
type ftpXOptions struct{}

// addFtpXFlags defines the flags of the ftp: flags curl has beyond the method and the port.
func addFtpXFlags(fs *pflag.FlagSet, o *options) {}

// checkFtpXFlags checks those flags once parsed.
func checkFtpXFlags(fs *pflag.FlagSet, o *options) error { return nil }

// configure sets those flags on the client.
func (x *ftpXOptions) configure(o *options, cl *fetch.Client) error { return nil }
