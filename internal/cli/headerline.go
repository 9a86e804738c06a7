package cli

import (
	"fmt"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// parseHeaderLine reads one -H line in curl's forms:
// "Name: value" sends the field, "Name:" with nothing after it removes a
// default field of that name (the http fetcher's RemoveHeader), and "Name;" sends the
// field with an empty value. The name must be a token (RFC 9110
// §5.1) and the line must hold no CR, LF or NUL, which would end the field
// early or smuggle a second one in (RFC 9110 §5.5).
func parseHeaderLine(line string) (name, value string, remove bool, err error) {
	if i := strings.IndexAny(line, "\r\n\x00"); i >= 0 {
		return "", "", false, fmt.Errorf("header %q holds a CR, LF or NUL byte", line)
	}
	if n, ok := strings.CutSuffix(line, ";"); ok && !strings.Contains(n, ":") {
		name = strings.TrimSpace(n)
	} else {
		n, v, found := strings.Cut(line, ":")
		if !found {
			return "", "", false, fmt.Errorf("header %q is not \"Name: value\"", line)
		}
		name, value = strings.TrimSpace(n), strings.TrimSpace(v)
		remove = value == ""
	}
	if !httpguts.ValidHeaderFieldName(name) {
		return "", "", false, fmt.Errorf("header %q has no valid field name", line)
	}
	// The name goes as spelled, as curl sends it.
	return name, value, remove, nil
}
