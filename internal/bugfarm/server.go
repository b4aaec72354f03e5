package bugfarm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Server is an App served on a real TCP listener, for a browser or the
// explorer.
type Server struct {
	App *App
	// URL is the base URL, e.g. "http://127.0.0.1:41234".
	URL string

	srv  *http.Server
	done chan error
}

// Listen serves app on addr in the background ("" means a free loopback
// port, "127.0.0.1:0"). Stop it with Close.
func Listen(addr string, app *App) (*Server, error) {
	if app == nil {
		return nil, errors.New("bugfarm: listen: nil app")
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("bugfarm: listen %s: %w", addr, err)
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

// Close shuts the server down, waiting for requests in flight until ctx
// ends (then it drops them).
func (s *Server) Close(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	if serveErr := <-s.done; serveErr != nil && err == nil {
		err = serveErr
	}
	if err != nil {
		return fmt.Errorf("bugfarm: close %s: %w", s.URL, err)
	}
	return nil
}
