package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layering docs/layout.md states is checked against the code itself, so
// that the document cannot drift from the imports and no package can reach
// across the layers unnoticed: a protocol importing another, uri importing
// anything of ours, a leaf of the command reaching back into it.

var updateLayout = flag.Bool("update-layout", false, "rewrite docs/layout.md's import graph from the code")

const (
	module      = "github.com/urlget/urlget"
	layoutDoc   = "docs/layout.md"
	graphBegin  = "<!-- import graph: begin -->"
	graphEnd    = "<!-- import graph: end -->"
	layersTitle = "## Layers"
)

// layer is one row of docs/layout.md's table of layers: a level and the
// package patterns on it ("schemes/*" stands for every package below
// schemes/, "." for the root).
type layer struct {
	level    int
	patterns []string
}

// readLayers reads the table under "## Layers": rows of the form
// "| 3 | `schemes/*` | …", the level first, then the packages, each in
// backquotes.
func readLayers(t *testing.T, doc string) []layer {
	t.Helper()
	_, after, ok := strings.Cut(doc, layersTitle+"\n")
	if !ok {
		t.Fatalf("%s has no %q section", layoutDoc, layersTitle)
	}
	var layers []layer
	sc := bufio.NewScanner(strings.NewReader(after))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			break
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		level, err := strconv.Atoi(strings.TrimSpace(cells[1]))
		if err != nil {
			continue // the header and its rule
		}
		var pats []string
		for _, f := range strings.Split(cells[2], "`") {
			if f = strings.TrimSpace(f); f != "" && f != "," {
				pats = append(pats, f)
			}
		}
		layers = append(layers, layer{level, pats})
	}
	if len(layers) == 0 {
		t.Fatalf("%s: the %q table has no rows", layoutDoc, layersTitle)
	}
	return layers
}

// levelOf returns the level of a package (its path within the module) and
// the pattern that placed it there: the longest pattern that matches, so
// that "mirror/links" can sit below "mirror/*".
func levelOf(layers []layer, pkg string) (level int, pattern string, ok bool) {
	best := -1
	for _, l := range layers {
		for _, p := range l.patterns {
			match := p == pkg
			if prefix, wild := strings.CutSuffix(p, "/*"); wild {
				match = strings.HasPrefix(pkg, prefix+"/")
			}
			if match && len(p) > best {
				best, level, pattern, ok = len(p), l.level, p, true
			}
		}
	}
	return
}

// ourPackages returns every package of the module with the packages of
// ours each imports (tests excluded: a test may import anything), keyed by
// the path within the module ("." for the root).
func ourPackages(t *testing.T) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		bp, err := build.ImportDir(p, 0)
		if err != nil {
			if _, none := err.(*build.NoGoError); none {
				return nil
			}
			return fmt.Errorf("%s: %w", p, err)
		}
		var ours []string
		for _, imp := range bp.Imports {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				ours = append(ours, rel)
			}
		}
		slices.Sort(ours)
		pkgs[filepath.ToSlash(p)] = ours
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// free tells whether a package is test infrastructure (the in-process
// servers, the benchmarks' tools), which may import anything and which
// nothing of the product may import.
func free(pkg string) bool {
	return pkg == "integration" || strings.HasPrefix(pkg, "integration/") || strings.HasPrefix(pkg, "bench/")
}

func TestLayering(t *testing.T) {
	raw, err := os.ReadFile(layoutDoc)
	if err != nil {
		t.Fatal(err)
	}
	layers := readLayers(t, string(raw))
	pkgs := ourPackages(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for p := range pkgs {
			if !yield(p) {
				return
			}
		}
	})
	for _, pkg := range names {
		if free(pkg) {
			continue
		}
		lv, pat, ok := levelOf(layers, pkg)
		if !ok {
			t.Errorf("package %s is on no level of %s's %q table", pkg, layoutDoc, layersTitle)
			continue
		}
		for _, imp := range pkgs[pkg] {
			if free(imp) {
				t.Errorf("%s imports %s, which is test infrastructure", pkg, imp)
				continue
			}
			il, ipat, ok := levelOf(layers, imp)
			switch {
			case !ok:
				// reported for imp itself
			case il > lv:
				t.Errorf("%s (level %d, %s) imports %s (level %d, %s): imports point down only", pkg, lv, pat, imp, il, ipat)
			case il == lv:
				t.Errorf("%s imports %s, both on level %d: packages of one level never import each other (a protocol another, a leaf another)", pkg, imp, lv)
			}
		}
	}
}

// TestLayoutGraph checks that docs/layout.md's import graph is the code's;
// `go test -run TestLayoutGraph -update-layout .` rewrites it.
func TestLayoutGraph(t *testing.T) {
	raw, err := os.ReadFile(layoutDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	before, rest, ok1 := strings.Cut(doc, graphBegin)
	_, after, ok2 := strings.Cut(rest, graphEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the markers %s … %s", layoutDoc, graphBegin, graphEnd)
	}
	pkgs := ourPackages(t)
	var b strings.Builder
	b.WriteString("\n```\n")
	names := slices.Sorted(func(yield func(string) bool) {
		for p := range pkgs {
			if !free(p) && !yield(p) {
				return
			}
		}
	})
	for _, p := range names {
		name := p
		if p == "." {
			name = "urlget (main)"
		}
		imps := pkgs[p]
		if len(imps) == 0 {
			fmt.Fprintf(&b, "%s\n", name)
			continue
		}
		fmt.Fprintf(&b, "%s → %s\n", name, strings.Join(imps, ", "))
	}
	b.WriteString("```\n")
	want := before + graphBegin + b.String() + graphEnd + after
	if want == doc {
		return
	}
	if *updateLayout {
		if err := os.WriteFile(layoutDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's import graph differs from the code's; run `go test -run TestLayoutGraph -update-layout .`; the code's is:%s", layoutDoc, b.String())
}

// TestLayoutLevelsCoverGraph keeps the levels honest the other way round:
// a pattern that names no package is a stale row.
func TestLayoutLevelsCoverGraph(t *testing.T) {
	raw, err := os.ReadFile(layoutDoc)
	if err != nil {
		t.Fatal(err)
	}
	layers := readLayers(t, string(raw))
	pkgs := ourPackages(t)
	for _, l := range layers {
		for _, p := range l.patterns {
			found := false
			for pkg := range pkgs {
				if _, pat, ok := levelOf(layers, pkg); ok && pat == p {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s: level %d names %s, which matches no package", layoutDoc, l.level, path.Clean(p))
			}
		}
	}
}
