package uri_test

import (
	"fmt"

	"github.com/urlget/urlget/uri"
)

func ExampleParse() {
	u, err := uri.Parse("ftp://anonymous:@ftp.example.org:2121/pub/%2Fetc/motd;type=a")
	if err != nil {
		fmt.Println(err)
		return
	}
	user, _ := u.User()
	pass, hasPass := u.Password()
	fmt.Printf("%s %q %q %v %s\n", u.Scheme(), user, pass, hasPass, u.Addr())
	f, _ := u.FTP()
	fmt.Printf("dirs %q name %q type %q\n", f.Dirs, f.Name, f.Type)
	// Output:
	// ftp "anonymous" "" true ftp.example.org:2121
	// dirs ["pub" "/etc"] name "motd" type "a"
}

func ExampleParse_error() {
	_, err := uri.Parse("http://user:secret@example.com/a b")
	fmt.Println(err)
	// Output:
	// invalid URL "http://user:****@example.com/a b": space at column 33
}

func ExampleURL_ResolveReference() {
	base := uri.MustParse("http://a/b/c/d;p?q")
	ref, _ := uri.ParseReference("../../../g")
	fmt.Println(base.ResolveReference(ref))
	fmt.Println(base.ResolveReference(ref, uri.Draft2003))
	// Output:
	// http://a/g
	// http://a/../g
}

func ExampleEqual() {
	eq, _ := uri.Equal("HTTP://Example.COM:80/%7euser/./x", "http://example.com/~user/x")
	fmt.Println(eq)
	eq, _ = uri.Equal("urn:ISBN:0-395-36341-1#p2", "URN:isbn:0-395-36341-1")
	fmt.Println(eq)
	// Output:
	// true
	// true
}

func ExampleURL_Gopher() {
	g, _ := uri.MustParse("gopher://gopher.example.org/7/search%09retro%20computing").Gopher()
	fmt.Printf("%c %q %q\n", g.Type, g.Selector, g.Search)
	// Output:
	// 7 "/search" "retro computing"
}

func ExampleFromText() {
	s, _ := uri.FromText("<URL:http://example.com/a/long/\n    path/r\u00e9sum\u00e9.html>")
	fmt.Println(s)
	// Output:
	// http://example.com/a/long/path/r%C3%A9sum%C3%A9.html
}

func ExampleURL_ASCII() {
	text, _ := uri.FromText("https://Bücher.example/Straße")
	u, _ := uri.Parse(text)
	a, _ := u.ASCII()
	fmt.Println(u)
	fmt.Println(u.Hostname())
	fmt.Println(a)
	_, err := uri.MustParse("http://b%C3%BC-.example/").ASCII()
	fmt.Println(err)
	// Output:
	// https://B%C3%BCcher.example/Stra%C3%9Fe
	// bücher.example
	// https://xn--bcher-kva.example/Stra%C3%9Fe
	// invalid URL "http://b%C3%BC-.example/": bad host name "bü-.example": idna: invalid label "bü-" at column 8
}
