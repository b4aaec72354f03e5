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
  let fired = 0;
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
      id = T0.call(this, function () { due.delete(id); fired++; return fn.apply(this, args); }, ms);
      if (due.size < 1000) due.set(id, performance.now() + (Number(ms) || 0));
      return id;
    };
    window.clearTimeout = function (id) { due.delete(id); return C0.apply(this, arguments); };
  } catch (e) {}
  // The harness's own scripts (the collector's recorder) take their
  // timers from here, so that they are not counted as the page's.
  Object.defineProperty(window, '__agTimers', {value: Object.freeze({set: T0, clear: C0})});
  // Resolves once no call is in flight and no timer callback is due
  // before the wait's end (ms from now), or at that end: with whether the
  // page went calm and how many of the page's callbacks ran meanwhile
  // (their effects, a console message among them, may still be on their
  // way to the engine).
  Object.defineProperty(window, '__agCalm', {value: (ms) => new Promise((resolve) => {
    const end = performance.now() + Math.max(0, Math.min(Number(ms) || 0, 10000)), ran0 = fired;
    const check = () => {
      const now = performance.now();
      // Due before the wait's end, or in the next 100 ms: a page that
      // keeps scheduling work is not calm just because the wait is
      // nearly over.
      const horizon = Math.max(end, now + 100);
      let soon = 0;
      for (const d of due.values()) if (d >= now - 50 && d <= horizon) soon++;
      if (soon === 0 && inflight === 0) { resolve([true, fired - ran0]); return; }
      if (now >= end) { resolve([false, fired - ran0]); return; }
      T0(check, 10);
    };
    check();
  })});
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

// calmTimeout is the slack the engine gives the page's answer beyond the
// wait it asked for.
const calmTimeout = 300 * time.Millisecond

// AwaitCalm waits, at most wait, until the page has no fetch or
// XMLHttpRequest in flight and none of its timer callbacks is due before
// the wait is over or within the next 100 ms (so a page that keeps
// scheduling work is not calm because the wait is nearly over): what a
// click may still do (an error thrown a moment later, a panel shown by a
// timer) has then been done. It reports whether
// the page went calm and how many of the page's timer callbacks ran while
// it waited. A page that cannot be asked (a navigation under way, a page
// without the engine's init script, one that does not answer) is an
// error; the caller then waits as it would have without asking.
func (s *Session) AwaitCalm(ctx context.Context, wait time.Duration) (calm bool, ran int, err error) {
	wait = min(max(wait, 0), 10*time.Second)
	ctx, cancel := context.WithTimeout(ctx, wait+calmTimeout)
	defer cancel()
	v, err := s.Evaluate(ctx, `(ms) => typeof window.__agCalm === 'function' ? window.__agCalm(ms) : null`, wait.Milliseconds())
	if err != nil {
		return false, 0, err
	}
	a, ok := v.([]any)
	if !ok || len(a) != 2 {
		return false, 0, errNoCalm
	}
	c, ok1 := a[0].(bool)
	n, ok2 := JSNumber(a[1])
	if !ok1 || !ok2 {
		return false, 0, errNoCalm
	}
	return c, int(n), nil
}

var errNoCalm = errors.New("browser: the page cannot say when it is calm")
