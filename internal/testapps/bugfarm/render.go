package bugfarm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
)

// navItem is a link of the navigation.
type navItem struct {
	Text, Href string
	Current    bool
}

// relView is a related link as rendered.
type relView struct{ ID, Text, Href string }

// layoutData is what the layout template reads.
type layoutData struct {
	App, Title, H1, Accent string
	CSS                    template.CSS
	Side, SignedIn         bool
	Nav, Menu              []navItem
	LogoBug, MainBug       string
	Body                   template.HTML
	Widgets                []template.HTML
	Related                []relView
	LoadJS                 template.JS
}

// render writes a full page: the body template tmpl with data, the page's
// widgets (rec is the record a view page shows) and the layout.
func (s *site) render(w http.ResponseWriter, r *http.Request, pg *page, h1, tmpl string, data any, rec *record) {
	var body bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&body, tmpl, data); err != nil {
		s.log.Error("bugfarm: render", "template", tmpl, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	ld := layoutData{
		App: s.product, Title: h1, H1: h1, Accent: s.accent, CSS: s.css(), Side: s.side,
		SignedIn: s.creds != nil && s.signedIn(r), LogoBug: s.logo.fires(),
		Body: template.HTML(body.String()), //nolint:gosec // produced by html/template
	}
	if pg == nil || pg.Kind != pSignIn {
		ld.Nav, ld.Menu = s.nav(pg)
	}
	if pg != nil {
		if r.URL.Path == pg.Path {
			ld.MainBug = pg.slow.fires()
		}
		ld.LoadJS = faultJS(pg.load)
		for i, l := range pg.Related {
			href := l.Href
			if l.bug.fires() != "" {
				href = l.bug.msg
			}
			ld.Related = append(ld.Related, relView{ID: fmt.Sprintf("rel-%d", i), Text: l.Text, Href: href})
		}
		for _, wd := range pg.Widgets {
			html, err := s.renderWidget(wd, rec)
			if err != nil {
				s.log.Error("bugfarm: render widget", "widget", wd.ID, "err", err)
				http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
				return
			}
			ld.Widgets = append(ld.Widgets, html)
		}
	}
	var out bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&out, "layout", ld); err != nil {
		s.log.Error("bugfarm: render layout", "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(out.Bytes())
}

// nav lists the navigation links and the dropdown's.
func (s *site) nav(cur *page) (items, menu []navItem) {
	hidden := s.revealed()
	for _, pg := range s.pages {
		if pg.Kind == pView || pg.Kind == pEdit || pg.Kind == pSignIn || slices.Contains(hidden, pg) {
			continue
		}
		items = append(items, navItem{Text: pg.Title, Href: pg.Path, Current: pg == cur})
	}
	if s.dropdown && len(items) > 4 {
		k := len(items) - 2
		if len(items) > 6 {
			k = len(items) - 3
		}
		return items[:k], items[k:]
	}
	return items, nil
}

// widgetView is what a widget template reads.
type widgetView struct {
	*widget
	Heading, HotValue, Accent, Base, SavePath string
	Fault, SessionFault                       template.JS
	Dead, NoName                              string
	Marks                                     string // the ids of Dead and NoName, for one data-bug attribute
	Views                                     map[string][2]string
}

func (s *site) renderWidget(wd *widget, rec *record) (template.HTML, error) {
	v := widgetView{widget: wd, Heading: "View", Accent: s.accent, Base: wd.page.Path, NoName: wd.name.fires()}
	if len(wd.Options) > 0 {
		v.HotValue = wd.Options[wd.Hot].Value
	}
	if wd.bug.fires() != "" {
		switch wd.bug.Class {
		case ClassDead:
			v.Dead = wd.bug.ID
		case ClassSession:
			v.SessionFault = faultJS(wd.bug)
		default:
			v.Fault = faultJS(wd.bug)
		}
	}
	if wd.Kind == wRouter || wd.Kind == wHash {
		v.Views = map[string][2]string{}
		for _, o := range wd.Options {
			v.Views[o.Value] = [2]string{o.Text, fmt.Sprintf("%s of your %s: %d in total.", o.Text, s.many, len(s.records()))}
		}
	}
	v.Marks = strings.TrimSpace(v.Dead + " " + v.NoName)
	if rec != nil {
		v.SavePath = fmt.Sprintf("/api/records/%d", rec.ID)
	}
	var b bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&b, "w-"+string(wd.Kind), v); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil //nolint:gosec // produced by html/template
}

// faultJS is the statement that makes bug p fire in the browser, or ""
// when it is off or fires elsewhere.
func faultJS(p *placed) template.JS {
	if p.fires() == "" || p.msg == "" {
		return ""
	}
	msg, err := json.Marshal(p.msg)
	if err != nil {
		return ""
	}
	switch p.Class {
	case ClassConsole:
		return template.JS("console.error(" + string(msg) + ");") //nolint:gosec // JSON-encoded literal
	case ClassRejection:
		return template.JS("Promise.reject(new Error(" + string(msg) + "));") //nolint:gosec // JSON-encoded literal
	case ClassSession:
		// thrown outside the promise chain, whose catch would swallow it
		return template.JS("setTimeout(function () { throw new " + p.errName + "(" + string(msg) + "); });") //nolint:gosec // JSON-encoded literal
	case ClassPageError, ClassDeep:
		return template.JS("throw new " + p.errName + "(" + string(msg) + ");") //nolint:gosec // JSON-encoded literal
	}
	return ""
}

// raw marks a stored or echoed value as HTML when bug p is on (the bug:
// no escaping), and leaves it text otherwise.
func raw(p *placed, v string) any {
	if p.fires() != "" {
		return template.HTML(v) //nolint:gosec // the seeded XSS bug
	}
	return v
}

func (s *site) css() template.CSS {
	a := s.accent
	css := `*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#111;background:#fff}
a{color:` + a + `}.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;color:#111}
.bar{display:flex;gap:1rem;align-items:center;padding:.5rem 1rem;border-bottom:3px solid ` + a + `}
.appname{font-weight:700}.signout{margin-left:auto}
nav ul{list-style:none;margin:0;padding:0;display:flex;gap:1rem;flex-wrap:wrap}
nav.main{padding:.5rem 1rem;border-bottom:1px solid #888}
body.side .shell{display:grid;grid-template-columns:13rem 1fr;grid-template-rows:auto 1fr}
body.side .bar{grid-column:1/3}body.side nav.main{border:0;border-right:1px solid #888}body.side nav.main ul{flex-direction:column}
main{padding:1rem 1.5rem;max-width:62rem}
button{background:` + a + `;color:#fff;border:0;border-radius:4px;padding:.4rem .8rem;font:inherit;cursor:pointer}
.card{border:1px solid #888;border-radius:6px;padding:.75rem 1rem;margin:1rem 0;list-style:none}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr));gap:1rem;padding:0}
.field{margin:.7rem 0}label,legend{display:block;font-weight:600}label.inline{display:inline;font-weight:400}
input,select,textarea{font:inherit;padding:.3rem;border:1px solid #555;border-radius:4px;color:#111;background:#fff}
.field-error,.form-error{color:#b91c1c}.banner{border:2px solid #b91c1c;color:#7f1d1d;background:#fff;padding:.75rem;white-space:pre-wrap}
.status{color:#14532d}.hint{color:#333}
.hov{padding:.25rem 0}.hov .reveal{visibility:hidden}.hov:hover .reveal,.hov:focus-within .reveal{visibility:visible}
.dd{position:relative}.dd ul{position:absolute;background:#fff;border:1px solid #555;padding:.5rem;flex-direction:column;z-index:2}
table{border-collapse:collapse;margin:1rem 0}th,td{border-bottom:1px solid #888;padding:.3rem .6rem;text-align:left}
caption{text-align:left;font-weight:600}
.btnlike{display:inline-block;background:#f3f4f6;color:#111;border:1px solid #555;border-radius:4px;padding:.3rem .7rem;cursor:pointer}
.pager ul{gap:.5rem}dialog{border:2px solid ` + a + `;border-radius:6px}
dl.record,dl.review{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dt{font-weight:600}dd{margin:0}
.choice{margin-right:1rem}.steps{display:flex;gap:1.5rem;padding-left:1.2rem}`
	return template.CSS(css) //nolint:gosec // constant with a palette colour
}

// titleOf is a record's name.
func (s *site) titleOf(rec record) string { return rec.Values[s.fields[0].Key] }

// listed are the fields shown as list columns besides the title.
func (s *site) listed() []field {
	var out []field
	for _, f := range s.fields[1:] {
		if f.Kind != kTextarea && f.Kind != kCheckbox && len(out) < 2 {
			out = append(out, f)
		}
	}
	return out
}

// matches reports whether rec holds q in a text value (case-insensitive).
func (s *site) matches(rec record, q string) bool {
	q = strings.ToLower(q)
	for _, f := range s.fields {
		if strings.Contains(strings.ToLower(rec.Values[f.Key]), q) {
			return true
		}
	}
	return false
}
