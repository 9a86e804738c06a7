package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/schemes/ftp"
)

// ftpXOptions holds the flags of the ftp: flags curl has beyond the method and the port.
type ftpXOptions struct {
	// quote is every -Q, in order, with curl's "+" (before the transfer)
	// and "-" (after it) prefixes still on.
	quote []string
	// cccOn is --ftp-ssl-ccc, ccc --ftp-ssl-ccc-mode's mode.
	cccOn bool
	ccc   string
}

// addFtpXFlags defines the flags of the ftp: flags curl has beyond the method and the port.
// Each sets ftp.Fetcher, so that every other scheme ignores it, as curl
// ignores them for other protocols.
func addFtpXFlags(fs *pflag.FlagSet, o *options) {
	x := &o.ftpX
	fs.BoolVarP(&o.ftp.ListOnly, "list-only", "l", false, "list an FTP directory with NLST: its names only, one a line")
	curlNote(fs, "list-only", "applies to directory URLs only (ending in /); curl lists the directory of a file URL too")
	fs.StringArrayVarP(&x.quote, "quote", "Q", nil, "send the FTP `command` after the login; +command before the transfer, -command after it; a leading * lets it fail")
	fs.BoolVarP(&o.ftp.ASCII, "use-ascii", "B", false, "fetch FTP files in ASCII (TYPE A), line ends made local; ;type=i still means binary")
	curlNote(fs, "ftp-port", "an interface's name or an IP address, not a host name, which curl looks up")
	fs.Var(pasvFlag{&o.ftp.ActiveAddr}, "ftp-pasv", "passive FTP (the default): undo an earlier -P")
	fs.Lookup("ftp-pasv").NoOptDefVal = "true"
	fs.Bool("ftp-skip-pasv-ip", true, "connect FTP data connections to the control connection's host (always so)")
	fs.Lookup("ftp-skip-pasv-ip").NoOptDefVal = "true"
	curlNote(fs, "ftp-skip-pasv-ip", "always on: the address a PASV reply names is never used (RFC 2577 §3), also with --no-ftp-skip-pasv-ip")
	fs.BoolVar(&o.ftp.NoEPSV, "disable-epsv", false, "ask for FTP passive ports with PASV only, never EPSV")
	fs.Bool("disable-eprt", false, "active FTP over IPv4 with PORT (always so: EPRT only for IPv6)")
	fs.Lookup("disable-eprt").NoOptDefVal = "true"
	curlNote(fs, "disable-eprt", "active mode always sends PORT over IPv4 and EPRT over IPv6, with or without it")
	fs.BoolVar(&o.ftp.PRET, "ftp-pret", false, "send PRET before each FTP passive port (drftpd)")
	fs.StringVar(&o.ftp.Account, "ftp-account", "", "the FTP account `data` sent with ACCT when the server asks for one (332)")
	fs.StringVar(&o.ftp.AlternativeToUser, "ftp-alternative-to-user", "", "the FTP `command` sent in USER's place when USER and PASS are refused")
	fs.BoolVar(&o.ftp.TryTLS, "ssl", false, "try TLS on ftp: (AUTH TLS), going on in the clear if the server refuses")
	curlNote(fs, "ssl", "asks for AUTH TLS alone, where curl asks for AUTH SSL first")
	fs.BoolVar(&o.ftp.TryTLS, "ftp-ssl", false, "the old name of --ssl (curl still takes it)")
	fs.BoolVar(&o.ftp.RequireTLS, "ftp-ssl-reqd", false, "the old name of --ssl-reqd (curl still takes it)")
	fs.BoolVar(&o.ftp.ControlTLSOnly, "ftp-ssl-control", false, "require TLS for the FTP login, data connections in the clear (PROT C)")
	fs.BoolVar(&x.cccOn, "ftp-ssl-ccc", false, "end TLS on the FTP control connection after the login (CCC), data connections still protected")
	fs.StringVar(&x.ccc, "ftp-ssl-ccc-mode", "", "how CCC ends TLS: `mode` passive (wait for the server, the default) or active; implies --ftp-ssl-ccc")
	curlNote(fs, "ftp-ssl-ccc-mode", "a mode other than active or passive is refused (exit 2); curl warns and uses passive")
}

// pasvFlag is --ftp-pasv: it clears -P's address where it comes, so that
// the last of the two wins, as in curl.
type pasvFlag struct{ active *string }

func (p pasvFlag) String() string   { return "" }
func (p pasvFlag) Type() string     { return "bool" }
func (p pasvFlag) IsBoolFlag() bool { return true }
func (p pasvFlag) Set(s string) error {
	if s == "true" || s == "1" {
		*p.active = ""
	}
	return nil
}

// checkFtpXFlags checks those flags once parsed.
func checkFtpXFlags(fs *pflag.FlagSet, o *options) error {
	x := &o.ftpX
	switch {
	case fs.Changed("ftp-ssl-ccc-mode"):
		// As curl, a mode implies --ftp-ssl-ccc.
		switch strings.ToLower(x.ccc) {
		case "passive":
			o.ftp.CCC = ftp.CCCPassive
		case "active":
			o.ftp.CCC = ftp.CCCActive
		default:
			return fmt.Errorf("--ftp-ssl-ccc-mode must be active or passive, not %q", x.ccc)
		}
	case x.cccOn:
		o.ftp.CCC = ftp.CCCPassive
	}
	for _, v := range []struct{ name, val string }{
		{"--ftp-account", o.ftp.Account},
		{"--ftp-alternative-to-user", o.ftp.AlternativeToUser},
	} {
		if err := commandText(v.name, v.val); err != nil {
			return err
		}
	}
	if fs.Changed("ftp-alternative-to-user") && strings.TrimSpace(o.ftp.AlternativeToUser) == "" {
		return errors.New("--ftp-alternative-to-user: empty command")
	}
	for _, q := range x.quote {
		// curl's -Q: "-CMD" after the transfer, "+CMD" before it, else
		// after the login; the "*" that lets one fail stays on for the
		// fetcher.
		list, cmd := &o.ftp.Quote, q
		switch {
		case strings.HasPrefix(q, "-"):
			list, cmd = &o.ftp.PostQuote, q[1:]
		case strings.HasPrefix(q, "+"):
			list, cmd = &o.ftp.PreQuote, q[1:]
		}
		if err := commandText("-Q", cmd); err != nil {
			return err
		}
		if strings.TrimSpace(strings.TrimPrefix(cmd, "*")) == "" {
			return fmt.Errorf("-Q %q: no command", q)
		}
		*list = append(*list, cmd)
	}
	if o.ftp.ListOnly && o.rec.recursive {
		return errors.New("-l/--list-only gives names without their kinds, which a recursion cannot walk; leave out -l or the recursion")
	}
	return nil
}

// commandText refuses what cannot travel in an FTP command: CR and LF
// would end it and begin another (RFC 959 §4.1), NUL ends it on many
// servers, and 0xFF is the Telnet IAC byte.
func commandText(flag, s string) error {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\r', '\n', 0, 0xFF:
			return fmt.Errorf("%s: %q holds the byte %q, which cannot be sent in an FTP command (CR, LF, NUL and 0xFF cannot)", flag, s, s[i])
		}
	}
	return nil
}

// configure sets those flags on the client: they were set on the ftp
// fetcher as they were parsed, and checked. What -w prints decides one
// more: the login directory is asked (PWD) only for a format that shows
// it, %{ftp_entry_path}, as curl always asks it.
func (x *ftpXOptions) configure(o *options, cl *fetch.Client) error {
	o.ftp.EntryPath = strings.Contains(strings.ToLower(o.writeOut), "ftp_entry_path")
	return nil
}

// ftpExitCode maps the failures only FTP options lead to onto curl's
// exit codes: 11 for an account (ACCT) refused, 21 for a quote command
// refused, 30 for active mode (-P) that could not be set up, 64 for TLS
// required and refused, 84 for PRET refused.
func ftpExitCode(err error) (int, bool) {
	switch {
	case errors.Is(err, ftp.ErrQuote):
		return 21, true
	case errors.Is(err, ftp.ErrTLSRefused):
		return 64, true
	case errors.Is(err, ftp.ErrPRET):
		return 84, true
	case errors.Is(err, ftp.ErrAccountRefused):
		return 11, true
	case errors.Is(err, ftp.ErrPortFailed):
		return 30, true
	}
	return 0, false
}
