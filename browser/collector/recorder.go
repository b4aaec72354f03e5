package collector

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
)

// consoleMark starts the console messages of the in-page recorder.
const consoleMark = "[agentgraph-collector] "

// reportLimit is the most bytes of a report's JSON: with consoleMark, it
// stays within browser.MaxMessage (TestReportFitsTheEngine).
const reportLimit = "470"

// FromConsole turns a recorder's console message into its finding; ok is
// false for every other console message.
func FromConsole(f browser.Finding) (browser.Finding, bool) {
	g, _, ok := fromConsole(f)
	return g, ok
}

func fromConsole(f browser.Finding) (browser.Finding, pageReport, bool) {
	if f.Kind != browser.FindConsoleError || !strings.HasPrefix(f.Message, consoleMark) {
		return f, pageReport{}, false
	}
	var rep pageReport
	if err := json.Unmarshal([]byte(strings.TrimPrefix(f.Message, consoleMark)), &rep); err != nil {
		// Cut by the engine's message limit: keep what arrived.
		raw := strings.TrimPrefix(f.Message, consoleMark)
		rep.Kind = between(raw, `"kind":"`, `"`)
		rep.Message = between(raw, `"message":"`, `"`)
		rep.Evidence = raw
	}
	k, ok := pageKinds[rep.Kind]
	if !ok {
		return f, rep, true
	}
	return browser.Finding{Kind: k, URL: f.URL, Message: rep.Message, Evidence: rep.Evidence, Selector: rep.Selector, Time: f.Time}, rep, true
}

// reSyntaxError is the message of a script that did not compile.
var reSyntaxError = regexp.MustCompile(`(?i)^(uncaught )?(syntaxerror: )?(invalid or unexpected token|unexpected end of input|missing \) after argument list|unexpected token|unterminated string|invalid regular expression|unexpected identifier)`)

// compileError: a page error that is a script failing to compile, with no
// frame of a running script (a handler attribute's code).
func compileError(f browser.Finding) bool {
	return f.Kind == browser.FindPageError && reSyntaxError.MatchString(strings.TrimSpace(f.Message)) && !strings.Contains(f.Evidence, "\n    at ")
}

// PageFindings are the engine's findings as the explorer reads them: the
// in-page recorder's console reports turned into their findings, other
// console messages kept as they are.
//
// Markup the team typed that the app cut (its handler attribute left
// unfinished) reached the page unescaped all the same: the recorder
// reports it as an XSS of its element, and the page error of the
// handler that did not compile, among the same findings, is dropped as
// that report's echo.
func PageFindings(raw []browser.Finding) []browser.Finding {
	var fs []browser.Finding
	cut := false
	for _, f := range raw {
		if _, rep, ok := fromConsole(f); ok && rep.Cut {
			cut = true
		}
	}
	for _, f := range raw {
		if cut && compileError(f) {
			continue
		}
		// The recorder's own report first: one about an element whose
		// markup holds the payload (and so its marker) is that element's.
		if cf, ok := FromConsole(f); ok {
			if cf.Kind != browser.FindConsoleError {
				fs = append(fs, cf)
			}
			continue
		}
		if f.Kind == browser.FindConsoleError && strings.Contains(f.Message, XSSMarker) {
			// The catalogue's markup payload ran: its script logs the marker.
			fs = append(fs, browser.Finding{Kind: FindXSS, Message: "an injected script executed (the markup payload typed into a field)",
				URL: f.URL, Evidence: f.Message, Time: f.Time})
			continue
		}
		fs = append(fs, f)
	}
	return fs
}

func between(s, a, b string) string {
	i := strings.Index(s, a)
	if i < 0 {
		return ""
	}
	s = s[i+len(a):]
	if j := strings.Index(s, b); j >= 0 {
		return s[:j]
	}
	return s
}

var pageKinds = map[string]browser.FindingKind{"xss": FindXSS, "a11y": FindA11y, "dead_control": FindDeadControl, "duplicate_record": FindDuplicateRow}

// collectorJS is injected into every HTML page, after axe-core. It reports
// an executed XSS probe, axe-core's serious and critical violations (each
// element once, with the rule id in the message), clicks on controls that
// change nothing, and identical table rows.
const collectorJS = `(() => {
  if (window.__agx) return;
  window.__agx = true;
  // Timers of the harness (the browser engine's, when it runs the page)
  // are not counted among the page's own when the engine waits for the
  // page to go calm.
  const agT = window.__agTimers;
  const later0 = agT ? agT.set : (f, ms) => setTimeout(f, ms);
  const cancel0 = agT ? agT.clear : (id) => clearTimeout(id);
  // Reports go out as console errors with a marker: no request of ours
  // can outlive the page (or keep the engine's network from settling).
  // A report must fit the engine's bound on a console message
  // (browser.MaxMessage bytes with the marker): one cut there no longer
  // parses. The evidence gives way first (its start tag, which names the
  // element, stays), then the message, then the selector.
  const enc = new TextEncoder();
  const post = (f) => {
    let s = JSON.stringify(f);
    for (let k = 0; enc.encode(s).length > ` + reportLimit + ` && k < 40; k++) {
      if (f.evidence && f.evidence.length > 40) f.evidence = f.evidence.slice(0, Math.floor(f.evidence.length * 0.8));
      else if (f.message && f.message.length > 40) f.message = f.message.slice(0, Math.floor(f.message.length * 0.8));
      else if (f.selector) f.selector = '';
      else break;
      s = JSON.stringify(f);
    }
    console.error('` + consoleMark + `' + s);
  };
  const html = (el) => el ? String(el.outerHTML).slice(0, 330) : '';
  // A CSS path to el (up to the nearest id), for the bug's screenshot to
  // outline it.
  const sel = (el) => {
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && parts.length < 12; e = e.parentElement) {
      if (e.id && /^[A-Za-z][\w-]*$/.test(e.id)) { parts.unshift('#' + e.id); break; }
      let part = e.tagName.toLowerCase();
      const p = e.parentElement;
      if (p) {
        const same = [...p.children].filter((c) => c.tagName === e.tagName);
        if (same.length > 1) part += ':nth-of-type(' + (same.indexOf(e) + 1) + ')';
      }
      parts.unshift(part);
    }
    return parts.join(' > ');
  };
  // Accessibility violations in structured form, kept in the page (at
  // most 500) until the collector's Violations takes them through
  // __agAudit(ms): it answers once no scan is running or due (a DOM
  // change makes one due), or after ms. Nothing of this goes to the
  // console, so the console reports stay as they are.
  const found = [];
  let due = false;
  const idle = [];
  const keep = (v) => { if (found.length < 500) found.push(Object.assign({url: location.href}, v)); };
  const audited = () => { if (!axeBusy && !due) for (const w of idle.splice(0)) w(); };
  Object.defineProperty(window, '__agAudit', {value: (ms) => new Promise((resolve) => {
    const answer = () => resolve(JSON.stringify({violations: found.splice(0)}));
    if (!axeBusy && !due) { answer(); return; }
    const wake = () => { cancel0(t); answer(); };
    const t = later0(() => { const i = idle.indexOf(wake); if (i >= 0) idle.splice(i, 1); answer(); }, Math.max(0, Math.min(Number(ms) || 0, 30000)));
    idle.push(wake);
  }), configurable: true});
  // Keyboard focus on an element the user cannot see (off screen,
  // transparent, under 2x2 pixels) is a violation of its own (WCAG 2.4.7),
  // kept with axe-core's.
  document.addEventListener('focusin', (e) => {
    const el = e.target;
    if (!(el instanceof Element)) return;
    requestAnimationFrame(() => {
      try {
        if (document.activeElement !== el) return;
        const r = el.getBoundingClientRect();
        let opaque = true;
        for (let n = el; n instanceof Element; n = n.parentElement) if (getComputedStyle(n).opacity === '0') { opaque = false; break; }
        if (opaque && r.width >= 2 && r.height >= 2 && r.right > 0 && r.bottom > 0 && r.left < innerWidth && r.top < innerHeight) return;
        const name = (el.getAttribute('aria-label') || el.innerText || el.getAttribute('name') || '').trim().replace(/\s+/g, ' ').slice(0, 40);
        const target = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (name ? ' "' + name + '"' : '');
        if (done.has('focus|' + target)) return;
        done.add('focus|' + target);
        keep({rule: '` + FocusInvisibleRule + `', impact: 'serious', help: 'Keyboard focus lands on an element the user cannot see',
          targets: [target], html: String(el.outerHTML).slice(0, 200)});
      } catch (err) {}
    });
  }, true);
  window.__agxss = (el) => { const at = el && el.parentElement ? el.parentElement : el;
    post({kind: 'xss', message: 'an injected script executed in ' + (el && el.parentElement ? el.parentElement.tagName.toLowerCase() : 'the page'),
      evidence: html(at), selector: at && at.nodeType === 1 ? sel(at) : ''}); };
  // The catalogue's markup payloads log a marker when they run: the
  // element that ran it (a handler attribute holding the marker, or the
  // running script) is reported as the probe's is, with the page around
  // it, in place of the bare console line.
  // Markup of the team's that the app cut (a handler attribute left
  // unfinished) still reached the page as markup: its handler does not
  // compile, and the element holding it is reported as an XSS sink.
  const cutMark = (v) => v.includes('__agxss') || v.includes('` + XSSMarker + `') || /^\s*(__ag|console\.error\(['"]agentgraph)/.test(v);
  addEventListener('error', (ev) => {
    try {
      if (!(ev.error instanceof SyntaxError) && !/SyntaxError|Invalid or unexpected token|Unexpected end of input|missing \) after/.test(String(ev.message))) return;
      for (const el of document.querySelectorAll('body *')) {
        if (![...el.attributes].some((a) => a.name.startsWith('on') && cutMark(a.value))) continue;
        const at = el.parentElement || el;
        if (done.has(at)) return;
        done.add(at);
        post({kind: 'xss', message: 'markup typed into a field reached the page unescaped in ' + at.tagName.toLowerCase() + ' (the app cut it: its handler did not compile)',
          evidence: html(at), selector: sel(at), cut: true});
        return;
      }
    } catch (e) {}
  });
  const ce = console.error;
  console.error = function () {
    try {
      const m = String(arguments[0] || '');
      if (m.startsWith('` + XSSMarker + `')) {
        const has = (el) => ['onerror', 'onload'].some((a) => (el.getAttribute(a) || '').includes(m));
        const el = document.currentScript || [...document.querySelectorAll('[onerror],[onload]')].find(has);
        if (el) { window.__agxss(el); return; }
      }
    } catch (e) {}
    return ce.apply(this, arguments);
  };
  const done = new Set();
  let axeBusy = false, axeAgain = false, pressed = false, retries = 0;
  // A press during a run draws the pressed element in its :active colours
  // (a link turns red): colour rules measured then are not the page's own,
  // so they are dropped and the page scanned again.
  const press = () => { if (axeBusy) pressed = true; };
  addEventListener('pointerdown', press, true);
  addEventListener('mousedown', press, true);
  const colour = new Set(['color-contrast', 'color-contrast-enhanced', 'link-in-text-block']);
  const a11y = async () => {
    if (typeof axe === 'undefined') { audited(); return; }
    if (axeBusy) { axeAgain = true; return; }
    axeBusy = true;
    pressed = !!document.querySelector(':active');
    try {
      const r = await axe.run(document, {resultTypes: ['violations']});
      if ((pressed || document.querySelector(':active')) && retries < 3) {
        retries++;
        r.violations = r.violations.filter((v) => !colour.has(v.id));
        axeAgain = true;
      } else {
        retries = 0;
      }
      for (const v of r.violations) {
        if (v.impact !== 'serious' && v.impact !== 'critical') continue;
        for (const n of v.nodes) {
          // Our own XSS probes, rendered: the XSS finding covers them.
          if (String(n.html).includes('__agxss') || String(n.html).includes('` + XSSMarker + `')) continue;
          const key = v.id + '|' + [].concat(n.target).join(' ');
          if (done.has(key)) continue;
          done.add(key);
          const t = [].concat(n.target);
          post({kind: 'a11y', message: v.help + ' (rule ' + v.id + ')', evidence: String(n.html).slice(0, 330),
            selector: t.length === 1 && typeof t[0] === 'string' ? t[0] : ''});
          keep({rule: v.id, impact: v.impact, help: v.help, targets: [t.map(String).join(' ')], html: String(n.html).slice(0, 300)});
        }
      }
    } catch (e) {
      // axe-core refuses to start while a run is under way; the next
      // scheduled run covers this one.
    }
    axeBusy = false;
    if (axeAgain) { axeAgain = false; a11y(); }
    else if (missed && !followUp) { missed = false; followUp = true; later(); }
    else missed = false;
    audited();
  };
  const rows = () => {
    document.querySelectorAll('table').forEach((t) => {
      const seen = new Map();
      t.querySelectorAll('tbody tr').forEach((tr) => {
        const key = [...tr.cells].map((c) => c.textContent.trim()).join('|');
        if (!key) return;
        if (seen.has(key) && !done.has(tr)) {
          done.add(tr);
          post({kind: 'duplicate_record', message: 'two identical rows in a table', evidence: html(tr), selector: sel(tr)});
        }
        seen.set(key, tr);
      });
    });
  };
  const scan = () => { due = false; rows(); a11y(); };
  // A dead control: a click after which nothing a user could notice
  // changed (text, elements, URL, an open dialog) and no request went out.
  // A request counts once it is sent (a slow answer is still an answer
  // on its way), not only once it finished.
  let sent = 0;
  try {
    const f0 = window.fetch;
    if (typeof f0 === 'function') window.fetch = function () { sent++; return f0.apply(this, arguments); };
    const s0 = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function () { sent++; return s0.apply(this, arguments); };
  } catch (e) {}
  const calls = () => sent + performance.getEntriesByType('resource').filter((e) => e.initiatorType === 'fetch' || e.initiatorType === 'xmlhttprequest' || e.initiatorType === 'beacon').length;
  // A navigation under way (a form sent the usual way to a slow server,
  // a link) is something happening, though the page has not changed yet.
  let navs = 0;
  addEventListener('beforeunload', () => { navs++; });
  addEventListener('submit', (ev) => { later0(() => { if (!ev.defaultPrevented) navs++; }, 0); });
  const look = () => [location.href, document.body ? document.body.innerText : '', document.getElementsByTagName('*').length, calls(), document.querySelectorAll('dialog[open]').length, navs].join('\u0001');
  // The control's own state counts too: a menu button that a hover
  // already opened still flips its aria-expanded when clicked.
  const own = (el) => ['aria-expanded', 'aria-pressed', 'aria-checked', 'aria-selected', 'class', 'open'].map((a) => el.getAttribute(a)).join('\u0001');
  // A later click within the watch (the second click of a double click
  // that toggled something back) makes the first one undecidable.
  let clicks = 0, errors = 0;
  // The team's watch after a button's click (deadWatch) outlasts it.
  const deadWindow = 400;
  // A click that threw is broken, not dead: the page error reports it.
  addEventListener('error', () => { errors++; }, true);
  addEventListener('unhandledrejection', () => { errors++; });
  // A control whose click did something once is not dead when clicked
  // again to no effect (a "show" button whose panel is already shown).
  const worked = new WeakSet();
  // Clicks not judged yet: the team waits for none to be left (or for
  // its watch to end) before its next action. A click that visibly did
  // something is judged at once (looked at every 25 ms); only a click
  // that changed nothing waits out the window.
  // __agJudged(ms) resolves once none is left (or after ms) with what
  // is left and how many dead-control reports were posted since the last
  // call, so the team waits for a report only when one is on its way.
  let undecided = 0, deadPosts = 0;
  const waiters = [];
  Object.defineProperty(window, '__agUndecided', {value: () => undecided, configurable: true});
  Object.defineProperty(window, '__agJudged', {value: (ms) => new Promise((resolve) => {
    const answer = () => { const dead = deadPosts; deadPosts = 0; resolve({undecided, dead}); };
    if (undecided === 0) { answer(); return; }
    const wake = () => { cancel0(timer); answer(); };
    const timer = later0(() => { const i = waiters.indexOf(wake); if (i >= 0) waiters.splice(i, 1); answer(); }, Math.max(0, Math.min(Number(ms) || 0, 5000)));
    waiters.push(wake);
  }), configurable: true});
  document.addEventListener('click', (ev) => {
    const n = ++clicks;
    const el = ev.target instanceof Element ? ev.target.closest('button, [role=button]') : null;
    if (!el || el.disabled) return;
    // A form's submit is judged too, unless the browser's own validation
    // stops the form (its message is a bubble outside the page).
    if (el.type === 'submit' && el.form && !el.formNoValidate && !el.form.noValidate && !el.form.checkValidity()) return;
    const before = look() + own(el), errs = errors;
    undecided++;
    let done = false;
    const decide = () => {
      if (done) return;
      done = true;
      undecided--;
      if (undecided === 0) for (const w of waiters.splice(0)) w();
    };
    const early = setInterval(() => {
      if (done) { clearInterval(early); return; }
      if (errors !== errs || look() + own(el) !== before) {
        if (errors === errs) worked.add(el);
        clearInterval(early);
        decide();
      }
    }, 25);
    later0(() => {
      clearInterval(early);
      if (errors === errs) {
        if (look() + own(el) !== before) worked.add(el);
        if (n === clicks && !worked.has(el) && look() + own(el) === before) {
          deadPosts++;
          post({kind: 'dead_control', message: 'clicking "' + (el.textContent || el.getAttribute('aria-label') || '').trim() + '" changed nothing', evidence: html(el), selector: sel(el)});
        }
      }
      decide();
    }, deadWindow);
  }, true);
  // Scan at load, then again once the page stops changing (axe-core is
  // the costly part: a page that does not change is scanned once).
  // A change while a scan runs (a slow scan on a loaded machine) gets
  // one more scan when it ends; the scan after that does not chain
  // another, so a page that changes on every scan is not scanned forever.
  let timer = null, missed = false, followUp = false;
  const later = () => { cancel0(timer); due = true; timer = later0(scan, 250); };
  const start = () => {
    scan();
    new MutationObserver(() => { if (axeBusy) { missed = true; return; } followUp = false; later(); })
      .observe(document.documentElement, {subtree: true, childList: true, attributes: true,
        attributeFilter: ['alt', 'aria-label', 'aria-labelledby', 'role', 'hidden', 'aria-hidden', 'for', 'id', 'title', 'disabled', 'type']});
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
})();`
