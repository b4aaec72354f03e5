package browser

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// TargetKind says how a target addresses an element.
type TargetKind string

// Target kinds the selector policy accepts.
const (
	TargetRef         TargetKind = "ref"         // e12 from the latest snapshot
	TargetTestID      TargetKind = "testid"      // data-testid / data-test-subj
	TargetRole        TargetKind = "role"        // role=button[name="Save"]
	TargetLabel       TargetKind = "label"       // label=Email, [aria-label="Close"]
	TargetText        TargetKind = "text"        // text=Sign in
	TargetPlaceholder TargetKind = "placeholder" // placeholder=you@example.com
	TargetID          TargetKind = "id"          // #email
)

// Target is a parsed, policy-approved element address.
type Target struct {
	Kind TargetKind
	// Ref is the snapshot ref for TargetRef (e.g. "e12", or "h3" for a
	// hover-only control).
	Ref string
	// Selector is the Playwright selector for every other kind.
	Selector string
}

// SelectorError is a target refused by the selector policy, with a stable
// alternative to use instead.
type SelectorError struct {
	Target     string
	Reason     string
	Suggestion string
}

func (e *SelectorError) Error() string {
	return fmt.Sprintf("selector %q refused: %s; use %s", e.Target, e.Reason, e.Suggestion)
}

var (
	refPattern     = regexp.MustCompile(`^(?:ref=)?\[?(?:ref=)?((?:f[0-9]{1,4})?e[0-9]{1,6}|[hdx][0-9]{1,6})\]?$`)
	idPattern      = regexp.MustCompile(`^#[A-Za-z_][A-Za-z0-9_-]*$`)
	attrPattern    = regexp.MustCompile(`^\[(data-testid|data-test-subj|data-test|aria-label)\s*=\s*(?:"([^"]*)"|'([^']*)')\s*\]$`)
	rolePattern    = regexp.MustCompile(`^role=([a-z]+)(?:\[name\s*=\s*(?:"([^"]*)"|'([^']*)')\s*(i|s)?\])?$`)
	prefixPattern  = regexp.MustCompile(`^(testid|data-testid|data-test-subj|label|text|placeholder)=(.*)$`)
	xpathTestID    = regexp.MustCompile(`@(data-testid|data-test-subj)\s*=\s*['"]([^'"]+)['"]`)
	xpathAria      = regexp.MustCompile(`@aria-label\s*=\s*['"]([^'"]+)['"]`)
	xpathID        = regexp.MustCompile(`@id\s*=\s*['"]([A-Za-z_][\w-]*)['"]`)
	xpathText      = regexp.MustCompile(`(?:text\(\)|\.)\s*[,=]\s*['"]([^'"]+)['"]`)
	cssTestID      = regexp.MustCompile(`\[(data-testid|data-test-subj)=["']?([^"'\]]+)["']?\]`)
	cssID          = regexp.MustCompile(`#([A-Za-z_][\w-]*)`)
	positionalBits = []string{":nth-child", ":nth-of-type", ":nth-last-child", ":nth-last-of-type", ":nth-match", ":first-child", ":last-child", ":first-of-type", ":last-of-type", ":only-child", ":eq(", "nth="}
)

const genericSuggestion = `a ref from the latest snapshot (e.g. "e12"), [data-testid="…"], role=button[name="…"], label=…, text=… or a plain #id`

// ParseTarget applies the selector policy. Accepted: snapshot refs (e12,
// ref=e12), [data-testid="x"] / testid=x, [data-test-subj="x"],
// role=button[name="Save"], [aria-label="Close"] / label=Email, text=Sign in,
// placeholder=…, and plain ids (#email). Refused with a *SelectorError
// naming a stable alternative: XPath, // paths, positional selectors
// (:nth-child, :nth-of-type, nth=…), chains (>>) and other CSS.
func ParseTarget(s string) (Target, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return Target{}, &SelectorError{Target: s, Reason: "empty", Suggestion: genericSuggestion}
	}
	if len(t) > 500 {
		return Target{}, &SelectorError{Target: t[:40] + "…", Reason: "longer than 500 characters", Suggestion: genericSuggestion}
	}
	if m := refPattern.FindStringSubmatch(t); m != nil {
		return Target{Kind: TargetRef, Ref: m[1]}, nil
	}
	lower := strings.ToLower(t)
	if strings.HasPrefix(lower, "xpath=") || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "(/") || strings.HasPrefix(t, "./") || strings.Contains(t, "//") {
		return Target{}, &SelectorError{Target: t, Reason: "XPath depends on the page's structure", Suggestion: suggestFromXPath(t)}
	}
	for _, bit := range positionalBits {
		if strings.Contains(lower, bit) {
			return Target{}, &SelectorError{Target: t, Reason: "positional selectors (" + strings.TrimSuffix(bit, "(") + ") break when the page changes", Suggestion: suggestFromCSS(t)}
		}
	}
	if strings.Contains(t, ">>") {
		return Target{}, &SelectorError{Target: t, Reason: "chained selectors (>>) are not stable", Suggestion: suggestFromCSS(t)}
	}
	if idPattern.MatchString(t) {
		return Target{Kind: TargetID, Selector: t}, nil
	}
	if m := attrPattern.FindStringSubmatch(t); m != nil {
		val := m[2] + m[3]
		if val == "" {
			return Target{}, &SelectorError{Target: t, Reason: "empty attribute value", Suggestion: genericSuggestion}
		}
		switch m[1] {
		case "aria-label":
			return Target{Kind: TargetLabel, Selector: fmt.Sprintf(`[aria-label=%s]`, strconv.Quote(val))}, nil
		case "data-testid":
			return Target{Kind: TargetTestID, Selector: testIDSelector(val)}, nil
		default:
			return Target{Kind: TargetTestID, Selector: fmt.Sprintf(`[%s=%s]`, m[1], strconv.Quote(val))}, nil
		}
	}
	if m := rolePattern.FindStringSubmatch(t); m != nil {
		sel := "role=" + m[1]
		if name := m[2] + m[3]; m[2] != "" || m[3] != "" {
			flag := m[4]
			if flag == "" {
				flag = "i"
			}
			sel = fmt.Sprintf(`internal:role=%s[name=%s%s]`, m[1], strconv.Quote(name), flag)
		} else {
			sel = "internal:role=" + m[1]
		}
		return Target{Kind: TargetRole, Selector: sel}, nil
	}
	if strings.HasPrefix(lower, "role=") {
		return Target{}, &SelectorError{Target: t, Reason: "role selectors take only a name", Suggestion: `role=button[name="Save"]`}
	}
	if m := prefixPattern.FindStringSubmatch(t); m != nil {
		val := unquote(strings.TrimSpace(m[2]))
		if val == "" {
			return Target{}, &SelectorError{Target: t, Reason: "empty value", Suggestion: genericSuggestion}
		}
		switch m[1] {
		case "testid", "data-testid":
			return Target{Kind: TargetTestID, Selector: testIDSelector(val)}, nil
		case "data-test-subj":
			return Target{Kind: TargetTestID, Selector: fmt.Sprintf(`[data-test-subj=%s]`, strconv.Quote(val))}, nil
		case "label":
			return Target{Kind: TargetLabel, Selector: fmt.Sprintf(`internal:label=%si`, strconv.Quote(val))}, nil
		case "text":
			return Target{Kind: TargetText, Selector: fmt.Sprintf(`internal:text=%si`, strconv.Quote(val))}, nil
		case "placeholder":
			return Target{Kind: TargetPlaceholder, Selector: fmt.Sprintf(`internal:attr=[placeholder=%si]`, strconv.Quote(val))}, nil
		}
	}
	return Target{}, &SelectorError{Target: t, Reason: "only stable selectors are accepted (CSS classes, tags and structure change)", Suggestion: suggestFromCSS(t)}
}

func testIDSelector(v string) string {
	return fmt.Sprintf(`internal:testid=[data-testid=%ss]`, strconv.Quote(v))
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

func suggestFromXPath(x string) string {
	if m := xpathTestID.FindStringSubmatch(x); m != nil {
		return fmt.Sprintf(`[%s="%s"]`, m[1], m[2])
	}
	if m := xpathAria.FindStringSubmatch(x); m != nil {
		return fmt.Sprintf(`[aria-label="%s"]`, m[1])
	}
	if m := xpathID.FindStringSubmatch(x); m != nil {
		return "#" + m[1]
	}
	if m := xpathText.FindStringSubmatch(x); m != nil {
		return "text=" + m[1]
	}
	return genericSuggestion
}

func suggestFromCSS(c string) string {
	if m := cssTestID.FindStringSubmatch(c); m != nil {
		return fmt.Sprintf(`[%s="%s"]`, m[1], m[2])
	}
	if m := cssID.FindStringSubmatch(c); m != nil {
		return "#" + m[1]
	}
	return genericSuggestion
}
