package cli

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/crypto/ocsp"

	"github.com/urlget/urlget/schemes"
)

// tlsFlags are the TLS settings of one side, curl's: the server's
// (-E, --key, --ciphers, …) or an https proxy's (--proxy-cert, …), the
// same options with "proxy-" before their names.
type tlsFlags struct {
	cert, certType string // -E FILE[:PASSWORD], --cert-type PEM|DER|P12|ENG
	key, keyType   string // --key FILE, --key-type PEM|DER|ENG
	pass           string // --pass: the key's pass phrase
	ciphers        string // --ciphers: OpenSSL's names, TLS 1.2 and below
	tls13Ciphers   string // --tls13-ciphers
	capath         string // --capath DIR
	crlfile        string // --crlfile FILE
	pinned         string // --pinnedpubkey sha256//B64[;…] or FILE
	minVersion     uint16 // --tlsv1.x
	maxVersion     uint16 // --tls-max
	certStatus     bool   // --cert-status
	curves         string // --curves: OpenSSL's names of key exchange groups

	// The proxy's alone: the server's are -k and --cacert of cli.go.
	insecure bool
	cacert   string
}

// tlsVersions are the versions --tlsv1.x and --tls-max name.
var tlsVersions = map[string]uint16{
	"1.0": tls.VersionTLS10, "1.1": tls.VersionTLS11, "1.2": tls.VersionTLS12, "1.3": tls.VersionTLS13,
}

// minVersionFlag is one of --tlsv1, --tlsv1.0, … : a switch that sets the
// lowest TLS version to v (curl: "use TLSv1.2 or later").
type minVersionFlag struct {
	v    *uint16
	want uint16
}

func (f minVersionFlag) Set(s string) error {
	if s != "true" && s != "false" {
		return fmt.Errorf("takes no value")
	}
	if s == "true" {
		*f.v = f.want
	}
	return nil
}
func (f minVersionFlag) String() string { return "" }
func (f minVersionFlag) Type() string   { return "bool" }

// maxVersionFlag is --tls-max VERSION: 1.0, 1.1, 1.2, 1.3 or default.
type maxVersionFlag struct{ v *uint16 }

func (f maxVersionFlag) Set(s string) error {
	if s == "default" {
		*f.v = 0
		return nil
	}
	v, ok := tlsVersions[s]
	if !ok {
		return fmt.Errorf("%q is not one of 1.0, 1.1, 1.2, 1.3, default", s)
	}
	*f.v = v
	return nil
}
func (f maxVersionFlag) String() string { return "" }
func (f maxVersionFlag) Type() string   { return "version" }

// addTLSFlags defines the TLS flags of one side on fs: prefix is "" for
// the server's, "proxy-" for an https proxy's.
func addTLSFlags(fs *pflag.FlagSet, t *tlsFlags, prefix string) {
	side := "the server"
	if prefix != "" {
		side = "an https proxy"
	}
	if prefix == "" {
		fs.StringVarP(&t.cert, "cert", "E", "", "present the client certificate in `file[:password]` to "+side)
	} else {
		fs.StringVar(&t.cert, prefix+"cert", "", "present the client certificate in `file[:password]` to "+side)
		fs.BoolVar(&t.insecure, prefix+"insecure", false, "do not verify the certificate of an https proxy")
		fs.StringVar(&t.cacert, prefix+"cacert", "", "trust the CA certificates in `file` for an https proxy")
	}
	fs.StringVar(&t.certType, prefix+"cert-type", "PEM", "the `type` of the client certificate for "+side+": PEM or DER")
	fs.StringVar(&t.key, prefix+"key", "", "the private key of the client certificate for "+side+", in `file` (default: in the certificate's file)")
	fs.StringVar(&t.keyType, prefix+"key-type", "PEM", "the `type` of that private key: PEM or DER")
	fs.StringVar(&t.pass, prefix+"pass", "", "the pass `phrase` of that private key")
	fs.StringVar(&t.ciphers, prefix+"ciphers", "", "offer "+side+" only the cipher suites of `list` (OpenSSL's names) up to TLS 1.2")
	fs.StringVar(&t.tls13Ciphers, prefix+"tls13-ciphers", "", "accept from "+side+" only the TLS 1.3 cipher suites of `list`")
	fs.StringVar(&t.capath, prefix+"capath", "", "trust the CA certificates in the files of `dir` as well, for "+side)
	fs.StringVar(&t.crlfile, prefix+"crlfile", "", "refuse a certificate of "+side+" that the CRL in `file` revokes")
	fs.StringVar(&t.pinned, prefix+"pinnedpubkey", "", "accept only "+side+"'s public keys in `hashes` (sha256//BASE64[;…]) or a key file")
	short := ""
	if prefix == "" {
		short = "1" // curl's -1
	}
	fs.VarPF(minVersionFlag{&t.minVersion, tls.VersionTLS10}, prefix+"tlsv1", short, "use TLS 1.0 or later with "+side).NoOptDefVal = "true"
	curlNote(fs, prefix+"pass", "encrypted private keys are refused: Go's standard library decrypts only the insecure legacy PEM encryption; decrypt the key first (openssl pkey)")
	curlNote(fs, prefix+"capath", "every file in the directory is read, not only OpenSSL's hashed names")
	curlNote(fs, prefix+"cert-type", "P12 and ENG are refused: no PKCS#12 or engine support in Go's standard library")
	curlNote(fs, prefix+"tls13-ciphers", "Go offers every TLS 1.3 suite it has; a connection whose suite is not listed is refused after the handshake (exit 35)")
	curlNote(fs, prefix+"ciphers", "OpenSSL's and IANA's suite names; OpenSSL's keywords (HIGH, DEFAULT, ALL) mean Go's default suites, and '!'/'-' entries remove named suites")
	if prefix == "" {
		fs.VarPF(minVersionFlag{&t.minVersion, tls.VersionTLS10}, "tlsv1.0", "", "use TLS 1.0 or later").NoOptDefVal = "true"
		fs.VarPF(minVersionFlag{&t.minVersion, tls.VersionTLS11}, "tlsv1.1", "", "use TLS 1.1 or later").NoOptDefVal = "true"
		fs.VarPF(minVersionFlag{&t.minVersion, tls.VersionTLS12}, "tlsv1.2", "", "use TLS 1.2 or later").NoOptDefVal = "true"
		fs.VarPF(minVersionFlag{&t.minVersion, tls.VersionTLS13}, "tlsv1.3", "", "use TLS 1.3").NoOptDefVal = "true"
		fs.Var(maxVersionFlag{&t.maxVersion}, "tls-max", "use at most TLS `version` (1.0, 1.1, 1.2, 1.3, default)")
		fs.BoolVar(&t.certStatus, "cert-status", false, "require the server's certificate status, stapled (OCSP), to be good")
		fs.StringVar(&t.curves, "curves", "", "offer the key exchange groups of `list` (X25519:P-256:…), in that order")
		curlNote(fs, "curves", "the groups Go has: X25519, X25519MLKEM768, P-256 (prime256v1), P-384 (secp384r1), P-521 (secp521r1); others are passed over, and a list naming none of them fails (exit 59)")
	}
}

// certArg splits -E's FILE[:PASSWORD] as curl does: "\:" is a colon of
// the name and "\\" a backslash; the first other colon starts the
// password. A name that starts with a drive letter ("C:\") keeps its
// colon, as curl keeps it on Windows.
func certArg(s string) (file, password string, hasPassword bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && (s[i+1] == ':' || s[i+1] == '\\'):
			b.WriteByte(s[i+1])
			i++
		case c == ':' && i == 1 && len(s) > 2 && (s[2] == '\\' || s[2] == '/') && isLetter(s[0]):
			b.WriteByte(c)
		case c == ':':
			return b.String(), s[i+1:], true
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), "", false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// check refuses at once what the flags of one side promise and urlget
// cannot do: exit 2, naming the flag.
func (t *tlsFlags) check(prefix string) error {
	for _, f := range []struct{ name, v string }{{"cert-type", t.certType}, {"key-type", t.keyType}} {
		switch strings.ToUpper(f.v) {
		case "PEM", "DER":
		case "P12":
			if f.name == "cert-type" {
				return fmt.Errorf("--%s%s P12: PKCS#12 files are not supported; convert it to PEM (openssl pkcs12 -nodes)", prefix, f.name)
			}
			return fmt.Errorf("--%s%s %s: not PEM or DER", prefix, f.name, f.v)
		case "ENG":
			return fmt.Errorf("--%s%s ENG: crypto engines are not supported", prefix, f.name)
		default:
			return fmt.Errorf("--%s%s %s: not PEM or DER", prefix, f.name, f.v)
		}
	}
	return nil
}

// codedError is a failure of the command line's set-up that curl reports
// with an exit code of its own (58 for a client certificate that cannot
// be used, 59 for a cipher list that names nothing), not as a usage error.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// setupExit is the exit status of a failure to build the client.
func setupExit(err error) int {
	var ce *codedError
	if errors.As(err, &ce) {
		return ce.code
	}
	return exitUsage
}

// apply sets the flags of one side on c.
func (t *tlsFlags) apply(c *tls.Config, prefix string) error {
	if t.cert != "" {
		cert, err := t.loadCert()
		if err != nil {
			return &codedError{exitLocalCert, fmt.Errorf("--%scert: %v", prefix, err)}
		}
		c.Certificates = []tls.Certificate{cert}
	} else if t.key != "" {
		return &codedError{exitLocalCert, fmt.Errorf("--%skey without --%scert", prefix, prefix)}
	}
	if t.curves != "" {
		ids, err := curveIDs(t.curves)
		if err != nil {
			return &codedError{exitCipher, fmt.Errorf("--curves: %v", err)}
		}
		c.CurvePreferences = ids
	}
	if t.ciphers != "" {
		ids, err := cipherSuites(t.ciphers)
		if err != nil {
			return &codedError{exitCipher, fmt.Errorf("--%sciphers: %v", prefix, err)}
		}
		c.CipherSuites = ids
	}
	var verify []func(tls.ConnectionState) error
	if t.tls13Ciphers != "" {
		allowed, err := tls13Suites(t.tls13Ciphers)
		if err != nil {
			return &codedError{exitCipher, fmt.Errorf("--%stls13-ciphers: %v", prefix, err)}
		}
		verify = append(verify, func(cs tls.ConnectionState) error {
			if cs.Version == tls.VersionTLS13 && !slices.Contains(allowed, cs.CipherSuite) {
				return fmt.Errorf("the server chose %s, which --%stls13-ciphers does not list", tls.CipherSuiteName(cs.CipherSuite), prefix)
			}
			return nil
		})
	}
	if t.minVersion != 0 {
		c.MinVersion = t.minVersion
	}
	if t.maxVersion != 0 {
		c.MaxVersion = t.maxVersion
		if c.MinVersion > c.MaxVersion {
			// curl: --tlsv1.3 --tls-max 1.2 fails to connect (35).
			c.MinVersion = c.MaxVersion + 1
		}
	}
	if t.capath != "" {
		if err := addCAPath(c, t.capath); err != nil {
			return fmt.Errorf("--%scapath: %v", prefix, err)
		}
	}
	if t.crlfile != "" {
		check, err := crlCheck(t.crlfile)
		if err != nil {
			return fmt.Errorf("--%scrlfile: %v", prefix, err)
		}
		verify = append(verify, check)
	}
	if t.pinned != "" {
		pins, err := parsePins(t.pinned)
		if err != nil {
			return fmt.Errorf("--%spinnedpubkey: %v", prefix, err)
		}
		verify = append(verify, func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return pinError{}
			}
			sum := sha256.Sum256(cs.PeerCertificates[0].RawSubjectPublicKeyInfo)
			for _, p := range pins {
				if p == sum {
					return nil
				}
			}
			return pinError(sum)
		})
	}
	if t.certStatus {
		verify = append(verify, checkStatus)
	}
	if len(verify) > 0 {
		prev := c.VerifyConnection
		// VerifyConnection runs after the chain is verified, and with
		// -k too: a pinned key holds whatever -k says, as in curl.
		c.VerifyConnection = func(cs tls.ConnectionState) error {
			if prev != nil {
				if err := prev(cs); err != nil {
					return err
				}
			}
			for _, v := range verify {
				if err := v(cs); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return nil
}

// loadCert reads the client certificate and its key: -E's file, PEM or
// DER, and the key from --key or else from the certificate's own file,
// as curl reads them.
func (t *tlsFlags) loadCert() (tls.Certificate, error) {
	file, pass, hasPass := certArg(t.cert)
	if !hasPass {
		pass = t.pass
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return tls.Certificate{}, err
	}
	var cert tls.Certificate
	var keyBlock []byte
	var keyPEM *pem.Block
	if strings.EqualFold(t.certType, "DER") {
		cert.Certificate = [][]byte{data}
	} else {
		for rest := data; ; {
			var b *pem.Block
			b, rest = pem.Decode(rest)
			if b == nil {
				break
			}
			switch {
			case b.Type == "CERTIFICATE":
				cert.Certificate = append(cert.Certificate, b.Bytes)
			case strings.HasSuffix(b.Type, "PRIVATE KEY") && keyPEM == nil:
				keyPEM = b
			}
		}
		if len(cert.Certificate) == 0 {
			return tls.Certificate{}, fmt.Errorf("%s holds no PEM certificate", file)
		}
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("%s: %v", file, err)
	}
	cert.Leaf = leaf
	keyFile := file
	if t.key != "" {
		keyFile, keyPEM = t.key, nil
		data, err := os.ReadFile(t.key)
		if err != nil {
			return tls.Certificate{}, err
		}
		if strings.EqualFold(t.keyType, "DER") {
			keyBlock = data
		} else {
			for rest := data; keyPEM == nil; {
				var b *pem.Block
				if b, rest = pem.Decode(rest); b == nil {
					break
				}
				if strings.HasSuffix(b.Type, "PRIVATE KEY") {
					keyPEM = b
				}
			}
		}
	}
	if keyPEM != nil {
		if keyPEM.Type == "ENCRYPTED PRIVATE KEY" || keyPEM.Headers["Proc-Type"] != "" {
			why := "encrypted private keys are not supported"
			if pass == "" && !hasPass {
				why += " (and no --pass was given)"
			}
			return tls.Certificate{}, fmt.Errorf("%s: %s: Go's standard library decrypts only the legacy PEM encryption, which is insecure; decrypt the key first (openssl pkey -in KEY -out PLAIN)", keyFile, why)
		}
		keyBlock = keyPEM.Bytes
	}
	if keyBlock == nil {
		return tls.Certificate{}, fmt.Errorf("no private key in %s; give it with --key", keyFile)
	}
	key, err := parseKey(keyBlock)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("%s: %v", keyFile, err)
	}
	if !publicKeyEqual(leaf.PublicKey, key.Public()) {
		return tls.Certificate{}, fmt.Errorf("the private key in %s does not match the certificate in %s", keyFile, file)
	}
	cert.PrivateKey = key
	return cert, nil
}

// parseKey reads a private key in PKCS#8, PKCS#1 (RSA) or SEC 1 (EC) form.
func parseKey(der []byte) (crypto.Signer, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
		return nil, errors.New("a private key of a kind TLS cannot sign with")
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k, nil
	}
	return nil, errors.New("not a PKCS#8, PKCS#1 or EC private key")
}

// publicKeyEqual reports whether a and b are the same public key.
func publicKeyEqual(a, b crypto.PublicKey) bool {
	switch k := a.(type) {
	case *rsa.PublicKey:
		return k.Equal(b)
	case *ecdsa.PublicKey:
		return k.Equal(b)
	case ed25519.PublicKey:
		return k.Equal(b)
	}
	return false
}

// addCAPath adds the certificates of the files in dir to c's roots (the
// system's, or --cacert's when given), as OpenSSL's CA directory serves
// curl's --capath.
func addCAPath(c *tls.Config, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	pool := c.RootCAs
	if pool == nil {
		if pool, err = x509.SystemCertPool(); err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if !pool.AppendCertsFromPEM(data) {
			if cert, err := x509.ParseCertificate(data); err == nil {
				pool.AddCert(cert)
			}
		}
	}
	c.RootCAs = pool
	return nil
}

// crlCheck returns the check of --crlfile: the server's certificate must
// not be on a revocation list of its issuer that the file holds (PEM or
// DER, RFC 5280 §5), and the file must hold one, as OpenSSL's CRL check
// requires; the list's signature is checked against the issuer of the
// verified chain. A revoked certificate is one not verified (curl's 60).
func crlCheck(file string) (func(tls.ConnectionState) error, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var lists []*x509.RevocationList
	for rest := data; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if b.Type == "X509 CRL" {
			l, err := x509.ParseRevocationList(b.Bytes)
			if err != nil {
				return nil, err
			}
			lists = append(lists, l)
		}
	}
	if len(lists) == 0 {
		l, err := x509.ParseRevocationList(data)
		if err != nil {
			return nil, fmt.Errorf("%s holds no certificate revocation list", file)
		}
		lists = append(lists, l)
	}
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return nil
		}
		leaf := cs.PeerCertificates[0]
		var issuer *x509.Certificate
		if len(cs.VerifiedChains) > 0 && len(cs.VerifiedChains[0]) > 1 {
			issuer = cs.VerifiedChains[0][1]
		} else if len(cs.PeerCertificates) > 1 {
			issuer = cs.PeerCertificates[1]
		}
		fail := func(why string) error {
			return &tls.CertificateVerificationError{UnverifiedCertificates: cs.PeerCertificates, Err: errors.New(why)}
		}
		for _, l := range lists {
			if !bytes.Equal(l.RawIssuer, leaf.RawIssuer) {
				continue
			}
			if issuer != nil && l.CheckSignatureFrom(issuer) != nil {
				return fail("the CRL in " + file + " is not signed by the certificate's issuer")
			}
			for _, r := range l.RevokedCertificateEntries {
				if r.SerialNumber.Cmp(leaf.SerialNumber) == 0 {
					return fail("the certificate is revoked (" + file + ")")
				}
			}
			return nil
		}
		return fail("no revocation list of the certificate's issuer in " + file)
	}, nil
}

// checkStatus is --cert-status's check: the server stapled an OCSP
// response (RFC 6066 §8, RFC 6960) for its certificate, signed by the
// certificate's issuer or a responder the issuer names, that says the
// certificate is good and is not out of date. Anything else is curl's
// exit 91.
func checkStatus(cs tls.ConnectionState) error {
	fail := func(why string) error { return fmt.Errorf("%s: %w", why, schemes.ErrCertStatus) }
	if len(cs.OCSPResponse) == 0 {
		return fail("no OCSP response stapled")
	}
	if len(cs.PeerCertificates) == 0 {
		return fail("no certificate")
	}
	var issuer *x509.Certificate
	switch {
	case len(cs.VerifiedChains) > 0 && len(cs.VerifiedChains[0]) > 1:
		issuer = cs.VerifiedChains[0][1]
	case len(cs.PeerCertificates) > 1:
		issuer = cs.PeerCertificates[1]
	default:
		return fail("the issuer of the certificate is unknown, so its OCSP response cannot be checked")
	}
	r, err := ocsp.ParseResponseForCert(cs.OCSPResponse, cs.PeerCertificates[0], issuer)
	if err != nil {
		return fail("the OCSP response: " + err.Error())
	}
	switch {
	case r.Status == ocsp.Revoked:
		return fail("the certificate is revoked (OCSP)")
	case r.Status != ocsp.Good:
		return fail("the OCSP responder does not know the certificate")
	case !r.NextUpdate.IsZero() && time.Now().After(r.NextUpdate):
		return fail("the OCSP response is out of date")
	}
	return nil
}

// pinError is a server key none of --pinnedpubkey's hashes names; it is
// schemes.ErrPinnedKey for errors.Is, and says the key's own hash.
type pinError [32]byte

func (e pinError) Error() string {
	return "its hash is sha256//" + base64.StdEncoding.EncodeToString(e[:])
}
func (e pinError) Unwrap() error { return schemes.ErrPinnedKey }

// parsePins reads --pinnedpubkey: "sha256//BASE64" hashes separated by
// ';', or the name of a file with the public key, PEM or DER (its
// SubjectPublicKeyInfo, RFC 5280 §4.1.2.7), as curl reads it.
func parsePins(s string) ([][32]byte, error) {
	var pins [][32]byte
	if strings.HasPrefix(s, "sha256//") {
		for _, p := range strings.Split(s, ";") {
			b64, ok := strings.CutPrefix(strings.TrimSpace(p), "sha256//")
			if !ok {
				return nil, fmt.Errorf("%q is not sha256//BASE64", p)
			}
			sum, err := base64.StdEncoding.DecodeString(b64)
			if err != nil || len(sum) != sha256.Size {
				return nil, fmt.Errorf("%q is not the base64 of a SHA-256 hash", p)
			}
			pins = append(pins, [32]byte(sum))
		}
		return pins, nil
	}
	data, err := os.ReadFile(s)
	if err != nil {
		return nil, err
	}
	der := data
	if b, _ := pem.Decode(data); b != nil {
		der = b.Bytes
	}
	if _, err := x509.ParsePKIXPublicKey(der); err != nil {
		return nil, fmt.Errorf("%s holds no public key: %v", s, err)
	}
	return [][32]byte{sha256.Sum256(der)}, nil
}

// opensslSuites names Go's TLS 1.2 (and below) cipher suites as OpenSSL
// does, the names curl's --ciphers takes with OpenSSL.
var opensslSuites = map[string]uint16{
	"ECDHE-ECDSA-AES128-GCM-SHA256": tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-RSA-AES128-GCM-SHA256":   tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-ECDSA-AES256-GCM-SHA384": tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-RSA-AES256-GCM-SHA384":   tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-ECDSA-CHACHA20-POLY1305": tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-RSA-CHACHA20-POLY1305":   tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-ECDSA-AES128-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
	"ECDHE-RSA-AES128-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
	"ECDHE-ECDSA-AES256-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	"ECDHE-RSA-AES256-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	"ECDHE-ECDSA-AES128-SHA256":     tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256,
	"ECDHE-RSA-AES128-SHA256":       tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,
	"ECDHE-RSA-DES-CBC3-SHA":        tls.TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA,
	"ECDHE-ECDSA-RC4-SHA":           tls.TLS_ECDHE_ECDSA_WITH_RC4_128_SHA,
	"ECDHE-RSA-RC4-SHA":             tls.TLS_ECDHE_RSA_WITH_RC4_128_SHA,
	"AES128-GCM-SHA256":             tls.TLS_RSA_WITH_AES_128_GCM_SHA256,
	"AES256-GCM-SHA384":             tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
	"AES128-SHA":                    tls.TLS_RSA_WITH_AES_128_CBC_SHA,
	"AES256-SHA":                    tls.TLS_RSA_WITH_AES_256_CBC_SHA,
	"AES128-SHA256":                 tls.TLS_RSA_WITH_AES_128_CBC_SHA256,
	"DES-CBC3-SHA":                  tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA,
	"RC4-SHA":                       tls.TLS_RSA_WITH_RC4_128_SHA,
}

// suiteByName finds a TLS 1.2 suite by OpenSSL's name or IANA's (Go's).
func suiteByName(name string) (uint16, bool) {
	if id, ok := opensslSuites[strings.ToUpper(name)]; ok {
		return id, true
	}
	for _, list := range [][]*tls.CipherSuite{tls.CipherSuites(), tls.InsecureCipherSuites()} {
		for _, s := range list {
			if strings.EqualFold(s.Name, name) && !slices.Contains(s.SupportedVersions, tls.VersionTLS13) {
				return s.ID, true
			}
		}
	}
	return 0, false
}

// cipherKeywords are OpenSSL's words for sets of suites that urlget reads
// as Go's default suites: Go's are all of the "HIGH" kind already.
var cipherKeywords = map[string]bool{"DEFAULT": true, "HIGH": true, "ALL": true, "SECURE": true, "COMPLEMENTOFDEFAULT": false}

// cipherSuites reads an OpenSSL cipher list (entries separated by ':',
// ',' or spaces) into Go's suite IDs, in the list's order. As OpenSSL,
// it fails only when the list selects no suite at all ("failed setting
// cipher list", curl's exit 59); names it does not know are passed over,
// as OpenSSL passes them. "!NAME" and "-NAME" remove a named suite.
func cipherSuites(list string) ([]uint16, error) {
	var ids []uint16
	var removed []uint16
	for _, e := range strings.FieldsFunc(list, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		switch {
		case e[0] == '!' || e[0] == '-':
			if id, ok := suiteByName(e[1:]); ok {
				removed = append(removed, id)
			}
		case cipherKeywords[strings.ToUpper(e)]:
			for _, s := range tls.CipherSuites() {
				if !slices.Contains(s.SupportedVersions, tls.VersionTLS13) && !slices.Contains(ids, s.ID) {
					ids = append(ids, s.ID)
				}
			}
		default:
			if id, ok := suiteByName(strings.TrimPrefix(e, "+")); ok && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	ids = slices.DeleteFunc(ids, func(id uint16) bool { return slices.Contains(removed, id) })
	if len(ids) == 0 {
		return nil, fmt.Errorf("failed setting cipher list: %s", list)
	}
	return ids, nil
}

// tls13Suites reads --tls13-ciphers, IANA's names separated by ':'; as
// OpenSSL, only a list that names none of them fails (curl's exit 59).
func tls13Suites(list string) ([]uint16, error) {
	var ids []uint16
	for _, e := range strings.FieldsFunc(list, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		for _, s := range tls.CipherSuites() {
			if strings.EqualFold(s.Name, e) && slices.Contains(s.SupportedVersions, tls.VersionTLS13) {
				ids = append(ids, s.ID)
			}
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("failed setting TLS 1.3 cipher suite: %s", list)
	}
	return ids, nil
}

// curveNames are the key exchange groups Go's TLS has, by the names
// OpenSSL (and so curl's --curves) and IANA give them.
var curveNames = map[string]tls.CurveID{
	"x25519": tls.X25519, "x25519mlkem768": tls.X25519MLKEM768,
	"p-256": tls.CurveP256, "prime256v1": tls.CurveP256, "secp256r1": tls.CurveP256,
	"p-384": tls.CurveP384, "secp384r1": tls.CurveP384,
	"p-521": tls.CurveP521, "secp521r1": tls.CurveP521,
}

// curveIDs reads --curves: names separated by ':', in the order of
// preference. As OpenSSL, a name it does not have is passed over, and a
// list that names none it has is an error.
func curveIDs(list string) ([]tls.CurveID, error) {
	var ids []tls.CurveID
	for _, n := range strings.Split(list, ":") {
		if id, ok := curveNames[strings.ToLower(strings.TrimSpace(n))]; ok && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%q names no key exchange group urlget has (X25519, X25519MLKEM768, P-256, P-384, P-521)", list)
	}
	return ids, nil
}
