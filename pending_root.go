package main

// Stand-ins replaced by the parallel work at merge.

import (
	"encoding/json"
	"io"
)

type jobReport struct {
	URL, Path string
	Size      int64
	Status    string
	Exit      int
	Err       error
}

func writeJobReport(w io.Writer, r jobReport) error {
	m := map[string]any{"url": r.URL, "path": r.Path, "size": r.Size, "status": r.Status, "exit": r.Exit}
	if r.Err != nil {
		m["error"] = r.Err.Error()
	}
	b, _ := json.Marshal(m)
	_, err := w.Write(append(b, '\n'))
	return err
}

type jobProgress struct{}

func newJobProgress(w io.Writer) *jobProgress                { return nil }
func (p *jobProgress) set(done, queued, failed, bytes int64) {}
func (p *jobProgress) stop()                                 {}

func (o *options) recursionParallel() (int, int) { return 4, 0 }
