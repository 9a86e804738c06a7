package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/cookies"
	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/outfile"
	"github.com/urlget/urlget/schemes"
	httpscheme "github.com/urlget/urlget/schemes/http"
	"github.com/urlget/urlget/schemes/news"
)

// httpStateOptions holds the flags of what a transfer carries between runs: cookies, ETags, time conditions, remote times and byte ranges.
type httpStateOptions struct {
	rangeSpec   string   // --range
	remoteTime  bool     // -R
	timeCond    string   // -z, as given
	cookie      []string // -b, each as given
	cookieJar   string   // -c
	junk        bool     // -j
	etagSave    string   // --etag-save
	etagCompare string   // --etag-compare

	// What checkHttpStateFlags and configure make of them.
	cond      time.Time // -z's time, zero for none
	older     bool      // -z -DATE: If-Unmodified-Since
	cookieStr string    // the -b NAME=VALUE strings, joined
	jar       *cookies.Jar
	etag      string   // --etag-compare's entity tag
	warnings  []string // told on stderr once the run starts
	warnOnce  sync.Once
}

// addHttpStateFlags defines the flags of what a transfer carries between runs: cookies, ETags, time conditions, remote times and byte ranges.
func addHttpStateFlags(fs *pflag.FlagSet, o *options) {
	x := &o.httpState
	fs.BoolVarP(&x.remoteTime, "remote-time", "R", false, "give the output file the remote file's modification time")
	fs.StringVarP(&x.timeCond, "time-cond", "z", "", "fetch only if changed since `time` (a date, or a file's time); -TIME: only if not")
	fs.StringArrayVarP(&x.cookie, "cookie", "b", nil, "send cookies: `data` 'NAME=VALUE; N2=V2', or a cookie file to read (curl's format)")
	fs.StringVarP(&x.cookieJar, "cookie-jar", "c", "", "write every cookie to `file` at the end, in curl's format ('-': stdout)")
	fs.BoolVarP(&x.junk, "junk-session-cookies", "j", false, "leave out the session cookies of the files -b reads")
	fs.StringVar(&x.etagSave, "etag-save", "", "write the response's ETag to `file`")
	fs.StringVar(&x.etagCompare, "etag-compare", "", "fetch only if the ETag in `file` no longer matches (If-None-Match)")
	curlNote(fs, "cookie", "NAME=VALUE data goes only to the origin of the URL given (everywhere with --location-trusted), as -H Cookie; a file's Set-Cookie line without a Domain is skipped, where curl sends it to every host")
	curlNote(fs, "time-cond", "'=DATE' (curl's Last-Modified condition) is taken as DATE")
}

// checkHttpStateFlags checks those flags once parsed.
func checkHttpStateFlags(fs *pflag.FlagSet, o *options) error {
	x := &o.httpState
	// -r/--range is defined with curl's letter (lettersflags.go),
	// which checks it.
	x.rangeSpec = o.rangeSpec
	if s := x.timeCond; s != "" {
		x.parseTimeCond(s)
	}
	for _, v := range x.cookie {
		if strings.ContainsAny(v, "\r\n\x00") {
			return errors.New("--cookie: cookies hold no CR, LF or NUL")
		}
	}
	return nil
}

// warn keeps a warning to tell once the run starts.
func (x *httpStateOptions) warn(msg string) { x.warnings = append(x.warnings, msg) }

// parseTimeCond reads -z as curl does: a leading '-' asks for a resource
// not changed since (If-Unmodified-Since), '+' or '=' or nothing for one
// changed since; the rest is a date (curl_getdate's forms) or else a file
// whose modification time is taken. Neither: a warning, and no condition.
func (x *httpStateOptions) parseTimeCond(s string) {
	switch s[0] {
	case '-':
		x.older, s = true, s[1:]
	case '+', '=':
		s = s[1:]
	}
	if t, ok := cookies.ParseDate(s); ok {
		x.cond = t
		return
	}
	if fi, err := os.Stat(s); err == nil {
		x.cond = fi.ModTime()
		return
	}
	x.warn("Illegal date format for -z, --time-cond (and not a file name). Disabling time condition. See curl_getdate(3) for valid date syntax.")
}

// configure sets those flags on the client: the cookie jar on the http
// fetcher, the -b NAME=VALUE cookies with it.
func (x *httpStateOptions) configure(o *options, cl *fetch.Client) error {
	var strs []string
	engine := x.cookieJar != ""
	for _, v := range x.cookie {
		if strings.Contains(v, "=") {
			strs = append(strs, v)
			continue
		}
		engine = true
		if v == "" {
			continue
		}
		x.loadCookies(v)
	}
	x.cookieStr = strings.Join(strs, "; ")
	if x.cookieStr != "" {
		// Before -H's fields, as curl writes its Cookie field.
		o.http.Header = append([]httpscheme.Field{{Name: "Cookie", Value: x.cookieStr}}, o.http.Header...)
	}
	if engine {
		if x.jar == nil {
			x.jar = &cookies.Jar{}
		}
		o.http.Jar = x.jar
	}
	if x.etagCompare != "" {
		// curl: the file's first line; a missing or empty file is an
		// empty entity tag, which matches nothing.
		x.etag = `""`
		if b, err := os.ReadFile(x.etagCompare); err == nil {
			if line, _, _ := strings.Cut(string(b), "\n"); strings.TrimSpace(line) != "" {
				x.etag = strings.TrimSpace(line)
			}
		}
	}
	return nil
}

// loadCookies reads a cookie file of -b into the jar ("-" is standard
// input). A file that cannot be read is left out (what was read of it
// kept), as curl leaves it: the usual `-b jar -c jar` finds none on the
// first run.
func (x *httpStateOptions) loadCookies(name string) {
	if x.jar == nil {
		x.jar = &cookies.Jar{}
	}
	var r io.Reader
	if name == "-" {
		r = os.Stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return
		}
		defer f.Close()
		r = f
	}
	x.jar.Load(r, x.junk)
}

// saveCookies writes the jar to -c's file at the end of the run, as curl
// does whatever the transfers' fate ("-": stdout). A file that cannot be
// written is told, and leaves the exit status as it was, as curl's.
func (x *httpStateOptions) saveCookies(stdout, stderr io.Writer) {
	if x.cookieJar == "" || x.jar == nil {
		return
	}
	if x.cookieJar == "-" {
		x.jar.WriteTo(stdout)
		return
	}
	if err := writeWhole(x.cookieJar, x.jar.WriteTo); err != nil {
		fmt.Fprintf(stderr, "urlget: failed to save cookies in %s: %v\n", x.cookieJar, err)
	}
}

// stateResult is what the flags decided for one transfer once its
// response came.
type stateResult struct {
	skip    bool      // nothing to write: the condition was not met
	modTime time.Time // -R: the time to give the output file
}

// rangeSchemes are the schemes that serve a part of a resource: curl's
// -r applies to HTTP, FTP and FILE only, and is ignored for the others.
var rangeSchemes = map[string]bool{"http": true, "https": true, "ftp": true, "ftps": true, "file": true}

// isHTTP reports whether the scheme is http or https.
func isHTTP(scheme string) bool { return scheme == "http" || scheme == "https" }

// prepareState sets on req what the flags ask of it: the range, the time
// condition and the entity tag. For ftp: and file:, whose requests carry
// no condition, -z and -R ask the file's time first (FTP's MDTM, curl's
// way); a file that does not meet -z's condition is skipped (skip).
func (c *command) prepareState(ctx context.Context, req *fetch.Request, st *started) (skip bool) {
	x := &c.opts.httpState
	x.warnOnce.Do(func() {
		for _, w := range x.warnings {
			fmt.Fprintf(c.stderr, "Warning: %s\n", w)
		}
	})
	scheme := req.URL.Scheme()
	if x.rangeSpec != "" && req.Offset == 0 && !c.opts.head {
		if rangeSchemes[scheme] {
			req.Range = x.rangeSpec
		} else if c.opts.verbose {
			fmt.Fprintf(c.stderr, "* --range ignored: %s: serves no byte ranges\n", scheme)
		}
	}
	if isHTTP(scheme) {
		if !x.cond.IsZero() {
			if x.older {
				req.IfUnmodifiedSince = x.cond
			} else {
				req.IfModifiedSince = x.cond
			}
		}
		if x.etagCompare != "" {
			req.IfNoneMatch = x.etag
		}
		return false
	}
	ftp := scheme == "ftp" || scheme == "ftps"
	// -z for ftp: and file:, as curl; -R where only a request of the
	// metadata gives the time: FTP's MDTM, a news article's Date.
	needCond := !x.cond.IsZero() && (ftp || scheme == "file")
	needTime := x.remoteTime && st.target != "" && (ftp || slices.Contains(news.Schemes, scheme))
	if c.opts.head || !needCond && !needTime {
		return false
	}
	res, err := c.client.Do(ctx, fetch.Request{URL: req.URL, Head: true})
	if err != nil || res.ModTime.IsZero() {
		// No time (no MDTM): the transfer goes ahead, as curl's.
		return false
	}
	st.state.modTime = res.ModTime
	return needCond && !c.meetsTimeCond(res.ModTime)
}

// meetsTimeCond reports whether a resource changed at mod meets -z's
// condition, saying why not under -v in curl's words.
func (c *command) meetsTimeCond(mod time.Time) bool {
	x := &c.opts.httpState
	if x.cond.IsZero() {
		return true
	}
	mod, cond := mod.Truncate(time.Second), x.cond.Truncate(time.Second)
	switch {
	case !x.older && !mod.After(cond):
		if c.opts.verbose {
			fmt.Fprintln(c.stderr, "* The requested document is not new enough")
		}
		return false
	case x.older && !mod.Before(cond):
		if c.opts.verbose {
			fmt.Fprintln(c.stderr, "* The requested document is not old enough")
		}
		return false
	}
	return true
}

// stateResponse applies the flags to a response: --etag-save, -R's time,
// and a 304 (or a response the server sent whole though -z's condition
// was not met: curl then acts as on a 304, and so does -w's http_code)
// that leaves nothing to write.
func (c *command) stateResponse(req fetch.Request, st *started, res *schemes.Resource) {
	x := &c.opts.httpState
	web := isHTTP(req.URL.Scheme())
	if web && x.etagSave != "" {
		// An empty file when the server sent no ETag, as curl.
		var line string
		if res.ETag != "" {
			line = res.ETag + "\n"
		}
		write := func(w io.Writer) (int64, error) {
			n, err := io.WriteString(w, line)
			return int64(n), err
		}
		if err := writeWhole(x.etagSave, write); err != nil {
			fmt.Fprintf(c.stderr, "urlget: --etag-save %s: %v\n", x.etagSave, err)
		}
	}
	if x.remoteTime && !res.ModTime.IsZero() {
		st.state.modTime = res.ModTime
	}
	if res.NotModified {
		st.state.skip = true
		return
	}
	if web && res.StatusCode/100 == 2 && req.Range == "" && !res.ModTime.IsZero() && !c.meetsTimeCond(res.ModTime) {
		closeRes(res)
		st.state.skip = true
		st.t.httpCode = http304
	}
}

// http304 is the status -w reports for a transfer -z skipped.
const http304 = 304

// stateCommit gives the output file of a transfer the remote time (-R)
// before it takes its name.
func (c *command) stateCommit(file *outfile.File, st *started) {
	if c.opts.httpState.remoteTime && !st.state.modTime.IsZero() {
		file.SetModTime(st.state.modTime)
	}
}

// writeWhole writes a file the run keeps, such as -c's cookie jar, whole
// or not at all: into a temporary file beside it, renamed over it once
// complete, so that a full disk or a signal leaves the earlier file as it
// was. A name that is not a regular file (/dev/stdout, a pipe) is written
// in place, as renaming over it would replace the device or pipe itself.
func writeWhole(name string, write func(io.Writer) (int64, error)) error {
	if fi, err := os.Stat(name); err == nil && !fi.Mode().IsRegular() {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return err
		}
		_, err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return err
	}
	_, err = write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
