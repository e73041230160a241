package redact

// Most words of a text are ordinary words that no detector can start at, and
// the word pass used to offer each of them to every detector in turn (vendor
// prefixes, assignments, auth schemes, token shapes, …). quietWord settles
// them first, from what every one of those detectors needs at a word: a
// vendor prefix and a body long enough for it, a key word's letters (the
// assignment parser's keyBigrams and key words), one of a few literal words (pass, net,
// Bearer, …), or a byte after the word that a detector reads on from ('-',
// '.', ':', '=', quotes, …). A word with none of them is skipped whole.
// TestQuietWordIsQuiet holds the rule to the detectors: on every word of the
// evaluation sets, the development corpus, the manual and fuzz inputs it calls quiet, the detectors
// find nothing and resume after it.

// quietWord reports that alphaDetectors would add nothing at the word [i,j) and
// resume at j. It holds for a word of ASCII letters (lower case after the
// first) of at most 20 bytes, followed by a space, ',', ';', ')', '\r' or
// '\n', that is not a vendor prefix long enough for its body, not one of the
// literal words, and that the assignment parser either is not offered
// (mayAssign) or would drop (no key bigram, or a key that names nothing).
func quietWord(s string, i, j int) bool {
	return plainLetters(s[i:j]) && quietAfter(s, i, j, nil)
}

// quietAfter is quietWord for a word known to be plain letters; memo, when
// not nil, remembers noKey for words seen before.
func quietAfter(s string, i, j int, memo *keyMemo) bool {
	return quietAfterKey(s, i, j, keyish(s[i:j]), memo)
}

// quietAfterKey is quietAfter with keyish(s[i:j]) given.
func quietAfterKey(s string, i, j int, key bool, memo *keyMemo) bool {
	w := j - i
	if j >= len(s) || w > 20 {
		return false
	}
	t := s[j]
	space := t == ' '
	if !space && t != ',' && t != '\n' && t != ';' && t != ')' && t != '\r' {
		return false
	}
	if key && mayAssign(s, i, j) && !memo.noKey(s[i:j]) {
		return false
	}
	if key && !space && t != ';' && t != ')' && passwordKey(s[i:j]) {
		return false // a CSV header's password column: csvHeaderAt
	}
	if b := vendorIndex[int(s[i])<<8|int(s[i+1])]; b != 0 && (w >= vendorMin[b] || vendorReads[b][t]) {
		return false
	}
	switch w {
	case 3:
		return !space || (!eqFold(s[i:j], "net") && !eqFold(s[i:j], "key"))
	case 4:
		return !eqFold(s[i:j], "pass") && !(space && eqFold(s[i:j], "name"))
	case 5, 6:
		return !space || !authWord(s[i:j])
	}
	return !space || !hasPrefixFold(s[i:j], "sonar")
}

// quietRun settles, from i (a letter where a word may start), the quiet words that follow
// one another there, each after one byte that ends the one before: most of prose. It
// returns the last word it looked at, [i,j), and whether that one is quiet too (then the
// scan resumes at j). The byte that ends a quiet word is one the word pass skips and after
// which a word may start (not a word byte, ']' or '\\'), so taking the next word here is
// what the word pass would do.
func (sc *scanner) quietRun(s string, i int) (int, int, bool) {
	for {
		j, plain, key := proseWord(s, i)
		if !plain || !quietAfterKey(s, i, j, key, &sc.keys) {
			return i, j, false
		}
		if j+1 >= len(s) || ctab[s[j+1]]&(cUpper|cLower) == 0 {
			return i, j, true
		}
		i = j + 1
	}
}

// proseWord is letterRun and keyish in one pass: the end of the word that starts with the
// letter at i, whether it is plain letters, and, when it is, whether it holds a key bigram.
// The pairs are looked up in keyPairs, where "pi" is marked too: only a word that has it
// is read again for "api".
func proseWord(s string, i int) (j int, plain, key bool) {
	prev := uint(s[i]|0x20) - 'a'
	var seen uint8
	for j = i + 1; j < len(s); j++ {
		x := uint(s[j]) - 'a'
		if x >= 26 {
			break
		}
		seen |= keyPairs[(prev<<5|x)&1023]
		prev = x
	}
	if j < len(s) && ctab[s[j]]&(cDigit|cUpper|cLower|cUnder) != 0 {
		j, _ = letterRun(s, j)
		return j, false, false
	}
	return j, true, seen&1 != 0 || (seen&2 != 0 && keyish(s[i:j]))
}

// keyPairs marks, by two letters (five bits each), a key bigram with 1 and the "pi" of
// "api" with 2.
var keyPairs = func() (t [1024]uint8) {
	for a := range 26 {
		for b := range 26 {
			if keyBigrams[a*26+b] {
				t[a<<5|b] |= 1
			}
		}
	}
	t[('p'-'a')<<5|('i'-'a')] |= 2
	return
}()

// letterRun is spanClass(s, i, word class, 0) for a word that starts with a
// letter, and whether the word is plain letters (plainLetters), in one pass.
func letterRun(s string, i int) (j int, plain bool) {
	const word = cDigit | cUpper | cLower | cUnder
	plain = true
	for j = i + 1; j < len(s); j++ {
		c := s[j]
		if c-'a' < 26 {
			continue
		}
		if ctab[c]&word == 0 {
			break
		}
		plain = false
	}
	return j, plain
}

// plainLetters reports ASCII letters only, lower case after the first.
func plainLetters(wd string) bool {
	if !isAlpha(wd[0]) {
		return false
	}
	for k := 1; k < len(wd); k++ {
		if wd[k]-'a' >= 26 {
			return false
		}
	}
	return true
}

// keyish reports what keySpan's may does for a word of letters: one of the
// key bigrams, or "api".
func keyish(wd string) bool {
	prev, prev2 := int(wd[0]|0x20)-'a', -1
	for k := 1; k < len(wd); k++ {
		x := int(wd[k]|0x20) - 'a'
		if keyBigrams[prev*26+x] || (x == 'i'-'a' && prev == 'p'-'a' && prev2 == 'a'-'a') {
			return true
		}
		prev2, prev = prev, x
	}
	return false
}

// noKey reports a word the assignment parser reads as a key that names
// nothing (classifyKey), whatever follows it: no value is taken after it.
func noKey(wd string) bool {
	ki := classifyKey(wd)
	return ki.cls == keyNone && !ki.sumo && !ki.facebook && !ki.accessKeyID && !ki.api
}

// keyMemo remembers noKey for the plain words (at most 20 bytes) seen
// last: prose repeats its words, and classifying one splits it into words
// and looks each up. A word's slot is chosen by its length and three of
// its bytes; a new word takes the slot over.
type keyMemo struct {
	word [256][20]byte
	n    [256]uint8 // the word's length + 1; 0 for an empty slot
	val  [256]bool
}

func (m *keyMemo) noKey(wd string) bool {
	if m == nil || len(wd) > len(m.word[0]) || len(wd) < 2 {
		return noKey(wd)
	}
	h := (uint(wd[0])*31 ^ uint(wd[len(wd)-1])*17 ^ uint(wd[len(wd)/2])*7 ^ uint(len(wd))*101) & 255
	if int(m.n[h]) == len(wd)+1 && string(m.word[h][:len(wd)]) == wd {
		return m.val[h]
	}
	v := noKey(wd)
	copy(m.word[h][:], wd)
	m.n[h] = uint8(len(wd) + 1)
	m.val[h] = v
	return v
}

// authWord is a word authScheme reads: Bearer, Basic, Token in their spellings.
func authWord(wd string) bool {
	switch wd {
	case "Bearer", "bearer", "BEARER", "Basic", "basic", "BASIC", "Token", "token":
		return true
	}
	return false
}

// vendorMin holds, for each list of vendorLists, the shortest token its rules
// match (prefix and shortest body); vendorReads the bytes its rules read past
// the first (the prefix's rest, the body's alphabet, '=' padding, the '.'
// of a routing suffix). A word shorter than vendorMin followed by a byte the
// rules do not read cannot be a vendor token: the rules' match ends inside
// the word, where a letter follows, which they reject.
var vendorMin, vendorReads = func() ([]int, [][256]bool) {
	mins := make([]int, len(vendorLists))
	reads := make([][256]bool, len(vendorLists))
	for b, l := range vendorLists {
		mins[b] = 1 << 30
		for _, ri := range l {
			r := &vendorRules[ri]
			mins[b] = min(mins[b], len(r.prefix)+r.min)
			for k := 1; k < len(r.prefix); k++ {
				reads[b][r.prefix[k]] = true
			}
			for c := range 256 {
				if r.set[c] {
					reads[b][c] = true
				}
			}
			if r.flags&fPad != 0 {
				reads[b]['='] = true
			}
			if r.flags&fRoutable != 0 {
				reads[b]['.'] = true
			}
		}
	}
	return mins, reads
}()
