package cli

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/urlget/urlget/integration/enctest"
)

// compressedText is the body the /enc/ routes send encoded.
const compressedText = "hello, compressed world\n"

// httpFlagRoutes adds to the scripts' server what the http flags' scripts
// fetch: a 301, a page that echoes the request's header fields, bodies in
// every content coding, and a Content-Disposition chosen by the query.
func httpFlagRoutes(mux *http.ServeMux) {
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/hello.txt", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/to-echo", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/echo", http.StatusFound)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		var lines []string
		for name, vs := range r.Header {
			for _, v := range vs {
				lines = append(lines, name+": "+v)
			}
		}
		lines = append(lines, "Host: "+r.Host)
		sort.Strings(lines)
		fmt.Fprintln(w, strings.Join(lines, "\n"))
	})
	mux.HandleFunc("/enc/", func(w http.ResponseWriter, r *http.Request) {
		coding := strings.TrimPrefix(r.URL.Path, "/enc/")
		body, err := enctest.Encode(coding, []byte(compressedText))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		// Sent encoded whatever the request asked, to show that
		// without --compressed the bytes pass as they came.
		w.Header().Set("Content-Encoding", enctest.Name(coding))
		w.Write(body)
	})
	mux.HandleFunc("/cd/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", r.URL.Query().Get("cd"))
		fmt.Fprintln(w, "attached")
	})
}
