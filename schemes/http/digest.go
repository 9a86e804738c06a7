package http

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/urlget/urlget/schemes"
)

// Authentication by challenge (RFC 9110 §11): the server's
// WWW-Authenticate (or a proxy's Proxy-Authenticate) read into its
// challenges, and the answer to the one urlget picks, Digest (RFC 7616)
// or Basic (RFC 7617).

// challenge is one challenge of an authenticate field: its scheme, lower
// case, and its parameters, names lower case (RFC 9110 §11.2).
type challenge struct {
	scheme string
	params map[string]string
}

// maxChallenges bounds how many challenges one response is read for: a
// server's field may be as long as the header allows.
const maxChallenges = 32

// parseChallenges reads the challenges of the authenticate field values vs
// (RFC 9110 §11.6.1): each a scheme, then a token68 or a comma-separated
// list of name=value parameters, the values tokens or quoted strings;
// several challenges may share one value, separated by commas. What does
// not parse ends the list: the challenges before it stand.
func parseChallenges(vs []string) []challenge {
	var out []challenge
	for _, v := range vs {
		p := authParser{s: v}
		for len(out) < maxChallenges {
			p.skipListSep()
			scheme := p.token()
			if scheme == "" {
				break
			}
			c := challenge{scheme: strings.ToLower(scheme), params: map[string]string{}}
			p.skipSpace()
			if p.token68() {
				out = append(out, c)
				continue
			}
			for {
				save := p.i
				p.skipListSep()
				name := p.token()
				p.skipSpace()
				if name == "" || !p.eat('=') {
					// The next challenge's scheme, or the end.
					p.i = save
					break
				}
				p.skipSpace()
				val, ok := p.value()
				if !ok {
					p.i = len(p.s)
					break
				}
				c.params[strings.ToLower(name)] = val
			}
			out = append(out, c)
		}
	}
	return out
}

// authParser reads an authenticate field value.
type authParser struct {
	s string
	i int
}

func (p *authParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *authParser) skipListSep() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}

func (p *authParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// token reads a token (RFC 9110 §5.6.2), "" when none starts here.
func (p *authParser) token() string {
	j := p.i
	for j < len(p.s) && isToken(p.s[j:j+1]) {
		j++
	}
	t := p.s[p.i:j]
	p.i = j
	return t
}

// token68 reads past a token68 (RFC 9110 §11.2), a credential in
// place of parameters, when one stands here, ended by a comma or the
// field's end; neither Digest nor Basic has one, so it is not kept.
func (p *authParser) token68() bool {
	j := p.i
	for j < len(p.s) && (isToken(p.s[j:j+1]) && p.s[j] != '=' || p.s[j] == '/') {
		j++
	}
	if j == p.i {
		return false
	}
	for j < len(p.s) && p.s[j] == '=' {
		j++
	}
	k := j
	for k < len(p.s) && (p.s[k] == ' ' || p.s[k] == '\t') {
		k++
	}
	if k < len(p.s) && p.s[k] != ',' {
		return false
	}
	p.i = j
	return true
}

// value reads a token or a quoted string (RFC 9110 §5.6.4), unescaping
// the latter's quoted pairs.
func (p *authParser) value() (string, bool) {
	if !p.eat('"') {
		t := p.token()
		return t, t != ""
	}
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch c {
		case '"':
			return b.String(), true
		case '\\':
			if p.i < len(p.s) {
				b.WriteByte(p.s[p.i])
				p.i++
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

// digestHash returns the hash an algorithm of RFC 7616 §3.2 names, and
// whether it is a -sess variant; nil for one urlget does not know.
func digestHash(alg string) (func() hash.Hash, bool) {
	base, sess := strings.CutSuffix(strings.ToUpper(alg), "-SESS")
	switch base {
	case "", "MD5":
		return md5.New, sess
	case "SHA-256":
		return sha256.New, sess
	case "SHA-512-256":
		return sha512.New512_256, sess
	}
	return nil, false
}

// pickChallenge returns the challenge to answer among cs, given the
// scheme the Fetcher asks for: Digest only for AuthDigest; Digest, else
// Basic for AuthAny, as curl's --anyauth picks the safest it supports.
// Among Digest challenges the first whose algorithm and qop urlget
// supports is taken: a server lists its preferred ones first (RFC 7616
// §3.7).
func pickChallenge(cs []challenge, want AuthScheme) (challenge, bool) {
	for _, c := range cs {
		if c.scheme != "digest" {
			continue
		}
		if h, _ := digestHash(c.params["algorithm"]); h == nil || c.params["nonce"] == "" {
			continue
		}
		if _, ok := digestQop(c.params["qop"]); !ok {
			continue
		}
		return c, true
	}
	if want == AuthAny {
		for _, c := range cs {
			if c.scheme == "basic" {
				return c, true
			}
		}
	}
	return challenge{}, false
}

// digestQop picks the quality of protection to use from the challenge's
// qop list: auth, else auth-int (a request of ours has no content, whose
// hash is then the empty string's), else none for a challenge of RFC
// 2069 that gives no qop.
func digestQop(list string) (string, bool) {
	if list == "" {
		return "", true
	}
	var authInt bool
	for _, q := range strings.Split(list, ",") {
		switch strings.TrimSpace(strings.ToLower(q)) {
		case "auth":
			return "auth", true
		case "auth-int":
			authInt = true
		}
	}
	if authInt {
		return "auth-int", true
	}
	return "", false
}

// answer is the credentials field value answering c for user, to a
// request of method for target (its request target, RFC 7616 §3.4's
// "uri").
func answer(c challenge, user *url.Userinfo, method, target string) string {
	if c.scheme == "basic" {
		return basicAuth(user)
	}
	newHash, sess := digestHash(c.params["algorithm"])
	h := func(s string) string {
		d := newHash()
		d.Write([]byte(s))
		return hex.EncodeToString(d.Sum(nil))
	}
	realm, nonce := c.params["realm"], c.params["nonce"]
	name := user.Username()
	password, _ := user.Password()
	qop, _ := digestQop(c.params["qop"])
	cnonce := newCnonce()
	const nc = "00000001"
	ha1 := h(name + ":" + realm + ":" + password)
	if sess {
		ha1 = h(ha1 + ":" + nonce + ":" + cnonce)
	}
	ha2 := h(method + ":" + target)
	if qop == "auth-int" {
		ha2 = h(method + ":" + target + ":" + h(""))
	}
	var response string
	if qop == "" {
		response = h(ha1 + ":" + nonce + ":" + ha2)
	} else {
		response = h(ha1 + ":" + nonce + ":" + nc + ":" + cnonce + ":" + qop + ":" + ha2)
	}
	userhash := strings.EqualFold(c.params["userhash"], "true")
	if userhash {
		// RFC 7616 §3.4.4: the user's name hashed with the realm.
		name = h(name + ":" + realm)
	}
	var b strings.Builder
	b.WriteString("Digest username=" + quote(name) + ", realm=" + quote(realm) + ", nonce=" + quote(nonce) + ", uri=" + quote(target))
	if qop != "" {
		b.WriteString(", cnonce=" + quote(cnonce) + ", nc=" + nc + ", qop=" + qop)
	}
	b.WriteString(", response=" + quote(response))
	if o, ok := c.params["opaque"]; ok {
		b.WriteString(", opaque=" + quote(o))
	}
	if alg := c.params["algorithm"]; alg != "" {
		b.WriteString(", algorithm=" + alg)
	}
	if userhash {
		b.WriteString(", userhash=true")
	}
	return b.String()
}

// newCnonce is a client nonce: 16 random bytes in hex (RFC 7616 §3.4).
func newCnonce() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// quote writes s as a quoted string (RFC 9110 §5.6.4), escaping '"' and
// '\'. A CR, LF or NUL a server's challenge put in a value is dropped: it
// would end the field.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r', '\n', 0:
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// authRoundTrip is roundTrip answering a challenge: a 401 when the
// Fetcher sends the user's credentials by Digest or the strongest scheme
// offered (AuthDigest, AuthAny), a 407 from the proxy of an http: request
// for the proxy's. The request goes again with the answer; the
// challenge's response is traced and reported as each response is (curl
// shows it under -i and -v). A second challenge is answered only when it
// says the nonce was stale (RFC 7616 §3.3).
func (f *Fetcher) authRoundTrip(ctx context.Context, req *schemes.Request, dialer schemes.Dialer, r *outRequest) (*response, error) {
	resp, err := f.roundTrip(ctx, req, dialer, r)
	for tries := 0; err == nil && tries < 2; tries++ {
		var field, answerField string
		var user *url.Userinfo
		var want AuthScheme
		switch {
		case resp.StatusCode == http.StatusUnauthorized && r.user != nil && f.Auth != AuthBasic:
			field, answerField, user, want = "Www-Authenticate", "Authorization", r.user, f.Auth
		case resp.StatusCode == http.StatusProxyAuthRequired && r.proxy != nil && r.url.Scheme == "http" &&
			r.proxy.User != nil && f.ProxyAuth != AuthBasic:
			field, answerField, user, want = "Proxy-Authenticate", "Proxy-Authorization", r.proxy.User, f.ProxyAuth
		default:
			return resp, nil
		}
		if tries == 0 && r.fields.get(answerField) != "" {
			// A field the user gave with -H: theirs stands.
			return resp, nil
		}
		c, ok := pickChallenge(parseChallenges(resp.Header[field]), want)
		if !ok || (tries > 0 && !strings.EqualFold(c.params["stale"], "true")) {
			return resp, nil
		}
		traceResponse(req.Trace, resp)
		if f.OnResponse != nil {
			f.OnResponse(responseHead(resp))
		}
		io.CopyN(io.Discard, resp.Body, drainLimit)
		resp.Body.Close()
		// The digest's uri is the origin form, through a proxy too, as
		// curl computes it.
		uri := r.rawTarget
		if uri == "" {
			uri = r.url.RequestURI()
		}
		r.fields.front(answerField, answer(c, user, r.method, uri))
		resp, err = f.roundTrip(ctx, req, dialer, r)
	}
	return resp, err
}
