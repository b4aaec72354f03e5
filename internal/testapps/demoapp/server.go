package demoapp

import (
	"context"
	"fmt"
	"regexp"
	"slices"

	"github.com/agentgraph/agentgraph/internal/loopback"
)

// Server is an App served on a real TCP listener (for the explorer, a
// browser, or `npx playwright test`).
type Server struct {
	App *App
	// URL is the base URL, e.g. "http://127.0.0.1:41234".
	URL string

	ls *loopback.Server
}

// Listen builds an App from opts and serves it on addr in the background.
// An empty addr means a free port on the loopback interface
// ("127.0.0.1:0"). Stop it with Close.
func Listen(addr string, opts Options) (*Server, error) {
	app, err := New(opts)
	if err != nil {
		return nil, err
	}
	ls, err := loopback.Listen(addr, app)
	if err != nil {
		return nil, fmt.Errorf("demoapp: %w", err)
	}
	return &Server{App: app, URL: ls.URL, ls: ls}, nil
}

// Close shuts the server down, waiting for in-flight requests until ctx
// ends (then it closes them).
func (s *Server) Close(ctx context.Context) error {
	if err := s.ls.Close(ctx); err != nil {
		return fmt.Errorf("demoapp: %w", err)
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
