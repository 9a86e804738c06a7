package waistest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/urlget/urlget/integration/internal/testnet"
)

// Replay is a server that plays back one recorded freeWAIS-sf conversation
// (a folder of NN-c2s-*.bin and NN-s2c-*.bin files, testdata/wais/README.md)
// and checks that the client sends the recorded requests.
//
// A client opens a connection per URL while the recording may hold several
// requests of one connection, so the replay keeps one position in the
// recording across connections. An InitRequest may open any connection: it
// is answered with the recorded InitResponse, and only its sizes, version
// and options are held against the recorded Init, since its identity
// fields name the client. Every other request must equal the recorded one
// byte for byte; the replay then sends the recorded reply unchanged.
type Replay struct {
	// URL is "wais://127.0.0.1:port/".
	URL string
	// Addr is "127.0.0.1:port".
	Addr string

	l         *testnet.Listener
	exchanges []exchange
	initReply []byte

	mu   sync.Mutex
	next int
	errs []error
}

type exchange struct {
	name     string
	request  []byte
	response []byte // nil when the server sent nothing (the connection closed)
}

// NewReplay loads the recording in dir and starts serving it on
// 127.0.0.1:0.
func NewReplay(dir string) (*Replay, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*-c2s-*.bin"))
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("waistest: no recorded requests in %s", dir)
	}
	sort.Strings(names)
	r := &Replay{}
	for _, n := range names {
		req, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		e := exchange{name: filepath.Base(n), request: req}
		resp, err := os.ReadFile(strings.Replace(n, "-c2s-", "-s2c-", 1))
		if err == nil {
			e.response = resp
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if isInit(req) {
			if e.response != nil {
				r.initReply = e.response
			}
		}
		r.exchanges = append(r.exchanges, e)
	}
	if r.initReply == nil {
		// A recording without an Init (Lynx-style, FORMAT.md §5.1): the
		// server answers an Init the same way whatever follows it.
		var hdr [headerLen]byte
		copy(hdr[10:], "z2wais        0")
		limit := maxRequest
		body := (&Server{}).initResponse([]byte{20}, &limit)
		r.initReply = append(putHeader(nil, hdr, len(body)), body...)
	}
	l, err := testnet.Listen(func(c net.Conn, _ int) { r.handle(c) })
	if err != nil {
		return nil, err
	}
	r.l, r.Addr = l, l.Addr().String()
	r.URL = "wais://" + r.Addr + "/"
	return r, nil
}

func isInit(msg []byte) bool { return len(msg) > headerLen+2 && msg[headerLen+2] == 20 }

// Close stops the server and waits for its connections to end.
func (r *Replay) Close() {
	r.l.Close()
}

// Err returns the differences found between the client's requests and the
// recorded ones, nil when there were none.
func (r *Replay) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(r.errs...)
}

// Remaining returns the names of the recorded requests (other than Inits)
// the client has not sent yet.
func (r *Replay) Remaining() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.exchanges[r.next:] {
		if !isInit(e.request) {
			out = append(out, e.name)
		}
	}
	return out
}

func (r *Replay) fail(format string, args ...any) {
	r.mu.Lock()
	r.errs = append(r.errs, fmt.Errorf(format, args...))
	r.mu.Unlock()
}

func (r *Replay) handle(c net.Conn) {
	for first := true; ; first = false {
		hdr, body, err := readMessage(c)
		if err != nil {
			return
		}
		got := append(append([]byte{}, hdr[:]...), body...)
		r.mu.Lock()
		var e *exchange
		if r.next < len(r.exchanges) {
			e = &r.exchanges[r.next]
		}
		r.mu.Unlock()
		if isInit(got) {
			if !first {
				r.fail("InitRequest after the first message of a connection")
				return
			}
			if e != nil && isInit(e.request) {
				r.mu.Lock()
				r.next++
				r.mu.Unlock()
				if err := sameInit(got, e.request); err != nil {
					r.fail("%s: %w", e.name, err)
					return
				}
			} else if err := sameInit(got, nil); err != nil {
				r.fail("InitRequest: %w", err)
				return
			}
			if _, err := c.Write(r.initReply); err != nil {
				return
			}
			continue
		}
		if e == nil {
			r.fail("request past the end of the recording: % x", got)
			return
		}
		r.mu.Lock()
		r.next++
		r.mu.Unlock()
		if !bytes.Equal(got, e.request) {
			i := 0
			for i < len(got) && i < len(e.request) && got[i] == e.request[i] {
				i++
			}
			r.fail("%s: %w at byte %d: got\n% x\nwant\n% x", e.name, ErrMismatch, i, got, e.request)
			return
		}
		if e.response == nil {
			return
		}
		// freeWAIS-sf writes a reply in two pieces (FORMAT.md §1).
		half := min(len(e.response), headerLen+7)
		if _, err := c.Write(e.response[:half]); err != nil {
			return
		}
		if _, err := c.Write(e.response[half:]); err != nil {
			return
		}
	}
}

// sameInit checks a client's InitRequest: a well-formed header and PDU,
// version 1, "will search" only, and the recorded sizes when want is given.
// The identity fields (7 to 10) are the client's own and are not compared.
func sameInit(got, want []byte) error {
	fields := func(msg []byte) (map[int]string, error) {
		z, w, err := splitBody(msg[headerLen:])
		if err != nil {
			return nil, err
		}
		if len(w) != 0 {
			return nil, errors.New("InitRequest with a WAIS part")
		}
		m := map[int]string{}
		rd := reader{b: z, off: 1}
		for rd.more() {
			tag, v, err := rd.item()
			if err != nil {
				return nil, err
			}
			if tag < 7 || tag > 10 {
				m[tag] = string(v)
			}
		}
		return m, nil
	}
	if !bytes.Equal(got[10:headerLen], []byte("z2wais        0")) {
		return fmt.Errorf("%w: header %q", ErrMismatch, got[:headerLen])
	}
	g, err := fields(got)
	if err != nil {
		return err
	}
	if g[3] != "\x80" || g[4] != "\x80" || g[5] == "" || g[6] == "" {
		return fmt.Errorf("%w: InitRequest fields %v", ErrMismatch, g)
	}
	if want == nil {
		return nil
	}
	w, err := fields(want)
	if err != nil {
		return err
	}
	if fmt.Sprint(g) != fmt.Sprint(w) {
		return fmt.Errorf("%w: InitRequest fields %v, recorded %v", ErrMismatch, g, w)
	}
	return nil
}
