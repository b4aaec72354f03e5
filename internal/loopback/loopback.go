// Package loopback serves an http.Handler on a TCP port of this machine,
// for a browser, the explorer or `npx playwright test`: the demo app, the
// bugfarm apps and the test fixtures all start this way.
package loopback

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Server is a handler served in the background on a real listener.
type Server struct {
	// URL is the base URL, e.g. "http://127.0.0.1:41234".
	URL string

	srv  *http.Server
	done chan error
}

// Listen serves h on addr in the background; "" means a free port on the
// loopback interface ("127.0.0.1:0"). Stop it with Close.
func Listen(addr string, h http.Handler) (*Server, error) {
	if h == nil {
		return nil, errors.New("loopback: nil handler")
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	s := &Server{
		URL:  "http://" + ln.Addr().String(),
		srv:  &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second},
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

// Close shuts the server down, waiting for requests in flight until ctx
// ends (then it drops them), and returns once serving has stopped.
func (s *Server) Close(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	if serveErr := <-s.done; serveErr != nil && err == nil {
		err = serveErr
	}
	if err != nil {
		return fmt.Errorf("close %s: %w", s.URL, err)
	}
	return nil
}
