package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestPinToCurrentCPU runs the test binary again, to hold that process
// and not this one, and checks every thread's allowed CPUs.
func TestPinToCurrentCPU(t *testing.T) {
	if os.Getenv("URLGET_TEST_PIN") == "1" {
		holdCPU = true
		holdLocalCPU(newURLQueue(positionalsOf([]string{"file:///a", "http://127.0.0.1/b"}), nil))
		// A thread started after the hold inherits it.
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(done)
		}()
		<-done
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			if list, ok := cpusAllowed("/proc/self/task/" + task.Name() + "/status"); ok {
				os.Stdout.WriteString(list + "\n")
			} // else the thread ended
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPinToCurrentCPU$")
	cmd.Env = append(os.Environ(), "URLGET_TEST_PIN=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var lists []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" && !strings.HasPrefix(l, "PASS") && !strings.HasPrefix(l, "ok") {
			lists = append(lists, l)
		}
	}
	if len(lists) < 2 {
		t.Fatalf("want the allowed CPUs of at least two threads, got %q", out)
	}
	for _, l := range lists {
		if strings.ContainsAny(l, ",-") || l != lists[0] {
			t.Errorf("threads allowed on %q, want one CPU, the same for all", lists)
			break
		}
	}
}

func TestHoldLocalCPUSkips(t *testing.T) {
	// Nothing observable must happen in these cases; the affinity of
	// the test process stays as it was.
	before := allowedCPUs(t)
	holdLocalCPU(newURLQueue(positionalsOf([]string{"http://127.0.0.1/"}), nil)) // holdCPU off, as when GOMAXPROCS is set
	holdCPU = true
	defer func() { holdCPU = false }()
	holdLocalCPU(newURLQueue(positionals{}, nil))
	holdLocalCPU(newURLQueue(positionalsOf([]string{"http://127.0.0.1/", "http://example.com/"}), nil)) // not all local
	holdLocalCPU(newURLQueue(positionals{}, []urlArg{{value: "http://example.com/"}}))
	// A list whose URLs are not all local, and a list still being written.
	name := filepath.Join(t.TempDir(), "list")
	if err := os.WriteFile(name, []byte("http://127.0.0.1/\nhttp://example.com/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := openURLList(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer list.close()
	holdLocalCPU(newURLQueue(positionalsOf([]string{"http://127.0.0.1/"}), []urlArg{{value: "@" + name, list: list}}))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	w.WriteString("http://127.0.0.1/\n")
	pipe, err := openURLList("-", r)
	if err != nil {
		t.Fatal(err)
	}
	holdLocalCPU(newURLQueue(positionals{}, []urlArg{{value: "@-", list: pipe}}))
	if after := allowedCPUs(t); after != before {
		t.Errorf("allowed CPUs changed from %q to %q", before, after)
	}
}

func allowedCPUs(t *testing.T) string {
	t.Helper()
	list, ok := cpusAllowed("/proc/self/status")
	if !ok {
		t.Fatal("no Cpus_allowed_list in /proc/self/status")
	}
	return list
}

// cpusAllowed reads the Cpus_allowed_list line of a proc(5) status file.
func cpusAllowed(status string) (string, bool) {
	b, err := os.ReadFile(status)
	if err != nil {
		return "", false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}
