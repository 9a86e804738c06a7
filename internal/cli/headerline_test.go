package cli

import "testing"

func TestParseHeaderLine(t *testing.T) {
	for _, tc := range []struct {
		in, name, value string
		remove, bad     bool
	}{
		{in: "X-A: 1", name: "X-A", value: "1"},
		{in: "x-a:1  ", name: "x-a", value: "1"}, // spelled as given, as curl sends it
		{in: "Accept:", name: "Accept", remove: true},
		{in: "Accept:   ", name: "Accept", remove: true},
		{in: "X-Empty;", name: "X-Empty"},
		{in: "X-Semi: a;", name: "X-Semi", value: "a;"},
		{in: "Time: 12:00", name: "Time", value: "12:00"},
		{in: "no colon", bad: true},
		{in: ": value", bad: true},
		{in: "Bad Name: x", bad: true},
		{in: "X: a\r\nY: b", bad: true},
		{in: "X: a\x00", bad: true},
	} {
		name, value, remove, err := parseHeaderLine(tc.in)
		if (err != nil) != tc.bad {
			t.Errorf("%q: error %v, want refused %v", tc.in, err, tc.bad)
			continue
		}
		if !tc.bad && (name != tc.name || value != tc.value || remove != tc.remove) {
			t.Errorf("%q: %q %q remove %v; want %q %q %v", tc.in, name, value, remove, tc.name, tc.value, tc.remove)
		}
	}
}
