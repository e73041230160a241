// Package ioc reads indicators of compromise out of text and alerts: IP addresses, domains,
// URLs, e-mail addresses, file hashes (by length) and AWS and Google Cloud resource IDs, each
// with its type. It judges candidate values one by one; finding secrets and personal data in
// prose is redaction's work (pkg/redact), which this package neither repeats nor replaces.
package ioc

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// Type is the kind of an indicator.
type Type string

// The indicator types.
const (
	IPv4        Type = "ipv4"
	IPv6        Type = "ipv6"
	Domain      Type = "domain"
	URL         Type = "url"
	Email       Type = "email"
	MD5         Type = "md5"
	SHA1        Type = "sha1"
	SHA256      Type = "sha256"
	SHA512      Type = "sha512"
	AWSARN      Type = "aws-arn"
	AWSResource Type = "aws-resource"
	GCPResource Type = "gcp-resource"
)

// Indicator is one value of one type; Where says where it was seen (an alert's field path, or
// what the caller names).
type Indicator struct {
	Type  Type
	Value string
	Where string
}

// Classify says what kind of indicator s is, false when it is none. s is one value, already cut
// out of its text (see Find).
func Classify(s string) (Type, bool) {
	if s == "" || len(s) > 2048 {
		return "", false
	}
	if a, err := netip.ParseAddr(s); err == nil {
		if a.Is4() {
			return IPv4, true
		}
		return IPv6, true
	}
	switch {
	case strings.HasPrefix(s, "arn:aws") && arnPattern.MatchString(s):
		return AWSARN, true
	case awsIDPattern.MatchString(s):
		return AWSResource, true
	case gcpPattern.MatchString(s):
		return GCPResource, true
	}
	if t, ok := hashType(s); ok {
		return t, true
	}
	if i := strings.Index(s, "://"); i > 0 {
		if u, err := url.Parse(s); err == nil && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "ftp") && u.Host != "" && !reference(u.Hostname()) {
			return URL, true
		}
		return "", false
	}
	if local, host, ok := strings.Cut(s, "@"); ok {
		if local != "" && localPattern.MatchString(local) && isDomain(host) {
			return Email, true
		}
		return "", false
	}
	if isDomain(s) && !reference(s) {
		return Domain, true
	}
	return "", false
}

// referenceSites are the registered domains of the links findings carry to explain
// themselves (MITRE ATT&CK, NVD, VirusTotal, the clouds' consoles and documentation): a
// reference, not an indicator, and never a value for a blocklist.
var referenceSites = map[string]bool{
	"mitre.org": true, "nist.gov": true, "virustotal.com": true, "cisa.gov": true, "first.org": true,
	"amazon.com": true, "google.com": true, "microsoft.com": true,
}

// reference says whether host is one of referenceSites or below one.
func reference(host string) bool {
	d, err := publicsuffix.EffectiveTLDPlusOne(strings.ToLower(strings.TrimSuffix(host, ".")))
	return err == nil && referenceSites[d]
}

var (
	arnPattern   = regexp.MustCompile(`^arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:(\d{12})?:\S+$`)
	awsIDPattern = regexp.MustCompile(`^(i|vol|snap|sg|subnet|vpc|eni|ami|igw|nat|rtb|acl|eipalloc)-(?:[0-9a-f]{8}|[0-9a-f]{17})$`)
	// A full resource name (//compute.googleapis.com/projects/p/zones/z/instances/i) or a
	// relative one with at least a collection below the project.
	gcpPattern   = regexp.MustCompile(`^(?://[a-z0-9.-]+\.googleapis\.com/)?(?:projects|organizations|folders)/[A-Za-z0-9._:-]+/[A-Za-z]+/[A-Za-z0-9._/:-]+$`)
	localPattern = regexp.MustCompile(`^[A-Za-z0-9.!#$%&'*+/=?^_{|}~-]{1,64}$`)
	labelPattern = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)
)

// hashType reads a hex string by its length: MD5, SHA-1, SHA-256 or SHA-512.
func hashType(s string) (Type, bool) {
	var t Type
	switch len(s) {
	case 32:
		t = MD5
	case 40:
		t = SHA1
	case 64:
		t = SHA256
	case 128:
		t = SHA512
	default:
		return "", false
	}
	digits, letters := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
			letters = true
		default:
			return "", false
		}
	}
	// A run of one kind is a counter or a word, not a digest.
	return t, digits && letters
}

func isHash(t Type) bool { return t == MD5 || t == SHA1 || t == SHA256 || t == SHA512 }

// idField says whether a field's path ends in a name for an identifier: Id, findingId,
// detector_id, ID.
func idField(path string) bool {
	if i := strings.LastIndexAny(path, ".]"); i >= 0 {
		path = path[i+1:]
	}
	l := strings.ToLower(path)
	return l == "id" || strings.HasSuffix(l, "_id") || strings.HasSuffix(path, "Id") || strings.HasSuffix(path, "ID")
}

// fileExtensions are the last labels of names that are files or fields, not hosts, though
// some are top-level domains too (.zip, .mov, .sh, .py; Falco's proc.name).
var fileExtensions = map[string]bool{
	"json": true, "yaml": true, "yml": true, "txt": true, "log": true, "exe": true, "dll": true, "sh": true,
	"py": true, "go": true, "js": true, "csv": true, "gz": true, "zip": true, "tar": true, "conf": true, "md": true,
	"html": true, "php": true, "ps1": true, "bat": true, "xml": true, "ini": true, "cfg": true, "so": true,
	"bin": true, "tmp": true, "pdf": true, "doc": true, "docx": true, "xls": true, "xlsx": true, "jpg": true,
	"png": true, "mov": true, "rs": true, "pl": true, "rb": true, "java": true, "jar": true, "name": true,
}

// isDomain says whether s is a host name under a public (ICANN) suffix: example.com, not
// config.yaml nor proc.name.
func isDomain(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 || !strings.Contains(s, ".") {
		return false
	}
	labels := strings.Split(s, ".")
	for _, l := range labels {
		if !labelPattern.MatchString(l) {
			return false
		}
	}
	tld := strings.ToLower(labels[len(labels)-1])
	if fileExtensions[tld] || strings.Trim(tld, "0123456789") == "" {
		return false
	}
	suffix, icann := publicsuffix.PublicSuffix(strings.ToLower(s))
	return icann && suffix != strings.ToLower(s)
}

// separators end a candidate value in free text.
func separator(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', ',', ';', '(', ')', '<', '>', '[', ']', '{', '}', '|', '=', '\\':
		return true
	}
	return false
}

// Find returns the indicators of text, each value once, in the order first seen; where is
// set as their Where.
func Find(text, where string) []Indicator {
	var out []Indicator
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(text, separator) {
		// Sentence punctuation around a value is not part of it (a URL keeps its own).
		f = strings.TrimRight(f, ".:!?*")
		f = strings.TrimLeft(f, "*:")
		if t, ok := Classify(f); ok && !seen[f] {
			seen[f] = true
			out = append(out, Indicator{Type: t, Value: f, Where: where})
		}
	}
	return out
}

// FromAlert returns the indicators of an alert's JSON, each value once, in the order of its
// fields (keys sorted); Where is the path of the field that first holds it
// ("alert: service.action.remoteIpDetails.ipAddressV4"). Data that is not JSON is read as text.
func FromAlert(data []byte) []Indicator {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // account and instance IDs stay exact
	if err := dec.Decode(&v); err != nil {
		return Find(string(data), "alert")
	}
	// A field whose whole value is an indicator names it first (the IP's own field, not a
	// message that mentions it); words of longer values follow.
	var whole, words []Indicator
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(p, x[k])
			}
		case []any:
			for i, e := range x {
				walk(path+"["+strconv.Itoa(i)+"]", e)
			}
		case string:
			where := "alert"
			if path != "" {
				where = "alert: " + path
			}
			if t, ok := Classify(strings.TrimSpace(x)); ok {
				if isHash(t) && idField(path) {
					return // a finding's or detector's ID is hex of a digest's length, not a file's digest
				}
				whole = append(whole, Indicator{Type: t, Value: strings.TrimSpace(x), Where: where})
				return
			}
			words = append(words, Find(x, where)...)
		}
	}
	walk("", v)
	var out []Indicator
	seen := map[string]bool{}
	for _, c := range append(whole, words...) {
		if !seen[c.Value] {
			seen[c.Value] = true
			out = append(out, c)
		}
	}
	return out
}
