package discover

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// startRedirects bounds the redirects CheckStarts follows within the origin.
const startRedirects = 10

// OffOriginError is a start page that redirects to another origin: the
// browser may not follow it there (the explorer stays on the target), so a
// mission from it would test nothing.
type OffOriginError struct {
	Start    string // the start page, as the mission names it
	From     string // the URL that redirected
	Location string // where it sent the browser
}

func (e *OffOriginError) Error() string {
	return fmt.Sprintf("start page %s redirects (from %s) to %s, another origin than the target's: the explorer stays on the target's origin, so the run would test nothing; "+
		"point the target (or the mission's start_url) at the origin the app is served on", e.Start, e.From, e.Location)
}

// CheckStarts asks target for each distinct start page (a path, "" for
// "/") before any mission, following redirects within the target's origin,
// and returns an *OffOriginError for the first that leaves the origin. Any
// answer that stays on the origin will do (an error page is the app's bug
// for the run to find); a page that does not answer within timeout is not
// this check's business (the explorer's target check covers reachability). A
// cancelled ctx returns ctx.Err().
func CheckStarts(ctx context.Context, target string, starts []string, timeout time.Duration) error {
	base, err := url.Parse(strings.TrimRight(target, "/"))
	if err != nil || base.Host == "" {
		return fmt.Errorf("target %q is not a URL", target)
	}
	client := &http.Client{
		Transport: &http.Transport{Proxy: nil, DialContext: (&net.Dialer{Timeout: timeout}).DialContext, ResponseHeaderTimeout: timeout},
		Timeout:   timeout,
	}
	defer client.CloseIdleConnections()
	var offOrigin *OffOriginError
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(req.URL, base) {
			offOrigin = &OffOriginError{From: via[len(via)-1].URL.String(), Location: req.URL.String()}
			return http.ErrUseLastResponse
		}
		if len(via) > startRedirects {
			return http.ErrUseLastResponse
		}
		return nil
	}
	seen := map[string]bool{}
	for _, s := range starts {
		if s == "" {
			s = "/"
		}
		if seen[s] {
			continue
		}
		seen[s] = true
		ref, err := url.Parse(s)
		if err != nil {
			continue // the missions' own checks name it
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base.ResolveReference(ref).String(), nil)
		if err != nil {
			continue
		}
		req.Header.Set("User-Agent", discoverAgent)
		offOrigin = nil
		resp, err := client.Do(req)
		if err == nil {
			_ = resp.Body.Close()
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if offOrigin != nil {
			offOrigin.Start = s
			return offOrigin
		}
	}
	return nil
}

// sameOrigin: scheme, host and port agree (a default port is the same as
// none; letter case does not matter).
func sameOrigin(a, b *url.URL) bool {
	norm := func(u *url.URL) string {
		scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
		if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
			port = ""
		}
		return scheme + "://" + host + ":" + port
	}
	return norm(a) == norm(b)
}
