package bugfarm

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentgraph/agentgraph/internal/loopback"
)

// Server is an App served on a real TCP listener, for a browser or the
// explorer.
type Server struct {
	App *App
	// URL is the base URL, e.g. "http://127.0.0.1:41234".
	URL string

	ls *loopback.Server
}

// Listen serves app on addr in the background ("" means a free loopback
// port, "127.0.0.1:0"). Stop it with Close.
func Listen(addr string, app *App) (*Server, error) {
	if app == nil {
		return nil, errors.New("bugfarm: listen: nil app")
	}
	ls, err := loopback.Listen(addr, app)
	if err != nil {
		return nil, fmt.Errorf("bugfarm: %w", err)
	}
	return &Server{App: app, URL: ls.URL, ls: ls}, nil
}

// Close shuts the server down, waiting for requests in flight until ctx
// ends (then it drops them).
func (s *Server) Close(ctx context.Context) error {
	if err := s.ls.Close(ctx); err != nil {
		return fmt.Errorf("bugfarm: %w", err)
	}
	return nil
}
