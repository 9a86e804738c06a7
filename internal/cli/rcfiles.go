package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/internal/curlrc"
)

// configStdin is what -K - reads.
var configStdin io.Reader = os.Stdin

// defaultConfig returns the path of ~/.urlgetrc, "" with no home; tests
// replace it.
var defaultConfig = curlrc.DefaultPath

// withConfig returns args with the options of ~/.urlgetrc before them and
// each -K FILE replaced by FILE's options (curlrc.Expand). fs tells which
// options take a value. On failure it prints the error and returns the
// exit status: curl's read error (26) for a file that cannot be read, a
// usage error for a line that is no option.
func withConfig(fs *pflag.FlagSet, args []string, stderr io.Writer) ([]string, int) {
	out, err := curlrc.Expand(fs, args, defaultConfig(), configStdin)
	if err != nil {
		fmt.Fprintf(stderr, "urlget: %v\n", err)
		var ce *curlrc.Error
		if errors.As(err, &ce) && ce.Line == 0 {
			return nil, exitRead
		}
		return nil, exitUsage
	}
	return out, 0
}
