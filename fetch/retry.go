package fetch

import (
	"errors"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/urlget/urlget/schemes"
)

// Retry tells a Client's OnRetry of a retry about to wait: the URL
// (password masked), why the attempt is retried, how long the wait is and
// how many retries are left after this one is made.
type Retry struct {
	URL    string
	Reason RetryReason
	Err    error // the attempt's error; nil for an HTTP status that came as a Resource
	Wait   time.Duration
	Left   int
}

// RetryReason is the class of failure a retry is made for, in curl's
// words, which its warning prints after "Problem ".
type RetryReason string

// The reasons curl 7.88 retries for (tool_operate.c), and the one urlget
// adds for the protocols curl has no class for.
const (
	RetryTimeout     RetryReason = ": timeout"                // a timeout, or a name that did not resolve
	RetryConnRefused RetryReason = ": connection refused"     // with RetryConnRefused only
	RetryHTTP        RetryReason = ": HTTP error"             // HTTP 408, 429, 500, 502, 503, 504
	RetryFTP         RetryReason = ": FTP error"              // an FTP 4xx reply
	RetryServer      RetryReason = ": temporary server error" // a gopher or NNTP reply that says "try later"
	RetryAllErrors   RetryReason = "(retrying all errors)"    // any other error, with RetryAllErrors
)

// retryReason is the class of err, or of res when the attempt brought a
// Resource whose HTTP status is one curl retries, "" when neither is
// retried. It follows curl 7.88's classes rather than the fetchers'
// Temporary flag: a timeout and a name that did not resolve always; a
// refused connection only with RetryConnRefused; an http(s) status of
// 408, 429, 500, 502, 503 or 504 (RFC 9110 §15.5.9, RFC 6585 §4, §15.6);
// an ftp(s) reply of 4xx (RFC 959 §4.2: "transient negative completion");
// anything else only with RetryAllErrors. A reply other protocols mark
// as temporary (a Gopher+ "server busy", an NNTP 400 greeting) is
// retried as FTP's 4xx is, curl having no class of its own for them.
func (c *Client) retryReason(scheme string, res *schemes.Resource, err error) RetryReason {
	if err == nil {
		if res != nil && (scheme == "http" || scheme == "https") && retriedStatus(res.StatusCode) {
			return RetryHTTP
		}
		return ""
	}
	var se *schemes.Error
	isSE := errors.As(err, &se)
	switch {
	case errors.Is(err, schemes.ErrTimeout), errors.Is(err, schemes.ErrResolve), errors.Is(err, schemes.ErrProxyResolve):
		return RetryTimeout
	case c.RetryConnRefused && errors.Is(err, schemes.ErrConnect) && errors.Is(err, syscall.ECONNREFUSED):
		return RetryConnRefused
	case isSE && (scheme == "http" || scheme == "https") && retriedStatus(se.Code):
		return RetryHTTP
	case isSE && (scheme == "ftp" || scheme == "ftps") && se.Code/100 == 4:
		return RetryFTP
	case isSE && se.Code != 0 && se.Temporary && !strings.HasPrefix(scheme, "http") && !strings.HasPrefix(scheme, "ftp"):
		return RetryServer
	case c.RetryAllErrors:
		return RetryAllErrors
	}
	return ""
}

// retriedStatus reports whether curl retries an HTTP response of code.
func retriedStatus(code int) bool {
	switch code {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// retryAfterOf returns the Retry-After wait an HTTP answer asked for,
// from the Resource that came or the error's response fields, 0 when none.
func retryAfterOf(res *schemes.Resource, err error, now time.Time) time.Duration {
	var se *schemes.Error
	if err != nil && errors.As(err, &se) {
		return se.RetryAfter
	}
	if res == nil {
		return 0
	}
	for _, f := range res.Header {
		if strings.EqualFold(f[0], "Retry-After") {
			return schemes.ParseRetryAfter(f[1], now)
		}
	}
	return 0
}

// RetryReason is the class of failure err, met fetching a URL of scheme,
// is retried for under the Client's policy (see Retries), "" when it is
// not. A caller that reads a body uses it to fetch again a URL whose body
// failed, which Do cannot see.
func (c *Client) RetryReason(scheme string, err error) RetryReason {
	if err == nil {
		return ""
	}
	return c.retryReason(scheme, nil, err)
}
