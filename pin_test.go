package main

import "testing"

func TestIsLocalURL(t *testing.T) {
	for raw, want := range map[string]bool{
		"ftp://127.0.0.1:2121/f":        true,
		"gopher://127.9.8.7/1":          true,
		"http://[::1]:8080/":            true,
		"http://[::ffff:127.0.0.1]/":    true,
		"http://localhost/":             true,
		"http://LocalHost./":            true,
		"http://a.localhost/":           true,
		"file:///etc/motd":              true,
		"FILE:/etc/motd":                true,
		"http://example.com/":           false,
		"http://128.0.0.1/":             false,
		"http://[::2]/":                 false,
		"http://localhost.example.com/": false,
		"news:comp.lang.go":             false, // the server comes from NNTPSERVER
		"%%%":                           false,
	} {
		if got := isLocalURL(raw); got != want {
			t.Errorf("isLocalURL(%q) = %v, want %v", raw, got, want)
		}
	}
}
