package cli

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLeavesStandAlone checks that the command's leaf packages import
// nothing of the command: each takes what it needs as parameters and
// returns errors, and the command maps those to exit codes
// (docs/layout.md).
func TestLeavesStandAlone(t *testing.T) {
	for _, leaf := range []string{"glob", "curlrc", "progress", "outfile"} {
		files, err := filepath.Glob(filepath.Join("..", leaf, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("internal/%s: no Go files (%v)", leaf, err)
		}
		for _, name := range files {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if strings.HasPrefix(path, "github.com/urlget/urlget/internal/cli") {
					t.Errorf("%s imports %s", name, path)
				}
			}
		}
	}
}
