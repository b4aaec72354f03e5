package minimize

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
)

// Replaying recorded entries with the engine: snapshot refs do not survive
// a fresh context, so a ref target is rebuilt from the Playwright locator
// the engine recorded for it.

var (
	reLocCall = regexp.MustCompile(`^(getByTestId|getByLabel|getByText|getByPlaceholder|locator)\('((?:[^'\\]|\\.)*)'(, \{ exact: true \})?\)$`)
	reLocRole = regexp.MustCompile(`^getByRole\('([a-z]+)'(?:, \{ name: '((?:[^'\\]|\\.)*)'(, exact: true)? \})?\)$`)
)

// targetOf turns a recorded locator (browser.JSLocator's forms) back into
// a target the selector policy accepts.
func targetOf(loc string) (string, error) {
	quote := func(v string) (string, bool) {
		switch {
		case !strings.Contains(v, `"`):
			return `"` + v + `"`, true
		case !strings.Contains(v, `'`):
			return `'` + v + `'`, true
		}
		return "", false
	}
	var t string
	if m := reLocCall.FindStringSubmatch(loc); m != nil {
		v, err := jsUnquote(m[2])
		if err != nil {
			return "", fmt.Errorf("locator %s: %w", loc, err)
		}
		switch m[1] {
		case "getByTestId":
			q, ok := quote(v)
			if !ok {
				return "", fmt.Errorf("locator %s: test id with both quote kinds", loc)
			}
			t = "[data-testid=" + q + "]"
		case "getByLabel":
			t = "label=" + v
		case "getByText":
			t = "text=" + v
		case "getByPlaceholder":
			t = "placeholder=" + v
		case "locator":
			t = v
		}
	} else if m := reLocRole.FindStringSubmatch(loc); m != nil {
		t = "role=" + m[1]
		if m[2] != "" {
			v, err := jsUnquote(m[2])
			if err != nil {
				return "", fmt.Errorf("locator %s: %w", loc, err)
			}
			q, ok := quote(v)
			if !ok {
				return "", fmt.Errorf("locator %s: name with both quote kinds", loc)
			}
			flag := ""
			if m[3] != "" {
				flag = "s"
			}
			t += "[name=" + q + flag + "]"
		}
	} else {
		return "", fmt.Errorf("locator %s: no stable target for it", loc)
	}
	pt, err := browser.ParseTarget(t)
	if err != nil || pt.Kind == browser.TargetRef {
		return "", fmt.Errorf("locator %s: %s is not a stable target", loc, t)
	}
	return t, nil
}

// jsUnquote reads the body of a single-quoted JavaScript string literal.
func jsUnquote(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", errors.New("dangling backslash")
		}
		i++
		switch c := s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'x', 'u':
			w := map[byte]int{'x': 2, 'u': 4}[c]
			if i+w >= len(s) {
				return "", fmt.Errorf("short \\%c escape", c)
			}
			r, err := strconv.ParseUint(s[i+1:i+1+w], 16, 32)
			if err != nil {
				return "", fmt.Errorf("bad \\%c escape: %w", c, err)
			}
			b.WriteRune(rune(r))
			i += w
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// ReplayIntents are the intents that replay e on a page served at origin:
// ref targets rebuilt from the recorded locators (a hover first for a
// hover-only control) and URLs of the recorded origin moved to origin.
func ReplayIntents(e browser.Entry, recorded, origin string) ([]browser.Intent, error) {
	in := e.Params
	in.Action = e.Action
	if in.URL != "" && recorded != "" && strings.HasPrefix(in.URL, recorded) {
		in.URL = origin + strings.TrimPrefix(in.URL, recorded)
	}
	var out []browser.Intent
	if len(in.Fields) > 0 {
		// A fill_form: each field's ref from its recorded locator.
		in.Fields = slices.Clone(in.Fields)
		for i, f := range in.Fields {
			t, err := browser.ParseTarget(f.Target)
			if err != nil {
				return nil, err
			}
			if t.Kind != browser.TargetRef {
				continue
			}
			if i >= len(e.Locators) || e.Locators[i] == "" {
				return nil, fmt.Errorf("%s fields[%d] %s: no locator recorded", e.Action, i, f.Target)
			}
			if in.Fields[i].Target, err = targetOf(e.Locators[i]); err != nil {
				return nil, err
			}
		}
	}
	if in.Target != "" {
		t, err := browser.ParseTarget(in.Target)
		if err != nil {
			return nil, err
		}
		if t.Kind == browser.TargetRef {
			if e.Locator == "" {
				return nil, fmt.Errorf("%s %s: no locator recorded", e.Action, in.Target)
			}
			if in.Target, err = targetOf(e.Locator); err != nil {
				return nil, err
			}
		}
		if e.HoverLocator != "" {
			h, err := targetOf(e.HoverLocator)
			if err != nil {
				return nil, err
			}
			out = append(out, browser.Intent{Action: browser.ActHover, Target: h})
		}
	}
	return append(out, in), nil
}
