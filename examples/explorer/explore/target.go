package explore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// checkTarget makes sure, before a browser starts, that target is an
// http(s) origin that answers HTTP within d: any status will do (a 500 is
// the app's bug, for the run to find), but a refused connection, an
// unknown host or a server that accepts and says nothing is a set-up
// error, never "app bugs".
func checkTarget(ctx context.Context, target string, d time.Duration) error {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &SetupError{Err: fmt.Errorf("target %q: not an http(s) URL; want http(s)://host[:port]", target)}
	}
	c, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	req, err := http.NewRequestWithContext(c, http.MethodGet, strings.TrimRight(target, "/")+"/", nil)
	if err != nil {
		return &SetupError{Err: fmt.Errorf("target %q: %w", target, err)}
	}
	client := &http.Client{
		Transport:     &http.Transport{Proxy: nil, DialContext: (&net.Dialer{Timeout: d}).DialContext, ResponseHeaderTimeout: d},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
			return &SetupError{Err: fmt.Errorf("target %s answered nothing within %s (it accepts connections but sends no HTTP response): is it the right port, and is the app up?", target, d)}
		}
		return &SetupError{Err: fmt.Errorf("target %s is unreachable: %v", target, unwrapURLError(err))}
	}
	_ = resp.Body.Close()
	return nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
