package uri

import "testing"

// TestSchemeTable: twins name each other, one with TLS and one without,
// in one family; the table's ports are DefaultPort's; a scheme it does not
// hold is its own family, in lower case.
func TestSchemeTable(t *testing.T) {
	for s, info := range schemeTable {
		if info.Family == "" {
			t.Errorf("%s: no family", s)
		}
		if info.Twin == "" {
			continue
		}
		twin, ok := SchemeOf(info.Twin)
		if !ok || twin.Twin != s || twin.TLS == info.TLS || twin.Family != info.Family {
			t.Errorf("%s and its twin %s: %+v and %+v", s, info.Twin, info, twin)
		}
	}
	for s, want := range map[string]SchemeInfo{
		"HTTPS":  {Family: "http", TLS: true, Twin: "http", Port: "443"},
		"nntp":   {Family: "news", Twin: "nntps", Port: "119"},
		"snews":  {Family: "news", TLS: true, Twin: "news", Port: "563"},
		"Gopher": {Family: "gopher", Twin: "gophers", Port: "70"},
		"ftps":   {Family: "ftp", TLS: true, Twin: "ftp", Port: "990"},
	} {
		if got, ok := SchemeOf(s); !ok || got != want {
			t.Errorf("SchemeOf(%q) = %+v, %v; want %+v", s, got, ok, want)
		}
		if got := DefaultPort(s); got != want.Port {
			t.Errorf("DefaultPort(%q) = %q, want %q", s, got, want.Port)
		}
	}
	if got, ok := SchemeOf("X-Test"); ok || got != (SchemeInfo{Family: "x-test"}) {
		t.Errorf("SchemeOf(X-Test) = %+v, %v", got, ok)
	}
}
