package xfer

import (
	"bytes"
	"github.com/urlget/urlget/internal/xfer/xfertest"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestWriteToSlowSender sends a little, pauses, sends a little more and
// closes: every byte must reach the file, and the close end the copy.
func TestWriteToSlowSender(t *testing.T) {
	ln := xfertest.ServeTCP(t, func(c net.Conn) {
		c.Write([]byte("first part, "))
		time.Sleep(200 * time.Millisecond)
		c.Write([]byte("second part"))
	})
	for _, kind := range []string{"tcp", "checked"} {
		open := func() io.ReadCloser {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			if kind == "checked" {
				return xfertest.NewCheckedBody(c.(*net.TCPConn), 23)
			}
			return c.(*net.TCPConn)
		}
		body := fetchBody(t, open, 0, nil)
		path := filepath.Join(t.TempDir(), "dst")
		dst, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := io.Copy(dst, body)
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the copy did not end when the sender closed", kind)
		}
		dst.Close()
		if b, _ := os.ReadFile(path); string(b) != "first part, second part" {
			t.Errorf("%s: got %q", kind, b)
		}
	}
}

// fileWrapper is a writer over a file that can Stat itself, as the
// command's temporary output file is.
type fileWrapper struct{ *os.File }

// TestDescribe checks how a destination is told apart, with one Stat, for
// the choice of copy.
func TestDescribe(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	var buf bytes.Buffer
	for name, c := range map[string]struct {
		w    io.Writer
		want destination
	}{
		"regular file": {f, destination{file: f, regular: true}},
		"wrapped file": {fileWrapper{f}, destination{regular: true}},
		"pipe":         {pw, destination{file: pw, pipe: true}},
		"in memory":    {&buf, destination{}},
	} {
		if d := describe(c.w); d != c.want {
			t.Errorf("%s: described as %+v, want %+v", name, d, c.want)
		}
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	// /dev/null is the null device or, as in some containers, a regular
	// file; either way its bytes need no writing out.
	if d := describe(null); !d.null && !d.regular {
		t.Errorf("%s described as %+v", os.DevNull, d)
	} else if fi, _ := null.Stat(); fi.Mode()&os.ModeCharDevice != 0 && !d.null {
		t.Errorf("%s, a character device, not described as the null device: %+v", os.DevNull, d)
	}
	// Where /dev/null is a regular file, a null device of the test's own
	// (mknod needs root; the CI runs as root) checks the device case.
	devNull := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(devNull, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		n, err := os.OpenFile(devNull, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer n.Close()
		if d := describe(n); !d.null {
			t.Errorf("a null device made with mknod described as %+v", d)
		}
	} else if fi, _ := null.Stat(); fi.Mode()&os.ModeCharDevice == 0 {
		t.Logf("no null device to check: %s is not one and mknod failed (%v)", os.DevNull, err)
	}
	if zero, err := os.OpenFile("/dev/zero", os.O_WRONLY, 0); err == nil {
		defer zero.Close()
		if fi, _ := zero.Stat(); fi.Mode()&os.ModeCharDevice != 0 && describe(zero).null {
			t.Error("/dev/zero, a device other than null, described as null")
		}
	}
}
