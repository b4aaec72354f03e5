package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mxschmitt/playwright-go"
)

// Elements a page made actionable with script only (a <div> with a click
// listener, a contenteditable region) have no control role, so the aria
// snapshot shows them as plain text or generic boxes, if at all. The engine
// finds them itself:
//
//   - handlerJS, an init script in every document of a session's context,
//     notes which elements get click, dblclick, mouse, pointer or key
//     listeners through addEventListener. An init script rather than CDP's
//     DOMDebugger.getEventListeners: it costs nothing per element at
//     snapshot time (CDP needs one round trip per node), it sees every
//     frame's and every shadow root's registrations as they happen, and it
//     works the same in every browser engine Playwright drives. Like CDP it
//     cannot tell which targets a listener on document delegates to.
//   - actionableJS, at snapshot time, walks the document, open shadow roots
//     and same-origin iframes for visible elements that carry such a
//     listener or an on… handler property/attribute, or are contenteditable,
//     and are not native controls or ARIA widgets (the aria snapshot lists
//     those). Each gets an xN ref.

// handlerJS records listener registrations on elements.
const handlerJS = `(() => {
  const types = new Set(['click', 'dblclick', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'keydown', 'keyup', 'keypress', 'touchstart']);
  const seen = new WeakMap();
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, fn, opts) {
    try {
      if (types.has(type) && this instanceof Element) {
        let s = seen.get(this);
        if (!s) seen.set(this, (s = new Set()));
        s.add(type);
      }
    } catch (e) {}
    return add.call(this, type, fn, opts);
  };
  Object.defineProperty(window, '__agentgraphHandlers', { value: (el) => Array.from(seen.get(el) || []) });
})();`

// actionableJS marks and describes script-only actionable elements.
const actionableJS = `([refAttr, limit]) => {
  const native = 'a[href],button,input,select,textarea,summary,iframe,[role=button],[role=link],[role=checkbox],[role=switch],[role=tab],[role=menuitem],[role=menuitemcheckbox],[role=menuitemradio],[role=option],[role=combobox],[role=listbox],[role=radio],[role=textbox],[role=searchbox],[role=slider],[role=spinbutton],[role=treeitem]';
  const props = {onclick: 'click', ondblclick: 'dblclick', onmousedown: 'mousedown', onmouseup: 'mouseup', onpointerdown: 'pointerdown', onpointerup: 'pointerup', onkeydown: 'keydown', onkeyup: 'keyup', onkeypress: 'keypress'};
  const out = [];
  let n = 0;
  const q = (s) => JSON.stringify(s);
  const frameSel = (f) => f.id ? 'iframe[id=' + q(f.id) + ']' : f.name ? 'iframe[name=' + q(f.name) + ']' : f.title ? 'iframe[title=' + q(f.title) + ']' : f.getAttribute('src') ? 'iframe[src=' + q(f.getAttribute('src')) + ']' : '';
  const label = (el) => (el.getAttribute('aria-label') || el.innerText || el.getAttribute('title') || el.getAttribute('placeholder') || '').trim().replace(/\s+/g, ' ').slice(0, 80);
  // In the main landmark: the element's, or its shadow host's or frame's.
  const inMain = (el) => {
    try {
      for (let n = el; n; ) {
        if (n.closest && n.closest('main,[role=main]')) return true;
        const root = n.getRootNode && n.getRootNode();
        if (root && root.host) { n = root.host; continue; }
        const fe = n.ownerDocument && n.ownerDocument.defaultView && n.ownerDocument.defaultView.frameElement;
        n = fe || null;
      }
    } catch (e) {}
    return false;
  };
  const walk = (root, win, frames, shadow) => {
    for (const el of root.querySelectorAll('*')) {
      if (out.length >= limit) return;
      if ((el.getAttribute(refAttr) || '').startsWith('x')) el.removeAttribute(refAttr);
      if (el.shadowRoot) walk(el.shadowRoot, win, frames, true);
      if (el.tagName === 'IFRAME') {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) {}
        const sel = frameSel(el);
        if (doc && doc.documentElement && sel) walk(doc, el.contentWindow, frames.concat([sel]), false);
        continue;
      }
      if (el.tagName === 'BODY' || el.tagName === 'HTML' || el.matches(native)) continue;
      const handlers = new Set(win.__agentgraphHandlers ? win.__agentgraphHandlers(el) : []);
      for (const p in props) { try { if (typeof el[p] === 'function') handlers.add(props[p]); } catch (e) {} }
      const editable = el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable);
      if (!handlers.size && !editable) continue;
      if (!el.checkVisibility({visibilityProperty: true})) continue;
      n++;
      const ref = 'x' + n;
      el.setAttribute(refAttr, ref);
      out.push({ref, kind: editable ? 'textbox' : 'clickable', name: label(el), handlers: Array.from(handlers), editable, shadow, frames, main: inMain(el)});
    }
  };
  walk(document, window, [], false);
  return JSON.stringify(out);
}`

// actionableHeading introduces the script-only actionable elements.
const actionableHeading = "# also actionable (script handlers, contenteditable; not in the tree above):"

// actionable is one element actionableJS found.
type actionable struct {
	Ref      string   `json:"ref"`
	Kind     string   `json:"kind"`
	Name     string   `json:"name"`
	Handlers []string `json:"handlers"`
	Editable bool     `json:"editable"`
	Shadow   bool     `json:"shadow"`
	Frames   []string `json:"frames"`
	Main     bool     `json:"main"`
}

func (a actionable) line() string {
	var notes []string
	if a.Editable {
		notes = append(notes, "contenteditable")
	}
	if len(a.Handlers) > 0 {
		notes = append(notes, "handler only: "+strings.Join(a.Handlers, ", "))
	}
	if a.Shadow {
		notes = append(notes, "in shadow root")
	}
	if len(a.Frames) > 0 {
		notes = append(notes, "in frame "+strings.Join(a.Frames, " > "))
	}
	if a.Main {
		notes = append(notes, "in main")
	}
	return fmt.Sprintf("- %s %q [ref=%s] (%s)", a.Kind, a.Name, a.Ref, strings.Join(notes, "; "))
}

// findActionable runs actionableJS; the caller holds s.mu. It returns the
// snapshot lines and, per ref, the frames (iframe selectors, outermost
// first) that contain the element.
func (s *Session) findActionable(ctx context.Context, limit int) ([]string, map[string][]string, error) {
	v, err := s.evalBounded(ctx, actionableJS, []any{refAttr, limit})
	if err != nil {
		return nil, nil, fmt.Errorf("actionable elements: %s", oneLine(err))
	}
	raw, _ := v.(string)
	var found []actionable
	if err := json.Unmarshal([]byte(raw), &found); err != nil {
		return nil, nil, fmt.Errorf("actionable elements: %w", err)
	}
	lines := make([]string, 0, len(found))
	frames := map[string][]string{}
	for _, a := range found {
		lines = append(lines, a.line())
		frames[a.Ref] = a.Frames
	}
	return lines, frames, nil
}

// actionableLocator addresses an xN element through its frames.
func (s *Session) actionableLocator(ref string) playwright.Locator {
	sel := fmt.Sprintf(`[%s=%q]`, refAttr, ref)
	frames := s.xframes[ref]
	if len(frames) == 0 {
		return s.page.Locator(sel)
	}
	fl := s.page.Locator(frames[0]).ContentFrame()
	for _, f := range frames[1:] {
		fl = fl.Locator(f).ContentFrame()
	}
	return fl.Locator(sel)
}

// fieldJS lists what the aria tree does not say about fields and controls:
// an input's type (email, password, date, file…) and whether the control
// lives in a shadow root, keyed by role and accessible name (approximated:
// aria-label, aria-labelledby, the label, the text, placeholder, title).
const fieldJS = `(limit) => {
  const out = [];
  const roleOf = (el) => {
    const r = el.getAttribute('role');
    if (r) return r;
    if (el.tagName === 'A') return 'link';
    if (el.tagName === 'BUTTON') return 'button';
    if (el.tagName === 'SELECT') return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    if (el.tagName === 'TEXTAREA') return 'textbox';
    const t = (el.getAttribute('type') || 'text').toLowerCase();
    return {checkbox: 'checkbox', radio: 'radio', number: 'spinbutton', range: 'slider', search: 'searchbox', button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button'}[t] || 'textbox';
  };
  const nameOf = (el) => {
    let n = el.getAttribute('aria-label');
    const by = el.getAttribute('aria-labelledby');
    if (!n && by) n = by.split(/\s+/).map((id) => (el.getRootNode().getElementById ? el.getRootNode().getElementById(id) : null)).filter(Boolean).map((e) => e.textContent).join(' ');
    if (!n && el.labels && el.labels.length) n = el.labels[0].innerText;
    if (!n && ['A', 'BUTTON'].includes(el.tagName)) n = el.innerText;
    if (!n) n = el.getAttribute('placeholder') || el.getAttribute('title') || '';
    return n.trim().replace(/\s+/g, ' ');
  };
  const walk = (root, shadow) => {
    for (const el of root.querySelectorAll('*')) {
      if (out.length >= limit) return;
      if (el.shadowRoot) walk(el.shadowRoot, true);
      if (el.tagName === 'IFRAME') { let d = null; try { d = el.contentDocument; } catch (e) {} if (d && d.documentElement) walk(d, false); continue; }
      if (!el.matches('input:not([type=hidden]),textarea,select,button,a[href],[role]')) continue;
      const type = el.tagName === 'INPUT' ? (el.getAttribute('type') || 'text').toLowerCase() : '';
      const typed = type && !['text', 'checkbox', 'radio', 'button', 'submit', 'reset', 'number', 'range', 'search'].includes(type);
      // A field's constraints: what a tester chooses boundary values by.
      const limits = [];
      if (['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) {
        if (el.required) limits.push('required');
        // A textarea takes long text where a text box takes a line: the
        // aria snapshot calls both textbox.
        if (el.tagName === 'TEXTAREA') limits.push('multiline');
        for (const a of ['min', 'max', 'minlength', 'maxlength']) {
          const v = (el.getAttribute(a) || '').trim().replace(/[^0-9A-Za-z:.+-]/g, '').slice(0, 32);
          if (v) limits.push(a + '=' + v);
        }
      }
      if (!typed && !shadow && !limits.length) continue;
      out.push({role: roleOf(el), name: nameOf(el), type: typed ? type : '', shadow, limits});
    }
  };
  walk(document, false);
  return JSON.stringify(out);
}`

// reAriaControl is an aria snapshot line of a control: indent and role,
// the quoted name, the rest up to and including the ref.
var reAriaControl = regexp.MustCompile(`^(\s*- ([a-z]+))(?: "((?:[^"\\]|\\.)*)")?(.*?\[ref=[^\]]+\])(.*)$`)

// annotateFields adds an input's type, "in shadow root" and its constraints
// (required, min=, max=, minlength=, maxlength=) to the aria
// lines of the controls fieldJS found; the caller holds s.mu.
func (s *Session) annotateFields(ctx context.Context, body string) string {
	v, err := s.evalBounded(ctx, fieldJS, 400)
	if err != nil {
		return body
	}
	raw, _ := v.(string)
	var found []struct {
		Role, Name, Type string
		Shadow           bool
		Limits           []string
	}
	if json.Unmarshal([]byte(raw), &found) != nil || len(found) == 0 {
		return body
	}
	notes := map[string][]string{}
	for _, f := range found {
		k := f.Role + "\x00" + f.Name
		if _, seen := notes[k]; seen {
			continue
		}
		var n []string
		if f.Type == "file" {
			n = append(n, "file input")
		} else if f.Type != "" {
			n = append(n, "type="+f.Type)
		}
		if f.Shadow {
			n = append(n, "in shadow root")
		}
		n = append(n, f.Limits...)
		notes[k] = n
	}
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		m := reAriaControl.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		name, err := strconv.Unquote(`"` + m[3] + `"`)
		if err != nil {
			name = m[3]
		}
		if n := notes[m[2]+"\x00"+name]; len(n) > 0 {
			lines[i] = m[1] + quotedName(m[3]) + m[4] + " (" + strings.Join(n, "; ") + ")" + m[5]
		}
	}
	return strings.Join(lines, "\n")
}

func quotedName(raw string) string {
	if raw == "" {
		return ""
	}
	return ` "` + raw + `"`
}

// evalBounded is Evaluate bounded by the action timeout, so a page whose
// own script never yields cannot hang a snapshot.
func (s *Session) evalBounded(ctx context.Context, js string, arg any) (any, error) {
	c, cancel := context.WithTimeout(ctx, s.e.cfg.ActionTimeout)
	defer cancel()
	return s.Evaluate(c, js, arg)
}
