package mirror

import "hash/maphash"

// urlSet is the set of URLs a run has queued, kept compact so that a
// recursion over a large tree holds little per URL: each URL is kept as a
// 64-bit hash (hash/maphash, seeded afresh for every run) in an open
// addressing table that is at most three quarters full, which costs 11 to
// 21 bytes a URL, against 100 or more for a map of strings.
//
// Two distinct URLs share a hash with probability about n²/2⁶⁵ for n URLs:
// under one in a hundred million for a tree of 100,000 URLs. The seed is
// random, so a server cannot choose names that collide.
type urlSet struct {
	seed  maphash.Seed
	slots []uint64 // 0 marks an empty slot; a hash of 0 is stored as 1
	n     int
}

func newURLSet() *urlSet {
	return &urlSet{seed: maphash.MakeSeed(), slots: make([]uint64, 1024)}
}

// add records s and reports whether it was new.
func (t *urlSet) add(s string) bool {
	h := maphash.String(t.seed, s)
	if h == 0 {
		h = 1
	}
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow()
	}
	if !t.insert(h) {
		return false
	}
	t.n++
	return true
}

// has reports whether s was added.
func (t *urlSet) has(s string) bool {
	h := maphash.String(t.seed, s)
	if h == 0 {
		h = 1
	}
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch t.slots[i] {
		case 0:
			return false
		case h:
			return true
		}
	}
}

// insert places h by linear probing; false when it is there already.
func (t *urlSet) insert(h uint64) bool {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch t.slots[i] {
		case 0:
			t.slots[i] = h
			return true
		case h:
			return false
		}
	}
}

func (t *urlSet) grow() {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	for _, h := range old {
		if h != 0 {
			t.insert(h)
		}
	}
}

// len returns how many URLs were added.
func (t *urlSet) len() int { return t.n }
