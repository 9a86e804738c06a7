package samples

import (
	"strings"

	"github.com/urlget/urlget/integration/nntptest"
)

// News starts an NNTP server with a small newsgroup whose articles
// show the awkward cases: lines starting with '.', encoded non-ASCII
// headers, a message-id with '/' in it. news: URLs need the server's
// address: --nntp-server or NNTPSERVER, as the printed comment says.
func News(dir string) (*Sample, error) {
	articles := []nntptest.Article{
		{MessageID: "welcome@urlget.test", Header: [][2]string{
			{"From", "urlget <news@urlget.test>"},
			{"Newsgroups", "urlget.test"},
			{"Subject", "welcome to urlget.test"},
			{"Date", "Mon, 02 Jan 2006 15:04:05 +0000"},
		}, Body: "This group is served by nntptest.\n.A line that starts with a dot.\n..And one with two.\n.\n"},
		{MessageID: "gruss/1@urlget.test", Header: [][2]string{
			{"From", "=?UTF-8?Q?J=C3=B6rg?= <joerg@urlget.test>"},
			{"Newsgroups", "urlget.test"},
			{"Subject", "=?UTF-8?Q?Gr=C3=BC=C3=9Fe?="},
			{"Date", "Tue, 03 Jan 2006 10:00:00 +0100"},
			{"References", "<welcome@urlget.test>"},
		}, Body: "Encoded words in the header, a '/' in the message-id.\n"},
		{MessageID: "long@urlget.test", Header: [][2]string{
			{"From", "urlget <news@urlget.test>"},
			{"Newsgroups", "urlget.test"},
			{"Subject", "a longer article"},
			{"Date", "Wed, 04 Jan 2006 12:00:00 GMT"},
		}, Body: strings.Repeat("All work and no play makes a long article.\n", 2000)},
	}
	s := nntptest.NewServer(nntptest.Config{Groups: []nntptest.Group{
		{Name: "urlget.test", Description: "urlget's sample group", Articles: articles},
		{Name: "urlget.empty", Description: "a group with no articles"},
	}})
	urls := []string{
		"# news: URLs: --nntp-server " + s.Addr + " (or NNTPSERVER=" + s.Addr + ")",
		"news:*",
		"news:urlget.test",
		"news:welcome@urlget.test",
		"news:gruss%2F1@urlget.test",
		s.URL + "/urlget.test",
		s.URL + "/urlget.test/3",
	}
	return &Sample{Name: "news", Base: s.URL, Addr: s.Addr, URLs: urls, Close: s.Close}, nil
}
