package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestParseJSONRebuildsURL checks, over the URL corpus, that every line
// urlget parse prints is a JSON object whose components, put back together
// by RFC 3986 §5.3, give the URL again.
func TestParseJSONRebuildsURL(t *testing.T) {
	f, err := os.Open("../../testdata/uri/corpus.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		in := sc.Text()
		if in == "" || strings.HasPrefix(in, "#") {
			continue
		}
		var stdout, stderr bytes.Buffer
		code := runParse([]string{in}, &stdout, &stderr)
		if code != exitOK {
			// Corpus URLs that break their scheme's rules (";" in an ftp
			// path) are refused with a message and status 3.
			if code != exitBadURL || stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), "urlget: invalid URL") {
				t.Errorf("parse %q: status %d, stdout %q, stderr %q", in, code, stdout.String(), stderr.String())
			}
			continue
		}
		n++
		var obj map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &obj); err != nil {
			t.Errorf("parse %q: %v in %q", in, err, stdout.String())
			continue
		}
		str := func(k string) (string, bool) {
			v, ok := obj[k].(string)
			return v, ok
		}
		var b strings.Builder
		s, _ := str("scheme")
		b.WriteString(s + ":")
		if h, ok := str("host"); ok {
			b.WriteString("//")
			if u, ok := str("user"); ok {
				b.WriteString(u)
				if p, ok := str("password"); ok {
					b.WriteString(":" + p)
				}
				b.WriteString("@")
			}
			b.WriteString(h)
			if p, ok := str("port"); ok {
				b.WriteString(":" + p)
			}
		}
		p, ok := str("path")
		if !ok {
			t.Errorf("parse %q: no path in %q", in, stdout.String())
		}
		b.WriteString(p)
		if q, ok := str("query"); ok {
			b.WriteString("?" + q)
		}
		if fr, ok := str("fragment"); ok {
			b.WriteString("#" + fr)
		}
		if b.String() != in {
			t.Errorf("parse %q: components rebuild %q", in, b.String())
		}
	}
	if n < 200 {
		t.Errorf("only %d corpus URLs parsed", n)
	}
}

func TestJSONStringsUnescaped(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := runParse([]string{"http://h/?a=1&b=%3C"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("status %d: %s", code, stderr.String())
	}
	if want := `{"scheme":"http","host":"h","path":"/","query":"a=1&b=%3C"}` + "\n"; stdout.String() != want {
		t.Errorf("stdout = %q, want %q", stdout.String(), want)
	}
}
