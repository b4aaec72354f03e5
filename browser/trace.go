package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// StartTrace starts a Playwright trace of the session's context:
// screenshots, DOM snapshots and the network of every action until
// StopTrace, as `npx playwright show-trace` opens it. title names the
// trace in the viewer.
func (s *Session) StartTrace(ctx context.Context, title string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := s.bctx.Tracing().Start(playwright.TracingStartOptions{Title: playwright.String(title),
		Screenshots: playwright.Bool(true), Snapshots: playwright.Bool(true)})
	if err != nil {
		return fmt.Errorf("browser: start trace: %s", oneLine(err))
	}
	return nil
}

// StopTrace stops the trace StartTrace started and writes it to path as a
// trace.zip.
func (s *Session) StopTrace(path string) error {
	if path == "" {
		return errors.New("browser: stop trace: no path")
	}
	done := make(chan error, 1)
	go func() { done <- s.bctx.Tracing().Stop(path) }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("browser: stop trace: %s", oneLine(err))
		}
		return nil
	case <-time.After(traceStopTimeout):
		return fmt.Errorf("browser: stop trace: no answer within %s", traceStopTimeout)
	}
}

// traceStopTimeout bounds writing a trace.
const traceStopTimeout = 30 * time.Second
