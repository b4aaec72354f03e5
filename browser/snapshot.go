package browser

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Snapshot is the page as the model sees it: Playwright's AI-mode aria
// snapshot, compacted, plus hover-only controls, capped at a budget.
type Snapshot struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	// Text is what the model reads. Every interactable element carries
	// [ref=eN] (aria), [ref=hN] (shown on hover) or [ref=dN] (DOM fallback).
	Text string `json:"text"`
	// Source is "aria", or "dom" when the aria snapshot failed.
	Source string `json:"source"`
	// Refs are the refs present in this snapshot, valid until the next one.
	Refs []string `json:"refs"`
	// HoverOnly counts the controls found by the hover supplement.
	HoverOnly int `json:"hover_only"`
	// Actionable counts the script-only actionable elements ([ref=xN]).
	Actionable int `json:"actionable"`
	// RawChars is the size before compaction; Truncated says the budget cut it.
	RawChars  int  `json:"raw_chars"`
	Truncated bool `json:"truncated"`
}

var (
	reRef       = regexp.MustCompile(`\[ref=((?:f[0-9]+)?e[0-9]+|[hdx][0-9]+)\]`)
	reNoise     = regexp.MustCompile(` \[(?:cursor=pointer|active)\]`)
	reBareGroup = regexp.MustCompile(`^(\s*)- generic \[ref=(?:f[0-9]+)?e[0-9]+\]:$`)
)

// compactAria removes what the model does not need from an AI-mode aria
// snapshot: [cursor=pointer]/[active] marks, unnamed generic wrappers (their
// children move up one level), "- text: X" lines that only repeat the next
// element's name (a label before its textbox), and a link's lone "/url:"
// child, which moves onto the link's line.
func compactAria(s string) string {
	type line struct {
		indent int
		text   string // without indentation
	}
	var in []line
	for _, ln := range strings.Split(s, "\n") {
		if strings.TrimSpace(ln) == "" {
			continue
		}
		t := strings.TrimLeft(ln, " ")
		in = append(in, line{len(ln) - len(t), t})
	}
	// pass 1: drop wrappers, re-indent
	var dropped []int
	mid := make([]line, 0, len(in))
	for _, l := range in {
		for len(dropped) > 0 && l.indent <= dropped[len(dropped)-1] {
			dropped = dropped[:len(dropped)-1]
		}
		l.text = reNoise.ReplaceAllString(l.text, "")
		if reBareGroup.MatchString(strings.Repeat(" ", l.indent) + l.text) {
			dropped = append(dropped, l.indent)
			continue
		}
		l.indent = max(l.indent-2*len(dropped), 0)
		mid = append(mid, l)
	}
	// pass 2: drop repeated labels, inline lone urls
	var b strings.Builder
	for i := 0; i < len(mid); i++ {
		l := mid[i]
		if name, ok := strings.CutPrefix(l.text, "- text: "); ok && i+1 < len(mid) && mid[i+1].indent == l.indent &&
			strings.Contains(mid[i+1].text, " "+strconv.Quote(strings.Trim(name, `"`))+" ") {
			continue
		}
		if strings.HasPrefix(l.text, "- link ") && strings.HasSuffix(l.text, ":") && i+1 < len(mid) &&
			mid[i+1].indent == l.indent+2 && strings.HasPrefix(mid[i+1].text, "- /url: ") &&
			(i+2 >= len(mid) || mid[i+2].indent <= l.indent) {
			l.text = strings.TrimSuffix(l.text, ":") + " → " + strings.Trim(strings.TrimPrefix(mid[i+1].text, "- /url: "), `"`)
			i++
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat(" ", l.indent))
		b.WriteString(l.text)
	}
	return b.String()
}

// capText cuts s at a line boundary so that it fits budget characters and
// says so.
func capText(s string, budget int) (string, bool) {
	if budget <= 0 || len(s) <= budget {
		return s, false
	}
	note := fmt.Sprintf("\n[snapshot truncated: showing %%d of %d characters; scroll, or use extract_text or a narrower target, to see the rest]", len(s))
	room := max(budget-len(note)-8, 0)
	cut := strings.LastIndexByte(s[:room], '\n')
	if cut < 0 {
		cut = room
		for cut > 0 && (s[cut]&0xC0) == 0x80 {
			cut--
		}
	}
	return s[:cut] + fmt.Sprintf(note, cut), true
}

func refsIn(s string) []string {
	var refs []string
	for _, m := range reRef.FindAllStringSubmatch(s, -1) {
		refs = append(refs, m[1])
	}
	return refs
}

// hoverHeading introduces the hover-only controls in a snapshot.
const hoverHeading = "# shown on hover or focus (acting on them hovers the row, or focuses the field, first):"

// refAttr marks elements found by the DOM walks, so refs hN/dN resolve.
const refAttr = "data-ag-ref"
const hoverAttr = "data-ag-hover"

// focusAttr marks the field to focus to reveal a control shown only while
// its container has focus (:focus-within).
const focusAttr = "data-ag-focus"

// hoverJS finds interactive controls hidden until their row is hovered
// (display:none/visibility:hidden inside a visible list item, row or card),
// or until a field near them has focus (a :focus/:focus-within style rule
// matches them once the pseudo-class is dropped), marks them and returns
// one line each; "; in main" ends the note of a control inside the main
// landmark.
const hoverJS = `([refAttr, hoverAttr, focusAttr, limit]) => {
  for (const el of document.querySelectorAll('[' + refAttr + '^="h"],[' + hoverAttr + '],[' + focusAttr + ']')) { el.removeAttribute(refAttr); el.removeAttribute(hoverAttr); el.removeAttribute(focusAttr); }
  const focusSels = [];
  const collect = (rules) => { for (const r of rules) { if (r.selectorText) { for (const part of r.selectorText.split(',')) if (/:focus/.test(part)) focusSels.push(part.replace(/:focus(-within|-visible)?/g, '')); } else if (r.cssRules) collect(r.cssRules); } };
  for (const sh of document.styleSheets) { try { collect(sh.cssRules); } catch (e) {} }
  const byFocus = (el) => focusSels.some((sel) => { try { return el.matches(sel); } catch (e) { return false; } });
  const focusable = 'input:not([type=hidden]),textarea,select,button,a[href],[tabindex]:not([tabindex="-1"]),[contenteditable=""],[contenteditable=true]';
  const vis = el => el.checkVisibility({visibilityProperty: true});
  const sel = 'a[href],button,input:not([type=hidden]),select,textarea,[role=button],[role=link],[role=menuitem],[role=checkbox],[role=switch],[role=tab]';
  const out = [];
  let n = 0;
  // A hidden control renders no text: its innerText is empty, its
  // textContent is what the row shows once hovered.
  const label = el => (el.getAttribute('aria-label') || el.innerText || el.value || el.textContent || el.getAttribute('title') || el.getAttribute('placeholder') || '').trim().replace(/\s+/g, ' ').slice(0, 80);
  const role = el => el.getAttribute('role') || ({A: 'link', BUTTON: 'button', SELECT: 'combobox', TEXTAREA: 'textbox'})[el.tagName] || (el.tagName === 'INPUT' ? (['checkbox','radio'].includes(el.type) ? el.type : (['button','submit','reset'].includes(el.type) ? 'button' : 'textbox')) : el.tagName.toLowerCase());
  const inMain = el => el.closest('main,[role=main]') ? '; in main' : '';
  for (const el of document.querySelectorAll(sel)) {
    if (vis(el) || el.closest('template,[aria-hidden="true"],dialog:not([open]),[hidden]')) continue;
    let anc = el.parentElement, depth = 0;
    while (anc && !vis(anc) && depth < 4) { anc = anc.parentElement; depth++; }
    if (!anc || depth >= 4 || anc === document.body || anc === document.documentElement) continue;
    const row = anc.closest('li,tr,[role=row],[role=listitem],[role=option],article,[class*=row],[class*=item],[class*=card]') || anc;
    if (!vis(row) || row === document.body) continue;
    n++;
    const ref = 'h' + n;
    el.setAttribute(refAttr, ref);
    const field = byFocus(el) && Array.from(row.querySelectorAll(focusable)).find((f) => f !== el && vis(f));
    if (field) {
      field.setAttribute(focusAttr, ref);
      out.push('- ' + role(el) + ' "' + label(el).replace(/"/g, '\\"') + '" [ref=' + ref + '] (focus "' + label(field).replace(/"/g, '\\"') + '" first' + inMain(el) + ')');
    } else {
      row.setAttribute(hoverAttr, ref);
      const rowText = (row.innerText || '').trim().replace(/\s+/g, ' ').slice(0, 60);
      out.push('- ' + role(el) + ' "' + label(el).replace(/"/g, '\\"') + '" [ref=' + ref + '] (hover "' + rowText.replace(/"/g, '\\"') + '"' + inMain(el) + ')');
    }
    if (out.length >= limit) break;
  }
  return out.join('\n');
}`

// domJS is the fallback snapshot: every visible interactive element with its
// role, name and a dN ref.
const domJS = `([refAttr, limit]) => {
  for (const el of document.querySelectorAll('[' + refAttr + '^="d"]')) el.removeAttribute(refAttr);
  const sel = 'a[href],button,input:not([type=hidden]),select,textarea,[role=button],[role=link],[role=menuitem],[role=checkbox],[role=switch],[role=tab],[contenteditable=true],h1,h2,h3,[role=alert]';
  const out = [];
  let n = 0;
  for (const el of document.querySelectorAll(sel)) {
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    const name = (el.getAttribute('aria-label') || el.innerText || el.value || el.getAttribute('placeholder') || el.getAttribute('title') || '').trim().replace(/\s+/g, ' ').slice(0, 80);
    const role = el.getAttribute('role') || ({A: 'link', BUTTON: 'button', SELECT: 'combobox', TEXTAREA: 'textbox', H1: 'heading', H2: 'heading', H3: 'heading'})[el.tagName] || (el.tagName === 'INPUT' ? (['checkbox','radio'].includes(el.type) ? el.type : 'textbox') : el.tagName.toLowerCase());
    n++;
    el.setAttribute(refAttr, 'd' + n);
    out.push('- ' + role + ' "' + name.replace(/"/g, '\\"') + '" [ref=d' + n + ']');
    if (out.length >= limit) break;
  }
  return out.join('\n');
}`
