// Package urlx holds the explorer's small URL helpers, shared by its
// packages: the parts of an address that name a page.
package urlx

import "net/url"

// Path is raw's path (raw itself when it does not parse).
func Path(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Path
}

// PathQuery is raw's path and query (raw itself when it does not parse).
func PathQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.RawQuery != "" {
		return u.Path + "?" + u.RawQuery
	}
	return u.Path
}

// Resolve resolves href against base: the address it leads to, when it
// stays on base's host over http or https (false for other origins, other
// schemes and what does not parse).
func Resolve(base, href string) (*url.URL, bool) {
	b, err := url.Parse(base)
	if err != nil {
		return nil, false
	}
	h, err := url.Parse(href)
	if err != nil {
		return nil, false
	}
	u := b.ResolveReference(h)
	if u.Host != b.Host || u.Scheme != "http" && u.Scheme != "https" {
		return nil, false
	}
	return u, true
}
