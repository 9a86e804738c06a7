package http

import (
	"encoding/hex"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// TestParseChallenges: the challenges of RFC 9110 §11.6.1's examples and
// their harder forms: several in one field, quoted strings with escapes
// and commas, a token68, names in any case, and what does not parse.
func TestParseChallenges(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []challenge
	}{
		{[]string{`Basic realm="simple"`}, []challenge{{"basic", map[string]string{"realm": "simple"}}}},
		{[]string{`Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple"`}, []challenge{
			{"newauth", map[string]string{"realm": "apps", "type": "1", "title": `Login to "apps"`}},
			{"basic", map[string]string{"realm": "simple"}}}},
		{[]string{`Negotiate abc+/==, DIGEST Realm="a,b", NONCE=xyz, qop="auth,auth-int"`}, []challenge{
			{"negotiate", map[string]string{}},
			{"digest", map[string]string{"realm": "a,b", "nonce": "xyz", "qop": "auth,auth-int"}}}},
		{[]string{`Basic`, `Digest realm="r"`}, []challenge{{"basic", map[string]string{}}, {"digest", map[string]string{"realm": "r"}}}},
		{[]string{`Digest realm="unterminated`}, []challenge{{"digest", map[string]string{}}}},
		{[]string{`, ,`, `@bad`}, nil},
	} {
		if got := parseChallenges(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %v\nwant %v", tc.in, got, tc.want)
		}
	}
}

// TestPickChallenge: Digest with a known algorithm and qop first, in the
// server's order; Basic only for AuthAny.
func TestPickChallenge(t *testing.T) {
	cs := parseChallenges([]string{`Basic realm="b", Digest realm="x", nonce="1", algorithm=SHA-999, Digest realm="y", nonce="2", qop="auth-conf", Digest realm="z", nonce="3", algorithm=SHA-256`})
	if c, ok := pickChallenge(cs, AuthDigest); !ok || c.params["realm"] != "z" {
		t.Errorf("picked %v %v", c, ok)
	}
	basicOnly := parseChallenges([]string{`Basic realm="b"`})
	if _, ok := pickChallenge(basicOnly, AuthDigest); ok {
		t.Error("--digest picked Basic")
	}
	if c, ok := pickChallenge(basicOnly, AuthAny); !ok || c.scheme != "basic" {
		t.Errorf("--anyauth picked %v %v", c, ok)
	}
}

// TestDigestAnswer checks the answer to RFC 7616 §3.9.1's example, cnonce
// aside (it is random): the same response for the cnonce it used.
func TestDigestAnswer(t *testing.T) {
	c := parseChallenges([]string{`Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`})[0]
	a := answer(c, url.UserPassword("Mufasa", "Circle of Life"), "GET", "/dir/index.html")
	p := map[string]string{}
	for _, kv := range strings.Split(strings.TrimPrefix(a, "Digest "), ", ") {
		k, v, _ := strings.Cut(kv, "=")
		p[k] = strings.Trim(v, `"`)
	}
	if p["cnonce"] == "" || p["qop"] != "auth" || p["nc"] != "00000001" || p["algorithm"] != "SHA-256" || p["uri"] != "/dir/index.html" {
		t.Fatalf("answer %s", a)
	}
	// Recompute with the RFC's cnonce: its response is the RFC's.
	c.params["cnonce"] = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
	ha1 := sha256hex("Mufasa:http-auth@example.org:Circle of Life")
	ha2 := sha256hex("GET:/dir/index.html")
	resp := sha256hex(ha1 + ":" + c.params["nonce"] + ":00000001:" + c.params["cnonce"] + ":auth:" + ha2)
	if resp != "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1" {
		t.Errorf("the RFC's response is %s here", resp)
	}
}

func sha256hex(s string) string {
	h, _ := digestHash("SHA-256")
	d := h()
	d.Write([]byte(s))
	return hex.EncodeToString(d.Sum(nil))
}

// FuzzDigestChallenge reads a server's authenticate field as a challenge
// and answers it: nothing a server sends may panic, loop, or put a CR, LF
// or NUL into the answer, which would end the field and smuggle another.
func FuzzDigestChallenge(f *testing.F) {
	for _, s := range []string{
		`Digest realm="r", nonce="n", qop="auth", algorithm=MD5`,
		`Digest realm="r", nonce="n", qop="auth-int", algorithm=SHA-256-sess, userhash=true, opaque="o"`,
		`Basic realm="x", Digest realm="a\"b", nonce=abc`,
		`Negotiate abc==, Digest nonce="x\r\ny", qop=auth`,
		`Digest realm="unterminated`,
		`,,,Digest ,=,realm==`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		cs := parseChallenges([]string{v})
		if len(cs) > maxChallenges {
			t.Fatalf("%d challenges", len(cs))
		}
		for _, want := range []AuthScheme{AuthDigest, AuthAny} {
			c, ok := pickChallenge(cs, want)
			if !ok {
				continue
			}
			a := answer(c, url.UserPassword("u", "p"), "GET", "/x")
			if strings.ContainsAny(a, "\r\n\x00") {
				t.Fatalf("answer %q holds a CR, LF or NUL", a)
			}
			if !strings.HasPrefix(a, "Digest username=") && !strings.HasPrefix(a, "Basic ") {
				t.Fatalf("answer %q", a)
			}
		}
	})
}
