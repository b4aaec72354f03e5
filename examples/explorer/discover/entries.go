package discover

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/xml"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
)

// EntryPaths are the conventional paths discovery tries on every target:
// sign-in and sign-up pages, home and dashboard pages, account pages,
// search, help. They are the names web frameworks and apps use by
// convention, not any one app's.
var EntryPaths = []string{
	"/login", "/signin", "/sign-in", "/sign_in", "/users/sign_in", "/accounts/login/", "/auth/login",
	"/register", "/signup", "/sign-up", "/users/sign_up", "/accounts/signup/",
	"/home", "/index.html", "/dashboard", "/app", "/account", "/profile", "/settings",
	"/search", "/help", "/about", "/contact", "/admin",
}

// Bounds of discovery: it runs before the mission's first step and must
// not hold it up on a slow or hostile target.
const (
	discoverTimeout  = 15 * time.Second        // the whole discovery
	discoverRequest  = 4 * time.Second         // one request
	discoverBody     = 1 << 20                 // bytes read of one answer
	discoverMax      = 40                      // entries kept
	discoverSitemap  = 200                     // <loc> entries read of all sitemaps
	discoverSitemaps = 3                       // sitemap files read
	discoverWorkers  = 4                       // requests at once
	discoverRedirect = 5                       // redirects followed
	discoverAgent    = "agentgraph-explorer/1" // the User-Agent of its requests
)

// discovery is what discoverEntries found and how: the entries in the
// order they are worth a visit (the sitemaps', robots.txt's, then the
// conventional paths'), and a line per source for the trace.
type discovery struct {
	Entries []string
	Notes   []string
	// SignIn are the entries that ask for a password (a sign-in page).
	SignIn map[string]bool
}

// discoverEntries finds pages of target that its pages may not link to,
// as path?query: the URLs of its sitemaps (those robots.txt names, else
// /sitemap.xml), the literal paths of robots.txt's rules, and EntryPaths
// plus extra. A candidate counts when, after redirects within the origin,
// it answers 2xx with HTML unlike the start page's, unlike what a path
// that cannot exist gets (an app that answers every path with the same
// page, or sends every unknown path home, adds nothing) and unlike an
// earlier candidate's (every page behind a sign-in wall redirecting to
// the one sign-in page adds that page once). Requests go straight to
// target, never through the collector: a discovery request is not the
// app's behaviour under a user. Every request and the whole discovery
// are bounded; an unreachable target finds nothing.
func DiscoverEntries(ctx context.Context, target, start string, extra []string) discovery {
	ctx, cancel := context.WithTimeout(ctx, discoverTimeout)
	defer cancel()
	base, err := url.Parse(strings.TrimRight(target, "/"))
	if err != nil || base.Host == "" {
		return discovery{Notes: []string{fmt.Sprintf("discovery: target %q is not a URL", target)}}
	}
	d := &discoverer{base: base, client: &http.Client{
		Transport: &http.Transport{Proxy: nil, DialContext: (&net.Dialer{Timeout: discoverRequest}).DialContext,
			ResponseHeaderTimeout: discoverRequest, MaxIdleConnsPerHost: discoverWorkers},
		Timeout: discoverRequest,
	}}
	defer d.client.CloseIdleConnections()
	d.client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > discoverRedirect || req.URL.Host != base.Host || req.URL.Scheme != base.Scheme {
			return http.ErrUseLastResponse
		}
		return nil
	}

	var out discovery
	// What the start page and a path that cannot exist answer.
	seen := map[string]bool{}
	for _, p := range []string{start, fmt.Sprintf("/__explorer-no-such-page-%d", time.Now().UnixNano())} {
		if a, ok := d.get(ctx, p); ok && a.page {
			seen[a.key] = true
		}
	}
	var sources []candidate
	robots, sitemaps := d.robots(ctx)
	if len(sitemaps) == 0 {
		sitemaps = []string{"/sitemap.xml"}
	}
	locs := d.sitemaps(ctx, sitemaps)
	for _, p := range locs {
		sources = append(sources, candidate{p, "sitemap"})
	}
	for _, p := range robots {
		sources = append(sources, candidate{p, "robots.txt"})
	}
	for _, p := range EntryPaths {
		if q, ok := d.local(p); ok {
			sources = append(sources, candidate{q, "conventional path"})
		}
	}
	for _, p := range extra {
		if q, ok := d.local(p); ok {
			sources = append(sources, candidate{q, "configured path"})
		}
	}
	if len(locs) > 0 || len(robots) > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("discovery: %d sitemap URLs, %d robots.txt paths", len(locs), len(robots)))
	}

	// Probe them, a few at a time; keep the order of sources.
	answers := make([]entryAnswer, len(sources))
	oks := make([]bool, len(sources))
	idx := make(chan int)
	var wg sync.WaitGroup
	for range discoverWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range idx {
				answers[i], oks[i] = d.get(ctx, sources[i].path)
			}
		}()
	}
	dup := map[string]bool{}
feed:
	for i, c := range sources {
		if dup[c.path] {
			continue
		}
		dup[c.path] = true
		select {
		case idx <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(idx)
	wg.Wait()
	for i, c := range sources {
		a := answers[i]
		if !oks[i] || !a.page || seen[a.key] || len(out.Entries) >= discoverMax {
			continue
		}
		seen[a.key] = true
		out.Entries = append(out.Entries, c.path)
		if a.password {
			if out.SignIn == nil {
				out.SignIn = map[string]bool{}
			}
			out.SignIn[c.path] = true
		}
		out.Notes = append(out.Notes, fmt.Sprintf("discovery: %s (%s) answers %d", c.path, c.from, a.status))
	}
	if ctx.Err() != nil {
		out.Notes = append(out.Notes, fmt.Sprintf("discovery: stopped after %s", discoverTimeout))
	}
	return out
}

type candidate struct{ path, from string }

type discoverer struct {
	base   *url.URL
	client *http.Client
}

// entryAnswer is what one GET got after redirects: page says it is 2xx HTML,
// key identifies its page by its body, with numbers and token-like runs
// left out (a page that differs only by a nonce or a clock is the same
// page).
type entryAnswer struct {
	status   int
	page     bool
	key      string
	password bool // the page has a password field
}

var rePasswordInput = regexp.MustCompile(`(?i)<input\b[^>]*\btype\s*=\s*["']?password\b`)

// reVolatile is what may change between two answers of one page: a word
// with a digit in it (a counter, a clock, a short hex nonce) and a long
// token-like run (a CSRF token).
var reVolatile = regexp.MustCompile(`[0-9A-Za-z_\-+/=]*[0-9][0-9A-Za-z_\-+/=]*|[0-9A-Za-z_\-+/=]{20,}`)

// local returns raw as a path?query of the target's origin, or false for
// another origin, a non-http(s) URL or garbage.
func (d *discoverer) local(raw string) (string, bool) {
	u, err := d.base.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host != d.base.Host || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	p := u.Path // as urlx.PathQuery writes the frontier's pages
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p, true
}

func (d *discoverer) get(ctx context.Context, p string) (entryAnswer, bool) {
	body, resp, err := d.fetch(ctx, p)
	if err != nil {
		return entryAnswer{}, false
	}
	a := entryAnswer{status: resp.StatusCode}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	a.page = resp.StatusCode >= 200 && resp.StatusCode < 300 && (ct == "text/html" || ct == "application/xhtml+xml")
	sum := sha256.Sum256(reVolatile.ReplaceAll(body, nil))
	a.key = fmt.Sprintf("%x", sum[:12])
	a.password = a.page && rePasswordInput.Match(body)
	return a, true
}

// fetch GETs p on the target and returns up to discoverBody bytes of the
// final answer's body.
func (d *discoverer) fetch(ctx context.Context, p string) ([]byte, *http.Response, error) {
	u, err := d.base.Parse(p)
	if err != nil {
		return nil, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("User-Agent", discoverAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5")
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, discoverBody))
	if err != nil {
		return nil, nil, err
	}
	return body, resp, nil
}

// robots reads /robots.txt: the literal paths of its Allow and Disallow
// rules (patterns with * or $ are not pages) and the sitemaps it names.
func (d *discoverer) robots(ctx context.Context) (paths, sitemaps []string) {
	body, resp, err := d.fetch(ctx, "/robots.txt")
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, nil
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "text/html" {
		return nil, nil // an app's page for every path, not a robots.txt
	}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		field, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(field)) {
		case "sitemap":
			if _, ok := d.local(value); ok {
				sitemaps = append(sitemaps, value)
			}
		case "allow", "disallow":
			if value == "" || value == "/" || strings.ContainsAny(value, "*$") || !strings.HasPrefix(value, "/") {
				continue
			}
			if p, ok := d.local(value); ok {
				paths = append(paths, p)
			}
		}
	}
	return paths, sitemaps
}

// sitemaps reads up to discoverSitemaps sitemap files (a sitemap index's
// sitemaps too) and returns their URLs of the target's origin, at most
// discoverSitemap of them.
func (d *discoverer) sitemaps(ctx context.Context, queue []string) []string {
	var out []string
	read := map[string]bool{}
	for len(queue) > 0 && len(read) < discoverSitemaps && len(out) < discoverSitemap {
		s := queue[0]
		queue = queue[1:]
		p, ok := d.local(s)
		if !ok || read[p] {
			continue
		}
		read[p] = true
		body, resp, err := d.fetch(ctx, p)
		if err != nil || resp.StatusCode != http.StatusOK {
			continue
		}
		var doc struct {
			XMLName xml.Name
			URLs    []struct {
				Loc string `xml:"loc"`
			} `xml:"url"`
			Maps []struct {
				Loc string `xml:"loc"`
			} `xml:"sitemap"`
		}
		if xml.Unmarshal(body, &doc) != nil {
			continue
		}
		switch doc.XMLName.Local {
		case "urlset":
			for _, u := range doc.URLs {
				if q, ok := d.local(u.Loc); ok && len(out) < discoverSitemap {
					out = append(out, q)
				}
			}
		case "sitemapindex":
			for _, m := range doc.Maps {
				queue = append(queue, m.Loc)
			}
		}
	}
	return out
}
