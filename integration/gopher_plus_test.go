package integration

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/integration/gophertest"
	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/schemes/gopher"
)

func gopherPlusServer(t *testing.T) *gophertest.Server {
	t.Helper()
	item := &gophertest.PlusItem{
		Info:     gophertest.Item{Type: '0', Display: "A Gopher+ item", Selector: "/plus", Plus: "+"},
		Abstract: "What this item is about.",
		Views: []gophertest.View{
			{Name: "text/plain", Data: []byte("Plain text\r\n.not a terminator\r\nline 3\r\n")},
			{Name: "application/postscript Es_ES", Data: []byte("%!PS\r\n.\r\nbinary view")},
		},
	}
	form := &gophertest.PlusItem{
		Info: gophertest.Item{Type: '0', Display: "A form", Selector: "/form", Plus: "?"},
		Ask:  []string{"Ask: Your name?", "Ask: Your age?"},
		Asked: func(v []string) (string, bool) {
			if len(v) != 3 || v[0] != "+-1" {
				return "", false
			}
			return "Hello " + v[1] + ", aged " + v[2] + ".\n", true
		},
	}
	mux := gophertest.NewMux()
	mux.Handle("/plus", item)
	mux.Handle("/form", form)
	mux.Handle("/dir", gophertest.HandlerFunc(func(w io.Writer, r *gophertest.Request) {
		if r.Plus == "$" {
			io.WriteString(w, "+-1\r\n"+item.Attributes(r.Host, r.Port, "")+"")
			return
		}
		gophertest.Menu(item.Info, form.Info, gophertest.Item{Type: '1', Display: "Old-style", Selector: "/old"}).ServeGopher(w, r)
	}))
	mux.Handle("/search", gophertest.Search(func(terms string) []gophertest.Item {
		return []gophertest.Item{{Type: '0', Display: "found " + terms, Selector: "/plus", Plus: "+"}}
	}))
	mux.Handle("/gopher0", gophertest.Raw([]byte("a Gopher0 server\r\n.\r\n")))
	mux.Handle("/busy", gophertest.PlusError(2, "Server busy, try again later"))
	mux.Handle("/moved", gophertest.PlusError(3, "Item has moved\r\n0Moved\t/new\tother.example\t70"))
	return gopherServer(t, mux)
}

func TestGopherPlusViews(t *testing.T) {
	s := gopherPlusServer(t)
	var f gopher.Fetcher

	// RFC 1738 §3.4.4: "+" is the default view.
	res := mustFetch(t, &f, gopherRequest(t, s.URL+"/0/plus%09%09+"))
	gopherSent(t, s, "/plus\t+\r\n")
	if got, want := string(readBody(t, res)), "Plain text\n.not a terminator\nline 3\n"; got != want {
		t.Errorf("default view = %q, want %q", got, want)
	}

	// RFC 1738 §3.4.8: an alternate view and language, sent as given.
	res = mustFetch(t, &f, gopherRequest(t, s.URL+"/0/plus%09%09+application/postscript%20Es_ES"))
	gopherSent(t, s, "/plus\t+application/postscript Es_ES\r\n")
	if got, want := string(readBody(t, res)), "%!PS\r\n.\r\nbinary view"; got != want {
		t.Errorf("alternate view = %q, want %q", got, want)
	}
	if res.ContentType != "application/postscript" || res.Size != int64(len("%!PS\r\n.\r\nbinary view")) {
		t.Errorf("alternate view ContentType %q Size %d", res.ContentType, res.Size)
	}

	// A view the item does not have: the "--1" error block, code 1.
	_, err := f.Fetch(testCtx(t), gopherRequest(t, s.URL+"/0/plus%09%09+image/gif"))
	if !errors.Is(err, schemes.ErrNotFound) || !strings.Contains(err.Error(), "No view image/gif") {
		t.Errorf("missing view: err = %v", err)
	}
}

func TestGopherPlusAttributes(t *testing.T) {
	s := gopherPlusServer(t)
	var f gopher.Fetcher

	// RFC 1738 §3.4.6: "!" asks for all of an item's attributes.
	body := string(readBody(t, mustFetch(t, &f, gopherRequest(t, s.URL+"/0/plus%09%09!"))))
	gopherSent(t, s, "/plus\t!\r\n")
	for _, want := range []string{"+INFO: 0A Gopher+ item\t/plus\t", "+ABSTRACT:\n What this item is about.\n", "+VIEWS:\n text/plain: <1k>\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("attributes lack %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "\r") || strings.HasSuffix(body, ".\n") {
		t.Errorf("attributes not decoded as text: %q", body)
	}

	// RFC 1738 §3.4.7: named attributes.
	body = string(readBody(t, mustFetch(t, &f, gopherRequest(t, s.URL+"/0/plus%09%09!+ABSTRACT%20+VIEWS"))))
	gopherSent(t, s, "/plus\t!+ABSTRACT +VIEWS\r\n")
	if strings.Contains(body, "+INFO") || !strings.Contains(body, "+ABSTRACT") || !strings.Contains(body, "+VIEWS") {
		t.Errorf("named attributes = %q", body)
	}

	// "$": the attributes of every item of a directory.
	res := mustFetch(t, &f, gopherRequest(t, s.URL+"/1/dir%09%09$"))
	gopherSent(t, s, "/dir\t$\r\n")
	if body := string(readBody(t, res)); !strings.Contains(body, "+INFO: 0A Gopher+ item") {
		t.Errorf("directory attributes = %q", body)
	}
}

func TestGopherPlusMenuAndSearch(t *testing.T) {
	s := gopherPlusServer(t)
	var f gopher.Fetcher

	es := readEntries(t, mustFetch(t, &f, gopherRequest(t, s.URL+"/1/dir%09%09+")))
	gopherSent(t, s, "/dir\t+\r\n")
	if len(es) != 3 || es[0].Fields["gopher+"] != "+" || es[1].Fields["gopher+"] != "?" || es[2].Fields["gopher+"] != "" {
		t.Errorf("Gopher+ menu = %+v", es)
	}

	// A Gopher+ search sends selector, terms and the Gopher+ string.
	es = readEntries(t, mustFetch(t, &f, gopherRequest(t, s.URL+"/7/search%09gold%09+")))
	gopherSent(t, s, "/search\tgold\t+\r\n")
	if len(es) != 1 || es[0].Name != "found gold" {
		t.Errorf("Gopher+ search = %+v", es)
	}
}

func TestGopherPlusAskForm(t *testing.T) {
	s := gopherPlusServer(t)
	var f gopher.Fetcher

	// RFC 1738 §3.4.9: the ASK string is sent exactly as the URL encodes it.
	u := s.URL + "/0/form%09%09+%091%0D%0A+-1%0D%0AJane%20Doe%0D%0A42%0D%0A.%0D%0A"
	body := readBody(t, mustFetch(t, &f, gopherRequest(t, u)))
	gopherSent(t, s, "/form\t+\t1\r\n+-1\r\nJane Doe\r\n42\r\n.\r\n")
	if string(body) != "Hello Jane Doe, aged 42.\n" {
		t.Errorf("form reply = %q", body)
	}
	// The form's questions, as the "!" attributes give them.
	attrs := string(readBody(t, mustFetch(t, &f, gopherRequest(t, s.URL+"/0/form%09%09!"))))
	if !strings.Contains(attrs, "+ASK:\n Ask: Your name?\n Ask: Your age?\n") {
		t.Errorf("ASK block = %q", attrs)
	}
}

func TestGopherPlusErrorsAndFallback(t *testing.T) {
	s := gopherPlusServer(t)
	var f gopher.Fetcher

	_, err := f.Fetch(testCtx(t), gopherRequest(t, s.URL+"/0/busy%09%09+"))
	if !errors.Is(err, schemes.ErrNotRetrievable) || !schemes.IsTemporary(err) || !strings.Contains(err.Error(), "Server busy") {
		t.Errorf("code 2: err = %v (temporary %v)", err, schemes.IsTemporary(err))
	}
	_, err = f.Fetch(testCtx(t), gopherRequest(t, s.URL+"/0/moved%09%09+"))
	if !errors.Is(err, schemes.ErrNotFound) || !strings.Contains(err.Error(), "other.example") {
		t.Errorf("code 3: err = %v", err)
	}
	_, err = f.Fetch(testCtx(t), gopherRequest(t, s.URL+"/9/nothing%09%09+"))
	if !errors.Is(err, schemes.ErrNotFound) {
		t.Errorf("missing Gopher+ item: err = %v", err)
	}
	// A Gopher0 server answers without a header; the reply is still read.
	body := readBody(t, mustFetch(t, &f, gopherRequest(t, s.URL+"/0/gopher0%09%09+")))
	if string(body) != "a Gopher0 server\n" {
		t.Errorf("Gopher0 fallback = %q", body)
	}
}

// TestGopherPlusMenuAttributes asks a Gopher+ menu for its items'
// attributes (Gopher+ §2.6, "selector TAB $"): every entry carries its
// time from +ADMIN's Mod-Date, its size where +VIEWS gives it in bytes
// (not where it gives rounded kilobytes, nor for a menu) and its abstract.
// A server that answers "$" with a plain menu is asked again plainly, and
// from then on only plainly.
func TestGopherPlusMenuAttributes(t *testing.T) {
	mod := time.Date(2022, 5, 6, 7, 8, 9, 0, time.UTC)
	text := &gophertest.PlusItem{
		Info:     gophertest.Item{Type: '0', Display: "Notes", Selector: "/notes.txt", Plus: "+"},
		Abstract: "Notes on\nthings.",
		Views:    []gophertest.View{{Name: "text/plain", Data: []byte("12345\r\n")}},
		ModDate:  mod, ExactSizes: true,
	}
	bin := &gophertest.PlusItem{
		Info:    gophertest.Item{Type: '9', Display: "Image", Selector: "/img.bin", Plus: "+"},
		Views:   []gophertest.View{{Name: "application/octet-stream", Data: make([]byte, 3000)}},
		ModDate: mod.Add(time.Hour),
	}
	sub := &gophertest.PlusItem{
		Info:    gophertest.Item{Type: '1', Display: "Sub", Selector: "/sub", Plus: "+"},
		Views:   []gophertest.View{{Name: "application/gopher+-menu", Data: []byte("menu")}},
		ModDate: mod, ExactSizes: true,
	}
	mux := gophertest.NewMux()
	mux.Handle("/dir", gophertest.PlusMenu(text, bin, sub))
	s := gopherServer(t, mux)
	f := gopher.Fetcher{Attributes: true}
	req := gopherRequest(t, s.URL+"/1/dir")
	es := readEntries(t, mustFetch(t, &f, req))
	gopherSent(t, s, "/dir\t$\r\n")
	type want struct {
		url   string
		kind  schemes.Kind
		size  int64
		mod   time.Time
		descr string
	}
	wants := []want{
		{s.URL + "/0/notes.txt", schemes.KindFile, 7, mod, "Notes on things."},
		{s.URL + "/9/img.bin", schemes.KindFile, -1, mod.Add(time.Hour), ""},
		{s.URL + "/1/sub", schemes.KindDirectory, -1, mod, ""},
	}
	if len(es) != len(wants) {
		t.Fatalf("%d entries, want %d: %+v", len(es), len(wants), es)
	}
	for i, w := range wants {
		e := es[i]
		if e.URL != w.url || e.Kind != w.kind || e.Size != w.size || !e.ModTime.Equal(w.mod) || e.Description != w.descr || e.Fields["gopher+"] != "+" {
			t.Errorf("entry %d = %+v; want %+v", i, e, w)
		}
	}
	if v := es[1].Fields["view"]; v != "application/octet-stream: <3k>" {
		t.Errorf("view of the image = %q", v)
	}

	// Without the opt-in the menu is asked for plainly.
	var plainF gopher.Fetcher
	es = readEntries(t, mustFetch(t, &plainF, gopherRequest(t, s.URL+"/1/dir")))
	gopherSent(t, s, "/dir\r\n")
	if len(es) != 3 || !es[0].ModTime.IsZero() || es[0].Size != -1 {
		t.Errorf("plain menu = %+v", es)
	}

	plain := gophertest.Item{Type: '0', Display: "Plain", Selector: "/plain.txt", Host: "127.0.0.1", Port: "70"}
	for _, tc := range []struct {
		name string
		menu gophertest.Handler
	}{
		// gophernicus takes "$" for search terms and sends the menu.
		{"gopher0", gophertest.Raw([]byte(plain.Line("", "") + ".\r\n"))},
		// A Gopher+ header, but a plain menu after it.
		{"no-info", gophertest.Menu(plain)},
		// Attributes of the menu itself, as gophernicus gives for the
		// empty selector only.
		{"itself", gophertest.HandlerFunc(func(w io.Writer, r *gophertest.Request) {
			if r.Plus != "$" {
				gophertest.Menu(plain).ServeGopher(w, r)
				return
			}
			io.WriteString(w, "+-1\r\n+INFO: 1Main menu\t"+r.Selector+"\t"+r.Host+"\t"+r.Port+"\r\n+VIEWS:\r\n application/gopher+-menu: <512b>\r\n.\r\n")
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mux := gophertest.NewMux()
			mux.Handle("/m", tc.menu)
			mux.Handle("/n", tc.menu)
			s := gopherServer(t, mux)
			f := gopher.Fetcher{Attributes: true}
			for _, sel := range []string{"/m", "/n"} {
				req := gopherRequest(t, s.URL+"/1"+sel)
				es := readEntries(t, mustFetch(t, &f, req))
				if len(es) != 1 || es[0].Name != "Plain" || es[0].URL != "gopher://127.0.0.1/0/plain.txt" {
					t.Errorf("%s: entries %+v", sel, es)
				}
			}
			var got []string
			for _, r := range s.Requests() {
				got = append(got, string(r.Raw))
			}
			if want := []string{"/m\t$\r\n", "/m\r\n", "/n\r\n"}; strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("requests %q, want %q", got, want)
			}
		})
	}
}
