package schemes

import (
	"errors"
	"testing"
)

// TestParseRange reads ranges as curl's Curl_range reads them.
func TestParseRange(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want ByteRange
	}{
		{"0-499", ByteRange{First: 0, Last: 499}},
		{"500-", ByteRange{First: 500, Last: -1}},
		{"-500", ByteRange{First: -1, Last: -1, Suffix: 500}},
		{"7", ByteRange{First: 7, Last: -1}},
		{" 1 - 2 ", ByteRange{First: 1, Last: 2}},
	} {
		got, err := ParseRange(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseRange(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "-", "5-3", "a-b", "1-2-3", "99999999999999999999-", "-x"} {
		if got, err := ParseRange(in); !errors.Is(err, ErrBadRange) {
			t.Errorf("ParseRange(%q) = %+v, %v; want ErrBadRange", in, got, err)
		}
	}
	if _, err := ParseRanges("0-1,5-3"); !errors.Is(err, ErrBadRange) {
		t.Errorf("ParseRanges with a bad second range: %v", err)
	}
	if FirstRange("0-1,4-5") != "0-1" {
		t.Error("FirstRange")
	}
}

// TestBounds resolves ranges against a size, as ftp: and file: serve
// them, and refuses what lies past the end.
func TestBounds(t *testing.T) {
	for _, tt := range []struct {
		r           ByteRange
		size        int64
		start, n    int64
		pastEnd, ok bool
	}{
		{ByteRange{First: 2, Last: 5}, 20, 2, 4, false, true},
		{ByteRange{First: 2, Last: 50}, 20, 2, 18, false, true},
		{ByteRange{First: 15, Last: -1}, 20, 15, 5, false, true},
		{ByteRange{First: 20, Last: -1}, 20, 20, 0, false, true},
		{ByteRange{First: 21, Last: -1}, 20, 0, 0, true, false},
		{ByteRange{First: -1, Last: -1, Suffix: 3}, 20, 17, 3, false, true},
		{ByteRange{First: -1, Last: -1, Suffix: 30}, 20, 0, 0, true, false},
		{ByteRange{First: 2, Last: 5}, -1, 2, 4, false, true},
		{ByteRange{First: 2, Last: -1}, -1, 2, -1, false, true},
	} {
		start, n, err := tt.r.Bounds(tt.size)
		if (err == nil) != tt.ok || errors.Is(err, ErrPastEnd) != tt.pastEnd || err == nil && (start != tt.start || n != tt.n) {
			t.Errorf("%+v.Bounds(%d) = %d, %d, %v", tt.r, tt.size, start, n, err)
		}
	}
	if _, _, err := (ByteRange{First: -1, Last: -1, Suffix: 3}).Bounds(-1); !errors.Is(err, ErrBadRange) {
		t.Errorf("a suffix of unknown size: %v", err)
	}
}

// TestHolds: a 206's part must be the one asked for.
func TestHolds(t *testing.T) {
	for _, tt := range []struct {
		r                  ByteRange
		first, last, total int64
		want               bool
	}{
		{ByteRange{First: 2, Last: 5}, 2, 5, 20, true},
		{ByteRange{First: 2, Last: 5}, 2, 4, 5, true},
		{ByteRange{First: 2, Last: 5}, 0, 9, 20, false},
		{ByteRange{First: 2, Last: 5}, 2, 9, 20, false},
		{ByteRange{First: 2, Last: -1}, 2, 19, 20, true},
		{ByteRange{First: -1, Last: -1, Suffix: 3}, 17, 19, 20, true},
		{ByteRange{First: -1, Last: -1, Suffix: 3}, 10, 19, 20, false},
		{ByteRange{First: -1, Last: -1, Suffix: 3}, 16, 18, 20, false},
	} {
		if got := tt.r.Holds(tt.first, tt.last, tt.total); got != tt.want {
			t.Errorf("%+v.Holds(%d, %d, %d) = %v", tt.r, tt.first, tt.last, tt.total, got)
		}
	}
}
