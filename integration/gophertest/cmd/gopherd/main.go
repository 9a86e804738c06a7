// Command gopherd serves a directory over gopher on 127.0.0.1 with
// gophertest.Dir, for benchmarks and trying urlget by hand: files go out by
// sendfile(2), directories as generated menus. It prints its base URL on
// the first line of standard output and serves until interrupted.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urlget/urlget/integration/gophertest"
)

func main() {
	root := flag.String("root", ".", "directory to serve")
	flag.Parse()
	s := gophertest.NewServer(gophertest.Dir(*root))
	fmt.Println(s.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	s.Close()
}
