package xfer

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"github.com/urlget/urlget/internal/xfer/xfertest"
)

// TestFastPathSwitch copies every kind of source into a regular file that
// records whether the copy handed it a descriptor: with the fast paths on,
// every source with one (a file, a socket, a body that hands its socket to
// the destination itself) reaches the kernel; with Config.Plain or
// URLGET_NO_FASTPATH, none does, and the bytes are the same.
func TestFastPathSwitch(t *testing.T) {
	sources := bodySources(t, copyData)
	for _, mode := range []string{"fast", "plain", "env", "env=0"} {
		for name, open := range sources {
			t.Run(mode+"/"+name, func(t *testing.T) {
				switch mode {
				case "env":
					t.Setenv(NoFastPathEnv, "1")
				case "env=0":
					t.Setenv(NoFastPathEnv, "0")
				}
				var last progress
				body := startBody(t, open(), generous, Config{Plain: mode == "plain"}, &last)
				rec := xfertest.NewRecorder(t)
				n, err := io.Copy(rec, body)
				if err != nil || n != int64(len(copyData)) {
					t.Fatalf("copied %d of %d, %v", n, len(copyData), err)
				}
				if !bytes.Equal(rec.Bytes(t), copyData) {
					t.Error("the file differs from the body")
				}
				if !last.Final || last.Done != n {
					t.Errorf("last progress %+v", last)
				}
				fast := mode == "fast" || mode == "env=0"
				if want := fast && name != "reader"; rec.Kernel != want {
					t.Errorf("the destination was handed a descriptor: %v, want %v", rec.Kernel, want)
				}
			})
		}
	}
}

// TestFastPathSwitchPipe checks the choice of copy into a pipe, which
// splice(2) serves through the engine's own sink: the splicing sink with
// the fast paths on, the buffer alone with them off; and that the program's
// own pipe is grown only with them on.
func TestFastPathSwitchPipe(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	ctx := context.Background()
	s := New(ctx, io.NopCloser(nil), Config{}).sink(pw)
	if fs, ok := s.(*fileSink); !ok || fs.splice == nil {
		t.Errorf("into a pipe with the fast paths on: %T, want a splicing sink", s)
	}
	s.release()
	s = New(ctx, io.NopCloser(nil), Config{Plain: true}).sink(pw)
	if _, ok := s.(*bufferSink); !ok {
		t.Errorf("into a pipe with Plain: %T, want the buffer", s)
	}
	s.release()
	if !GrowPipe(pw) {
		t.Error("the pipe was not grown with the fast paths on")
	}
	t.Setenv(NoFastPathEnv, "yes")
	s = New(ctx, io.NopCloser(nil), Config{}).sink(pw)
	if _, ok := s.(*bufferSink); !ok {
		t.Errorf("into a pipe with %s set: %T, want the buffer", NoFastPathEnv, s)
	}
	s.release()
	if GrowPipe(pw) {
		t.Errorf("the pipe was grown with %s set", NoFastPathEnv)
	}
}

// TestWriteToWithoutFastPaths runs the copy tests again with the fast
// paths off: every destination, the size limit, a short body, a slow
// sender and a closed pipe behave as they do with them on.
func TestWriteToWithoutFastPaths(t *testing.T) {
	t.Setenv(NoFastPathEnv, "1")
	for name, test := range map[string]func(*testing.T){
		"CheckedBodyEndsShort": TestWriteToCheckedBodyEndsShort,
		"Pipe":                 TestWriteToPipe,
		"RegularFile":          TestWriteToRegularFile,
		"DevNull":              TestWriteToDevNull,
		"PipeLimit":            TestWriteToPipeLimit,
		"ClosedPipe":           TestWriteToClosedPipe,
		"Writer":               TestWriteToWriter,
		"SlowSender":           TestWriteToSlowSender,
	} {
		t.Run(name, test)
	}
}
