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

// lookCurl is exec.LookPath("curl") for the tests that compare with curl
// when it is there and check urlget alone otherwise: under URLGET_REAL
// (.ci/run, which installs curl) a missing curl fails the test instead,
// so that CI never passes without the comparisons.
func lookCurl(t *testing.T) (string, error) {
	t.Helper()
	p, err := exec.LookPath("curl")
	if err != nil && os.Getenv("URLGET_REAL") != "" {
		t.Fatal("curl is not installed: the comparison with curl cannot run")
	}
	return p, err
}
