package cli

import (
	"os"
	"os/exec"
	"testing"
)

// curlPath returns the path of curl itself, which the comparison tests
// run on the same local servers as urlget. .ci/run installs it, and
// under URLGET_REAL (set there) a missing curl fails the test rather
// than skip it.
func curlPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("URLGET_REAL") != "" {
			t.Fatal("curl is not installed: the comparison with curl cannot run")
		}
		t.Skip("curl is not installed")
	}
	return p
}
