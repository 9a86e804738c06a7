package main

import (
	"net/netip"
	"strings"

	"github.com/urlget/urlget/uri"
)

// holdCPU is set by main when the run may keep itself on one CPU (see
// holdLocalCPU); tests that call run leave it off.
var holdCPU bool

// holdLocalCPU keeps the process on the CPU it runs on when every URL of
// the run is served from this machine (loopback addresses, localhost,
// files).
//
// The command runs Go code on one thread (GOMAXPROCS=1), so one CPU is all
// it uses at a time. With the server on the same machine, client and server
// wake each other thousands of times a second, and the kernel's wake-up
// placement often puts both on one CPU, where their work adds up instead
// of overlapping: 1000 small files from a local vsftpd took 0.40–0.81 s
// from run to run, and 0.39–0.41 s with the client held on one CPU, the
// scheduler then moving the server to the other; 1 GiB from a local nginx
// into a pipe took 0.94 s, and 0.72 s held; one small file, 11.0 ms and
// 10.5 ms. A server elsewhere gains nothing from this, so the run is left
// to the scheduler then; setting GOMAXPROCS turns it off as well.
//
// Of a URL list only the first URLs are seen (as many as the run looks
// ahead at), and a list that is still being written (a pipe) is taken for
// a server elsewhere.
func holdLocalCPU(q *urlQueue) {
	if !holdCPU {
		return
	}
	for p := q.args; p.n > 0; {
		if !isLocalURL(p.next()) {
			return
		}
	}
	for _, a := range q.urls {
		if (a.list != nil && a.list.wait) || (a.list == nil && !isLocalURL(a.value)) {
			return
		}
	}
	ahead := q.ahead(maxAhead + 1)
	if len(ahead) == 0 {
		return
	}
	for _, raw := range ahead {
		if !isLocalURL(raw) {
			return
		}
	}
	pinToCurrentCPU()
}

// isLocalURL reports whether raw names a resource on this machine: a file:
// URL, or a host that is localhost or a loopback address literal. Other
// names are not looked up.
func isLocalURL(raw string) bool {
	u, err := uri.Parse(raw)
	if err != nil {
		return false
	}
	if strings.EqualFold(u.Scheme(), "file") {
		return true
	}
	return isLoopbackHost(u.Hostname())
}

// isLoopbackHost reports whether h is localhost (RFC 6761 §6.3) or an
// address in 127.0.0.0/8 or ::1.
func isLoopbackHost(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Unmap().IsLoopback()
}
