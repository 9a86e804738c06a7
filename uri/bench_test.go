package uri

import (
	"net/url"
	"testing"
)

// The benchmarks pit this package against net/url on the same input, as
// sub-benchmarks impl=uri and impl=neturl, so that
//
//	go test ./uri -run '^$' -bench . -count 6 > bench.txt
//	benchstat -col /impl bench.txt
//
// shows them side by side. ns/op is for a whole input set; ns/url and ns/ref
// divide it by the number of URLs.

// commonCorpus is the part of testdata/uri/corpus.txt that net/url accepts
// too (it refuses IPvFuture hosts), so that both parsers see the same input.
func commonCorpus(b *testing.B) []string {
	var urls []string
	for _, s := range corpus(b) {
		if _, err := url.Parse(s); err == nil {
			urls = append(urls, s)
		}
	}
	return urls
}

func perItem(b *testing.B, n int, unit string) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), unit)
}

func BenchmarkParse(b *testing.B) {
	urls := commonCorpus(b)
	b.Run("impl=uri", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range urls {
				if _, err := Parse(s); err != nil {
					b.Fatal(err)
				}
			}
		}
		perItem(b, len(urls), "ns/url")
	})
	b.Run("impl=neturl", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range urls {
				if _, err := url.Parse(s); err != nil {
					b.Fatal(err)
				}
			}
		}
		perItem(b, len(urls), "ns/url")
	})
}

// BenchmarkResolveRFC parses each reference of RFC 3986 §5.4 and resolves it
// against the RFC's base.
func BenchmarkResolveRFC(b *testing.B) {
	var refs []string
	for _, t := range append(rfc3986Normal, rfc3986Abnormal...) {
		refs = append(refs, t[0])
	}
	b.Run("impl=uri", func(b *testing.B) {
		base := MustParse(rfcBase)
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range refs {
				r, err := ParseReference(s)
				if err != nil {
					b.Fatal(err)
				}
				base.ResolveReference(r)
			}
		}
		perItem(b, len(refs), "ns/ref")
	})
	b.Run("impl=neturl", func(b *testing.B) {
		base, err := url.Parse(rfcBase)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range refs {
				r, err := url.Parse(s)
				if err != nil {
					b.Fatal(err)
				}
				base.ResolveReference(r)
			}
		}
		perItem(b, len(refs), "ns/ref")
	})
}

// BenchmarkResolveCorpus resolves the path of every corpus URL, taken as a
// relative reference and parsed beforehand, against one base.
func BenchmarkResolveCorpus(b *testing.B) {
	var paths []string
	for _, s := range commonCorpus(b) {
		p := MustParse(s).Path()
		if _, err := ParseReference(p); err == nil {
			paths = append(paths, p)
		}
	}
	const baseText = "http://example.com/a/b/c/d?q"
	b.Run("impl=uri", func(b *testing.B) {
		base := MustParse(baseText)
		refs := make([]URL, len(paths))
		for i, p := range paths {
			refs[i], _ = ParseReference(p)
		}
		b.ReportAllocs()
		for b.Loop() {
			for _, r := range refs {
				base.ResolveReference(r)
			}
		}
		perItem(b, len(refs), "ns/ref")
	})
	b.Run("impl=neturl", func(b *testing.B) {
		base, _ := url.Parse(baseText)
		refs := make([]*url.URL, len(paths))
		for i, p := range paths {
			r, err := url.Parse(p)
			if err != nil {
				b.Fatal(err)
			}
			refs[i] = r
		}
		b.ReportAllocs()
		for b.Loop() {
			for _, r := range refs {
				base.ResolveReference(r)
			}
		}
		perItem(b, len(refs), "ns/ref")
	})
}
