package browser

import (
	"context"
	"time"
)

// netIdleJS counts a page's fetch and XMLHttpRequest calls in flight and
// notes when one last started or ended, so that the settle after an
// action can tell at once that the action sent nothing (the browser's
// request events reach the engine some milliseconds after the page sent
// them; the page itself knows at once).
const netIdleJS = `(() => {
  if (Object.prototype.hasOwnProperty.call(window, '__agNetIdle')) return;
  let inflight = 0, last = -Infinity;
  const mark = () => { last = performance.now(); };
  const done = () => { inflight = Math.max(0, inflight - 1); mark(); };
  try {
    const f0 = window.fetch;
    if (typeof f0 === 'function') {
      window.fetch = function () {
        inflight++; mark();
        let p;
        try { p = f0.apply(this, arguments); } catch (e) { done(); throw e; }
        Promise.resolve(p).then(done, done);
        return p;
      };
    }
    const s0 = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function () {
      inflight++; mark();
      this.addEventListener('loadend', done, {once: true});
      try { return s0.apply(this, arguments); } catch (e) { done(); throw e; }
    };
  } catch (e) {}
  // After the page's next frame: the calls in flight, and the ms since
  // one last started or ended (-1: none yet in this document).
  Object.defineProperty(window, '__agNetIdle', {value: () => new Promise((resolve) => {
    const answer = () => resolve([inflight, last === -Infinity ? -1 : performance.now() - last]);
    const t = setTimeout(answer, 50);
    requestAnimationFrame(() => setTimeout(() => { clearTimeout(t); answer(); }, 0));
  })});
})();`

// netIdleTimeout bounds the settle's question to the page.
const netIdleTimeout = 300 * time.Millisecond

// pageSentNothing reports whether the page, asked after its next frame,
// has no fetch or XMLHttpRequest in flight and none started or ended in
// the last since (nor ever, in this document). false when it cannot say.
func (s *Session) pageSentNothing(ctx context.Context, since time.Duration) bool {
	p := s.page
	v, err := boundedOn(&s.loadWaits, ctx, netIdleTimeout, "settle: page network", func() (any, error) {
		return p.Evaluate(`() => typeof window.__agNetIdle === 'function' ? window.__agNetIdle() : null`)
	})
	if err != nil {
		return false
	}
	a, ok := v.([]any)
	if !ok || len(a) != 2 {
		return false
	}
	inflight, ok1 := jsNumber(a[0])
	ago, ok2 := jsNumber(a[1])
	if !ok1 || !ok2 || inflight != 0 {
		return false
	}
	return ago < 0 || ago >= float64(since.Milliseconds())
}

// jsNumber is a number from Evaluate (an int when integral).
func jsNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
