package fetch

import (
	"context"
	"net/url"
	"testing"

	"github.com/urlget/urlget/schemes"
	"github.com/urlget/urlget/uri"
)

// TestCredentialsBelongToStartOrigin: what the user gave for a start URL
// (-u, the start URL's userinfo, -H Authorization and Cookie, a .netrc
// default entry) reaches only that URL's scheme, host and port, whatever
// link a recursion followed, unless LocationTrusted; a .netrc machine
// entry serves its own host (and port or scheme, where it names them) for
// every URL.
func TestCredentialsBelongToStartOrigin(t *testing.T) {
	netrc, err := ParseNetrc(`machine b.test login bob password bobpw
machine c.test:8021 login carol password carolpw
machine ftp://d.test login dan password danpw
machine bücher.example login idn password idnpw
default login dave password davepw
`)
	if err != nil {
		t.Fatal(err)
	}
	u := func(s string) uri.URL { return uri.MustParse(s) }
	type want struct {
		user, pass string
		hasUser    bool
	}
	cases := []struct {
		name    string
		client  *Client
		url     string
		start   string
		want    want
		headers bool // the fetcher's Authorization and Cookie fields are sent (not Foreign)
	}{
		{"-u, the start itself", &Client{User: url.UserPassword("alice", "secret")}, "http://a.test/x", "", want{"alice", "secret", true}, true},
		{"-u, a link on the start's origin", &Client{User: url.UserPassword("alice", "secret")}, "HTTP://A.TEST:80/y", "http://a.test/", want{"alice", "secret", true}, true},
		{"-u, another port", &Client{User: url.UserPassword("alice", "secret")}, "http://a.test:8080/", "http://a.test/", want{}, false},
		{"-u, another scheme", &Client{User: url.UserPassword("alice", "secret")}, "ftp://a.test/", "http://a.test/", want{}, false},
		{"-u, https twin", &Client{User: url.UserPassword("alice", "secret")}, "https://a.test/", "http://a.test/", want{}, false},
		{"-u, another host", &Client{User: url.UserPassword("alice", "secret")}, "http://evil.test/", "http://a.test/", want{}, false},
		{"-u, a subdomain", &Client{User: url.UserPassword("alice", "secret")}, "http://x.a.test/", "http://a.test/", want{}, false},
		{"-u, trusted", &Client{User: url.UserPassword("alice", "secret"), LocationTrusted: true}, "ftp://evil.test/", "http://a.test/", want{"alice", "secret", true}, true},
		{"start userinfo, same origin", &Client{}, "http://a.test/y", "http://alice:secret@a.test/", want{"alice", "secret", true}, true},
		{"start userinfo, a link naming the user", &Client{}, "http://alice@a.test/y", "http://alice:secret@a.test/", want{"alice", "secret", true}, true},
		{"start userinfo, another host naming the user", &Client{}, "http://alice@evil.test/", "http://alice:secret@a.test/", want{"alice", "", true}, false},
		{"start userinfo, another port", &Client{}, "http://a.test:81/", "http://alice:secret@a.test/", want{}, false},
		{"start userinfo, trusted", &Client{LocationTrusted: true}, "http://evil.test/", "http://alice:secret@a.test/", want{"alice", "secret", true}, true},
		{"a link's own userinfo", &Client{User: url.UserPassword("alice", "secret")}, "http://eve:evepw@evil.test/", "http://a.test/", want{"eve", "evepw", true}, false},
		{"netrc default, start", &Client{Netrc: netrc}, "http://a.test/", "", want{"dave", "davepw", true}, true},
		{"netrc default, another host", &Client{Netrc: netrc}, "http://evil.test/", "http://a.test/", want{}, false},
		{"netrc machine, another host", &Client{Netrc: netrc}, "http://B.test/", "http://a.test/", want{"bob", "bobpw", true}, false},
		{"netrc machine with port", &Client{Netrc: netrc}, "ftp://c.test:8021/", "http://a.test/", want{"carol", "carolpw", true}, false},
		{"netrc machine with port, other port", &Client{Netrc: netrc}, "ftp://c.test/", "http://a.test/", want{}, false},
		{"netrc machine with scheme", &Client{Netrc: netrc}, "ftp://d.test:2121/", "http://a.test/", want{"dan", "danpw", true}, false},
		{"netrc machine with scheme, other scheme", &Client{Netrc: netrc}, "http://d.test/", "http://a.test/", want{}, false},
		{"netrc machine in Unicode", &Client{Netrc: netrc}, "http://xn--bcher-kva.example/", "http://a.test/", want{"idn", "idnpw", true}, false},
		{"-u wins over netrc at home", &Client{Netrc: netrc, User: url.UserPassword("alice", "secret")}, "http://b.test/", "", want{"alice", "secret", true}, true},
		{"away, netrc machine, not -u", &Client{Netrc: netrc, User: url.UserPassword("alice", "secret")}, "http://b.test/", "http://a.test/", want{"bob", "bobpw", true}, false},
	}
	for _, tc := range cases {
		f := &stubFetcher{fn: func(ctx context.Context, req *schemes.Request, _ int) (*schemes.Resource, error) {
			return bodyResource(""), nil
		}}
		c := tc.client
		c.Prompt = func(string) (string, error) { return "typed", nil }
		c.Fetchers = map[string]schemes.Fetcher{"http": f, "https": f, "ftp": f}
		r := Request{URL: u(tc.url)}
		if tc.start != "" {
			r.Start = u(tc.start)
		}
		if _, err := c.Do(context.Background(), r); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := f.last.Load()
		gotPass, _ := got.User.Password()
		if got.User.Username() != tc.want.user || gotPass != tc.want.pass || (got.User != nil) != tc.want.hasUser {
			t.Errorf("%s: credentials %v, want %q:%q (%v)", tc.name, got.User, tc.want.user, tc.want.pass, tc.want.hasUser)
		}
		if sent := !got.Foreign; sent != tc.headers {
			t.Errorf("%s: credential fields sent (not Foreign) %v, want %v", tc.name, sent, tc.headers)
		}
		if home := tc.headers; (got.Prompt != nil) != home {
			t.Errorf("%s: Prompt passed on %v, want %v (only for the start's origin)", tc.name, got.Prompt != nil, home)
		}
		if got.LocationTrusted != tc.client.LocationTrusted {
			t.Errorf("%s: LocationTrusted not passed on", tc.name)
		}
	}
}
