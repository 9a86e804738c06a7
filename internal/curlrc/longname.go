package curlrc

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// Resolve finds the flag the long option word (without its leading --
// and any =value) names, as curl 7.88 finds its options
// (tool_getparam.c): an exact name first, else the one name word is an
// unambiguous prefix of. "no-" before the name of a switch turns the
// switch off (--no-compressed), and a switch whose own name begins with
// no- (--no-buffer) is named without it to turn it back on (--buffer):
// curl lists those switches by their positive names. forced is then the
// value the switch takes, "true" or "false", and set is true; an option
// with a value has no --no- form.
//
// A word that names nothing is returned as it is, for the flag set to
// report as unknown; a word that begins several names is an error that
// lists them.
func Resolve(fs *pflag.FlagSet, word string) (name, forced string, set bool, err error) {
	if fs.Lookup(word) != nil {
		return word, "", false, nil
	}
	type entry struct {
		curl     string // the name as curl lists it
		flag     *pflag.Flag
		inverted bool // curl names the switch by what its flag turns off
	}
	var entries []entry
	fs.VisitAll(func(f *pflag.Flag) {
		if rest, ok := strings.CutPrefix(f.Name, "no-"); ok && isSwitch(f) {
			entries = append(entries, entry{rest, f, true})
			return
		}
		entries = append(entries, entry{f.Name, f, false})
	})
	match := func(w string) ([]entry, bool) {
		var hits []entry
		for _, e := range entries {
			if e.curl == w {
				return []entry{e}, true
			}
			if strings.HasPrefix(e.curl, w) {
				hits = append(hits, e)
			}
		}
		return hits, false
	}
	negated := false
	hits, exact := match(word)
	if rest, ok := strings.CutPrefix(word, "no-"); ok && !exact {
		// As curl: "no-" is taken off before the name is looked for,
		// when the whole word names nothing on its own.
		if h, _ := match(rest); len(h) > 0 && len(hits) == 0 || len(h) == 1 {
			hits, negated = h, true
		}
	}
	switch len(hits) {
	case 0:
		return word, "", false, nil
	case 1:
	default:
		names := make([]string, len(hits))
		for i, h := range hits {
			names[i] = "--" + h.flag.Name
		}
		sort.Strings(names)
		if len(names) > 6 {
			names = append(names[:6], "…")
		}
		return "", "", false, fmt.Errorf("option --%s is ambiguous: %s", word, strings.Join(names, ", "))
	}
	h := hits[0]
	if !negated && !h.inverted {
		return h.flag.Name, "", false, nil
	}
	if !isSwitch(h.flag) {
		return "", "", false, fmt.Errorf("option --%s: --%s takes a value, so it has no --no- form", word, h.flag.Name)
	}
	// negated turns the named switch off; inverted means turning it on
	// is setting its no- flag false.
	if negated == h.inverted {
		return h.flag.Name, "true", true, nil
	}
	return h.flag.Name, "false", true, nil
}

// isSwitch reports whether f is an on/off option, which curl lets
// --no- turn off.
func isSwitch(f *pflag.Flag) bool {
	return f.Value.Type() == "bool"
}

// canonical rewrites the long option arg ("--word" or "--word=value") to
// the flag's full name, as Resolve finds it. It reports whether the
// option still takes the next argument as its value.
func canonical(fs *pflag.FlagSet, arg string) (string, bool, error) {
	word, value, hasValue := strings.Cut(arg[2:], "=")
	name, forced, set, err := Resolve(fs, word)
	if err != nil {
		return "", false, err
	}
	f := fs.Lookup(name)
	switch {
	case set && hasValue:
		return "", false, fmt.Errorf("option --%s takes no value", word)
	case set:
		return "--" + name + "=" + forced, false, nil
	case hasValue:
		return "--" + name + "=" + value, false, nil
	}
	return "--" + name, f != nil && f.NoOptDefVal == "", nil
}
