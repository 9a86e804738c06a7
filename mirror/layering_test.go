package mirror

import (
	"go/build"
	"strings"
	"testing"
)

// TestSubpackagesStandAlone holds mirror/links and mirror/robots to what
// they promise, that any crawler can use them: they import package uri,
// x/net/html and the standard library, never fetch, mirror or a
// protocol.
func TestSubpackagesStandAlone(t *testing.T) {
	allowed := map[string]bool{
		"github.com/urlget/urlget/uri": true,
		"golang.org/x/net/html":        true,
	}
	for _, dir := range []string{"links", "robots"} {
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Imports) == 0 {
			t.Fatalf("%s: no imports read", dir)
		}
		for _, imp := range p.Imports {
			// The standard library's paths have no dot in their first
			// element.
			std := !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".")
			if !std && !allowed[imp] {
				t.Errorf("mirror/%s imports %s", dir, imp)
			}
		}
	}
}
