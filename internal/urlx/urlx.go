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
