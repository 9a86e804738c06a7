package fetch

import (
	"bytes"
	"net"
	"testing"
)

// responseRecorder is an Exchange that keeps the response bytes it gets.
type responseRecorder struct {
	resp  bytes.Buffer
	ended bool
}

func (r *responseRecorder) Request([]byte)    {}
func (r *responseRecorder) Response(p []byte) { r.resp.Write(p) }
func (r *responseRecorder) End(error)         { r.ended = true }

// TestAheadResponseBeforeAttach: the exchange of a request sent ahead
// passes its response to the fetch that claims it when the fetch came
// first; when part of the response came before (and was not kept), none
// of the rest is passed, where it made a record that began in the middle
// of the response, its status line and header section gone.
func TestAheadResponseBeforeAttach(t *testing.T) {
	const resp = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbody"
	for _, early := range []bool{false, true} {
		rec := &responseRecorder{}
		a := &aheadCapture{}
		x := a.Exchange("http://h/x", &net.TCPAddr{})
		x.Request([]byte("GET /x HTTP/1.1\r\nHost: h\r\n\r\n"))
		rest := resp
		if early {
			x.Response([]byte(resp[:20]))
			rest = resp[20:]
		}
		a.attach(oneExchange{rec})
		x.Response([]byte(rest))
		x.End(nil)
		want := resp
		if early {
			want = ""
		}
		if rec.resp.String() != want || !rec.ended {
			t.Errorf("response before attach %v: passed %q, ended %v; want %q", early, rec.resp.String(), rec.ended, want)
		}
	}
}
