package integration

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/urlget/urlget/integration/waistest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/wais"
)

// waisFaultURL returns the big document's URL on a server whose reply to
// the k-th request of a retrieval connection (the Init is 0) is replaced.
func waisFaultURL(t *testing.T, k int, fault func(reply []byte) ([]byte, bool)) string {
	t.Helper()
	var armed atomic.Bool
	s := waisServer(t, waistest.Config{Fault: func(n int, reply []byte) ([]byte, bool) {
		if armed.Load() && n == k {
			return fault(reply)
		}
		return reply, false
	}})
	u := waisHit(t, &wais.Fetcher{}, s.URL+"?bigword", "big.txt")
	armed.Store(true)
	return u
}

// TestWAISFaultClosedMidDocument: the server hangs up halfway through the
// second piece; the body ends in a truncated error after the first.
func TestWAISFaultClosedMidDocument(t *testing.T) {
	u := waisFaultURL(t, 2, func(reply []byte) ([]byte, bool) { return reply[:len(reply)/2], true })
	res := mustFetch(t, &wais.Fetcher{}, waisRequest(t, u))
	defer res.Body.Close()
	n, err := io.Copy(io.Discard, res.Body)
	if !errors.Is(err, schemes.ErrTruncated) || n != wais.DefaultPieceSize {
		t.Errorf("read %d bytes, %v; want %d, then truncated", n, err, wais.DefaultPieceSize)
	}
}

// TestWAISFaultClosedBeforeReply: the server hangs up with no reply at all,
// as freeWAIS-sf's child does when it crashes (p11).
func TestWAISFaultClosedBeforeReply(t *testing.T) {
	u := waisFaultURL(t, 1, func([]byte) ([]byte, bool) { return nil, true })
	_, err := (&wais.Fetcher{}).Fetch(testCtx(t), waisRequest(t, u))
	if !errors.Is(err, schemes.ErrTruncated) {
		t.Errorf("err = %v, want truncated", err)
	}
}

// TestWAISFaultHugeHeader: a header announcing a 1 GB body is refused
// before anything is allocated for it.
func TestWAISFaultHugeHeader(t *testing.T) {
	u := waisFaultURL(t, 1, func([]byte) ([]byte, bool) {
		return []byte("1000000000z2wais        0" + strings.Repeat("x", 100)), false
	})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := (&wais.Fetcher{}).Fetch(testCtx(t), waisRequest(t, u))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, schemes.ErrProtocol) || !strings.Contains(err.Error(), "1000000000") {
		t.Errorf("err = %v, want a protocol error naming the length", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("allocated %d bytes for a refused reply", grew)
	}
}

// TestWAISFaultGarbage: a valid header followed by bytes that are not a
// SearchResponse.
func TestWAISFaultGarbage(t *testing.T) {
	for name, body := range map[string]string{
		"random bytes":      "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4",
		"wrong PDU":         "\x00\x01\x15",
		"text past its end": "\x00\x0b\x17\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x63\x06\x81\x19\x03\x7f\x84\x80",
		"bad diagnostic":    "\x00\x0b\x17\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x63\x07\x1c\x00\x03SF\x01\x00",
	} {
		t.Run(name, func(t *testing.T) {
			u := waisFaultURL(t, 1, func([]byte) ([]byte, bool) {
				h := []byte("0000000000z2wais        0")
				n := len(body)
				for i := 9; i >= 0; i-- {
					h[i] = byte('0' + n%10)
					n /= 10
				}
				return append(h, body...), false
			})
			_, err := (&wais.Fetcher{}).Fetch(testCtx(t), waisRequest(t, u))
			if !errors.Is(err, schemes.ErrProtocol) {
				t.Errorf("err = %v, want a protocol error", err)
			}
		})
	}
}

// TestWAISFaultBadHeader: a reply whose header is not a WAIS header.
func TestWAISFaultBadHeader(t *testing.T) {
	u := waisFaultURL(t, 1, func([]byte) ([]byte, bool) { return []byte("HTTP/1.0 400 Bad Request\r\n\r\n"), true })
	_, err := (&wais.Fetcher{}).Fetch(testCtx(t), waisRequest(t, u))
	if !errors.Is(err, schemes.ErrProtocol) {
		t.Errorf("err = %v, want a protocol error", err)
	}
}

// TestWAISFaultCancel: cancelling the context ends a body being read.
func TestWAISFaultCancel(t *testing.T) {
	s := waisServer(t, waistest.Config{})
	u := waisHit(t, &wais.Fetcher{}, s.URL+"?bigword", "big.txt")
	ctx, cancel := context.WithCancel(testCtx(t))
	res, err := (&wais.Fetcher{}).Fetch(ctx, waisRequest(t, u))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	buf := make([]byte, 65536)
	if _, err := io.ReadFull(res.Body, buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := io.Copy(io.Discard, res.Body); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want canceled", err)
	}
}
