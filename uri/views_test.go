package uri

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// view runs the view of u's scheme and formats the result for a table.
func view(u URL) (string, error) {
	var v any
	var err error
	switch u.Scheme() {
	case "ftp":
		v, err = u.FTP()
	case "gopher":
		var g Gopher
		g, err = u.Gopher()
		v = struct {
			Type      string
			Selector  string
			Search    string
			HasSearch bool
			Plus      string
			HasPlus   bool
		}{string(g.Type), g.Selector, g.Search, g.HasSearch, g.Plus, g.HasPlus}
	case "news":
		v, err = u.News()
	case "nntp":
		v, err = u.NNTP()
	case "wais":
		v, err = u.WAIS()
	case "file":
		v, err = u.File()
	case "telnet":
		v, err = u.Telnet()
	case "mailto":
		v, err = u.Mailto()
	case "prospero":
		v, err = u.Prospero()
	case "urn":
		v, err = u.URN()
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%+v", v), nil
}

func TestViews(t *testing.T) {
	tests := []struct{ in, want string }{
		// RFC 1738 §3.1.
		{"ftp://@host.com/", "{Dirs:[] Name: Type:}"},
		{"ftp://host.com/", "{Dirs:[] Name: Type:}"},
		{"ftp://foo:@host.com/", "{Dirs:[] Name: Type:}"},
		// RFC 1738 §3.2.2: "CWD /etc" then "RETR motd"; "CWD etc" then
		// "RETR motd"; "CWD " with a null argument, "CWD etc", "RETR motd".
		{"ftp://myname@host.dom/%2Fetc/motd", "{Dirs:[/etc] Name:motd Type:}"},
		{"ftp://myname@host.dom/etc/motd", "{Dirs:[etc] Name:motd Type:}"},
		{"ftp://myname@host.dom//etc/motd", "{Dirs:[ etc] Name:motd Type:}"},
		// RFC 1738 appendix (Recommendations for URLs in Context) and its
		// references [1] and [2].
		{"ftp://info.cern.ch/pub/www/doc;type=d", "{Dirs:[pub www] Name:doc Type:d}"},
		{"ftp://ds.internic.net/rfc", "{Dirs:[] Name:rfc Type:}"},
		{"ftp://ds.internic.net/rfc/rfc1436.txt;type=a", "{Dirs:[rfc] Name:rfc1436.txt Type:a}"},
		{"ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol/Gopher+/Gopher+.txt", "{Dirs:[pub gopher gopher_protocol Gopher+] Name:Gopher+.txt Type:}"},
		// RFC 1738 §3.2.2 and §5 (ftpurl): the other forms.
		{"ftp://h/a/b/;type=I", "{Dirs:[a b] Name: Type:i}"},
		{"ftp://h", "{Dirs:[] Name: Type:}"},
		{"ftp://h/a%3Bb/c?d", "{Dirs:[a;b] Name:c?d Type:}"},
		{"ftp://h/a//b/", "{Dirs:[a  b] Name: Type:}"},
		// RFC 1738 §3.4.
		{"gopher://h", "{Type:1 Selector: Search: HasSearch:false Plus: HasPlus:false}"},
		{"gopher://h/", "{Type:1 Selector: Search: HasSearch:false Plus: HasPlus:false}"},
		{"gopher://h/0/about.txt", "{Type:0 Selector:/about.txt Search: HasSearch:false Plus: HasPlus:false}"},
		{"gopher://h/00/about.txt", "{Type:0 Selector:0/about.txt Search: HasSearch:false Plus: HasPlus:false}"},
		{"gopher://h/7/search%09gopher%20holes", "{Type:7 Selector:/search Search:gopher holes HasSearch:true Plus: HasPlus:false}"},
		{"gopher://h/1/x%09%09+", "{Type:1 Selector:/x Search: HasSearch:true Plus:+ HasPlus:true}"},
		{"gopher://h/1a?b", "{Type:1 Selector:a?b Search: HasSearch:false Plus: HasPlus:false}"},
		{"gopher://h/%31x", "{Type:1 Selector:x Search: HasSearch:false Plus: HasPlus:false}"},
		// RFC 1738 §3.6.
		{"news:comp.infosystems.www.misc", "{Group:comp.infosystems.www.misc MessageID:}"},
		{"news:*", "{Group:* MessageID:}"},
		{"news:1234@example.com", "{Group: MessageID:1234@example.com}"},
		{"news:%3C1234@example.com%3E", "{Group: MessageID:1234@example.com}"},
		{"news://server/comp.lang.go", "{Group:comp.lang.go MessageID:}"},
		// RFC 1738 §3.7.
		{"nntp://h/comp.lang.go", "{Group:comp.lang.go Article:0 HasArticle:false}"},
		{"nntp://h:119/comp.lang.go/1234", "{Group:comp.lang.go Article:1234 HasArticle:true}"},
		// RFC 1738 §3.9.
		{"wais://h/db", "{Database:db Search: HasSearch:false WType: WPath: RawWPath:}"},
		{"wais://h:210/db?coffee%20beans", "{Database:db Search:coffee beans HasSearch:true WType: WPath: RawWPath:}"},
		{"wais://h/db/TEXT/0%2012%2F", "{Database:db Search: HasSearch:false WType:TEXT WPath:0 12/ RawWPath:0%2012%2F}"},
		// RFC 1738 §3.10: the VMS file DISK$USER:[MY.NOTES]NOTE123456.TXT
		// (sic: the RFC's URL says note12345).
		{"file://vms.host.edu/disk$user/my/notes/note12345.txt", "{Host:vms.host.edu Path:/disk$user/my/notes/note12345.txt}"},
		{"file:///etc/motd", "{Host: Path:/etc/motd}"},
		{"file://localhost/etc/motd", "{Host:localhost Path:/etc/motd}"},
		{"file://h", "{Host:h Path:/}"},
		{"file:/tmp/a%20b", "{Host: Path:/tmp/a b}"},
		// RFC 1738 §3.8.
		{"telnet://h", "{User: Password: HasUser:false HasPassword:false Host:h Port:}"},
		{"telnet://Guest:s%40c@H.example:2323/", "{User:Guest Password:s@c HasUser:true HasPassword:true Host:h.example Port:2323}"},
		// RFC 1738 §3.5.
		{"mailto:Joe%20Q@Example.COM", "{Address:Joe Q@Example.COM}"},
		// RFC 1738 §3.11: <URL:prospero://host.dom//pros/name> designates
		// the hsoname "/pros/name".
		{"prospero://host.dom//pros/name", "{HSOName:/pros/name Fields:map[]}"},
		{"prospero://h/pub/x%3By;type=TEXT;format=a%20b", "{HSOName:pub/x;y Fields:map[format:a b type:TEXT]}"},
		{"prospero://h/x", "{HSOName:x Fields:map[]}"},
		// RFC 8141 §2 and §3.2.
		{"urn:example:a123,z456?+abc", "{NID:example NSS:a123,z456 Query:+abc HasQuery:true}"},
		{"urn:example:a123,z456?=xyz", "{NID:example NSS:a123,z456 Query:=xyz HasQuery:true}"},
		{"urn:example:a123,z456#789", "{NID:example NSS:a123,z456 Query: HasQuery:false}"},
		{"URN:EXAMPLE:a123%2cz456", "{NID:EXAMPLE NSS:a123%2cz456 Query: HasQuery:false}"},
		{"urn:example:%D0%B0123,z456", "{NID:example NSS:%D0%B0123,z456 Query: HasQuery:false}"},
		{"urn:ISBN:0-395-36341-1", "{NID:ISBN NSS:0-395-36341-1 Query: HasQuery:false}"},
		{"urn:example:a%2cb/c?+r?=q#f", "{NID:example NSS:a%2cb/c Query:+r?=q HasQuery:true}"},
		{"urn:urn-7:x", "{NID:urn-7 NSS:x Query: HasQuery:false}"},
		{"urn:a123456789012345678901234567890b:x", "{NID:a123456789012345678901234567890b NSS:x Query: HasQuery:false}"},
	}
	for _, tt := range tests {
		u, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		got, err := view(u)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

func TestFTPDirsKeepEmpty(t *testing.T) {
	f, err := MustParse("ftp://h//a//").FTP()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"", "a", ""}; !reflect.DeepEqual(f.Dirs, want) || f.Name != "" {
		t.Errorf("Dirs = %q, Name %q; want %q", f.Dirs, f.Name, want)
	}
}

func TestViewErrors(t *testing.T) {
	tests := []struct {
		in, msg string
		col     int
	}{
		{"ftp://h/x;type=x", "must be a, i or d", 16},
		{"ftp://h/x;type=", "must be a, i or d", 16},
		{"ftp://h/x;type=aa", "must be a, i or d", 16},
		{"ftp://h/x;mode=a", "final \";type=a|i|d\"", 10},
		{"ftp://h/a;type=a/b", "must be a, i or d", 16},
		{"ftp:/x", "no host", 5},
		{"ftp:///x", "no host", 5},
		{"gopher:x", "no host", 8},
		{"news:", "nothing after the colon", 6},
		{"news:1comp", "neither a newsgroup", 6},
		{"news:comp/lang", "neither a newsgroup", 6},
		{"nntp://h/", "no newsgroup", 10},
		{"nntp://h", "no newsgroup", 9},
		{"nntp://h/g/12x", "not a number", 14},
		{"nntp://h/g/99999999999999999999", "out of range", 12},
		{"nntp://h/g/1/2", "not a number", 13},
		{"nntp://h/g?x", "query", 11},
		{"wais://h/", "no database", 10},
		{"wais://h/db/t", "database/wtype/wpath", 10},
		{"wais://h/db/t/p?x", "has a query", 16},
		{"wais://h/db//p", "empty wtype", 13},
		{"file://u@h/x", "user name", 8},
		{"file://h:1/x", "port", 9},
		{"file:x", "must start with '/'", 6},
		{"file:///a%00b", "NUL", 10},
		{"telnet://h/x", "has a path", 12},
		{"telnet://h/?x", "query", 12},
		{"telnet:///", "no host", 8},
		{"mailto:", "no address", 8},
		{"mailto://x", "authority", 8},
		{"prospero://h/x;y", "name=value", 16},
		{"urn:isbn", "no ':'", 9},
		{"urn:a:x", "namespace identifier", 6},
		{"urn:-ab:x", "namespace identifier", 5},
		{"urn:ab-:x", "namespace identifier", 7},
		{"urn:a_b:x", "namespace identifier", 6},
		{"urn:a1234567890123456789012345678901b:x", "namespace identifier", 37},
		{"urn:urn:x", "reserved", 5},
		{"urn:URN:x", "reserved", 5},
		{"urn:ab:", "(NSS) is empty", 8},
		{"urn:ab:/x", "(NSS) is empty or starts with '/'", 8},
		{"urn://ab/x", "authority", 5},
	}
	for _, tt := range tests {
		u, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		_, err = view(u)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: view error %v, want *Error", tt.in, err)
			continue
		}
		if !strings.Contains(e.Msg, tt.msg) || e.Col != tt.col {
			t.Errorf("%q: %q at column %d, want %q at column %d", tt.in, e.Msg, e.Col, tt.msg, tt.col)
		}
	}
}

func TestViewWrongScheme(t *testing.T) {
	u := MustParse("http://h/x")
	checks := map[string]error{}
	_, checks["FTP"] = u.FTP()
	_, checks["Gopher"] = u.Gopher()
	_, checks["News"] = u.News()
	_, checks["NNTP"] = u.NNTP()
	_, checks["WAIS"] = u.WAIS()
	_, checks["File"] = u.File()
	_, checks["Telnet"] = u.Telnet()
	_, checks["Mailto"] = u.Mailto()
	_, checks["Prospero"] = u.Prospero()
	_, checks["URN"] = u.URN()
	for name, err := range checks {
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Msg, "not a") {
			t.Errorf("%s() on an http URL: %v", name, err)
		}
	}
	if _, err := MustParse("FTP://h/x").FTP(); err != nil {
		t.Errorf("FTP() on an upper-case scheme: %v", err)
	}
}
