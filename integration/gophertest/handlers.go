package gophertest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Mux answers each selector with its own handler, and selectors it does not
// know with an error: an RFC 1436 error menu, or a Gopher+ "--1" error
// block (code 1, item not available) when the request was a Gopher+ one.
type Mux struct {
	m map[string]Handler
}

// NewMux returns an empty Mux.
func NewMux() *Mux { return &Mux{m: map[string]Handler{}} }

// Handle answers selector with h.
func (m *Mux) Handle(selector string, h Handler) { m.m[selector] = h }

// ServeGopher dispatches on the request's selector.
func (m *Mux) ServeGopher(w io.Writer, r *Request) {
	if h, ok := m.m[r.Selector]; ok {
		h.ServeGopher(w, r)
		return
	}
	NotFound().ServeGopher(w, r)
}

// NotFound answers as servers do for a selector they do not have.
func NotFound() Handler {
	return HandlerFunc(func(w io.Writer, r *Request) {
		if r.HasPlus {
			io.WriteString(w, "--1\r\n1 Item not available: "+r.Selector+"\r\n.\r\n")
			return
		}
		Error("'"+r.Selector+"' does not exist (no handler)").ServeGopher(w, r)
	})
}

// Item is one line of a menu (RFC 1436 §3.8). An empty Host or Port means
// the server's own.
type Item struct {
	Type     byte
	Display  string
	Selector string
	Host     string
	Port     string
	Plus     string // Gopher+ field: "+" or "?"; "" for none
}

// Line renders the item as a menu line with its CRLF, for a server at
// host:port.
func (it Item) Line(host, port string) string {
	if it.Host == "" {
		it.Host = host
	}
	if it.Port == "" {
		it.Port = port
	}
	l := string(it.Type) + it.Display + "\t" + it.Selector + "\t" + it.Host + "\t" + it.Port
	if it.Plus != "" {
		l += "\t" + it.Plus
	}
	return l + "\r\n"
}

// Info returns an information line ('i').
func Info(text string) Item {
	return Item{Type: 'i', Display: text, Selector: "fake", Host: "(NULL)", Port: "0"}
}

// Menu answers with a menu of items, ended with a "." line; a Gopher+
// request gets it with a "+-1" header (Gopher+ §2.3).
func Menu(items ...Item) Handler {
	return HandlerFunc(func(w io.Writer, r *Request) {
		bw := bufio.NewWriter(w)
		if r.HasPlus {
			bw.WriteString("+-1\r\n")
		}
		for _, it := range items {
			bw.WriteString(it.Line(r.Host, r.Port))
		}
		bw.WriteString(".\r\n")
		bw.Flush()
	})
}

// Raw answers with exactly b, whatever was asked.
func Raw(b []byte) Handler {
	return HandlerFunc(func(w io.Writer, _ *Request) { w.Write(b) })
}

// EncodeText renders text as RFC 1436 §3.8 sends it: LF line ends become
// CRLF, a line starting with "." gets another, and a lone "." line ends it.
func EncodeText(text string) string {
	var b strings.Builder
	text = strings.TrimSuffix(text, "\n")
	if text != "" {
		for l := range strings.SplitSeq(text, "\n") {
			if strings.HasPrefix(l, ".") {
				b.WriteByte('.')
			}
			b.WriteString(l)
			b.WriteString("\r\n")
		}
	}
	b.WriteString(".\r\n")
	return b.String()
}

// Text answers with a text item encoded by EncodeText; a Gopher+ request
// gets it with a "+-1" header.
func Text(text string) Handler {
	enc := EncodeText(text)
	return HandlerFunc(func(w io.Writer, r *Request) {
		if r.HasPlus {
			io.WriteString(w, "+-1\r\n")
		}
		io.WriteString(w, enc)
	})
}

// Binary answers with data as it is, until close; a Gopher+ request gets
// it with a "+<length>" header.
func Binary(data []byte) Handler {
	return HandlerFunc(func(w io.Writer, r *Request) {
		if r.HasPlus {
			fmt.Fprintf(w, "+%d\r\n", len(data))
		}
		w.Write(data)
	})
}

// File answers with the file's bytes, copied by sendfile(2) where the
// system has it; a Gopher+ request gets a "+<length>" header.
func File(name string) Handler {
	return HandlerFunc(func(w io.Writer, r *Request) {
		f, err := os.Open(name)
		if err != nil {
			Error(err.Error()).ServeGopher(w, r)
			return
		}
		defer f.Close()
		if r.HasPlus {
			if fi, err := f.Stat(); err == nil {
				fmt.Fprintf(w, "+%d\r\n", fi.Size())
			}
		}
		io.Copy(w, f)
	})
}

// Error answers with an RFC 1436 error menu: one type-3 line and ".".
func Error(msg string) Handler {
	return Raw([]byte("3" + msg + "\terror\terror.host\t1\r\n.\r\n"))
}

// Search answers a type-7 search with the menu results returns for the
// terms the client sent.
func Search(results func(terms string) []Item) Handler {
	return HandlerFunc(func(w io.Writer, r *Request) {
		Menu(results(r.Search)...).ServeGopher(w, r)
	})
}

// PlusItem is a Gopher+ item (Gopher+ §2.5–§2.8): its views, keyed by
// "mime-type" or "mime-type language", the first of Views being the
// default; its attributes, answered to "!" requests; and an ASK form, whose
// answers Asked turns into the reply.
type PlusItem struct {
	Info     Item
	Abstract string
	Views    []View
	Ask      []string                             // the +ASK block's lines ("Ask: Name?" …)
	Asked    func(values []string) (string, bool) // the reply text for the values, ok false to refuse

	// ModDate, when not zero, is given in an +ADMIN block (Gopher+ §2.7)
	// with an Admin line.
	ModDate time.Time
	// ExactSizes gives the views' sizes in bytes ("<512b>"), as some
	// servers do, instead of in kilobytes rounded up ("<1k>").
	ExactSizes bool
}

// View is one representation of a Gopher+ item.
type View struct {
	Name string // "text/plain" or "text/plain En_US"
	Data []byte
}

// ServeGopher answers "!" with the attribute block, "+" with the default
// view, "+name" with that view, a data block with the ASK reply, and a
// plain request with the default view as a Gopher0 server would.
func (p *PlusItem) ServeGopher(w io.Writer, r *Request) {
	switch {
	case !r.HasPlus:
		if len(p.Views) > 0 {
			w.Write(p.Views[0].Data)
		}
	case strings.HasPrefix(r.Plus, "!"):
		io.WriteString(w, "+-1\r\n"+p.Attributes(r.Host, r.Port, strings.TrimPrefix(r.Plus, "!")))
	case r.DataFlag:
		text, ok := p.Asked(r.Data)
		if !ok {
			io.WriteString(w, "--1\r\n1 The form was not filled in\r\n.\r\n")
			return
		}
		io.WriteString(w, "+-1\r\n"+EncodeText(text))
	case r.Plus == "+":
		if len(p.Views) > 0 {
			fmt.Fprintf(w, "+%d\r\n", len(p.Views[0].Data))
			w.Write(p.Views[0].Data)
		}
	default:
		want := strings.TrimPrefix(r.Plus, "+")
		for _, v := range p.Views {
			if v.Name == want {
				fmt.Fprintf(w, "+%d\r\n", len(v.Data))
				w.Write(v.Data)
				return
			}
		}
		io.WriteString(w, "--1\r\n1 No view "+want+"\r\n.\r\n")
	}
}

// Attributes renders the item's attribute block (Gopher+ §2.6), limited
// to the names in want ("+ABSTRACT +VIEWS") when it is not empty, and
// ended with a "." line.
func (p *PlusItem) Attributes(host, port, want string) string {
	return p.blocks(host, port, want) + ".\r\n"
}

// blocks renders the item's attribute blocks without the final "." line.
func (p *PlusItem) blocks(host, port, want string) string {
	blocks := []string{"+INFO: " + strings.TrimSuffix(p.Info.Line(host, port), "\r\n") + "\r\n"}
	if !p.ModDate.IsZero() {
		blocks = append(blocks, "+ADMIN:\r\n Admin: Test Admin <admin@example.invalid>\r\n Mod-Date: "+
			p.ModDate.Format(time.ANSIC)+" <"+p.ModDate.Format("20060102150405")+">\r\n")
	}
	if p.Abstract != "" {
		blocks = append(blocks, "+ABSTRACT:\r\n "+strings.ReplaceAll(p.Abstract, "\n", "\r\n ")+"\r\n")
	}
	if len(p.Views) > 0 {
		v := "+VIEWS:\r\n"
		for _, view := range p.Views {
			size := strconv.Itoa((len(view.Data)+1023)/1024) + "k"
			if p.ExactSizes {
				size = strconv.Itoa(len(view.Data)) + "b"
			}
			v += " " + view.Name + ": <" + size + ">\r\n"
		}
		blocks = append(blocks, v)
	}
	if len(p.Ask) > 0 {
		blocks = append(blocks, "+ASK:\r\n "+strings.Join(p.Ask, "\r\n ")+"\r\n")
	}
	var b strings.Builder
	for _, blk := range blocks {
		name, _, _ := strings.Cut(blk, ":")
		if want != "" && !strings.Contains(" "+want+" ", " "+name+" ") {
			continue
		}
		b.WriteString(blk)
	}
	return b.String()
}

// PlusMenu is a Gopher+ menu of items: "$" answers with every item's
// attribute blocks (Gopher+ §2.6), any other Gopher+ request with the menu
// after a "+-1" header, a plain request with the menu.
func PlusMenu(items ...*PlusItem) Handler {
	return HandlerFunc(func(w io.Writer, r *Request) {
		if r.Plus != "$" {
			infos := make([]Item, len(items))
			for i, it := range items {
				infos[i] = it.Info
			}
			Menu(infos...).ServeGopher(w, r)
			return
		}
		var b strings.Builder
		b.WriteString("+-1\r\n")
		for _, it := range items {
			b.WriteString(it.blocks(r.Host, r.Port, ""))
		}
		b.WriteString(".\r\n")
		io.WriteString(w, b.String())
	})
}

// Dir serves the tree under root: a directory is a menu of its entries
// (directories type 1, ".txt" files type 0, others type 9, sorted by
// name), a file is its bytes (text files RFC 1436-encoded), a selector
// outside the tree or missing is an error.
func Dir(root string) Handler {
	return HandlerFunc(func(w io.Writer, r *Request) {
		rel := path.Clean("/" + r.Selector)
		name := filepath.Join(root, filepath.FromSlash(rel))
		fi, err := os.Stat(name)
		if err != nil {
			NotFound().ServeGopher(w, r)
			return
		}
		if !fi.IsDir() {
			if typeFor(name, false) == '0' {
				b, err := os.ReadFile(name)
				if err != nil {
					NotFound().ServeGopher(w, r)
					return
				}
				Text(string(b)).ServeGopher(w, r)
				return
			}
			File(name).ServeGopher(w, r)
			return
		}
		ents, err := os.ReadDir(name)
		if err != nil {
			NotFound().ServeGopher(w, r)
			return
		}
		sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
		items := make([]Item, 0, len(ents))
		for _, e := range ents {
			items = append(items, Item{Type: typeFor(e.Name(), e.IsDir()), Display: e.Name(), Selector: path.Join(rel, e.Name())})
		}
		Menu(items...).ServeGopher(w, r)
	})
}

func typeFor(name string, dir bool) byte {
	switch {
	case dir:
		return '1'
	case strings.HasSuffix(name, ".txt"):
		return '0'
	}
	return '9'
}
