package browser

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// ErrTimeout is wrapped by the error of a browser call that did not end
// within its deadline (the engine's own bound, or Playwright's timeout).
var ErrTimeout = errors.New("browser: timed out")

// ErrUnresponsive is wrapped by the error of an action during which the
// page stopped responding (a script that never yields, such as
// while(true){}, or a storm of dialogs): the engine reported it as a
// FindUnresponsive finding and replaced the page by a fresh one in the
// same browser context (cookies and storage kept).
var ErrUnresponsive = errors.New("browser: page unresponsive")

// aliveTimeout bounds the liveness check of a page that let a call time out.
const aliveTimeout = 1500 * time.Millisecond

// callSlack is what a bounded call waits beyond Playwright's own timeout,
// so Playwright's clearer timeout message wins when it comes.
const callSlack = 1500 * time.Millisecond

// bounded runs fn, a blocking Playwright call, and returns its result, or
// an error wrapping ErrTimeout after d, or ctx's error when ctx ends first.
// Playwright has no way to cancel a call: on a timeout fn goes on in the
// background until the page answers or closes, and its result is dropped.
// fn must only compute its result (no writes to the session's state).
func bounded[T any](ctx context.Context, d time.Duration, what string, fn func() (T, error)) (T, error) {
	return boundedOn(nil, ctx, d, what, fn)
}

// boundedOn is bounded for a call on a session's page: the call is one of
// pend's until fn returns, so closing the page can wait for it (see
// pending).
func boundedOn[T any](pend *pending, ctx context.Context, d time.Duration, what string, fn func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, fmt.Errorf("%s: %w", what, err)
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	end := pend.start()
	go func() {
		defer pend.end(end)
		v, err := fn()
		done <- result{v, err}
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case r := <-done:
		return r.v, r.err
	case <-t.C:
		return zero, fmt.Errorf("%s: %w after %s", what, ErrTimeout, d)
	case <-ctx.Done():
		return zero, fmt.Errorf("%s: %w", what, ctx.Err())
	}
}

// pending is a set of Playwright calls still running, including those
// whose caller gave up on them (a timeout, a cancelled context). A session
// tracks its page's load-state waits so: playwright-go marks a page closed
// from its own event goroutine without a lock, while a load-state wait
// reads that mark when it starts, so closing a page under a wait still
// running is a data race in the library. Before the session closes or
// replaces its page it waits for them (bounded by the waits' own Playwright
// timeout), which orders the two. A nil *pending tracks nothing.
type pending struct {
	mu  sync.Mutex
	set map[chan struct{}]struct{}
}

func (p *pending) start() chan struct{} {
	if p == nil {
		return nil
	}
	ch := make(chan struct{})
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.set == nil {
		p.set = map[chan struct{}]struct{}{}
	}
	p.set[ch] = struct{}{}
	return ch
}

func (p *pending) end(ch chan struct{}) {
	if p == nil {
		return
	}
	p.mu.Lock()
	delete(p.set, ch)
	p.mu.Unlock()
	close(ch)
}

// wait waits for the calls running now to end, at most d; it reports
// whether they all did.
func (p *pending) wait(d time.Duration) bool {
	p.mu.Lock()
	chs := make([]chan struct{}, 0, len(p.set))
	for ch := range p.set {
		chs = append(chs, ch)
	}
	p.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	for _, ch := range chs {
		select {
		case <-ch:
		case <-t.C:
			return false
		}
	}
	return true
}

// bounded0 is bounded for calls without a result.
func bounded0(ctx context.Context, d time.Duration, what string, fn func() error) error {
	return bounded0On(nil, ctx, d, what, fn)
}

// bounded0On is boundedOn for calls without a result.
func bounded0On(pend *pending, ctx context.Context, d time.Duration, what string, fn func() error) error {
	_, err := boundedOn(pend, ctx, d, what, func() (struct{}, error) { return struct{}{}, fn() })
	return err
}

// timedOut reports whether err is a timeout, the engine's or Playwright's:
// the sign that the page may have stopped responding.
func timedOut(err error) bool {
	return err != nil && (errors.Is(err, ErrTimeout) || errors.Is(err, playwright.ErrTimeout))
}

// call bounds a Playwright call of the session by the action timeout plus
// a slack and ctx, and notes a timeout for the liveness check.
func (s *Session) call(ctx context.Context, what string, fn func() error) error {
	err := bounded0(ctx, s.e.cfg.ActionTimeout+callSlack, what, fn)
	if timedOut(err) {
		s.suspect = true
	}
	return err
}

// navTimeout is the navigation timeout of every page (Playwright's
// default navigation timeout of the context).
func (s *Session) navTimeout() time.Duration { return max(s.e.cfg.ActionTimeout, 10*time.Second) }

// navCall bounds a navigation (goto, back, reload) by the navigation
// timeout plus a slack and ctx.
func (s *Session) navCall(ctx context.Context, what string, fn func() error) error {
	err := bounded0(ctx, s.navTimeout()+callSlack, what, fn)
	if timedOut(err) {
		s.suspect = true
	}
	return err
}

// alive reports whether the page's main thread still runs scripts.
func (s *Session) alive(ctx context.Context) bool {
	p := s.page
	_, err := bounded(ctx, aliveTimeout, "liveness", func() (any, error) { return p.Evaluate("1") })
	if err == nil || ctx.Err() != nil {
		return true // cancelled: not evidence of a hung page
	}
	if errors.Is(err, ErrTimeout) {
		return false
	}
	return true // an error of its own (a navigation in flight): the page answers
}

// checkAlive runs after an action one of whose calls timed out: a page
// that does not answer a trivial script is reported (FindUnresponsive),
// closed and replaced by a fresh page in the same context; the action's
// result then says so. The caller holds s.mu.
func (s *Session) checkAlive(ctx context.Context, res *Result) {
	if !s.suspect && !s.h.stormy() {
		return
	}
	s.suspect = false
	if s.alive(ctx) {
		return
	}
	u := s.page.URL()
	s.h.add(Finding{Kind: FindUnresponsive, Message: "page unresponsive: its scripts did not yield within " + aliveTimeout.String() + "; the page was replaced by a fresh one", URL: u})
	if err := s.replacePage(ctx); err != nil {
		s.e.cfg.Logger.Warn("browser: replacing an unresponsive page failed", "user", s.user, "err", err)
	}
	msg := fmt.Sprintf("%v at %s (the engine opened a fresh page; navigate again)", ErrUnresponsive, u)
	if res.Error == "" {
		res.Error = msg
	} else {
		res.Error += "; " + msg
	}
}

// replacePage closes the current page (without waiting for a hung one
// longer than a few seconds) and opens a fresh page in the same browser
// context, with the engine's listeners. The caller holds s.mu.
func (s *Session) replacePage(ctx context.Context) error {
	old := s.page
	s.loadWaits.wait(s.e.cfg.SettleTimeout + callSlack)
	_ = bounded0(context.WithoutCancel(ctx), 5*time.Second, "close page", func() error {
		return old.Close(playwright.PageCloseOptions{RunBeforeUnload: playwright.Bool(false)})
	})
	page, err := bounded(context.WithoutCancel(ctx), 10*time.Second, "new page", func() (playwright.Page, error) { return s.bctx.NewPage() })
	if err != nil {
		return fmt.Errorf("new page: %w", err)
	}
	s.pageMu.Lock()
	s.page = page
	s.pageMu.Unlock()
	s.listen(page)
	s.navGen.Add(1)
	s.refs = map[string]bool{}
	s.net.reset()
	return nil
}

// currentPage is the page for callers that do not hold s.mu.
func (s *Session) currentPage() playwright.Page {
	s.pageMu.Lock()
	defer s.pageMu.Unlock()
	return s.page
}
