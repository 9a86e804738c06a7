package integration

import (
	"os"
	"strings"
	"testing"
)

// realSwitch is the variable that makes a missing real server a failure
// rather than a skip. .ci/run sets it to 1 along with the variables its
// server scripts export (docs/testing.md).
const realSwitch = "URLGET_REAL"

// lookupRealServer returns the values of the environment variables that
// .ci/servers/*.sh export for one real server, in the order named. ok is
// false when any of them is unset or empty; with URLGET_REAL=1 that fails
// the test instead, naming the missing variables. The CI variable plays no
// part: a developer with CI set and only some servers running gets skips,
// not failures.
func lookupRealServer(t testing.TB, names ...string) (vals []string, ok bool) {
	t.Helper()
	var missing []string
	for _, n := range names {
		v := os.Getenv(n)
		if v == "" {
			missing = append(missing, n)
		}
		vals = append(vals, v)
	}
	if len(missing) == 0 {
		return vals, true
	}
	if os.Getenv(realSwitch) == "1" {
		t.Fatalf("%s=1 but %s not set: the real server is missing (start it with .ci/servers, see docs/testing.md)", realSwitch, strings.Join(missing, ", "))
	}
	return nil, false
}

// realServer is lookupRealServer for a test that needs this one server:
// without it the test skips, naming the variables to set.
func realServer(t testing.TB, names ...string) []string {
	t.Helper()
	vals, ok := lookupRealServer(t, names...)
	if !ok {
		t.Skipf("real server not running: set %s (start it with .ci/servers, see docs/testing.md)", strings.Join(names, ", "))
	}
	return vals
}
