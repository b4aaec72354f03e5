package demoapp

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// MemoryOrigin is the origin the explorer's memory files the demo app's
// pages under, whatever loopback port it is served on this time, so that
// one run's memory steers the next.
const MemoryOrigin = "http://demoapp.local"

// Fixture is the demo app served for one run of the explorer: its origin,
// the ids of the seeded bugs it serves, and fresh copies of it (the same
// bugs on) for the replays that shorten a reproduction.
type Fixture struct {
	// URL is the served app's origin.
	URL string
	// Seeded are the ids of the bugs it serves, in catalogue order.
	Seeded []string

	opts Options
	srv  *Server
}

// StartFixture serves the demo app on loopback with the bugs named in
// disabled turned off (ids, or "all"; see ParseBugList). Stop it with Close.
func StartFixture(disabled []string) (*Fixture, error) {
	off, err := ParseBugList(strings.Join(disabled, ","))
	if err != nil {
		return nil, err
	}
	opts := Options{Disabled: off}
	srv, err := Listen("", opts)
	if err != nil {
		return nil, fmt.Errorf("serve the demo app: %w", err)
	}
	f := &Fixture{URL: srv.URL, opts: opts, srv: srv}
	for _, id := range srv.App.EnabledBugs() {
		f.Seeded = append(f.Seeded, string(id))
	}
	return f, nil
}

// Fresh serves another copy of the app with the same bugs, for one replay:
// its origin, and the func that stops it.
func (f *Fixture) Fresh(context.Context) (string, func(), error) {
	s, err := Listen("", f.opts)
	if err != nil {
		return "", nil, err
	}
	return s.URL, func() { _ = s.Close(context.Background()) }, nil
}

// Find returns the seeded bug ids named in text (FindIDs, as strings).
func (f *Fixture) Find(text string) []string {
	var out []string
	for _, id := range FindIDs(text) {
		out = append(out, string(id))
	}
	return out
}

// Close stops the app, waiting a few seconds for requests in flight.
func (f *Fixture) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return f.srv.Close(ctx)
}
