package integration

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/textproto"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/news"
	"github.com/urlget/urlget/uri"
)

// innAddr returns the address of the INN instance .ci/servers/inn.sh
// started (see realServer for when it is missing).
func innAddr(t *testing.T, env string) string {
	t.Helper()
	return realServer(t, env)[0]
}

// innArticle is an article the test posts to INN.
type innArticle struct {
	id     string // message-id without <>
	header [][2]string
	body   string // LF line ends
}

// innPost feeds articles to innd with IHAVE (RFC 3977 §6.3.2), as a peer
// would.
func innPost(t *testing.T, addr string, articles []innArticle) {
	t.Helper()
	c, err := textproto.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("connect to innd: %v", err)
	}
	defer c.Close()
	if _, _, err := c.ReadCodeLine(200); err != nil {
		t.Fatalf("innd greeting: %v", err)
	}
	for _, a := range articles {
		if err := c.PrintfLine("IHAVE <%s>", a.id); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.ReadCodeLine(335); err != nil {
			t.Fatalf("IHAVE <%s>: %v", a.id, err)
		}
		w := c.DotWriter()
		bw := bufio.NewWriter(w)
		for _, f := range a.header {
			fmt.Fprintf(bw, "%s: %s\n", f[0], f[1])
		}
		fmt.Fprintf(bw, "Message-ID: <%s>\n\n%s", a.id, a.body)
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.ReadCodeLine(235); err != nil {
			t.Fatalf("article <%s> not taken: %v", a.id, err)
		}
	}
	c.PrintfLine("QUIT")
}

// innArticles makes this run's articles: leading dots, a long body,
// non-ASCII headers both raw (RFC 6532) and encoded (RFC 2047).
func innArticles(group string) []innArticle {
	var b [6]byte
	rand.Read(b[:])
	run := hex.EncodeToString(b[:])
	date := time.Now().UTC().Format(time.RFC1123Z)
	head := func(subject, from string) [][2]string {
		return [][2]string{
			{"Path", "urlget!not-for-mail"},
			{"From", from},
			{"Newsgroups", group},
			{"Subject", subject},
			{"Date", date},
		}
	}
	var long strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&long, "%05d %s\n", i, strings.Repeat("long body line ", 5))
		if i%1000 == 0 {
			long.WriteString(".dot line in a long body\n")
		}
	}
	return []innArticle{
		{id: "dots." + run + "@urlget.test", header: head("dots "+run, "Ann <ann@urlget.test>"),
			body: ".leading dot\n..two leading dots\n.\n. \nno dot\n"},
		{id: "utf8." + run + "@urlget.test", header: head("Grüße aus Köln "+run, "=?UTF-8?Q?J=C3=B6rg?= <joerg@urlget.test>"),
			body: "Raw UTF-8 subject, encoded author.\nÄÖÜ in the body too.\n"},
		{id: "long." + run + "@urlget.test", header: head("long "+run, "Bo <bo@urlget.test>"),
			body: long.String()},
	}
}

// innCheckArticle compares a fetched article with the posted one: the body
// byte for byte, every posted header field but Path (which INN extends).
func innCheckArticle(t *testing.T, got string, a innArticle) {
	t.Helper()
	head, body, ok := strings.Cut(got, "\n\n")
	if !ok {
		t.Fatalf("<%s>: no empty line after the header: %.200q", a.id, got)
	}
	if body != a.body {
		t.Errorf("<%s>: body differs (%d bytes, want %d): %.200q", a.id, len(body), len(a.body), body)
	}
	for _, f := range append(a.header, [2]string{"Message-ID", "<" + a.id + ">"}) {
		if f[0] == "Path" {
			continue
		}
		if !strings.Contains("\n"+head+"\n", "\n"+f[0]+": "+f[1]+"\n") {
			t.Errorf("<%s>: header lacks %s: %s\n%s", a.id, f[0], f[1], head)
		}
	}
}

func TestNewsINN(t *testing.T) {
	addr := innAddr(t, "URLGET_INN_ADDR")
	const group = "urlget.test"
	posted := innArticles(group)
	innPost(t, addr, posted)
	f := newsFetcherWith(t, &news.Fetcher{Server: addr, MaxArticles: len(posted)})

	// news:<message-id>
	for _, a := range posted {
		got := newsFetchBody(t, f, newsRequest(t, "news:"+uri.EscapeSegment(a.id)))
		innCheckArticle(t, got, a)
	}

	// The same, pipelined (RFC 3977 §3.5) as a run of the command does:
	// each request told of those after it, a missing one in the middle.
	urls := []string{}
	for _, a := range posted {
		urls = append(urls, "news:"+uri.EscapeSegment(a.id), "news:absent."+uri.EscapeSegment(a.id))
	}
	reqs := expectRun(t, f, urls, nil)
	for i, u := range urls {
		res, err := f.Fetch(context.Background(), reqs[i])
		if i%2 == 1 {
			if !errors.Is(err, schemes.ErrNotFound) {
				t.Errorf("pipelined %s: %v, want not found", u, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("pipelined %s: %v", u, err)
		}
		innCheckArticle(t, string(readBody(t, res)), posted[i/2])
	}

	// news:<group>: this run's articles are the newest.
	entries := newsFetchListing(t, f, newsRequest(t, "news:"+group))
	if len(entries) != len(posted) {
		t.Fatalf("%d entries, want %d: %+v", len(entries), len(posted), entries)
	}
	for i, e := range entries {
		a := posted[i]
		if e.URL != "news:"+a.id || e.Name != a.header[3][1] || e.Kind != schemes.KindArticle || e.Size <= int64(len(a.body)) ||
			e.Fields["message-id"] != "<"+a.id+">" || e.ModTime.IsZero() {
			t.Errorf("entry %d: %+v", i, e)
		}
		if i == 1 && e.Fields["author"] != "Jörg <joerg@urlget.test>" {
			t.Errorf("encoded author not decoded: %q", e.Fields["author"])
		}
		// Each entry's URL fetches what was posted.
		innCheckArticle(t, newsFetchBody(t, f, newsRequest(t, e.URL)), a)
	}

	// nntp://host:port/group and nntp://host:port/group/number.
	base := "nntp://" + addr + "/" + group
	nentries := newsFetchListing(t, f, newsRequest(t, base))
	if len(nentries) != len(posted) {
		t.Fatalf("nntp listing: %d entries, want %d", len(nentries), len(posted))
	}
	for i, e := range nentries {
		if want := base + "/" + entries[i].Fields["number"]; e.URL != want {
			t.Errorf("nntp entry %d URL %q, want %q", i, e.URL, want)
		}
		innCheckArticle(t, newsFetchBody(t, f, newsRequest(t, e.URL)), posted[i])
	}

	// news:* has the test groups, described from LIST NEWSGROUPS.
	all := newsFetchListing(t, f, newsRequest(t, "news:*"))
	found := map[string]schemes.Entry{}
	for _, e := range all {
		found[e.Name] = e
	}
	for _, g := range strings.Fields(os.Getenv("URLGET_INN_GROUPS")) {
		if _, ok := found[g]; !ok {
			t.Errorf("news:* lacks %s", g)
		}
	}
	if e := found[group]; e.URL != "news:"+group || e.Description != "urlget integration tests" || e.Kind != schemes.KindDirectory {
		t.Errorf("news:* entry for %s: %+v", group, e)
	}
	if e := found["urlget.test.moderated"]; e.Fields["status"] != "m" {
		t.Errorf("moderated group entry %+v", e)
	}

	// -I on an article: INN's header, in its order.
	req := newsRequest(t, "news:"+posted[0].id)
	req.Head = true
	res, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Header) < 5 || res.Body != nil || res.ModTime.IsZero() {
		t.Errorf("head %+v", res)
	}

	// Errors map to the taxonomy.
	for _, u := range []string{"news:absent." + posted[0].id, "news:urlget.no.such.group", base + "/999999999", "nntp://" + addr + "/urlget.no.such.group"} {
		_, err := f.Fetch(context.Background(), newsRequest(t, u))
		if !errors.Is(err, schemes.ErrNotFound) {
			t.Errorf("%s: %v, want not found", u, err)
		}
	}
	empty := newsFetchListing(t, f, newsRequest(t, "news:urlget.test.empty"))
	if len(empty) != 0 {
		t.Errorf("empty group lists %+v", empty)
	}
}

func TestNewsINNAuthinfo(t *testing.T) {
	feed := innAddr(t, "URLGET_INN_ADDR")
	env := realServer(t, "URLGET_INN_AUTH_ADDR", "URLGET_INN_USER", "URLGET_INN_PASSWORD")
	addr, user, pass := env[0], env[1], env[2]
	posted := innArticles("urlget.test")[:1]
	innPost(t, feed, posted)

	req := newsRequest(t, "nntp://"+addr+"/urlget.test")
	req.User = url.UserPassword(user, pass)
	entries := newsFetchListing(t, newsFetcherWith(t, &news.Fetcher{MaxArticles: 1}), req)
	if len(entries) != 1 || entries[0].Fields["message-id"] != "<"+posted[0].id+">" {
		t.Fatalf("entries %+v", entries)
	}
	req = newsRequest(t, "news:"+posted[0].id)
	req.User = url.UserPassword(user, pass)
	innCheckArticle(t, newsFetchBody(t, newsFetcherWith(t, &news.Fetcher{Server: addr}), req), posted[0])

	for _, tc := range []struct {
		user, pass string
		has        bool
	}{{"", "", false}, {user, "wrong", true}} {
		req := newsRequest(t, "news:"+posted[0].id)
		if tc.has {
			req.User = url.UserPassword(tc.user, tc.pass)
		}
		_, err := newsFetcherWith(t, &news.Fetcher{Server: addr}).Fetch(context.Background(), req)
		if !errors.Is(err, schemes.ErrLoginFailed) {
			t.Errorf("user %q: %v, want login failed", tc.user, err)
		}
	}
}

// TestNewsINNRange lists this run's articles on INN by number range
// (nntp://host/group/first-last and news:group/first-last, as Lynx takes
// them): MaxArticles does not cut an explicit range, and every entry
// carries its group and number.
func TestNewsINNRange(t *testing.T) {
	addr := innAddr(t, "URLGET_INN_ADDR")
	const group = "urlget.test"
	posted := innArticles(group)
	innPost(t, addr, posted)
	newest := newsFetchListing(t, newsFetcherWith(t, &news.Fetcher{Server: addr, MaxArticles: len(posted)}), newsRequest(t, "news:"+group))
	if len(newest) != len(posted) {
		t.Fatalf("%d entries, want %d", len(newest), len(posted))
	}
	first, last := newest[0].Fields["number"], newest[len(newest)-1].Fields["number"]
	base := "nntp://" + addr + "/" + group
	// A range is explicit: MaxArticles does not cut it.
	f := newsFetcherWith(t, &news.Fetcher{Server: addr, MaxArticles: 1})
	for _, u := range []string{base + "/" + first + "-" + last, "news:" + group + "/" + first + "-" + last, base + "/" + first + "-"} {
		es := newsFetchListing(t, f, newsRequest(t, u))
		if len(es) != len(posted) {
			t.Fatalf("%s: %d entries, want %d: %+v", u, len(es), len(posted), es)
		}
		for i, e := range es {
			if e.Fields["number"] != newest[i].Fields["number"] || e.Fields["group"] != group || e.Fields["message-id"] != "<"+posted[i].id+">" {
				t.Errorf("%s entry %d: %+v", u, i, e)
			}
			if strings.HasPrefix(u, "nntp:") && e.URL != base+"/"+e.Fields["number"] {
				t.Errorf("%s entry %d URL %s", u, i, e.URL)
			}
		}
	}
}
