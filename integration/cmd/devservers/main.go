// Command devservers starts urlget's test servers on loopback with sample
// content and prints URLs to fetch, so that every scheme can be tried without
// a network. It runs until interrupted.
//
//	go run ./integration/cmd/devservers
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urlget/urlget/integration/samples"
)

func main() {
	once := flag.Bool("print-only", false, "print the URLs, then stop the servers and exit")
	flag.Parse()

	dir, err := os.MkdirTemp("", "urlget-devservers-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "devservers:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)

	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	for _, s := range samples.All {
		sub := dir + "/" + s.Name
		if err := os.MkdirAll(sub, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "devservers:", err)
			return
		}
		sample, err := s.Start(sub)
		if err != nil {
			fmt.Fprintf(os.Stderr, "devservers: %s: %v\n", s.Name, err)
			continue
		}
		closers = append(closers, sample.Close)
		fmt.Printf("# %s\n", s.Name)
		for _, u := range sample.URLs {
			fmt.Println(u)
		}
	}
	if *once {
		return
	}
	fmt.Fprintln(os.Stderr, "serving on 127.0.0.1; press Ctrl-C to stop")
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}
