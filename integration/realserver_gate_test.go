package integration

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// gateTB records how realServer ended a test: a skip or a fatal failure
// ends the goroutine, as testing.T's do.
type gateTB struct {
	testing.TB
	skipped, failed string
}

func (g *gateTB) Helper() {}

func (g *gateTB) Skipf(format string, args ...any) {
	g.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (g *gateTB) Fatalf(format string, args ...any) {
	g.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// runGate calls realServer on a gateTB in a goroutine of its own, so that
// its Goexit ends only that goroutine.
func runGate(t *testing.T, names ...string) (vals []string, g *gateTB) {
	g = &gateTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		vals = realServer(g, names...)
	}()
	<-done
	return vals, g
}

// TestRealServerGate checks the one rule real-server tests follow: run when
// the server's variables are set, skip naming the missing ones when not,
// fail instead only under URLGET_REAL=1; CI alone changes nothing.
func TestRealServerGate(t *testing.T) {
	names := []string{"URLGET_GATE_ADDR", "URLGET_GATE_ROOT"}
	for _, tc := range []struct {
		name            string
		env             map[string]string
		want            []string
		skip, fail      bool
		missingInReport string
	}{
		{name: "all set", env: map[string]string{"URLGET_GATE_ADDR": "127.0.0.1:1", "URLGET_GATE_ROOT": "/srv"},
			want: []string{"127.0.0.1:1", "/srv"}},
		{name: "all set under URLGET_REAL", env: map[string]string{"URLGET_REAL": "1", "URLGET_GATE_ADDR": "a", "URLGET_GATE_ROOT": "r"},
			want: []string{"a", "r"}},
		{name: "none set", env: map[string]string{}, skip: true, missingInReport: "URLGET_GATE_ADDR, URLGET_GATE_ROOT"},
		{name: "one missing", env: map[string]string{"URLGET_GATE_ADDR": "a"}, skip: true, missingInReport: "URLGET_GATE_ROOT"},
		{name: "CI alone skips", env: map[string]string{"CI": "true", "URLGET_GATE_ROOT": "r"}, skip: true, missingInReport: "URLGET_GATE_ADDR"},
		{name: "URLGET_REAL fails", env: map[string]string{"URLGET_REAL": "1", "URLGET_GATE_ROOT": "r"}, fail: true, missingInReport: "URLGET_GATE_ADDR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range append([]string{"CI", "URLGET_REAL"}, names...) {
				t.Setenv(n, tc.env[n])
			}
			vals, g := runGate(t, names...)
			switch {
			case tc.skip:
				if g.skipped == "" || g.failed != "" || !strings.Contains(g.skipped, tc.missingInReport) {
					t.Errorf("skip %q, failure %q; want a skip naming %s", g.skipped, g.failed, tc.missingInReport)
				}
			case tc.fail:
				if g.failed == "" || g.skipped != "" || !strings.Contains(g.failed, tc.missingInReport) || !strings.Contains(g.failed, "URLGET_REAL=1") {
					t.Errorf("skip %q, failure %q; want a failure naming URLGET_REAL=1 and %s", g.skipped, g.failed, tc.missingInReport)
				}
			default:
				if g.skipped != "" || g.failed != "" || strings.Join(vals, "|") != strings.Join(tc.want, "|") {
					t.Errorf("values %q, skip %q, failure %q; want %q", vals, g.skipped, g.failed, tc.want)
				}
			}
		})
	}
}
