package browser

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInitScriptsAndEvaluate: Config.InitScripts run in order in every new
// document, before the page's own scripts, and Evaluate reads what they
// left, passes arguments, awaits promises and reports a document that a
// navigation destroyed as ErrPageGone.
func TestInitScriptsAndEvaluate(t *testing.T) {
	app := newFixture(t)
	e := newEngine(t, app, func(c *Config) {
		c.InitScripts = []string{
			`window.__order = ['first:' + document.readyState]; window.__loads = (Number(sessionStorage.getItem('loads')) || 0) + 1; sessionStorage.setItem('loads', window.__loads);`,
			`window.__order.push('second'); window.__triple = (x) => 3 * x;`,
		}
	})
	s := mustUser(t, e, "init")
	ctx := context.Background()

	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/"))
	v, err := s.Evaluate(ctx, `() => window.__order`, nil)
	require.NoError(t, err)
	assert.Equal(t, []any{"first:loading", "second"}, v, "in order, before the page's own scripts")

	v, err = s.Evaluate(ctx, `(o) => window.__triple(o.n)`, map[string]any{"n": 14})
	require.NoError(t, err)
	assert.EqualValues(t, 42, v)
	v, err = s.Evaluate(ctx, `() => new Promise((r) => setTimeout(() => r('later'), 50))`, nil)
	require.NoError(t, err)
	assert.Equal(t, "later", v)

	ok(t, s, fmt.Sprintf(`{"action":"navigate","url":%q}`, app.URL+"/second"))
	v, err = s.Evaluate(ctx, `() => [window.__order.length, window.__loads]`, nil)
	require.NoError(t, err)
	assert.Equal(t, []any{2, 2}, v, "the scripts ran again in the new document")

	// A promise that never settles, ended by a navigation.
	_, err = s.Evaluate(ctx, `() => { setTimeout(() => { location.href = '/'; }, 20); return new Promise(() => {}); }`, nil)
	require.ErrorIs(t, err, ErrPageGone)
	ok(t, s, `{"action":"wait_for","target":"[data-testid=\"save\"]","state":"attached"}`)

	// Cancellation returns at once.
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = s.Evaluate(cctx, `() => new Promise((r) => setTimeout(r, 5000))`, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 3*time.Second)

	_, err = s.Evaluate(ctx, `() => { throw new Error('boom') }`, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "boom")
	assert.NotErrorIs(t, err, ErrPageGone)
}
