package cli

import (
	"errors"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
)

// addResolveFlags defines the flags that steer name resolution, as curl's:
// --resolve HOST:PORT:ADDR (repeatable), -4/--ipv4 and -6/--ipv6 (the last
// one given wins).
func addResolveFlags(fs *pflag.FlagSet, o *options) {
	fs.Var(resolveList{&o.resolve}, "resolve", "pin `host:port:addr[,addr]`: connect to addr, not to what host resolves to (repeatable; host * is any host)")
	fs.VarPF(ipVersionFlag{&o.network, "tcp4"}, "ipv4", "4", "connect over IPv4 only").NoOptDefVal = "true"
	fs.VarPF(ipVersionFlag{&o.network, "tcp6"}, "ipv6", "6", "connect over IPv6 only").NoOptDefVal = "true"
}

// resolveList collects --resolve entries, checked as they are given.
type resolveList struct{ entries *[]fetch.ResolveEntry }

func (l resolveList) Set(s string) error {
	e, err := fetch.ParseResolve(s)
	var re *fetch.ResolveError
	if errors.As(err, &re) {
		// pflag names the flag and the entry already.
		return errors.New(re.Reason + " (expected HOST:PORT:ADDR[,ADDR]…)")
	}
	*l.entries = append(*l.entries, e)
	return nil
}

func (l resolveList) String() string { return "" }
func (l resolveList) Type() string   { return "string" }

// ipVersionFlag is -4 or -6: a switch that sets the network (fetch's
// Client.Network) to n, "tcp4" or "tcp6".
type ipVersionFlag struct {
	v *string
	n string
}

func (f ipVersionFlag) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	if on {
		*f.v = f.n
	} else if *f.v == f.n {
		*f.v = ""
	}
	return nil
}

func (f ipVersionFlag) String() string { return strconv.FormatBool(*f.v == f.n) }
func (f ipVersionFlag) Type() string   { return "bool" }
