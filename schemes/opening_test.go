package schemes

import (
	"net"
	"strings"
	"testing"

	"github.com/urlget/urlget/uri"
)

// lineCapture keeps the lines a Capture is told.
type lineCapture struct{ lines []string }

func (c *lineCapture) Exchange(string, net.Addr) Exchange { return nil }
func (c *lineCapture) Connected(net.Addr)                 {}
func (c *lineCapture) Listing([]byte)                     {}
func (c *lineCapture) Line(dir Direction, line string) {
	c.lines = append(c.lines, string(dir)+" "+line)
}

// TestOpening: an Opening keeps what is traced through its Tee until End,
// passing every line on, at most maxOpening bytes of it, and replays it
// between its notes; a request not captured keeps none, and a nil one
// replays a note that the opening was not recorded.
func TestOpening(t *testing.T) {
	if NewOpening(&Request{URL: uri.MustParse("ftp://h/")}) != nil {
		t.Error("an Opening for a request not captured")
	}
	cp := &lineCapture{}
	o := NewOpening(&Request{URL: uri.MustParse("ftp://ann:pw@h/f"), Capture: cp})
	var passed []string
	tr := o.Tee(func(dir Direction, line string) { passed = append(passed, line) })
	tr.TraceLine(Received, "220 ready")
	tr.TraceSecret("PASS ")
	if !o.Keeping() {
		t.Error("not keeping before End")
	}
	o.End()
	tr.TraceLine(Sent, "RETR f")
	if o.Keeping() || len(passed) != 3 {
		t.Errorf("after End: keeping %v, passed %q", o.Keeping(), passed)
	}
	later := &lineCapture{}
	o.Replay(later)
	want := []string{"* earlier on this session, in the fetch of ftp://ann:****@h/f that opened it:", "< 220 ready", "> PASS ****", "* this fetch, on the same session:"}
	if strings.Join(later.lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("replayed %q", later.lines)
	}

	big := NewOpening(&Request{URL: uri.MustParse("nntp://h/g"), Capture: cp})
	tr = big.Tee(nil)
	for i := 0; i < 2*maxOpening/100; i++ {
		tr.TraceLine(Received, strings.Repeat("x", 100))
	}
	later = &lineCapture{}
	big.Replay(later)
	if n := len(later.lines); n > maxOpening/100+3 || later.lines[n-2] != "* (the rest of that fetch's conversation left out)" {
		t.Errorf("%d lines replayed, ending %q", n, later.lines[n-2:])
	}

	var none *Opening
	later = &lineCapture{}
	none.End()
	none.Replay(later)
	none.Replay(nil)
	if none.Keeping() || len(later.lines) != 2 || !strings.Contains(later.lines[0], "not recorded") {
		t.Errorf("nil Opening: %q", later.lines)
	}
}
