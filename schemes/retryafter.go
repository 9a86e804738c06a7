package schemes

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ParseRetryAfter reads an HTTP Retry-After field's value (RFC 9110
// §10.2.3), delay-seconds or an HTTP-date, as a wait from now: 0 when the
// value is neither or names a time past. A wait is bounded by a day, which
// is longer than any run waits in earnest and far from overflow.
func ParseRetryAfter(value string, now time.Time) time.Duration {
	const maxWait = 24 * time.Hour
	value = strings.TrimSpace(value)
	if value == "" {
		return 0
	}
	if n, err := strconv.ParseUint(value, 10, 63); err == nil || errors.Is(err, strconv.ErrRange) {
		if err != nil || n > uint64(maxWait/time.Second) {
			return maxWait
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(value); err == nil && t.After(now) {
		if d := t.Sub(now); d < maxWait {
			return d
		}
		return maxWait
	}
	return 0
}
