package samples

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/urlget/urlget/integration/gophertest"
)

// Gopher serves a gopher tree with every kind of item urlget handles:
// menus, text with dot-doubled lines, a binary, a name with spaces, a
// search, a Gopher+ item with views, attributes and an ASK form, and a
// missing item.
func Gopher(dir string) (*Sample, error) {
	blob := filepath.Join(dir, "blob.bin")
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(blob, data, 0o644); err != nil {
		return nil, err
	}
	plus := &gophertest.PlusItem{
		Info:     gophertest.Item{Type: '0', Display: "A Gopher+ item", Selector: "/plus", Plus: "+"},
		Abstract: "An item with two views.",
		Views: []gophertest.View{
			{Name: "text/plain", Data: []byte("The plain view.\r\n")},
			{Name: "text/plain Fr_FR", Data: []byte("La vue en clair.\r\n")},
		},
	}
	form := &gophertest.PlusItem{
		Info: gophertest.Item{Type: '0', Display: "A form", Selector: "/form", Plus: "?"},
		Ask:  []string{"Ask: Your name?"},
		Asked: func(v []string) (string, bool) {
			if len(v) != 2 {
				return "", false
			}
			return "Hello, " + v[1] + ".\n", true
		},
	}
	mux := gophertest.NewMux()
	mux.Handle("", gophertest.Menu(
		gophertest.Info("urlget development gopher server"),
		gophertest.Item{Type: '0', Display: "About", Selector: "/about.txt"},
		gophertest.Item{Type: '1', Display: "A sub-menu", Selector: "/sub"},
		gophertest.Item{Type: '9', Display: "A binary (1 MiB)", Selector: "/blob.bin"},
		gophertest.Item{Type: '0', Display: "A name with spaces", Selector: "/a name with spaces.txt"},
		gophertest.Item{Type: '7', Display: "Search", Selector: "/search"},
		plus.Info, form.Info,
		gophertest.Item{Type: 'h', Display: "A web link", Selector: "URL:https://example.org/"},
		gophertest.Item{Type: '0', Display: "A missing item", Selector: "/missing"},
	))
	mux.Handle("/about.txt", gophertest.Text("This server runs in-process for urlget's tests.\n.A line that starts with a dot.\n"))
	mux.Handle("/sub", gophertest.Menu(gophertest.Item{Type: '0', Display: "Back to About", Selector: "/about.txt"}))
	mux.Handle("/blob.bin", gophertest.File(blob))
	mux.Handle("/a name with spaces.txt", gophertest.Text("spaces are %20 in the URL\n"))
	mux.Handle("/search", gophertest.Search(func(terms string) []gophertest.Item {
		return []gophertest.Item{gophertest.Info("You searched for " + terms), {Type: '0', Display: "About", Selector: "/about.txt"}}
	}))
	mux.Handle("/plus", plus)
	mux.Handle("/form", form)
	s := gophertest.NewServer(mux)
	urls := []string{
		s.URL + "/",
		s.URL + "/0/about.txt",
		s.URL + "/9/blob.bin",
		s.URL + "/0/a%20name%20with%20spaces.txt",
		s.URL + "/7/search%09gopher",
		s.URL + "/0/plus%09%09+text/plain%20Fr_FR",
		s.URL + "/0/plus%09%09!",
		s.URL + "/0/form%09%09+%091%0D%0A+-1%0D%0AAda%0D%0A.%0D%0A",
		s.URL + "/0/missing",
	}
	return &Sample{Name: "gopher", Base: s.URL, Addr: strings.TrimPrefix(s.URL, "gopher://"), URLs: urls, Close: s.Close}, nil
}
