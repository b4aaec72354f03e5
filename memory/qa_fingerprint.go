package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxEvidenceKey caps, in runes, the normalised evidence that goes into a bug
// fingerprint, so that long stack traces differing only in their tails dedupe.
const MaxEvidenceKey = 256

// Placeholders used by NormalizePage and NormalizeEvidence.
const (
	PlaceholderNumber = "{n}"
	PlaceholderID     = "{id}"
	PlaceholderValue  = "{v}"
)

var (
	qaDigits    = regexp.MustCompile(`^[0-9]+$`)
	qaUUID      = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	qaHexID     = regexp.MustCompile(`^[0-9a-fA-F]{8,}$`)
	qaTokenID   = regexp.MustCompile(`^[A-Za-z0-9_-]{16,}$`)
	qaSlugNum   = regexp.MustCompile(`([-_.])[0-9]+`)
	qaPlainWord = regexp.MustCompile(`^[A-Za-z_-]{1,32}$`)

	// Evidence masks, applied in this order to lower-cased text.
	qaEvQuoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|` + "`[^`]*`")
	// A single quote opens a quoted value only when not inside a word, so
	// apostrophes ("can't") stay.
	qaEvSingle = regexp.MustCompile(`(^|[^\pL\pN])'(?:[^'\\]|\\.)*'`)
	qaEvStamp  = regexp.MustCompile(`\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?|\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b`)
	qaEvUUID   = regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	qaEvHex    = regexp.MustCompile(`\b0x[0-9a-f]+\b|\b[0-9a-f]{6,}\b`)
	qaEvNumber = regexp.MustCompile(`\d+(?:\.\d+)?`)
	qaEvSpace  = regexp.MustCompile(`\s+`)
)

// NormalizePage reduces a URL to the page identity used by the QA memory: the
// path with id-like segments replaced by placeholders (numbers → {n}; UUIDs,
// hex ids and long tokens → {id}; trailing numbers of slugs such as "post-12"
// → "post-{n}"), a trailing slash removed, and the query sorted by key with
// numeric or id values masked and free-form values replaced by {v}. Scheme,
// host and fragment are dropped. An empty path is "/".
func NormalizePage(rawURL string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return "", fmt.Errorf("normalize page %q: %w", rawURL, err)
	}
	return qaNormalizeURL(u), nil
}

func qaNormalizeURL(u *url.URL) string {
	segs := strings.Split(u.Path, "/")
	out := make([]string, 0, len(segs))
	for _, s := range segs {
		if s == "" {
			continue
		}
		out = append(out, qaNormalizeSegment(s))
	}
	page := "/" + strings.Join(out, "/")
	q := u.Query()
	if len(q) == 0 {
		return page
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		vals := q[k]
		norm := make([]string, 0, len(vals))
		for _, v := range vals {
			norm = append(norm, qaNormalizeQueryValue(v))
		}
		sort.Strings(norm)
		for _, v := range norm {
			parts = append(parts, k+"="+v)
		}
	}
	return page + "?" + strings.Join(parts, "&")
}

func qaNormalizeSegment(s string) string {
	switch {
	case qaDigits.MatchString(s):
		return PlaceholderNumber
	case qaUUID.MatchString(s):
		return PlaceholderID
	case qaHexID.MatchString(s) && strings.ContainsAny(s, "0123456789"):
		return PlaceholderID
	case qaTokenID.MatchString(s) && strings.ContainsAny(s, "0123456789") && strings.IndexFunc(s, qaIsLetter) >= 0:
		return PlaceholderID
	}
	return qaSlugNum.ReplaceAllString(s, "${1}"+PlaceholderNumber)
}

func qaNormalizeQueryValue(v string) string {
	switch {
	case v == "":
		return ""
	case qaDigits.MatchString(v):
		return PlaceholderNumber
	case qaUUID.MatchString(v), qaHexID.MatchString(v) && strings.ContainsAny(v, "0123456789"):
		return PlaceholderID
	case qaPlainWord.MatchString(v):
		return strings.ToLower(v)
	}
	return PlaceholderValue
}

func qaIsLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// NormalizeEvidence makes bug evidence comparable across runs: lower-cased;
// double-quoted, back-quoted and single-quoted values (not apostrophes) →
// "<q>"; ISO dates and date-times and hh:mm:ss clock times → <ts>; UUIDs →
// <uuid>; 0x values and runs of six or more hex digits mixing digits and
// letters → <hex>; other numbers → <n>; whitespace collapsed; the result
// capped at MaxEvidenceKey runes. Changing these rules changes fingerprints,
// so bugs stored before would no longer match their new sightings.
func NormalizeEvidence(s string) string {
	s = strings.ToLower(s)
	s = qaEvQuoted.ReplaceAllString(s, `"<q>"`)
	s = qaEvSingle.ReplaceAllString(s, `${1}"<q>"`)
	s = qaEvStamp.ReplaceAllString(s, "<ts>")
	s = qaEvUUID.ReplaceAllString(s, "<uuid>")
	s = qaEvHex.ReplaceAllStringFunc(s, func(m string) string {
		// A run of hex digits is an id only when it mixes digits and letters
		// (or is 0x-prefixed); plain numbers become <n> and words stay.
		if strings.HasPrefix(m, "0x") || strings.ContainsAny(m, "0123456789") && strings.ContainsAny(m, "abcdef") {
			return "<hex>"
		}
		return m
	})
	s = qaEvNumber.ReplaceAllString(s, "<n>")
	s = strings.TrimSpace(qaEvSpace.ReplaceAllString(s, " "))
	return qaTruncateRunes(s, MaxEvidenceKey)
}

// Fingerprint is the deterministic identity of a bug: a hex SHA-256 prefix of
// the lower-cased kind, the page (as returned by NormalizePage) and the
// normalised evidence. The same bug seen in two runs has the same fingerprint.
func Fingerprint(kind, page, evidence string) string {
	h := sha256.New()
	h.Write([]byte(strings.ToLower(strings.TrimSpace(kind))))
	h.Write([]byte{0})
	h.Write([]byte(page))
	h.Write([]byte{0})
	h.Write([]byte(NormalizeEvidence(evidence)))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// CauseFingerprint is the identity of a bug known by its root cause (a
// BugReport's Cause): RecordBug keys such a bug by it, whatever the page or
// the evidence of a sighting. It differs from Fingerprint(kind, "", cause)
// in one way: a quoted value that reads as a name (see NormalizeCause)
// keeps its text, because in a cause it is what tells two causes apart (the
// script of a stack frame, File "app/views/list.py"; the attribute of
// 'owner'), while free text in quotes (what a user typed, echoed by an
// error) still becomes one placeholder.
func CauseFingerprint(kind, cause string) string {
	h := sha256.New()
	h.Write([]byte(strings.ToLower(strings.TrimSpace(kind))))
	h.Write([]byte{0, 'c', 0})
	h.Write([]byte(NormalizeCause(cause)))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// NormalizeCause is NormalizeEvidence for a root cause: a quoted value of
// at most 64 characters made of letters, digits and _ . / - : only (an
// identifier, a dotted or a path name) keeps its text, lower-cased, with
// its numbers as <n>; every other quoted value is "<q>", and the rest
// follows NormalizeEvidence's rules.
func NormalizeCause(s string) string {
	s = strings.ToLower(s)
	keep := func(q string) string {
		inner := q[1 : len(q)-1]
		if qaCauseName.MatchString(inner) {
			return "\u00ab" + qaEvNumber.ReplaceAllString(inner, "<n>") + "\u00bb"
		}
		return `"<q>"`
	}
	s = qaEvQuoted.ReplaceAllStringFunc(s, keep)
	var b strings.Builder
	last := 0
	for _, m := range qaEvSingle.FindAllStringIndex(s, -1) {
		open := m[0] + strings.IndexByte(s[m[0]:m[1]], '\'')
		b.WriteString(s[last:open])
		if r, _ := utf8.DecodeRuneInString(s[m[1]:]); unicode.IsLetter(r) || unicode.IsDigit(r) {
			// The closing quote is an apostrophe ('o'brien & co'): the
			// value is free text, masked whole by NormalizeEvidence.
			b.WriteString(s[open:m[1]])
		} else {
			b.WriteString(keep(s[open:m[1]]))
		}
		last = m[1]
	}
	s = b.String() + s[last:]
	// The kept names are between « and », which NormalizeEvidence's
	// quote rules leave.
	return NormalizeEvidence(s)
}

var qaCauseName = regexp.MustCompile(`^[a-z_][a-z0-9_./:-]{0,63}$`)

// qaHash is a short stable hash used for store keys derived from free text.
func qaHash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// qaTruncateRunes cuts s to at most n runes, marking a cut with "…".
func qaTruncateRunes(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	if n == 1 {
		return "…"
	}
	return string(r[:n-1]) + "…"
}
