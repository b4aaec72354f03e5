package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// RetryPolicy says how a Model retries transient provider errors: HTTP 429,
// 5xx (529 "overloaded" included), "overloaded"/"rate limit" messages and
// network timeouts. Delay n (from 0) is a random value in
// [d/2, d] with d = min(BaseDelay·2ⁿ, MaxDelay) (exponential backoff with
// jitter); a Retry-After header replaces it when larger, capped by
// MaxRetryAfter.
type RetryPolicy struct {
	MaxAttempts   int           // total attempts, first included; 0: 4
	BaseDelay     time.Duration // 0: 500ms
	MaxDelay      time.Duration // 0: 30s
	MaxRetryAfter time.Duration // 0: 2m; a longer Retry-After fails the call
	// Sleep waits d or until ctx ends (nil: a timer). Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a float in [0,1) for the jitter (nil: math/rand/v2).
	Rand func() float64
}

// DefaultRetry is the policy used when none is given.
func DefaultRetry() RetryPolicy { return RetryPolicy{} }

// NoRetry makes one attempt only.
func NoRetry() RetryPolicy { return RetryPolicy{MaxAttempts: 1} }

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 4
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = 500 * time.Millisecond
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 30 * time.Second
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = 2 * time.Minute
	}
	if p.Sleep == nil {
		p.Sleep = sleepCtx
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	return p
}

// Backoff returns the delay before retry n (0 for the first retry), without
// Retry-After.
func (p RetryPolicy) Backoff(n int) time.Duration {
	p = p.withDefaults()
	d := p.BaseDelay
	for i := 0; i < n && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	return d/2 + time.Duration(p.Rand()*float64(d/2))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// CallError is the error of a model call that failed, after retries if the
// failure was transient.
type CallError struct {
	Role      Role
	Provider  Provider
	Model     string
	Status    int  // HTTP status of the last failed response, 0 if none was seen
	Transient bool // the last failure was of a retryable kind
	Attempts  int
	Err       error
}

func (e *CallError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm: %s call", e.Provider)
	if e.Model != "" {
		fmt.Fprintf(&b, " to %s", e.Model)
	}
	if e.Role != "" {
		fmt.Fprintf(&b, " (role %s)", e.Role)
	}
	fmt.Fprintf(&b, " failed after %d attempt(s)", e.Attempts)
	if e.Status != 0 {
		fmt.Fprintf(&b, ", HTTP %d", e.Status)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

func (e *CallError) Unwrap() error { return e.Err }

// IsTransient reports whether err (with the HTTP status seen, 0 if none) is
// worth retrying.
func IsTransient(err error, status int) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.Canceled) {
		return false
	}
	switch {
	case status == 429, status == 408, status >= 500 && status <= 599:
		return true
	case status >= 400:
		return false
	}
	var le *llms.Error
	if errors.As(err, &le) {
		switch le.Code {
		case llms.ErrCodeRateLimit, llms.ErrCodeProviderUnavailable, llms.ErrCodeTimeout:
			return true
		}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// a per-attempt deadline inside the client; the caller's own deadline
		// is checked before retrying
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"status code: 429", "status code: 5", "overloaded", "rate limit", "too many requests", "unavailable", "timeout", "connection reset", "eof"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// TransientError reports whether err, as returned by a model call, is a
// transient provider failure worth trying again later: a *CallError marked
// Transient (429, 5xx, "overloaded", timeouts, after the call's own
// retries), or a langchaingo *llms.Error with a rate-limit, unavailable or
// timeout code. Cancellation and every other error are permanent. Callers
// that retry whole jobs (the explorer's missions) use it.
func TransientError(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var ce *CallError
	if errors.As(err, &ce) {
		return ce.Transient
	}
	var le *llms.Error
	if errors.As(err, &le) {
		switch le.Code {
		case llms.ErrCodeRateLimit, llms.ErrCodeProviderUnavailable, llms.ErrCodeTimeout:
			return true
		}
	}
	return false
}
