package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// netGuard is a session's origin scope at the network layer: a forward
// proxy on loopback that every request of the user's browser context goes
// through (Playwright's per-context proxy; Playwright makes Chromium proxy
// loopback too). Route handlers see only a request's first hop, so a 302
// to another origin, a meta refresh, a popup's first load, an iframe or an
// image on another origin would reach that origin; the guard refuses each
// of them before a byte leaves the machine, whatever asked for it.
//
// A refused request gets its connection closed (the page sees a network
// error, never a response of the guard's own) and is reported to onBlock.
// Requests within the allowed origins are relayed untouched (bodies
// streamed, no compression change); a request the app cannot answer
// (refused, reset) closes the connection the same way, so the page sees a
// network error as it would without the guard.
type netGuard struct {
	allowed     []string             // scheme://host[:port], normalised
	subresource []string             // origins whose sub-resources may load
	onBlock     func(u, dest string) // dest: Sec-Fetch-Dest ("" when Chromium sent none)

	ln    net.Listener
	srv   *http.Server
	proxy *httputil.ReverseProxy
	tr    *http.Transport

	mu      sync.Mutex
	tunnels map[net.Conn]bool
	closed  bool
}

// navigationDest are the Sec-Fetch-Dest values of navigations: a document
// may come from an allowed origin only, never from a sub-resource origin.
var navigationDest = []string{"document", "iframe", "frame", "embed", "object", "fencedframe"}

func newNetGuard(allowed, subresource []string, log *slog.Logger, onBlock func(u, dest string)) (*netGuard, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("origin guard: listen: %w", err)
	}
	g := &netGuard{allowed: allowed, subresource: subresource, onBlock: onBlock, ln: ln, tunnels: map[net.Conn]bool{}}
	g.tr = &http.Transport{
		Proxy:                 nil, // never the environment's proxy
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		DisableCompression:    true,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: 0, // the browser's own navigation timeout bounds a silent server
	}
	g.proxy = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL = cloneURL(r.In.URL)
			r.Out.Host = r.In.Host
		},
		Transport:     g.tr,
		FlushInterval: -1,
		ErrorLog:      slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		// The app did not answer: close the browser's connection so the
		// page sees a network error, as it would without the guard.
		ErrorHandler: func(http.ResponseWriter, *http.Request, error) { panic(http.ErrAbortHandler) },
	}
	g.srv = &http.Server{Handler: g, ReadHeaderTimeout: 30 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	go func() { _ = g.srv.Serve(ln) }()
	return g, nil
}

func cloneURL(u *url.URL) *url.URL {
	c := *u
	return &c
}

// server is the proxy address for Playwright.
func (g *netGuard) server() string { return "http://" + g.ln.Addr().String() }

// permits reports whether a request for u (Sec-Fetch-Dest dest) may leave.
func (g *netGuard) permits(u *url.URL, dest string) bool {
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return false
	}
	origin := u.Scheme + "://" + u.Host
	if slices.Contains(g.allowed, origin) {
		return true
	}
	return slices.Contains(g.subresource, origin) && !slices.Contains(navigationDest, dest)
}

// tunnelPermits reports whether a CONNECT to hostport (https, wss, ws) may
// open: the host and port of an allowed origin, or of a sub-resource
// origin (the guard cannot see what a tunnel carries).
func (g *netGuard) tunnelPermits(hostport string) bool {
	for _, o := range append(slices.Clone(g.allowed), g.subresource...) {
		u, err := url.Parse(o)
		if err != nil {
			continue
		}
		if hostPort(u) == hostport {
			return true
		}
	}
	return false
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

func (g *netGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		g.connect(w, r)
		return
	}
	if !r.URL.IsAbs() {
		// Not a proxy request (someone found the port): nothing to relay.
		http.Error(w, "agentgraph origin guard: proxy requests only", http.StatusBadRequest)
		return
	}
	dest := r.Header.Get("Sec-Fetch-Dest")
	if !g.permits(r.URL, dest) {
		if g.onBlock != nil {
			g.onBlock(r.URL.String(), dest)
		}
		panic(http.ErrAbortHandler)
	}
	g.proxy.ServeHTTP(w, r)
}

func (g *netGuard) connect(w http.ResponseWriter, r *http.Request) {
	hp := r.Host
	if !g.tunnelPermits(hp) {
		if g.onBlock != nil {
			g.onBlock("https://"+hp+"/", "")
		}
		panic(http.ErrAbortHandler)
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	up, err := (&net.Dialer{Timeout: 10 * time.Second}).DialContext(r.Context(), "tcp", hp)
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	c, buf, err := hj.Hijack()
	if err != nil {
		_ = up.Close()
		return
	}
	if !g.track(c, up) {
		_ = c.Close()
		_ = up.Close()
		return
	}
	_, _ = c.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	go func() {
		defer g.untrack(c, up)
		done := make(chan struct{}, 2)
		go func() {
			if n := buf.Reader.Buffered(); n > 0 {
				b, _ := buf.Reader.Peek(n)
				_, _ = up.Write(b)
			}
			_, _ = io.Copy(up, c)
			done <- struct{}{}
		}()
		go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
		<-done
	}()
}

func (g *netGuard) track(cs ...net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	for _, c := range cs {
		g.tunnels[c] = true
	}
	return true
}

func (g *netGuard) untrack(cs ...net.Conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
		delete(g.tunnels, c)
	}
}

// close stops the guard: its listener, relayed requests and tunnels.
func (g *netGuard) close() error {
	g.mu.Lock()
	g.closed = true
	for c := range g.tunnels {
		_ = c.Close()
	}
	g.tunnels = map[net.Conn]bool{}
	g.mu.Unlock()
	err := g.srv.Close()
	g.tr.CloseIdleConnections()
	if errors.Is(err, http.ErrServerClosed) || errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// normOrigins validates and normalises http(s) origins.
func normOrigins(what string, in []string) ([]string, error) {
	var out []string
	for _, o := range in {
		u, err := url.Parse(strings.TrimSpace(o))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return nil, fmt.Errorf("browser: engine: %s %q: want http(s)://host[:port]", what, o)
		}
		out = append(out, u.Scheme+"://"+u.Host)
	}
	return out, nil
}
