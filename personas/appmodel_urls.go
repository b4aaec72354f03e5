package personas

import (
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// URLTemplate generalises a URL to the screen it shows: ids in the path
// (numbers, UUIDs, hex ids, long tokens, slugs ending in a number) become
// {id}, query values are dropped (keys kept, sorted), a hash route
// (#/…, #!/…) is kept and templated the same way, a plain anchor is
// dropped, and so are the scheme and host:
// "/orders/42/edit?tab=x" → "/orders/{id}/edit?tab=".
func URLTemplate(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return clip(raw, 300)
	}
	p := templatePath(u.EscapedPath())
	if p == "" && (u.Host != "" || u.Scheme != "") {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + templateQuery(u.RawQuery)
	}
	if f := u.Fragment; strings.HasPrefix(f, "/") || strings.HasPrefix(f, "!/") {
		bang := strings.HasPrefix(f, "!")
		fu, err := url.Parse(strings.TrimPrefix(f, "!"))
		if err == nil {
			f = templatePath(fu.EscapedPath())
			if fu.RawQuery != "" {
				f += "?" + templateQuery(fu.RawQuery)
			}
			if bang {
				f = "!" + f
			}
			p += "#" + f
		}
	}
	return clip(p, 300)
}

func templatePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if isIDSegment(s) {
			segs[i] = "{id}"
		}
	}
	return strings.Join(segs, "/")
}

func templateQuery(q string) string {
	var keys []string
	for _, kv := range strings.Split(q, "&") {
		k, _, _ := strings.Cut(kv, "=")
		if k, err := url.QueryUnescape(k); err == nil && k != "" && !slices.Contains(keys, k) && len(keys) < 20 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for i, k := range keys {
		keys[i] = url.QueryEscape(k) + "="
	}
	return strings.Join(keys, "&")
}

// isIDSegment: a path segment that names a record rather than a screen.
func isIDSegment(s string) bool {
	if s == "" {
		return false
	}
	digits, letters, hexOnly, other := 0, 0, true, 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F':
			letters++
		case r >= 'g' && r <= 'z' || r >= 'G' && r <= 'Z':
			letters++
			hexOnly = false
		default:
			hexOnly = false
			other++
		}
	}
	switch {
	case digits == len(s):
		return true
	case isUUID(s):
		return true
	case hexOnly && len(s) >= 8 && digits > 0:
		return true
	case len(s) >= 16 && digits > 0 && letters > 0:
		return true
	}
	// a slug ending in a number: "blue-shirt-42"
	if i := strings.LastIndexByte(s, '-'); i > 0 && i < len(s)-1 {
		tail := s[i+1:]
		return strings.Trim(tail, "0123456789") == "" && letters > 0
	}
	return false
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if r != '-' {
				return false
			}
		} else if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return true
}

// localURL drops scheme and host, keeping path, query and fragment.
func localURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return raw
	}
	u.Scheme, u.Host, u.User, u.Opaque = "", "", nil, ""
	s := u.String()
	if s == "" || s[0] == '?' || s[0] == '#' {
		s = "/" + s
	}
	return s
}

// normName is a control's name for its identity: spaces collapsed, digit
// runs as '#', at most 60 characters.
func normName(s string) string {
	var b strings.Builder
	space, digit := false, false
	for _, r := range strings.TrimSpace(s) {
		switch {
		case r >= '0' && r <= '9':
			if !digit {
				b.WriteByte('#')
			}
			digit, space = true, false
			continue
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if !space {
				b.WriteByte(' ')
			}
			space, digit = true, false
			continue
		}
		space, digit = false, false
		b.WriteRune(r)
	}
	return clip(b.String(), 60)
}

// cleanRole keeps a role's lower-case letters.
func cleanRole(r string) string {
	r = strings.ToLower(r)
	if strings.Trim(r, "abcdefghijklmnopqrstuvwxyz") == "" {
		return r
	}
	var b strings.Builder
	for _, c := range r {
		if c >= 'a' && c <= 'z' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// clip cuts s to at most n runes.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
