package findings

import (
	"fmt"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/internal/urlx"
)

// xssMarker is the function the XSS probe calls when it runs; generated
// specs define it with an init script and assert it is never called.
const xssMarker = "__agxss"

// specSlowPosts is how long a double-submit reproduction holds POST
// answers, so the second click lands while the first is in flight (the
// collector's slow network, replayed by page.route).
const specSlowPosts = 1500 * time.Millisecond

// reproduction builds the spec test of a bug from the replayed entries: the
// checks are those that fail once THIS bug is fixed, matched narrowly to
// its evidence (the message, the URL path, the element), so that other
// noise on the way does not keep the spec passing. Kinds without a check of
// their own get browser.DefaultChecks.
func Reproduction(b Bug, entries []browser.Entry) browser.Reproduction {
	r := browser.Reproduction{Name: b.ID + ": " + b.Title, Entries: entries, Bug: true}
	msg := bugMessage(b)
	path := escapedPath(b.URL)
	switch browser.FindingKind(b.Kind) {
	case browser.FindPageError:
		r.Checks = []browser.Check{browser.NoPageError{Contains: stableText(msg)}}
	case browser.FindConsoleError:
		r.Checks = []browser.Check{browser.NoConsoleError{Contains: stableText(msg)}}
	case browser.FindServerError:
		method := ""
		if m := reMethod.FindStringSubmatch(msg); m != nil {
			method = m[1]
		}
		r.Checks = []browser.Check{browser.NoServerError{Method: method, Path: path}}
	case browser.FindNotFound:
		r.Checks = []browser.Check{browser.NoNotFound{Path: path}}
	case browser.FindErrorBanner:
		// The message starts with the banner's text.
		text := strings.TrimPrefix(msg, "visible error message: ")
		r.Checks = []browser.Check{browser.NoErrorBanner{Contains: stableText(text)}}
	case browser.FindStackTrace:
		r.Checks = []browser.Check{browser.NoStackTrace{Contains: stableText(bugDetail(b))}}
	case collector.FindXSS:
		// Narrowed to the element the payload ran in (by its test id, id or
		// name), so a payload stored elsewhere on the way does not count.
		r.Checks = []browser.Check{browser.NoScriptRun{Marker: xssMarker, Within: CssFor(bugDetail(b))}}
	case collector.FindA11y:
		rule := ""
		if m := ReRule.FindStringSubmatch(msg); m != nil {
			rule = m[1]
		}
		r.Checks = []browser.Check{browser.NoA11yViolation{Rule: rule, Selector: CssFor(bugDetail(b))}}
	case collector.FindSlow:
		within := 3 * time.Second
		if m := reThreshold.FindStringSubmatch(msg); m != nil {
			if d, err := time.ParseDuration(m[1]); err == nil && d > 0 {
				within = d
			}
		}
		r.Checks = []browser.Check{browser.FastResponse{Path: path, Within: within, Fetch: strings.HasPrefix(msg, "GET ")}}
	case collector.FindDeadControl:
		el := bugDetail(b)
		sel := CssFor(el)
		if sel == "" {
			sel = textSelector(el)
		}
		if sel != "" {
			r.Entries = beforeClickOn(entries, el)
			r.Checks = []browser.Check{browser.ClickChanges{Selector: sel}}
		}
	case collector.FindDuplicate:
		r.Checks = []browser.Check{browser.NoDuplicatePost{Path: path}}
		r.SlowPosts = specSlowPosts
		r.Entries = sameSubmit(entries)
	case collector.FindDuplicateRow:
		r.Checks = []browser.Check{browser.NoDuplicateRows{}}
		r.SlowPosts = specSlowPosts
		r.Entries = sameSubmit(entries)
	}
	if r.Bug && len(r.Checks) == 0 {
		r.Checks = browser.DefaultChecks()
	}
	return r
}

var (
	ReRule      = regexp.MustCompile(`\(rule ([a-z0-9-]+)\)`)
	reMethod    = regexp.MustCompile(`^server error \d+ on ([A-Z]+) `)
	reThreshold = regexp.MustCompile(`\(threshold ([0-9.]+[a-zµ]+)\)`)
)

// bugMessage is the finding's message, as the bug's title carries it after
// "<kind title> on <path>: ".
func bugMessage(b Bug) string {
	prefix := bugKinds[browser.FindingKind(b.Kind)] + " on " + urlx.Path(b.URL) + ": "
	msg, ok := strings.CutPrefix(b.Title, prefix)
	if !ok {
		return ""
	}
	if cut, clipped := strings.CutSuffix(msg, "…"); clipped {
		// Clipped at a byte: drop a torn rune and the torn last word.
		cut = strings.TrimRight(strings.ToValidUTF8(cut, "\uFFFD"), "\uFFFD")
		if i := strings.LastIndexFunc(cut, unicode.IsSpace); i > 0 {
			cut = cut[:i]
		}
		msg = cut
	}
	return msg
}

// bugDetail is the finding's evidence without its message: the banner
// text, the stack trace, the element's HTML. The evidence is the message,
// " — " and the detail (or the detail alone when it holds the message).
func bugDetail(b Bug) string {
	msg := bugMessage(b)
	if msg != "" && strings.HasPrefix(b.Evidence, msg) {
		if i := strings.Index(b.Evidence[len(msg):], " — "); i >= 0 {
			return b.Evidence[len(msg)+i+len(" — "):]
		}
		return ""
	}
	return b.Evidence
}

func escapedPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return ""
	}
	return u.EscapedPath()
}

var reWord = regexp.MustCompile(`\S+`)

// stableText keeps the part of a message that does not change between runs:
// its first line, up to the first word that starts with a number (record
// ids, counts, timings), at most 160 bytes. Too short a rest gives "",
// which matches any message.
func stableText(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	for _, w := range reWord.FindAllStringIndex(line, -1) {
		word := line[w[0]:w[1]]
		if i := strings.IndexFunc(word, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }); i >= 0 && unicode.IsDigit(rune(word[i])) {
			line = line[:w[0]]
			break
		}
	}
	line = strings.TrimSpace(line)
	if len(line) > 160 {
		cut := 160
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = line[:cut]
	}
	if utf8.RuneCountInString(line) < 6 {
		return ""
	}
	return line
}

var (
	reStartTag = regexp.MustCompile(`^\s*<([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>`)
	reAttr     = regexp.MustCompile(`([a-zA-Z_:][-a-zA-Z0-9_:.]*)="([^"]*)"`)
	ReTag      = regexp.MustCompile(`<[^>]*>`)
)

// idAttrs are the attributes that name an element, best first.
var idAttrs = []string{"data-testid", "data-test-id", "data-test", "data-test-subj", "data-cy", "id", "name"}

// cssFor returns a CSS selector for the element whose outer HTML (as a
// browser serialises it) starts el: its tag and the first naming attribute
// (test id, id, name); "" when it has none.
func CssFor(el string) string {
	m := reStartTag.FindStringSubmatch(el)
	if m == nil {
		return ""
	}
	attrs := map[string]string{}
	for _, a := range reAttr.FindAllStringSubmatch(m[2], -1) {
		attrs[strings.ToLower(a[1])] = html.UnescapeString(a[2])
	}
	for _, name := range idAttrs {
		if v, ok := attrs[name]; ok && strings.TrimSpace(v) != "" {
			return strings.ToLower(m[1]) + "[" + name + "=" + cssString(v) + "]"
		}
	}
	return ""
}

// textSelector is a Playwright selector for the element by its tag and
// visible text; "" without either.
func textSelector(el string) string {
	m := reStartTag.FindStringSubmatch(el)
	text := elementText(el)
	if m == nil || text == "" {
		return ""
	}
	return strings.ToLower(m[1]) + ":has-text(" + cssString(text) + ")"
}

func elementText(el string) string {
	return strings.Join(strings.Fields(html.UnescapeString(ReTag.ReplaceAllString(el, " "))), " ")
}

// cssString quotes s as a CSS string.
func cssString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\%x `, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// beforeClickOn cuts the entries before the last click on the element (by
// its naming attribute or text in the click's locator or target), so that
// the spec's own click is the one that is checked; the entries are kept
// whole when no click matches.
func beforeClickOn(entries []browser.Entry, el string) []browser.Entry {
	var keys []string
	if m := reStartTag.FindStringSubmatch(el); m != nil {
		for _, a := range reAttr.FindAllStringSubmatch(m[2], -1) {
			if v := html.UnescapeString(a[2]); slices.Contains(idAttrs, strings.ToLower(a[1])) && v != "" {
				keys = append(keys, v)
			}
		}
	}
	if t := elementText(el); t != "" {
		keys = append(keys, t)
	}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Action != browser.ActClick {
			continue
		}
		for _, k := range keys {
			if strings.Contains(e.Locator, k) || strings.Contains(e.Params.Target, k) {
				return entries[:i]
			}
		}
	}
	return entries
}

// sameSubmit marks the impatient persona's second submit click (by role and
// name, right after a click) as a click on the same control as the first,
// so the spec replays the pair as one double submit.
func sameSubmit(entries []browser.Entry) []browser.Entry {
	out := slices.Clone(entries)
	for i := 1; i < len(out); i++ {
		prev, e := out[i-1], out[i]
		if prev.OK && prev.Action == browser.ActClick && e.OK && e.Action == browser.ActClick && strings.HasPrefix(e.Params.Target, "role=button[name=") {
			out[i].Locator = prev.Locator
			out[i].HoverLocator = prev.HoverLocator
		}
	}
	return out
}
