package fetch

import (
	"bytes"
	"net"

	"github.com/urlget/urlget/schemes"
)

// The credentials of an HTTP request stay out of an archive unless the
// Client's ArchiveCredentials keeps them: the archiving tools mask the
// Authorization, Proxy-Authorization and Cookie fields of their request
// records (RFC 9110 §11.6.2, §11.7.2; RFC 6265 §5.4), and an archive is a
// file others read. The mask keeps the field, its authentication scheme
// and its cookies' names, so that the record still tells what was sent.

// credentialMask stands for a value masked.
const credentialMask = "****"

// maskingCapture masks the credential fields of each exchange's request.
type maskingCapture struct{ Capture }

func (m maskingCapture) Exchange(target string, remote net.Addr) schemes.Exchange {
	return &maskingExchange{Exchange: m.Capture.Exchange(target, remote)}
}

// maskingExchange passes a request's head on line by line, its
// credential fields masked, and everything after the head as it is.
type maskingExchange struct {
	schemes.Exchange
	body    bool   // the head has ended
	partial []byte // a line of the head not yet ended
}

func (m *maskingExchange) Request(p []byte) {
	if m.body {
		m.Exchange.Request(p)
		return
	}
	var out []byte
	for len(p) > 0 && !m.body {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			m.partial = append(m.partial, p...)
			break
		}
		line := p[:i+1]
		if len(m.partial) > 0 {
			line = append(m.partial, line...)
			m.partial = nil
		}
		p = p[i+1:]
		out = append(out, maskField(line)...)
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			m.body = true
			out = append(out, p...)
		}
	}
	if len(out) > 0 {
		m.Exchange.Request(out)
	}
}

func (m *maskingExchange) End(err error) {
	if len(m.partial) > 0 {
		// A head cut within a line: what was written of it.
		m.Exchange.Request(maskField(m.partial))
		m.partial = nil
	}
	m.Exchange.End(err)
}

// maskField returns line, one line of a request head with its line end,
// with the value of a credential field masked: Authorization and
// Proxy-Authorization keep their scheme ("Basic ****"), Cookie its
// cookies' names ("a=****; b=****"). Any other line is returned as is.
func maskField(line []byte) []byte {
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok {
		return line
	}
	body := bytes.TrimRight(value, "\r\n")
	end := value[len(body):]
	lead := body[:len(body)-len(bytes.TrimLeft(body, " \t"))]
	body = bytes.TrimSpace(body)
	var masked []byte
	switch {
	case bytes.EqualFold(name, []byte("Authorization")), bytes.EqualFold(name, []byte("Proxy-Authorization")):
		scheme, _, _ := bytes.Cut(body, []byte(" "))
		masked = append(append(append([]byte(nil), scheme...), ' '), credentialMask...)
	case bytes.EqualFold(name, []byte("Cookie")):
		for i, pair := range bytes.Split(body, []byte(";")) {
			if i > 0 {
				masked = append(masked, ';')
			}
			n, _, _ := bytes.Cut(pair, []byte("="))
			masked = append(append(append(masked, n...), '='), credentialMask...)
		}
	default:
		return line
	}
	out := append(append([]byte(nil), name...), ':')
	out = append(append(append(out, lead...), masked...), end...)
	return out
}
