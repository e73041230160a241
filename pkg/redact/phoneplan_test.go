package redact

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/build"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/nyaruka/phonenumbers"
)

// The numbering-plan table is written from the library the module requires:
//
//	go test ./pkg/redact -run TestPhonePlanIsCurrent -phoneplan.update
var updatePhonePlan = flag.Bool("phoneplan.update", false, "rewrite phoneplan.json from github.com/nyaruka/phonenumbers")

const phonePlanPath = "phoneplan.json"

// buildPhonePlan cuts the library's metadata down to what phoneplan.go reads.
func buildPhonePlan(t *testing.T) []byte {
	t.Helper()
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		t.Fatal(err)
	}
	p := phonePlan{Regions: map[int][]string{}, Meta: map[string]*planRegion{}}
	for cc := range phonenumbers.GetSupportedCallingCodes() {
		p.Regions[cc] = slices.Clone(phonenumbers.GetRegionCodesForCountryCode(cc))
	}
	for _, m := range coll.GetMetadata() {
		key := m.GetId()
		if key == "001" {
			key = fmt.Sprintf("001/%d", m.GetCountryCode())
		}
		p.Meta[key] = planRegionOf(m)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&p); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func planRegionOf(m *phonenumbers.PhoneMetadata) *planRegion {
	r := &planRegion{
		CountryCode:   int(m.GetCountryCode()),
		NatPrefix:     m.GetNationalPrefixForParsing(),
		NatTransform:  m.GetNationalPrefixTransformRule(),
		LeadingDigits: m.GetLeadingDigits(),
		SameMobile:    m.GetSameMobileAndFixedLinePattern(),
	}
	g := m.GetGeneralDesc()
	r.General = planDesc{Pattern: g.GetNationalNumberPattern(), Lengths: g.GetPossibleLength(), Local: g.GetPossibleLengthLocalOnly()}
	// the order of the library's getNumberTypeHelper
	for _, d := range []*phonenumbers.PhoneNumberDesc{m.GetPremiumRate(), m.GetTollFree(), m.GetSharedCost(), m.GetVoip(),
		m.GetPersonalNumber(), m.GetPager(), m.GetUan(), m.GetVoicemail()} {
		if pd := descOf(d); pd != nil {
			r.Others = append(r.Others, *pd)
		}
	}
	r.FixedLine = descOf(m.GetFixedLine())
	r.Mobile = descOf(m.GetMobile())
	return r
}

// descOf keeps a description that can match a number: an empty pattern
// matches only the empty string, a possible length of -1 nothing.
func descOf(d *phonenumbers.PhoneNumberDesc) *planDesc {
	if d == nil || d.GetNationalNumberPattern() == "" || slices.Equal(d.GetPossibleLength(), []int32{-1}) {
		return nil
	}
	return &planDesc{Pattern: d.GetNationalNumberPattern(), Lengths: d.GetPossibleLength()}
}

func TestPhonePlanIsCurrent(t *testing.T) {
	t.Parallel()
	want := buildPhonePlan(t)
	if *updatePhonePlan {
		if err := os.WriteFile(phonePlanPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(phonePlanPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the library's metadata gives; run with -phoneplan.update", phonePlanPath)
	}
}

func libIntlValid(num string) bool {
	num = strings.Replace(num, "(0)", "", 1)
	pn, err := phonenumbers.Parse(num, "ZZ")
	return err == nil && phonenumbers.IsValidNumber(pn)
}

func libCNMobile(digits string) bool {
	pn, err := phonenumbers.Parse(digits, "CN")
	return err == nil && phonenumbers.IsValidNumberForRegion(pn, "CN") &&
		phonenumbers.GetNumberType(pn) == phonenumbers.MOBILE
}

// intlSamples are international numbers as the layout rules hand them over:
// every region's example numbers of every type, grouped evenly and unevenly,
// with a trunk "(0)" or '0' written in, with digits changed and dropped, and
// random digit runs after every calling code.
func intlSamples(r *rand.Rand, short bool) []string {
	types := []phonenumbers.PhoneNumberType{phonenumbers.FIXED_LINE, phonenumbers.MOBILE, phonenumbers.TOLL_FREE,
		phonenumbers.PREMIUM_RATE, phonenumbers.SHARED_COST, phonenumbers.VOIP, phonenumbers.PERSONAL_NUMBER,
		phonenumbers.PAGER, phonenumbers.UAN, phonenumbers.VOICEMAIL}
	var nums []string
	add := func(cc int, nsn string) {
		nums = append(nums, fmt.Sprintf("+%d %s", cc, nsn), fmt.Sprintf("+%d (0)%s", cc, nsn), fmt.Sprintf("+%d 0%s", cc, nsn),
			fmt.Sprintf("+%d-%s", cc, regroup(r, nsn)), fmt.Sprintf("+%d %s", cc, regroup(r, mutate(r, nsn))))
		if len(nsn) > 3 {
			nums = append(nums, fmt.Sprintf("+%d %s", cc, nsn[:len(nsn)-1]), fmt.Sprintf("+%d %s1", cc, nsn))
		}
	}
	for region := range phonenumbers.GetSupportedRegions() {
		cc := phonenumbers.GetCountryCodeForRegion(region)
		for _, typ := range types {
			if pn := phonenumbers.GetExampleNumberForType(region, typ); pn != nil {
				add(cc, phonenumbers.GetNationalSignificantNumber(pn))
			}
		}
	}
	for cc := range phonenumbers.GetSupportedCallingCodes() {
		if pn := phonenumbers.GetExampleNumberForNonGeoEntity(cc); pn != nil {
			add(cc, phonenumbers.GetNationalSignificantNumber(pn))
		}
		runs := 20
		if short {
			runs = 4
		}
		for k := 0; k < runs; k++ {
			add(cc, randDigits(r, 4+r.IntN(11)))
		}
	}
	return nums
}

func randDigits(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for k := range b {
		b[k] = byte('0' + r.IntN(10))
	}
	return string(b)
}

// mutate changes one digit.
func mutate(r *rand.Rand, s string) string {
	b := []byte(s)
	b[r.IntN(len(b))] = byte('0' + r.IntN(10))
	return string(b)
}

// regroup writes digits in groups of one to four, separated by a space, a dash or a dot.
func regroup(r *rand.Rand, s string) string {
	var b strings.Builder
	for len(s) > 0 {
		n := min(len(s), 1+r.IntN(4))
		if b.Len() > 0 {
			b.WriteByte(" -."[r.IntN(3)])
		}
		b.WriteString(s[:n])
		s = s[n:]
	}
	return b.String()
}

func TestPhonePlanAgrees(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(51, 8))
	nums := append(intlSamples(r, testing.Short()),
		// the layouts the rules document, and their look-alikes
		"+30 21 0 3214567", "+43 (0)1 53422 0", "+33 (0)1 42 68 53 00", "+44 (0)20 7946 0958", "+49 (0)30 901820",
		"+1 202 555 0143", "+81 3 1234 5678", "+86 138 1234 5678", "+7 495 123 45 67", "+39 06 6982 1234", "+0 123 4567")
	bad, valid := 0, 0
	for _, n := range nums {
		got, want := intlPhoneValid(n), libIntlValid(n)
		if want {
			valid++
		}
		if got != want {
			if bad++; bad <= 20 {
				t.Errorf("intlPhoneValid(%q) = %v, the library says %v", n, got, want)
			}
		}
	}
	// every four-digit prefix of a Chinese mobile-shaped run, with random tails
	tails := 4
	if testing.Short() {
		tails = 1
	}
	cn, mobiles := 0, 0
	for p := 1300; p <= 1999; p++ {
		for k := 0; k < tails; k++ {
			d := fmt.Sprintf("%d%s", p, randDigits(r, 7))
			got, want := cnMobile(d), libCNMobile(d)
			if want {
				mobiles++
			}
			if got != want {
				if bad++; bad <= 20 {
					t.Errorf("cnMobile(%q) = %v, the library says %v", d, got, want)
				}
			}
			cn++
		}
	}
	t.Logf("%d international numbers (%d valid) and %d Chinese mobile-shaped runs (%d mobiles) compared; %d disagree",
		len(nums), valid, cn, mobiles, bad)
	if valid < len(nums)/10 || mobiles < cn/4 {
		t.Errorf("too few valid samples to compare: %d of %d, %d of %d", valid, len(nums), mobiles, cn)
	}
}

// TestNoPlanLibraryAtStart: the package links no numbering-plan library, whose
// package initialisation would run at every start of the binary.
func TestNoPlanLibraryAtStart(t *testing.T) {
	t.Parallel()
	pkg, err := build.Default.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if strings.Contains(imp, "phonenumbers") || strings.Contains(imp, "protobuf") {
			t.Errorf("pkg/redact imports %s: its init runs at every start", imp)
		}
	}
}

// BenchmarkPhonePlanFirstUse is what the first candidate that reaches the
// plan costs: the table read, one region's patterns compiled, one answer.
func BenchmarkPhonePlanFirstUse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		p := &phonePlan{}
		if err := json.Unmarshal(phonePlanJSON, p); err != nil {
			b.Fatal(err)
		}
		if !p.validNational(30, p.Regions[30], "2103214567") {
			b.Fatal("+30 21 0321 4567 is valid")
		}
	}
}

// BenchmarkPhonePlanValid is a question once the region is compiled, beside the library's.
func BenchmarkPhonePlanValid(b *testing.B) {
	for _, bc := range []struct {
		name string
		f    func(string) bool
	}{{"plan", intlPhoneValid}, {"library", libIntlValid}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !bc.f("+30 21 0 3214567") {
					b.Fatal("valid")
				}
			}
		})
	}
}
