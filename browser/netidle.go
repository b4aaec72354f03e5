package browser

import (
	"context"
	"errors"
	"time"
)

// netIdleJS counts a page's fetch and XMLHttpRequest calls in flight and
// notes when one last started or ended, so that the settle after an
// action can tell at once that the action sent nothing (the browser's
// request events reach the engine some milliseconds after the page sent
// them; the page itself knows at once). It also keeps the due times of the
// page's pending setTimeout callbacks (at most 1000), so that a document
// that has just loaded is settled at once only when none of its scripts
// is about to run: a page that starts work (or hangs) 50 ms after loading
// is given its quiet.
const netIdleJS = `(() => {
  if (Object.prototype.hasOwnProperty.call(window, '__agNetIdle')) return;
  let inflight = 0, last = -Infinity;
  const mark = () => { last = performance.now(); };
  const done = () => { inflight = Math.max(0, inflight - 1); mark(); };
  const T0 = window.setTimeout, C0 = window.clearTimeout, due = new Map();
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
    window.setTimeout = function (fn, ms) {
      if (typeof fn !== 'function') return T0.apply(this, arguments);
      const args = Array.prototype.slice.call(arguments, 2);
      let id;
      id = T0.call(this, function () { due.delete(id); return fn.apply(this, args); }, ms);
      if (due.size < 1000) due.set(id, performance.now() + (Number(ms) || 0));
      return id;
    };
    window.clearTimeout = function (id) { due.delete(id); return C0.apply(this, arguments); };
  } catch (e) {}
  // After the page's next frame: the calls in flight, the ms since one
  // last started or ended (-1: none yet in this document), the timer
  // callbacks due within ms from now, and whether the document (with its
  // images and scripts) has loaded.
  Object.defineProperty(window, '__agNetIdle', {value: (ms) => new Promise((resolve) => {
    const answer = () => {
      const now = performance.now(), until = now + Math.max(0, Number(ms) || 0);
      let soon = 0;
      // A callback overdue by more than a moment was cleared another way
      // (clearInterval takes a timeout's id too): not waited for.
      for (const d of due.values()) if (d >= now - 50 && d <= until) soon++;
      resolve([inflight, last === -Infinity ? -1 : now - last, soon, document.readyState === 'complete']);
    };
    const t = T0(answer, 50);
    requestAnimationFrame(() => T0(() => { C0(t); answer(); }, 0));
  })});
})();`

// netIdleTimeout bounds the settle's question to the page.
const netIdleTimeout = 300 * time.Millisecond

// pageIdle reports whether the page, asked after its next frame, has no
// fetch or XMLHttpRequest in flight and none started or ended in the last
// since (nor ever, in this document). For a document the action loaded
// (newDoc) the page must also have finished loading and have no timer
// callback due within quiet. false when it cannot say; a page that does
// not answer within netIdleTimeout is noted for the liveness check.
func (s *Session) pageIdle(ctx context.Context, since, quiet time.Duration, newDoc bool) bool {
	p := s.page
	// Not one of the page's load waits (an evaluate is no load-state
	// wait): on a hung page it is left running, and replacing the page
	// must not wait for it.
	v, err := bounded(ctx, netIdleTimeout, "settle: page network", func() (any, error) {
		return p.Evaluate(`(ms) => typeof window.__agNetIdle === 'function' ? window.__agNetIdle(ms) : null`, quiet.Milliseconds())
	})
	if err != nil {
		if newDoc && errors.Is(err, ErrTimeout) {
			s.suspect = true
		}
		return false
	}
	a, ok := v.([]any)
	if !ok || len(a) != 4 {
		return false
	}
	inflight, ok1 := JSNumber(a[0])
	ago, ok2 := JSNumber(a[1])
	soon, ok3 := JSNumber(a[2])
	loaded, ok4 := a[3].(bool)
	if !ok1 || !ok2 || !ok3 || !ok4 || inflight != 0 {
		return false
	}
	if newDoc && (!loaded || soon != 0) {
		return false
	}
	return ago < 0 || ago >= float64(since.Milliseconds())
}

// JSNumber is a number a page script returned through Evaluate
// (Playwright gives an integral one as an int, another as a float64).
func JSNumber(v any) (float64, bool) {
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
