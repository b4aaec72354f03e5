package demoapp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"slices"
	"time"
)

// Server is an App served on a real TCP listener (for the explorer, a
// browser, or `npx playwright test`).
type Server struct {
	App *App
	// URL is the base URL, e.g. "http://127.0.0.1:41234".
	URL string

	srv  *http.Server
	done chan error
}

// Listen builds an App from opts and serves it on addr in the background.
// An empty addr means a free port on the loopback interface
// ("127.0.0.1:0"). Stop it with Close.
func Listen(addr string, opts Options) (*Server, error) {
	app, err := New(opts)
	if err != nil {
		return nil, err
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("demoapp: listen %s: %w", addr, err)
	}
	s := &Server{
		App:  app,
		URL:  "http://" + ln.Addr().String(),
		srv:  &http.Server{Handler: app, ReadHeaderTimeout: 10 * time.Second},
		done: make(chan error, 1),
	}
	go func() {
		err := s.srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return s, nil
}

// Close shuts the server down, waiting for in-flight requests until ctx
// ends (then it closes them).
func (s *Server) Close(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	if serveErr := <-s.done; serveErr != nil && err == nil {
		err = serveErr
	}
	if err != nil {
		return fmt.Errorf("demoapp: close: %w", err)
	}
	return nil
}

var idRE = regexp.MustCompile(`BUG-[A-Z0-9]+(?:-[A-Z0-9]+)*`)

// FindIDs returns the seeded bug ids that occur in text (an error message,
// a console line, a response body or header, a URL, an HTML fragment), each
// once, in catalogue order. It is how a finding's evidence is matched to
// the seeded bugs; words that only look like ids are ignored.
func FindIDs(text string) []BugID {
	found := map[BugID]bool{}
	for _, m := range idRE.FindAllString(text, -1) {
		found[BugID(m)] = true
	}
	var out []BugID
	for _, id := range BugIDs() {
		if found[id] {
			out = append(out, id)
		}
	}
	return slices.Clip(out)
}
