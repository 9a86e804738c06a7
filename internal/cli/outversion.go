package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// writeVersion prints --version in curl's shape: the program, its
// platform and the libraries that do its work, with their versions; the
// release date; the protocols, one per scheme the command fetches; and
// the features, in curl's names and order, only those urlget has.
func writeVersion(w io.Writer, fs *pflag.FlagSet, o *options) {
	libs := []string{"Go/" + strings.TrimPrefix(runtime.Version(), "go")}
	date := "[unreleased]"
	if bi, ok := debug.ReadBuildInfo(); ok {
		names := map[string]string{
			"github.com/andybalholm/brotli": "brotli",
			"github.com/klauspost/compress": "zstd",
			"golang.org/x/net":              "x-net",
		}
		for _, d := range bi.Deps {
			if n, ok := names[d.Path]; ok {
				libs = append(libs, n+"/"+strings.TrimPrefix(d.Version, "v"))
			}
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.time" && len(s.Value) >= 10 {
				date = s.Value[:10]
			}
		}
	}
	fmt.Fprintf(w, "urlget %s (%s/%s) %s\n", version, runtime.GOOS, runtime.GOARCH, strings.Join(libs, " "))
	fmt.Fprintf(w, "Release-Date: %s\n", date)
	var protos []string
	for scheme := range o.fetchers() {
		protos = append(protos, scheme)
	}
	sort.Strings(protos)
	fmt.Fprintf(w, "Protocols: %s\n", strings.Join(protos, " "))
	fmt.Fprintf(w, "Features: %s\n", strings.Join(features(fs), " "))
}

// features are the features of curl's --version that urlget has: content
// codings (brotli, libz, zstd: schemes/http's decode), HTTP/2, TLS to a
// proxy, IDNA host names, IPv6, 64-bit sizes, TLS, and those a flag
// brings (--unix-socket's UnixSockets, --hsts's HSTS), sorted as curl sorts them,
// without regard to case.
func features(fs *pflag.FlagSet) []string {
	f := []string{"brotli", "HTTP2", "HTTPS-proxy", "IDN", "IPv6", "Largefile", "libz", "SSL", "zstd"}
	if fs != nil && fs.Lookup("unix-socket") != nil {
		f = append(f, "UnixSockets")
	}
	if fs != nil && fs.Lookup("hsts") != nil {
		f = append(f, "HSTS")
	}
	if fs != nil && fs.Lookup("cookie") != nil {
		// The cookie jar refuses cookies for public suffixes
		// (golang.org/x/net/publicsuffix), what curl's libpsl does.
		f = append(f, "PSL")
	}
	sort.Slice(f, func(i, j int) bool { return strings.ToLower(f[i]) < strings.ToLower(f[j]) })
	return f
}
