package redact

import (
	_ "embed"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The numbering plans: libphonenumber's metadata, cut down to what the two
// questions the phone recognizer asks need (is an international number valid,
// is an eleven-digit run a Chinese mobile), written out by TestPhonePlanIsCurrent
// from github.com/nyaruka/phonenumbers. The library loads and indexes its whole
// metadata when the program starts (about 2.5 MB and 35,000 allocations, every
// command, --version included); this table is read the first time a candidate
// reaches it, and a region's patterns are compiled the first time a number of
// that region is asked about. The code below follows the library's parse and
// validity rules for these inputs; TestPhonePlanAgrees holds the two to the
// same answers.
//
//go:embed phoneplan.json
var phonePlanJSON []byte

// phonePlan is phoneplan.json.
type phonePlan struct {
	// Regions lists the regions of each calling code, the main one first
	// ("001" for a non-geographic code).
	Regions map[int][]string `json:"regions"`
	// Meta is keyed by region, or "001/<code>" for non-geographic codes.
	Meta map[string]*planRegion `json:"meta"`
}

// planRegion is one region's metadata: the parts a parse and a validity check read.
type planRegion struct {
	CountryCode   int        `json:"cc"`
	NatPrefix     string     `json:"npfp,omitempty"` // national prefix for parsing
	NatTransform  string     `json:"npt,omitempty"`  // its transform rule
	LeadingDigits string     `json:"lead,omitempty"`
	General       planDesc   `json:"general"`
	Others        []planDesc `json:"others,omitempty"` // premium rate … voicemail, in the library's order
	FixedLine     *planDesc  `json:"fixed,omitempty"`
	Mobile        *planDesc  `json:"mobile,omitempty"`
	SameMobile    bool       `json:"sameMobile,omitempty"` // mobile and fixed-line patterns are the same

	once     sync.Once
	npfp     *regexp.Regexp
	natRule  *regexp.Regexp // the general pattern, whole
	leadRule *regexp.Regexp
}

// planDesc is a number description: its pattern and possible lengths.
type planDesc struct {
	Pattern string  `json:"p"`
	Lengths []int32 `json:"l,omitempty"`
	Local   []int32 `json:"local,omitempty"` // lengths possible only locally

	re *regexp.Regexp
}

var loadPhonePlan = sync.OnceValue(func() *phonePlan {
	p := &phonePlan{}
	if err := json.Unmarshal(phonePlanJSON, p); err != nil {
		panic("redact: phoneplan.json: " + err.Error()) // embedded and tested: cannot happen
	}
	return p
})

// compile builds a region's expressions the first time it is asked about.
func (r *planRegion) compile() {
	r.once.Do(func() {
		if r.NatPrefix != "" {
			r.npfp = regexp.MustCompile("^(?:" + r.NatPrefix + ")")
		}
		if r.LeadingDigits != "" {
			r.leadRule = regexp.MustCompile("^(?:" + r.LeadingDigits + ")")
		}
		r.natRule = regexp.MustCompile("^(?:" + r.General.Pattern + ")$")
		r.General.re = r.natRule
		for _, d := range r.descs() {
			d.re = regexp.MustCompile("^(?:" + d.Pattern + ")$")
		}
	})
}

func (r *planRegion) descs() []*planDesc {
	out := make([]*planDesc, 0, len(r.Others)+2)
	for k := range r.Others {
		out = append(out, &r.Others[k])
	}
	if r.FixedLine != nil {
		out = append(out, r.FixedLine)
	}
	if r.Mobile != nil {
		out = append(out, r.Mobile)
	}
	return out
}

// matches is the library's isNumberMatchingDesc.
func (d *planDesc) matches(nsn string) bool {
	if d == nil || d.re == nil {
		return false
	}
	if len(d.Lengths) > 0 && !slices.Contains(d.Lengths, int32(len(nsn))) {
		return false
	}
	return d.re.MatchString(nsn)
}

// numberKind is what the library's getNumberTypeHelper tells apart here.
type numberKind uint8

const (
	kindUnknown numberKind = iota
	kindOther              // premium rate, toll free, … fixed line
	kindMobile             // mobile only (not "fixed line or mobile")
)

// kind is the library's getNumberTypeHelper, folded to numberKind.
func (r *planRegion) kind(nsn string) numberKind {
	r.compile()
	if !r.General.matches(nsn) {
		return kindUnknown
	}
	for k := range r.Others {
		if r.Others[k].matches(nsn) {
			return kindOther
		}
	}
	if r.FixedLine.matches(nsn) {
		return kindOther
	}
	if !r.SameMobile && r.Mobile.matches(nsn) {
		return kindMobile
	}
	return kindUnknown
}

// lengthOK is the library's testNumberLength for an unknown type, reduced to
// the question the parse asks: may the national prefix be stripped.
func (r *planRegion) lengthOK(nsn string) bool {
	ls := r.General.Lengths
	if len(ls) == 0 || ls[0] == -1 {
		return false // invalid length
	}
	n := int32(len(nsn))
	if slices.Contains(r.General.Local, n) || n < ls[0] {
		return false // possible only locally, or too short
	}
	return n > ls[len(ls)-1] || slices.Contains(ls, n) // too long is accepted, as the library does
}

// stripNationalPrefix is the library's maybeStripNationalPrefixAndCarrierCode
// followed by the parse's length check: the national significant number.
func (r *planRegion) stripNationalPrefix(num string) string {
	r.compile()
	if num == "" || r.npfp == nil {
		return num
	}
	g := r.npfp.FindStringSubmatchIndex(num)
	if g == nil {
		return num
	}
	viable := r.natRule.MatchString(num)
	last := len(g)/2 - 1
	var out string
	if r.NatTransform == "" || g[last*2] < 0 {
		if viable && !r.natRule.MatchString(num[g[1]:]) {
			return num
		}
		out = num[g[1]:]
	} else {
		out = r.npfp.ReplaceAllString(num, r.NatTransform)
		if viable && !r.natRule.MatchString(out) {
			return num
		}
	}
	if !r.lengthOK(out) {
		return num
	}
	return out
}

// metaFor is the library's getMetadataForRegionOrCallingCode.
func (p *phonePlan) metaFor(cc int, region string) *planRegion {
	if region == "001" {
		return p.Meta["001/"+strconv.Itoa(cc)]
	}
	return p.Meta[region]
}

// planIntlValid is the library's Parse(num, "ZZ") and IsValidNumber for a
// number written with a leading '+' and ASCII digits among spaces, dashes,
// dots, slashes and parentheses (what the layout rules hand over).
func planIntlValid(num string) bool {
	num = strings.TrimSpace(num)
	if !strings.HasPrefix(num, "+") {
		return false
	}
	var b strings.Builder
	for k := 1; k < len(num); k++ {
		switch c := num[k]; {
		case c >= '0' && c <= '9':
			b.WriteByte(c)
		case c == ' ' || c == '-' || c == '.' || c == '/' || c == '(' || c == ')':
		default:
			return false // not a layout the recognizer hands over
		}
	}
	digits := b.String()
	if len(digits) <= 2 || digits[0] == '0' {
		return false // too short after the '+', or no country code
	}
	p := loadPhonePlan()
	for k := 1; k <= 3 && k <= len(digits); k++ {
		cc, _ := strconv.Atoi(digits[:k])
		if regions, ok := p.Regions[cc]; ok {
			return p.validNational(cc, regions, digits[k:])
		}
	}
	return false
}

// validNational finishes planIntlValid once the calling code is known.
func (p *phonePlan) validNational(cc int, regions []string, national string) bool {
	if len(national) < 2 {
		return false
	}
	nsn := national
	if main := p.metaFor(cc, regions[0]); main != nil {
		nsn = main.stripNationalPrefix(national)
	}
	if len(nsn) < 2 || len(nsn) > 17 {
		return false
	}
	region := regions[0]
	if len(regions) > 1 {
		region = p.regionOf(cc, regions, nsn)
	}
	if region == "" {
		return false
	}
	m := p.metaFor(cc, region)
	return m != nil && m.kind(nsn) != kindUnknown
}

// regionOf is the library's getRegionCodeForNumberFromRegionList.
func (p *phonePlan) regionOf(cc int, regions []string, nsn string) string {
	for _, region := range regions {
		m := p.metaFor(cc, region)
		if m == nil {
			continue
		}
		m.compile()
		if m.leadRule != nil {
			if m.leadRule.MatchString(nsn) {
				return region
			}
		} else if m.kind(nsn) != kindUnknown {
			return region
		}
	}
	return ""
}

// planCNMobile is the library's Parse(digits, "CN") followed by
// IsValidNumberForRegion(CN) and GetNumberType == MOBILE, for a run that
// passed cnMobileShape (no '+', no international or country-code prefix).
func planCNMobile(digits string) bool {
	m := loadPhonePlan().Meta["CN"]
	if m == nil {
		return false
	}
	nsn := m.stripNationalPrefix(digits)
	return len(nsn) >= 2 && len(nsn) <= 17 && m.kind(nsn) == kindMobile
}
