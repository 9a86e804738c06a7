package integration

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/uri"
)

// TestVsftpdCredentialsStayHome: vsftpd serves a file of one name in its
// anonymous root and, differently, in the home of its local user. An http
// start page given with that user's -u (a password used twice, as people
// do) links to the file: fetched as a link from the page, vsftpd sees an
// anonymous login and serves the anonymous copy; with --location-trusted,
// or when the ftp: URL is the start itself, the user logs in and gets
// their own.
func TestVsftpdCredentialsStayHome(t *testing.T) {
	v := realServer(t, "URLGET_VSFTPD_ADDR", "URLGET_VSFTPD_ROOT", "URLGET_VSFTPD_USER", "URLGET_VSFTPD_PASS", "URLGET_VSFTPD_HOME")
	addr, root, user, pass, home := v[0], v[1], v[2], v[3], v[4]
	name := "creds-" + filepath.Base(t.TempDir()) + ".txt"
	for dir, text := range map[string]string{root: "the anonymous copy\n", home: "the local user's copy\n"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(p) })
	}
	ftpURL := "ftp://" + addr + "/" + name
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<a href="`+ftpURL+`">the file</a>`)
	}))
	t.Cleanup(page.Close)

	for _, tc := range []struct {
		name    string
		start   string
		trusted bool
		want    string
	}{
		{"a link from the http start", page.URL + "/", false, "the anonymous copy\n"},
		{"a link, --location-trusted", page.URL + "/", true, "the local user's copy\n"},
		{"the start itself", "", false, "the local user's copy\n"},
	} {
		c := &fetch.Client{User: url.UserPassword(user, pass), LocationTrusted: tc.trusted}
		req := fetch.Request{URL: uri.MustParse(ftpURL)}
		if tc.start != "" {
			req.Start = uri.MustParse(tc.start)
		}
		res, err := c.Do(testCtx(t), req)
		if err != nil {
			c.Close()
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := string(readBody(t, res))
		c.Close()
		if got != tc.want {
			t.Errorf("%s: vsftpd served %q, want %q", tc.name, got, tc.want)
		}
	}
}
