package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/urlget/urlget/integration/ftptest"
	"github.com/urlget/urlget/integration/nntptest"
)

// sessionRecords runs urls with --warc-file (and the flags of args) and
// returns the metadata records, failing unless there is one per URL and
// the password is nowhere in the archive.
func sessionRecords(t *testing.T, password string, args []string, urls ...string) []warcRec {
	t.Helper()
	name := filepath.Join(t.TempDir(), "s")
	code, _, errOut := runQ(t, append(append([]string{"-s", "-o", "/dev/null", "--warc-file", name}, args...), urls...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(rawArchive(t, name+".warc.gz"), password) {
		t.Error("the password is in the archive")
	}
	meta := ofType(readWarc(t, name+".warc.gz"), "metadata")
	if len(meta) != len(urls) {
		t.Fatalf("%d metadata records for %d URLs", len(meta), len(urls))
	}
	return meta
}

// checkOpening holds the metadata records of fetches on one session: the
// first has its own conversation from the connection on; each later one
// begins with that opening, set apart by the notes, then its own lines.
func checkOpening(t *testing.T, meta []warcRec, opening []string, own [][]string) {
	t.Helper()
	first := string(meta[0].block)
	if strings.Contains(first, "earlier on this session") || !strings.HasPrefix(first, "* connecting to ") {
		t.Errorf("the first record:\n%s", first)
	}
	for i, m := range meta[1:] {
		b := string(m.block)
		before, after, ok := strings.Cut(b, "* this fetch, on the same session:\r\n")
		if !ok || !strings.HasPrefix(before, "* earlier on this session, in the fetch of "+meta[0].target()[:strings.Index(meta[0].target(), "://")]) {
			t.Errorf("record %d:\n%s", i+1, b)
			continue
		}
		for _, l := range opening {
			if !strings.Contains(before, "\r\n"+l+"\r\n") || strings.Contains(after, "\r\n"+l+"\r\n") {
				t.Errorf("record %d: %q not in the opening alone:\n%s", i+1, l, b)
			}
		}
		for _, l := range own[i] {
			if !strings.Contains(after, l) {
				t.Errorf("record %d: %q not in its own lines:\n%s", i+1, l, b)
			}
		}
	}
}

// TestWarcFTPSessionOpening: FTP files and a listing fetched over one
// control connection, in the clear and with AUTH TLS: every metadata
// record holds how the session was opened (the greeting, AUTH, PBSZ,
// PROT, USER, PASS masked, TYPE) and what earlier fetches left set, the
// password nowhere.
func TestWarcFTPSessionOpening(t *testing.T) {
	for _, secure := range []bool{false, true} {
		s := ftptest.NewUnstartedServer(fstest.MapFS{
			"pub/f.txt":     {Data: []byte("f\n"), Mode: 0o644},
			"pub/g.txt":     {Data: []byte("g\n"), Mode: 0o644},
			"other/h.txt":   {Data: []byte("h\n"), Mode: 0o644},
			"other/sub/i.t": {Data: []byte("i\n"), Mode: 0o644},
		})
		s.Users = map[string]string{"ann": "s3cret-pw"}
		var args []string
		opening := []string{"< 220 ftptest ready", "> USER ann", "> PASS ****", "> TYPE I"}
		if secure {
			s.StartTLS(false)
			args = []string{"--ssl-reqd", "-k"}
			opening = append(opening, "> AUTH TLS", "> PBSZ 0", "> PROT P")
		} else {
			s.Start()
		}
		base := strings.Replace(s.URL, "ftp://", "ftp://ann:s3cret-pw@", 1)
		meta := sessionRecords(t, "s3cret-pw", args, base+"/pub/f.txt", base+"/pub/g.txt", base+"/other/h.txt", base+"/pub/")
		checkOpening(t, meta, opening, [][]string{
			{"* the transfer type is I", "* the working directory is where CWD pub led", "> RETR g.txt"},
			{"* the working directory is where CWD pub led", "> CWD other", "> RETR h.txt"},
			{"> CWD ", "> LIST"},
		})
		s.Close()
	}
}

// TestWarcNNTPSessionOpening: articles fetched over one NNTP session with
// AUTHINFO and MODE READER: every metadata record holds how the session
// was opened, AUTHINFO PASS masked, the password nowhere.
func TestWarcNNTPSessionOpening(t *testing.T) {
	srv := nntptest.NewServer(nntptest.Config{
		User: "ann", Password: "s3cret-pw", ModeSwitching: true,
		Groups: []nntptest.Group{{Name: "test.group", Articles: []nntptest.Article{
			{MessageID: "a1@example", Header: [][2]string{{"Subject", "one"}}, Body: "first\n"},
			{MessageID: "a2@example", Header: [][2]string{{"Subject", "two"}}, Body: "second\n"},
		}}},
	})
	t.Cleanup(srv.Close)
	base := strings.Replace(srv.URL, "nntp://", "nntp://ann:s3cret-pw@", 1)
	meta := sessionRecords(t, "s3cret-pw", nil, base+"/test.group/1", base+"/test.group/2", base+"/test.group/1")
	checkOpening(t, meta, []string{"< 200 nntptest ready", "> CAPABILITIES", "> MODE READER", "> AUTHINFO USER ann", "> AUTHINFO PASS ****"}, [][]string{
		{"> ARTICLE 2"},
		{"> ARTICLE 1"},
	})
}
