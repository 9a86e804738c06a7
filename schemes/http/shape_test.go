package http

import "testing"

// TestWithoutDots: the dot segments curl removes from a path (RFC 3986
// §5.2.4), never climbing above the root; escaped dots stay.
func TestWithoutDots(t *testing.T) {
	for in, want := range map[string]string{
		"/a/../b/./c": "/b/c",
		"/../../x":    "/x",
		"/a/b/..":     "/a/",
		"/a/.":        "/a/",
		"/%2e%2e/x":   "/%2e%2e/x",
		"/a.b/.c":     "/a.b/.c",
		"/":           "/",
	} {
		if got := withoutDots(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
