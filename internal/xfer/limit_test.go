package xfer

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/xfer/xfertest"
)

// TestLimitRate copies a 256 KiB body at 128 KiB a second from every kind
// of source, through the kernel's copies into a file and through Read:
// the whole body arrives, and no sooner than the rate allows (the first
// tick's worth is free, so 1.9 s; 1.5 s leaves room for timer slack).
func TestLimitRate(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 256<<10/16)
	const rate = 128 << 10
	fetchLimited := func(t *testing.T, open func() io.ReadCloser) io.ReadCloser {
		return startBody(t, open(), generous, Config{Rate: NewBucket(rate)}, nil)
	}
	check := func(t *testing.T, got []byte, n int64, err error, start time.Time) {
		t.Helper()
		elapsed := time.Since(start)
		if err != nil || n != int64(len(data)) || !bytes.Equal(got, data) {
			t.Errorf("copied %d bytes, %v; want the whole body of %d", n, err, len(data))
		}
		if elapsed < 1500*time.Millisecond {
			t.Errorf("256 KiB at 128 KiB/s took %v", elapsed)
		}
	}
	for name, open := range bodySources(t, data) {
		t.Run(name+"/file", func(t *testing.T) {
			t.Parallel()
			body := fetchLimited(t, open)
			start := time.Now()
			path, n, err := xfertest.CopyToFile(t, body)
			got, _ := os.ReadFile(path)
			check(t, got, n, err, start)
		})
	}
	t.Run("reader/read", func(t *testing.T) {
		t.Parallel()
		body := fetchLimited(t, func() io.ReadCloser { return io.NopCloser(bytes.NewReader(data)) })
		start := time.Now()
		// Only Read: io.ReadAll never asks for WriteTo.
		got, err := io.ReadAll(body)
		check(t, got, int64(len(got)), err, start)
	})
}

// TestLimiterChunk checks the size of the reads a limiter allows: a
// tick's worth at the rate, at least one byte, never more than asked.
func TestLimiterChunk(t *testing.T) {
	ctx := context.Background()
	if n := (*limiter)(nil).chunk(0, 1<<20); n != 1<<20 {
		t.Errorf("no limit allows %d of 1 MiB", n)
	}
	if n := newLimiter(ctx, NewBucket(0)); n != nil {
		t.Errorf("rate 0 gives a limiter")
	}
	for _, c := range []struct{ rate, want, got int64 }{
		{10 << 20, 4 << 20, 1 << 20},
		{1 << 30, 4 << 20, 4 << 20},
		{5, 100, 1},
		{1000, 50, 50},
	} {
		if n := newLimiter(ctx, NewBucket(c.rate)).chunk(0, c.want); n != c.got {
			t.Errorf("at %d B/s, a read of %d may take %d, want %d", c.rate, c.want, n, c.got)
		}
	}
	// A sleep ends with the transfer.
	cctx, cancel := context.WithCancel(ctx)
	l := newLimiter(cctx, NewBucket(1))
	cancel()
	start := time.Now()
	l.chunk(1000, 1)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a cancelled transfer slept %v", d)
	}
}

// TestLimitRateShared: two bodies on one bucket read at once keep to the
// rate together, as one body does: 2 x 128 KiB at 128 KiB a second take
// about 1.9 s (the first tick's worth is free; 1.5 s leaves room for timer
// slack), where a rate for each would let both end in under a second.
func TestLimitRateShared(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 128<<10/16)
	rate := NewBucket(128 << 10)
	start := time.Now()
	errs := make(chan error, 2)
	for range 2 {
		body := startBody(t, io.NopCloser(bytes.NewReader(data)), generous, Config{Rate: rate}, nil)
		go func() {
			got, err := io.ReadAll(body)
			if err == nil && !bytes.Equal(got, data) {
				err = io.ErrUnexpectedEOF
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if elapsed := time.Since(start); elapsed < 1500*time.Millisecond {
		t.Errorf("2 x 128 KiB at 128 KiB/s together took %v", elapsed)
	}
}

// TestLimitRateIsNoIdleServer checks that the limiter's sleeps do not
// count as waits on the server: at 2 bytes a second each sleep is half a
// second, longer than the idle bound of 200 ms, and the body still
// arrives whole.
func TestLimitRateIsNoIdleServer(t *testing.T) {
	data := []byte("abcd")
	sources := bodySources(t, data)
	for _, name := range []string{"tcp", "reader", "checked"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bounds := Bounds{Connect: time.Minute, Idle: 200 * time.Millisecond}
			body := startBody(t, sources[name](), bounds, Config{Rate: NewBucket(2)}, nil)
			_, n, err := xfertest.CopyToFile(t, body)
			if err != nil || n != int64(len(data)) {
				t.Errorf("copied %d bytes, %v; want all %d", n, err, len(data))
			}
		})
	}
}
