// Command waisd serves the regular files of a directory (and those its
// symbolic links lead to) as one WAIS database on 127.0.0.1 with
// waistest.Server, for benchmarks and trying urlget by hand: each file is
// a TEXT document found by its name (a keyword search for the name, or
// for a word of it, lists it with its URL), read from the file as it is
// retrieved. It prints the database's URL on the first line of standard
// output and serves until interrupted.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/urlget/urlget/integration/waistest"
)

func main() {
	root := flag.String("root", ".", "directory whose regular files are served")
	db := flag.String("database", "test", "the database's name")
	flag.Parse()
	docs, closeAll, err := documents(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "waisd:", err)
		os.Exit(1)
	}
	defer closeAll()
	s := waistest.NewServer(waistest.Config{Database: *db, Documents: docs, KeepRequests: -1})
	fmt.Println(s.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	s.Close()
}

// documents opens the regular files directly in dir, or linked to from
// it, each a document
// whose keywords are its name and the name's parts between dots, dashes
// and underscores.
func documents(dir string) ([]waistest.Document, func(), error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var docs []waistest.Document
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, e := range entries {
		if !e.Type().IsRegular() && e.Type()&os.ModeSymlink == 0 {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			closeAll()
			return nil, nil, err
		}
		if !fi.Mode().IsRegular() {
			f.Close()
			continue
		}
		files = append(files, f)
		words := strings.FieldsFunc(e.Name(), func(r rune) bool { return r == '.' || r == '-' || r == '_' })
		docs = append(docs, waistest.Document{Name: e.Name(), Content: f, Size: fi.Size(), Keywords: append(words, e.Name())})
	}
	return docs, closeAll, nil
}
