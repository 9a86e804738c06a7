package cli

import (
	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
)

// httpReqOptions holds the flags of the shape of an http(s) request: method, query, target, protocol version, authentication, extra proxy fields, decoding.
type httpReqOptions struct{}

// addHttpReqFlags defines the flags of the shape of an http(s) request: method, query, target, protocol version, authentication, extra proxy fields, decoding.
func addHttpReqFlags(fs *pflag.FlagSet, o *options) {}

// checkHttpReqFlags checks those flags once parsed.
func checkHttpReqFlags(fs *pflag.FlagSet, o *options) error { return nil }

// configure sets those flags on the client.
func (x *httpReqOptions) configure(o *options, cl *fetch.Client) error { return nil }
