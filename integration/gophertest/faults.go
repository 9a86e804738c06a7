package gophertest

import (
	"bytes"
	"fmt"
	"io"
)

// Stall reads the request and then sends nothing until the server is
// closed: a server that hangs.
func (s *Server) Stall() Handler {
	return HandlerFunc(func(io.Writer, *Request) { <-s.closed })
}

// EndlessLine sends a line that never ends, until the client goes away or
// the server closes; at most limit bytes, so a test stays bounded whatever
// the client does.
func (s *Server) EndlessLine(prefix string, limit int64) Handler {
	return s.repeat([]byte(prefix), bytes.Repeat([]byte("x"), 4096), limit)
}

// EndlessMenu sends menu lines without end, at most limit bytes.
func (s *Server) EndlessMenu(limit int64) Handler {
	return HandlerFunc(func(w io.Writer, r *Request) {
		line := []byte(Item{Type: '0', Display: "again", Selector: "/again"}.Line(r.Host, r.Port))
		s.repeat(nil, bytes.Repeat(line, 64), limit).ServeGopher(w, r)
	})
}

func (s *Server) repeat(prefix, chunk []byte, limit int64) Handler {
	return HandlerFunc(func(w io.Writer, _ *Request) {
		if _, err := w.Write(prefix); err != nil {
			return
		}
		for sent := int64(0); sent < limit; sent += int64(len(chunk)) {
			select {
			case <-s.closed:
				return
			default:
			}
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
}

// Short announces a Gopher+ length and then sends only data before
// closing: a transfer cut short.
func Short(announce int64, data []byte) Handler {
	return HandlerFunc(func(w io.Writer, _ *Request) {
		fmt.Fprintf(w, "+%d\r\n", announce)
		w.Write(data)
	})
}

// PlusError answers with a Gopher+ error block (Gopher+ §2.3): code 1 item
// not available, 2 try again later, 3 item has moved.
func PlusError(code int, msg string) Handler {
	return Raw([]byte(fmt.Sprintf("--1\r\n%d %s\r\n.\r\n", code, msg)))
}
