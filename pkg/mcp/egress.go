package mcp

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/termsafe"
	"github.com/alertchat/alertchat/pkg/tool"
)

// A server configured "egress": "public-only" is a third party (a threat-intelligence service,
// say): what its arguments carry tells it about the network and people it is asked about.
// Before each call its arguments are checked, every string of them, nested ones and object keys
// included, and a call that would send internal or personal data is held back: private,
// loopback, link-local and shared addresses (IPv4 and IPv6, in every notation the redactor
// reads), hosts under the config's internalDomains and the usual internal suffixes, e-mail
// addresses, and the secrets and personal data redaction would replace. Addresses are judged
// by their range, not by redaction: a public address is an indicator and goes through, as do
// domains, hashes and URLs. A held call is asked about on a terminal (even for a trusted
// server: trust is about running a tool, not about what leaves) and denied where nobody can
// be asked.

// EgressPublicOnly is the egress of a server that may receive public indicators only.
const EgressPublicOnly = "public-only"

// internalSuffixes are the domain suffixes taken as internal besides the config's.
var internalSuffixes = []string{"internal", "local", "corp", "lan"}

// Leak is a value a call would send that must not leave: what it is, and the value as written.
type Leak struct {
	// Kind is "internal address", "internal host", "e-mail address", or the kind of secret or
	// personal data ("API key", "secret", "phone number", "credit card number", "SSN").
	Kind  string
	Value string
}

// Shown is the leak as the terminal's question names it: the value itself for an address, a
// host or an e-mail address; for a secret its kind and its first characters only, so that
// naming it does not spread it further.
func (l Leak) Shown() string { return l.named(true) }

// named is the leak named with its first characters (head) or by its kind alone. What leaves
// the terminal (the denial is the call's function response: the model reads it and the
// history keeps it) names a secret or personal value by its kind alone.
func (l Leak) named(head bool) string {
	switch l.Kind {
	case "internal address", "internal host", "e-mail address":
		return termsafe.Line(l.Value)
	}
	article := "a "
	if strings.IndexAny(l.Kind[:1], "AEIOUaeiouS") == 0 { // an API key, an SSN
		article = "an "
	}
	if !head {
		return article + l.Kind
	}
	first := l.Value
	if utf8.RuneCountInString(first) > 4 {
		first = string([]rune(first)[:4]) + "…"
	}
	return article + l.Kind + " " + termsafe.Line(first)
}

// EgressHold is a call held back: the server, its tool and what would leave.
type EgressHold struct {
	Server, Tool string
	Leaks        []Leak
}

// maxShown bounds the values a question or denial names.
const maxShown = 5

// What names what would leave, for the terminal's question: "10.0.3.7, db01.corp and 2 more".
func (h EgressHold) What() string { return h.what(true) }

func (h EgressHold) what(head bool) string {
	var parts []string
	for i, l := range h.Leaks {
		if i == maxShown {
			parts[len(parts)-1] += fmt.Sprintf(" and %d more", len(h.Leaks)-maxShown)
			break
		}
		parts = append(parts, l.named(head))
	}
	return strings.Join(parts, ", ")
}

// Denial is the call's answer where it is not sent; secrets are named by their kind alone.
func (h EgressHold) Denial() string {
	return fmt.Sprintf("denied: would send internal data (%s) to %s, a public-only server", h.what(false), h.Server)
}

// EgressDeniedError is a call held back and not sent.
type EgressDeniedError struct{ Hold EgressHold }

func (e *EgressDeniedError) Error() string { return e.Hold.Denial() }

// egressGuard checks a public-only server's arguments.
type egressGuard struct {
	redactor *redact.Redactor
	// domains are the internal domains, lower case, without a leading or trailing dot.
	domains []string
	// digitEnd is set when one of them ends in a digit.
	digitEnd bool
}

func newEgressGuard(internalDomains []string) *egressGuard {
	g := &egressGuard{redactor: redact.New(redact.AllTypes()...), domains: append([]string{}, internalSuffixes...)}
	for _, d := range internalDomains {
		d = normalDomain(d)
		g.domains = append(g.domains, d)
		g.digitEnd = g.digitEnd || d != "" && isDigit(d[len(d)-1])
	}
	return g
}

// normalDomain is a domain as compared: lower case, without "*." or a leading or trailing dot,
// in its IDNA ASCII form ("bücher.example" is "xn--bcher-kva.example"), so that a domain
// written in Unicode in the config or the arguments matches its punycode and the reverse.
func normalDomain(d string) string {
	d = strings.ToLower(strings.TrimSpace(d))
	d = strings.TrimPrefix(d, "*.")
	d = strings.Trim(d, ".")
	if a, err := idna.Lookup.ToASCII(d); err == nil {
		return a
	}
	return d
}

// check returns what args would send that must not leave, each value once, in the order
// found (object keys in sorted order, so the answer does not depend on map order). It is the
// walk redaction makes (redact.FindMap): a value under a key that labels it, the "value"
// beside a labelling "name", numbers that are card or phone numbers, strings nested anywhere
// and object keys are judged as redaction judges them, so that what leaves is never more than
// what redaction would keep.
func (g *egressGuard) check(args map[string]any) []Leak {
	c := leakSet{seen: map[string]bool{}}
	g.redactor.FindMap(args, func(s string) bool { return g.visit(s, &c) }, func(f redact.Finding) { g.finding(f, &c) })
	return c.leaks
}

type leakSet struct {
	leaks []Leak
	seen  map[string]bool
}

func (c *leakSet) add(kind, value string) {
	if k := kind + "\x00" + value; !c.seen[k] {
		c.seen[k] = true
		c.leaks = append(c.leaks, Leak{Kind: kind, Value: value})
	}
}

// finding judges what redaction would replace: an address by its range, anything else held.
func (g *egressGuard) finding(f redact.Finding, c *leakSet) {
	switch f.Type {
	case "":
		// nested deeper than the walk goes: it cannot be checked, so it cannot be let through
		c.add("value nested too deep to check", "…")
	case redact.IP:
		if a, ok := redact.ParseIP(f.Value); ok && internalAddr(a) {
			c.add("internal address", f.Value)
		}
	case redact.Email:
		c.add("e-mail address", f.Value)
	default:
		c.add(secretKind(f.Type), f.Value)
	}
}

// visit judges one string of the walk before redaction's scan: true when it is one indicator
// judged here (an address, a hash, a domain), so the scan is not needed. Otherwise it looks
// for internal hosts, and judges the string once more with its URL escapes decoded
// ("alice%40corp.example", "https%3A%2F%2Fdb01%2Ecorp"), which the scan would not read.
func (g *egressGuard) visit(s string, c *leakSet) bool {
	// Most arguments of a lookup are one indicator each: an address, a hash, a domain. They are
	// judged as what they are, without the redactor's scan (which finds nothing else in them).
	if isHexHash(s) {
		return true
	}
	if len(s) <= 45 && s[0] != '0' { // an address without leading zeros (netip refuses them)
		if a, err := netip.ParseAddr(s); err == nil {
			if internalAddr(a) {
				c.add("internal address", s)
			}
			return true
		}
	}
	if isPlainDomain(s) {
		if h := strings.TrimSuffix(s, "."); g.internalHost(h) {
			c.add("internal host", h)
		}
		return true
	}
	if a, ok := inetAton(s); ok && (s[0] == '0' || strings.Count(s, ".") == 3) {
		// an address in a notation the scan reads otherwise or not at all ("0x0a000307",
		// "012.0.3.7" is 10.0.3.7 to inet_aton); a bare number ("167773959", "10.775") is one
		// only as a URL's host (urlHosts)
		if internalAddr(a) {
			c.add("internal address", s)
		}
	}
	// "010.000.003.007" is 8.0.3.7 to inet_aton but 10.0.3.7 to a person reading a log that
	// pads its addresses, and redaction, which keeps it, does not report it: held when either
	// reading is internal
	for _, run := range dottedRuns(s) {
		if padded(run) {
			if a, ok := zeroPaddedQuad(run); ok && internalAddr(a) {
				c.add("internal address", run)
			}
		}
	}
	g.hosts(s, c)
	g.urlHosts(s, c)
	if d, ok := urlDecoded(s); ok {
		for _, f := range g.redactor.Find(d) {
			g.finding(f, c)
		}
		g.hosts(d, c)
		g.urlHosts(d, c)
	}
	return false
}

// dottedRuns are the runs of digits and dots in s that hold a dot.
func dottedRuns(s string) []string {
	var runs []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if run := strings.Trim(s[start:i], "."); strings.Contains(run, ".") {
				runs = append(runs, run)
			}
			start = -1
		}
	}
	return runs
}

// padded reports whether a part of the dotted run has a leading zero.
func padded(run string) bool {
	for part := range strings.SplitSeq(run, ".") {
		if len(part) > 1 && part[0] == '0' {
			return true
		}
	}
	return false
}

// zeroPaddedQuad reads s as four decimal parts of up to three digits, leading zeros allowed,
// as some logs and firewall exports write IPv4 addresses.
func zeroPaddedQuad(s string) (netip.Addr, bool) {
	var b [4]byte
	for i := range 4 {
		part := s
		if i < 3 {
			dot := strings.IndexByte(s, '.')
			if dot < 0 {
				return netip.Addr{}, false
			}
			part, s = s[:dot], s[dot+1:]
		}
		if len(part) == 0 || len(part) > 3 {
			return netip.Addr{}, false
		}
		n := 0
		for _, c := range []byte(part) {
			if c < '0' || c > '9' {
				return netip.Addr{}, false
			}
			n = n*10 + int(c-'0')
		}
		if n > 255 {
			return netip.Addr{}, false
		}
		b[i] = byte(n)
	}
	return netip.AddrFrom4(b), true
}

// urlHosts judges the host of each URL in s ("scheme://[userinfo@]host[:port]") as HTTP
// clients read it: a number in inet_aton's notations ("http://167773959/", "http://10.775/")
// is an address.
func (g *egressGuard) urlHosts(s string, c *leakSet) {
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			return
		}
		s = s[i+3:]
		end := strings.IndexAny(s, "/?#\\ \t\r\n\"'<>`")
		if end < 0 {
			end = len(s)
		}
		host := s[:end]
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			host = host[at+1:]
		}
		if p := strings.LastIndexByte(host, ':'); p >= 0 && !strings.HasPrefix(host, "[") {
			host = host[:p]
		}
		if a, ok := inetAton(host); ok && internalAddr(a) {
			c.add("internal address", host)
		}
		s = s[end:]
	}
}

// inetAton reads s as inet_aton and HTTP clients read an IPv4 host: one to four parts, each
// decimal, octal (a leading 0) or hex (0x), the last filling the bytes left ("10.775" is
// 10.0.3.7, "167773959" is too); a trailing dot is allowed.
func inetAton(s string) (netip.Addr, bool) {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 64 {
		return netip.Addr{}, false
	}
	var parts [4]uint64
	n := 0
	for part := range strings.SplitSeq(s, ".") {
		if n == 4 {
			return netip.Addr{}, false
		}
		v, ok := atonPart(part)
		if !ok {
			return netip.Addr{}, false
		}
		parts[n] = v
		n++
	}
	var ip uint64
	for i := 0; i < n-1; i++ {
		if parts[i] > 255 {
			return netip.Addr{}, false
		}
		ip |= parts[i] << (24 - 8*i)
	}
	last := parts[n-1]
	if last >= 1<<(8*(5-n)) {
		return netip.Addr{}, false
	}
	ip |= last
	return netip.AddrFrom4([4]byte{byte(ip >> 24), byte(ip >> 16), byte(ip >> 8), byte(ip)}), true
}

// atonPart is one part of an inet_aton address: decimal, octal after a 0, hex after 0x.
func atonPart(p string) (uint64, bool) {
	base := uint64(10)
	switch {
	case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
		base, p = 16, p[2:]
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	if p == "" || len(p) > 12 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(p); i++ {
		c := p[i]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		v = v*base + d
	}
	return v, true
}

// urlDecoded is s with its percent escapes decoded once, and whether it had any. A '%' not
// followed by two hex digits stays as it is.
func urlDecoded(s string) (string, bool) {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s, false
	}
	var b []byte
	for ; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			if b == nil {
				b = append(make([]byte, 0, len(s)), s[:i]...)
			}
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		if b != nil {
			b = append(b, s[i])
		}
	}
	if b == nil {
		return s, false
	}
	return string(b), true
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

func secretKind(t redact.Type) string {
	switch t {
	case redact.APIKey:
		return "API key"
	case redact.Phone:
		return "phone number"
	case redact.CreditCard:
		return "credit card number"
	case redact.SSN:
		return "SSN"
	}
	return "secret"
}

// hosts finds host names in s (runs of letters, digits, '-', '_' and '.') under an internal
// domain, and "localhost"; a host after '@' is an e-mail address's, reported as one.
func (g *egressGuard) hosts(s string, c *leakSet) {
	if !utf8.ValidString(s) || hasWide(s) {
		s = foldWide(s)
		if hasWide(s) {
			g.unicodeHosts(s, c)
		}
	}
	for i := 0; i < len(s); {
		if !hostByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && hostByte(s[j]) {
			j++
		}
		run, dotted := s[i:j], false
		afterAt := i > 0 && s[i-1] == '@'
		i = j
		for k := 0; k < len(run) && !dotted; k++ {
			dotted = run[k] == '.'
		}
		// Only a dotted name can be under a domain; "localhost" is the one single label. A
		// name ending in a digit is an address (no internal domain ends so, unless configured).
		if afterAt || !dotted && len(run) != len("localhost") || !g.digitEnd && isDigit(run[len(run)-1]) {
			continue
		}
		run = strings.Trim(run, ".-_")
		if g.internalHost(run) {
			c.add("internal host", run)
		}
	}
}

// unicodeHosts finds host names written with non-ASCII letters ("dc1.bücher.example") and
// judges them in their IDNA ASCII form, as a resolver would look them up.
func (g *egressGuard) unicodeHosts(s string, c *leakSet) {
	for _, run := range strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '-' || r == '.' || r == '_')
	}) {
		run = strings.Trim(run, ".-_")
		if !strings.Contains(run, ".") || !hasWide(run) {
			continue // ASCII runs are the byte scan's
		}
		if a, err := idna.Lookup.ToASCII(run); err == nil && g.internalHost(a) {
			c.add("internal host", run)
		}
	}
}

// isHexHash reports whether s is an MD5, SHA-1, SHA-256 or SHA-512 in hex.
func isHexHash(s string) bool {
	switch len(s) {
	case 32, 40, 64, 128:
	default:
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// isPlainDomain reports whether s is a domain name and nothing else: two or more labels of
// letters, digits and '-', each at most 63 characters, the last of 2 to 24 letters; not a JSON
// web token's start ("eyJ"), the one secret format of dotted words.
func isPlainDomain(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if len(s) < 4 || len(s) > 253 || strings.HasPrefix(s, "eyJ") {
		return false
	}
	labels, label, letters := 1, 0, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			if label == 0 || s[i-1] == '-' {
				return false
			}
			labels, label, letters = labels+1, 0, true
			continue
		case c == '-':
			if label == 0 {
				return false
			}
			letters = false
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9':
			letters = false
		default:
			return false
		}
		if label++; label > 63 {
			return false
		}
	}
	return labels >= 2 && letters && label >= 2 && label <= 24
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func hostByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-' || b == '.' || b == '_'
}

// internalHost reports whether host is "localhost" or under an internal domain.
func (g *egressGuard) internalHost(host string) bool {
	if strings.EqualFold(host, "localhost") || hasSuffixFold(host, ".localhost") {
		return true
	}
	for _, d := range g.domains {
		if len(host) == len(d) && strings.EqualFold(host, d) ||
			len(host) > len(d) && host[len(host)-len(d)-1] == '.' && hasSuffixFold(host, d) {
			return true
		}
	}
	return false
}

// hasSuffixFold is strings.HasSuffix ignoring ASCII case.
func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// hasWide reports whether s holds a character foldWide changes.
func hasWide(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// foldWide folds fullwidth forms and the ideographic full stop to ASCII, as the redactor
// reads text: "ｄｂ０１．ｃｏｒｐ" is db01.corp.
func foldWide(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			return r - 0xFF01 + 0x21
		case r == 0x3002 || r == 0xFF61:
			return '.'
		case r == utf8.RuneError:
			return ' '
		}
		return r
	}, s)
}

// shared is the shared address space of carrier-grade NAT (RFC 6598).
var shared = netip.MustParsePrefix("100.64.0.0/10")

// internalAddr reports whether a is an address of a private network: private (RFC 1918, and
// IPv6 unique local), loopback, link-local, shared (100.64/10), unspecified, or an IPv6
// address that embeds such an IPv4 one (IPv4-compatible, NAT64, 6to4).
func internalAddr(a netip.Addr) bool {
	a = a.Unmap()
	if a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsUnspecified() ||
		a.IsInterfaceLocalMulticast() || shared.Contains(a) {
		return true
	}
	if a.Is4() {
		return a.As4()[0] == 0 // "this network" (0.0.0.0/8)
	}
	b := a.As16()
	switch {
	case b[0] == 0xfe && b[1]&0xc0 == 0xc0: // site-local (fec0::/10, deprecated, still private)
		return true
	case isZero(b[:12]): // IPv4-compatible ::a.b.c.d
		return internalAddr(netip.AddrFrom4([4]byte(b[12:16])))
	case b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && isZero(b[4:12]): // NAT64 64:ff9b::/96
		return internalAddr(netip.AddrFrom4([4]byte(b[12:16])))
	case b[0] == 0x20 && b[1] == 0x02: // 6to4 2002:AABB:CCDD::/48
		return internalAddr(netip.AddrFrom4([4]byte(b[2:6])))
	}
	return false
}

func isZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// Kinds are the kinds of what would leave, each once, in the order found.
func (h EgressHold) Kinds() []string {
	var kinds []string
	for _, l := range h.Leaks {
		if !slices.Contains(kinds, l.Kind) {
			kinds = append(kinds, l.Kind)
		}
	}
	return kinds
}

// egress checks a call's arguments before it is sent to a public-only server: nil when they
// may go (or the server is not public-only), the error that answers the call when they may not.
// A held call goes only when a person said yes; what became of it is reported to the log ctx
// carries (tool.WithCallLog), so the call's record says who decided, not what let the tool run.
func (s *server) egress(ctx context.Context, name string, args map[string]any) error {
	if s.guard == nil {
		return nil
	}
	leaks := s.guard.check(args)
	if len(leaks) == 0 {
		return nil
	}
	h := EgressHold{Server: s.name, Tool: name, Leaks: leaks}
	var send, asked bool
	if s.o.ConfirmEgress != nil {
		send, asked = s.o.ConfirmEgress(ctx, h)
	}
	send = send && asked // nobody asked, nobody allowed it
	tool.RecordEgress(ctx, tool.Egress{Kinds: h.Kinds(), Sent: send, Asked: asked})
	if send {
		return nil
	}
	return &EgressDeniedError{Hold: h}
}
