package netconn_test

import (
	"fmt"

	"github.com/urlget/urlget/internal/netconn"
)

// A fetcher keeps its logged-in sessions per server and user; a session
// the pool will not keep is ended with the protocol's goodbye.
func ExamplePool() {
	type key struct{ server, user string }
	p := &netconn.Pool[key, string]{
		MaxIdle: 1,
		Drop: func(s string) error {
			fmt.Println("QUIT on", s)
			return nil
		},
	}
	k := key{"ftp.example:21", "anonymous"}
	p.Put(k, "session 1")
	p.Put(k, "session 2") // over MaxIdle
	s, ok := p.Take(k)
	fmt.Println(s, ok)
	_, ok = p.Take(k)
	fmt.Println(ok)
	// Output:
	// QUIT on session 2
	// session 1 true
	// false
}
