package integration

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/mirror"
)

// A mirror interrupted mid-file by the real servers, resumed on the next
// run: when the file stayed the same the rest only comes (nginx answers
// 206 to Range with the ETag it gave as If-Range; vsftpd's SIZE and MDTM
// agree with its LIST entry, whose time is a whole minute here, and REST
// follows); when the file changed on the server in between (the same
// length, another time) it comes whole and the copy is the new file,
// byte for byte.
func TestMirrorResumeReal(t *testing.T) {
	ng := nginxForMirror(t)
	ftpEnv := realServer(t, "URLGET_VSFTPD_ADDR", "URLGET_VSFTPD_ROOT")
	for _, srv := range []struct {
		name, root, base string
	}{
		{"nginx", filepath.Join(ng.root, "mirror"), ng.url + "/mirror/"},
		{"vsftpd", filepath.Join(ftpEnv[1], "mirror"), "ftp://" + ftpEnv[0] + "/mirror/"},
	} {
		for _, changed := range []bool{false, true} {
			name := srv.name + map[bool]string{false: " unchanged", true: " changed"}[changed]
			t.Run(name, func(t *testing.T) {
				testMirrorResumeReal(t, srv.root, srv.base, changed)
			})
		}
	}
}

func testMirrorResumeReal(t *testing.T, root, base string, changed bool) {
	dir := mirrorName("resume")
	v1 := bytes.Repeat([]byte("1"), 4<<20)
	writeMirrorFiles(t, filepath.Join(root, dir), []mirrorFile{{"big.bin", v1}})
	file := filepath.Join(root, dir, "big.bin")
	// A whole minute: LIST gives the time to the minute, MDTM to the
	// second, and they agree only then.
	mod := time.Now().Add(-time.Hour).Truncate(time.Minute)
	if err := os.Chtimes(file, mod, mod); err != nil {
		t.Fatal(err)
	}
	start := base + dir + "/"
	out, _ := mirrorOut(t)
	opts := mirror.Options{Dir: out, Level: -1, Layout: mirror.Layout{NoHostDirs: true}}

	// The first run, slowed down and interrupted mid-file.
	slow := &fetch.Client{LimitRate: 1 << 20}
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	_, err := mirror.Run(ctx, slow, opts, parseURLs(t, start))
	cancel()
	slow.Close()
	if err == nil {
		t.Fatal("the interrupted run reported success")
	}
	parts, _ := os.ReadDir(filepath.Join(out, mirror.StateDir, "parts"))
	if len(parts) != 2 {
		t.Fatalf("the interrupted run left %v, want a part and its record", parts)
	}

	want := v1
	if changed {
		want = bytes.Repeat([]byte("2"), len(v1))
		if err := os.WriteFile(file, want, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, mod.Add(time.Minute), mod.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	var c fetch.Client
	defer c.Close()
	reports := mirrorRun(t, &c, opts, start)
	got, err := os.ReadFile(filepath.Join(out, "mirror", dir, "big.bin"))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the copy: %d bytes (%d of the first version's, the second version's from byte %d), %v; not the server's file; reports %+v",
			len(got), bytes.Count(got, []byte("1")), bytes.IndexByte(got, '2'), err, reports)
	}
	for _, r := range reports {
		if !strings.HasSuffix(r.URL, "/big.bin") {
			continue
		}
		switch {
		case changed && (r.Size != int64(len(want)) || r.Reason == ""):
			t.Errorf("changed file: %+v, want it fetched whole, with a reason", r)
		case !changed && (r.Size >= int64(len(want)) || r.Reason != ""):
			t.Errorf("unchanged file: %+v, want the rest only", r)
		}
		return
	}
	t.Errorf("no report for big.bin: %+v", reports)
}
