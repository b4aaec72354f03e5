package bugfarm

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// The put functions install a drawn bug at its slot and write its trigger,
// expectation and description.

// describe says in words what using widget w means.
func (s *site) describe(w *widget) string {
	hot := ""
	if len(w.Options) > 0 {
		hot = w.Options[w.Hot].Text
	}
	switch w.Kind {
	case wSelect:
		return fmt.Sprintf("choosing %q in the %q select", hot, w.Label)
	case wToggle:
		return fmt.Sprintf("switching on %q", w.Label)
	case wRadio:
		return fmt.Sprintf("choosing %q in %q", hot, w.Label)
	case wFetch:
		return fmt.Sprintf("clicking %q", w.Label)
	case wRole:
		return fmt.Sprintf("clicking %q (a <%s> acting as a button)", w.Label, w.Tag)
	case wCombo:
		return fmt.Sprintf("picking %q in the %q combobox", hot, w.Label)
	case wModal:
		return fmt.Sprintf("confirming the %q dialog", w.Label)
	case wHover:
		return fmt.Sprintf("hovering %q and clicking its hidden action", hot)
	case wShadow:
		return fmt.Sprintf("clicking the button inside the <%s> web component", w.Tag)
	case wKeys:
		return fmt.Sprintf("pressing Enter in %q", w.Label)
	case wFrame:
		return fmt.Sprintf("clicking Sync inside the %q iframe", w.Label)
	case wRouter:
		return fmt.Sprintf("opening the %q view (history.pushState)", hot)
	case wHash:
		return fmt.Sprintf("opening the #/%s view", w.Options[w.Hot].Value)
	case wDblEdit:
		return fmt.Sprintf("double-clicking the %s to edit it", strings.ToLower(s.dblField().Label))
	}
	return "using " + w.Label
}

func (s *site) putWidget(r *rand.Rand, w *widget) func(p *placed) {
	return func(p *placed) {
		w.bug = p
		steps, last := s.act(w)
		p.Page = w.page.Path
		p.Trigger = append(s.visit(w.page.Path), steps...)
		where := fmt.Sprintf("%s on %s", s.describe(w), w.page.Path)
		switch p.Class {
		case ClassPageError:
			p.errName, p.msg = jsError(r, p.ID)
			p.Expect = Expect{Signal: SignalPageError}
			p.What = "uncaught " + p.errName + " after " + where
		case ClassConsole:
			p.msg = consoleMsg(r, strings.ToLower(w.Label), p.ID)
			p.Expect = Expect{Signal: SignalConsole}
			p.What = "console error after " + where
		case ClassRejection:
			p.msg = rejectMsg(r, p.ID)
			p.Expect = Expect{Signal: SignalPageError}
			p.What = "unhandled promise rejection after " + where
		case ClassDead:
			p.Expect = Expect{Signal: SignalDead, Selector: last}
			p.What = "nothing happens when " + where
		case ClassSlow:
			p.Expect = Expect{Signal: SignalSlow}
			p.Trigger = append(p.Trigger, Step{Op: OpWait, Value: strconv.Itoa(int(s.opts.SlowDelay.Milliseconds()) + 1000)})
			p.What = fmt.Sprintf("the request behind %s takes over 3 s", where)
		case ClassBanner:
			p.msg = bannerMsg(r, w.Label, p.ID)
			p.Expect = Expect{Signal: SignalDOM, Selector: "#" + w.ID + "-banner [role=alert]"}
			p.What = "an error banner with a stack trace after " + where
		}
	}
}

func (s *site) putFetchServer(w *widget, in Input) func(p *placed) {
	return func(p *placed) {
		w.bug = p
		p.field = w.Param.Key
		p.Page = w.page.Path
		p.Trigger = append(s.visit(w.page.Path),
			Step{Op: OpFill, Selector: "#" + w.ID + "-n", Value: badValue(in, *w.Param)},
			Step{Op: OpClick, Selector: "#" + w.ID})
		p.Expect = Expect{Signal: SignalResponse, Status: 500}
		p.What = fmt.Sprintf("HTTP 500 from /api/%s when %q is %s (on %s)", w.ID, w.Param.Label, inputWords(in), w.page.Path)
	}
}

func (s *site) putFetchSession(w *widget) func(p *placed) {
	return func(p *placed) {
		w.bug = p
		p.errName = "TypeError"
		p.msg = fmt.Sprintf("Cannot read properties of null (reading 'display_name') [%s]", p.ID)
		steps, _ := s.act(w)
		p.Page = w.page.Path
		p.Trigger = append(append(s.visit(w.page.Path), Step{Op: OpClearCookies}), steps...)
		p.Expect = Expect{Signal: SignalPageError}
		p.What = fmt.Sprintf("once the session is gone, %s throws instead of asking to sign in", s.describe(w)+" on "+w.page.Path)
	}
}

func (s *site) putName(w *widget, rule string) func(p *placed) {
	return func(p *placed) {
		w.name = p
		p.Page = w.page.Path
		p.Trigger = s.visit(w.page.Path)
		p.Expect = Expect{Signal: SignalAxe, Rule: rule}
		p.What = fmt.Sprintf("the %q control on %s has no accessible name (axe %s)", w.Label, w.page.Path, rule)
	}
}

func (s *site) putLoad(r *rand.Rand, pg *page) func(p *placed) {
	return func(p *placed) {
		pg.load = p
		p.Page = pg.Path
		p.Trigger = s.visit(pg.Path)
		if p.Class == ClassConsole {
			p.msg = consoleMsg(r, pick(r, "saved filters", "user preferences", "notification count", "feature flags"), p.ID)
			p.Expect = Expect{Signal: SignalConsole}
			p.What = "console error when " + pg.Path + " loads"
			return
		}
		p.msg = rejectMsg(r, p.ID)
		p.Expect = Expect{Signal: SignalPageError}
		p.What = "unhandled promise rejection when " + pg.Path + " loads"
	}
}

func (s *site) putLink(pg *page, l *link) func(p *placed) {
	return func(p *placed) {
		l.bug = p
		p.msg = strings.TrimSuffix(l.Href, "/") + "/archive/" + p.ID
		p.Page = pg.Path
		p.Trigger = append(s.visit(pg.Path), Step{Op: OpClick, Selector: "#" + l.id(pg)})
		p.Expect = Expect{Signal: SignalResponse, Status: 404}
		p.What = fmt.Sprintf("the %q link on %s answers 404", l.Text, pg.Path)
	}
}

func (s *site) putSlow(pg *page) func(p *placed) {
	return func(p *placed) {
		pg.slow = p
		p.Page = pg.Path
		p.Trigger = s.visit(pg.Path)
		p.Expect = Expect{Signal: SignalSlow, Selector: "main"}
		p.What = pg.Path + " takes over 3 s to answer"
	}
}

func (s *site) putSession(pg *page) func(p *placed) {
	return func(p *placed) {
		pg.session = p
		p.Page = pg.Path
		p.Trigger = append(s.visit(pg.Path), Step{Op: OpClearCookies}, Step{Op: OpReload})
		p.Expect = Expect{Signal: SignalResponse, Status: 500}
		p.What = pg.Path + " answers 500 instead of asking to sign in once the session is gone"
	}
}

func (s *site) putFieldServer(f field, in Input, edit bool) func(p *placed) {
	return func(p *placed) {
		p.field = f.Key
		p.Expect = Expect{Signal: SignalResponse, Status: 500}
		if edit {
			s.editField[f.Key] = p
			path := s.byKind[pEdit].Path
			p.Page = path
			p.Trigger = append(s.visit(path), s.fill(f, badValue(in, f)), Step{Op: OpClick, Selector: "#" + s.domID("record-submit")})
			p.What = fmt.Sprintf("HTTP 500 when an edited %s's %q is %s", s.one, f.Label, inputWords(in))
			return
		}
		s.newField[f.Key] = p
		p.Page = s.byKind[pNew].Path
		p.Trigger = s.create(map[string]string{f.Key: badValue(in, f)}, f.Key)
		p.What = fmt.Sprintf("HTTP 500 when a new %s's %q is %s", s.one, f.Label, inputWords(in))
	}
}

func (s *site) putStored(f field, sink pageKind) func(p *placed) {
	return func(p *placed) {
		s.storedXSS = p
		p.field, p.sink = f.Key, sink
		p.Page = s.byKind[sink].Path
		p.Trigger = s.create(map[string]string{f.Key: xssPayload}, "")
		if sink != pView {
			p.Trigger = append(p.Trigger, Step{Op: OpGoto, Path: s.byKind[sink].Path})
		} else {
			// the submit ends on the new record's page: let it load
			p.Trigger = append(p.Trigger, Step{Op: OpWait, Value: settleMS})
		}
		p.Expect = Expect{Signal: SignalScript}
		p.What = fmt.Sprintf("%s %s's %q is shown unescaped on %s", article(s.one), s.one, f.Label, map[pageKind]string{pView: "its page", pList: "the list", pHome: "the home page"}[sink])
	}
}

func (s *site) putReflected(pg *page) func(p *placed) {
	return func(p *placed) {
		if pg.Kind == pSearch {
			s.searchQ = p
		} else {
			s.listQ = p
		}
		p.Page = pg.Path
		sel := "#" + s.domID(string(pg.Kind)+"-q")
		p.Trigger = append(s.visit(pg.Path), Step{Op: OpFill, Selector: sel, Value: xssPayload}, Step{Op: OpPress, Selector: sel, Key: "Enter"})
		p.Expect = Expect{Signal: SignalScript}
		p.What = "the query typed on " + pg.Path + " is echoed unescaped"
	}
}

func (s *site) putSearchQuote(pg *page) func(p *placed) {
	return func(p *placed) {
		s.searchQ = p
		p.field = "q"
		p.Page = pg.Path
		sel := "#" + s.domID("search-q")
		p.Trigger = append(s.visit(pg.Path), Step{Op: OpFill, Selector: sel, Value: "O'Brien"}, Step{Op: OpPress, Selector: sel, Key: "Enter"})
		p.Expect = Expect{Signal: SignalResponse, Status: 500}
		p.What = "HTTP 500 when the search holds a quote"
	}
}

func (s *site) putDouble(dup5x bool) func(p *placed) {
	return func(p *placed) {
		s.double = p
		p.dup5x = dup5x
		p.Page = s.byKind[pNew].Path
		steps := s.create(nil, "")
		last := &steps[len(steps)-1]
		last.Op = OpDblClick // two clicks, no wait between
		p.Trigger = steps
		if dup5x {
			p.Expect = Expect{Signal: SignalResponse, Status: 500}
			p.What = fmt.Sprintf("a second quick click on the %s form's submit answers 500", s.one)
			return
		}
		p.Trigger = append(p.Trigger, Step{Op: OpGoto, Path: s.byKind[pList].Path})
		p.Expect = Expect{Signal: SignalDOM, Selector: fmt.Sprintf("[data-bug=%q]", p.ID)}
		p.What = fmt.Sprintf("a second quick click on the %s form's submit creates a duplicate", s.one)
	}
}

func (s *site) putExport() func(p *placed) {
	return func(p *placed) {
		s.export = p
		p.msg = bannerMsg(rand.New(rand.NewPCG(uint64(s.seed), 7)), "export", p.ID)
		p.Page = s.byKind[pList].Path
		p.Trigger = append(s.visit(p.Page), Step{Op: OpClick, Selector: "#" + s.domID("export")})
		p.Expect = Expect{Signal: SignalDOM, Selector: "[role=alert]"}
		p.What = "exporting the list shows an error banner with a stack trace"
	}
}

func (s *site) putTimeline() func(p *placed) {
	return func(p *placed) {
		s.timeline = p
		p.errName = "TypeError"
		p.msg = fmt.Sprintf("Cannot read properties of null (reading 'events') [%s]", p.ID)
		p.Page = s.byKind[pView].Path
		p.Trigger = append(s.create(nil, ""), Step{Op: OpClick, Selector: "#" + s.domID("timeline")})
		p.Expect = Expect{Signal: SignalPageError}
		p.What = fmt.Sprintf("\"Show history\" throws on %s %s created in the app (seeded ones work)", article(s.one), s.one)
	}
}

func (s *site) putWizard() func(p *placed) {
	return func(p *placed) {
		s.wizard = p
		p.errName = "TypeError"
		p.msg = fmt.Sprintf("Cannot read properties of undefined (reading 'currency') [%s]", p.ID)
		p.Page = s.byKind[pNew].Path
		groups := s.wizardGroups()
		last := groups[len(groups)-1]
		p.Trigger = s.create(nil, last[len(last)-1].Key)
		p.Expect = Expect{Signal: SignalPageError}
		p.What = "the wizard's review step throws when it loads"
	}
}

func (s *site) putLogo() func(p *placed) {
	return func(p *placed) {
		s.logo = p
		p.Page = "/"
		p.Trigger = s.visit("/")
		p.Expect = Expect{Signal: SignalAxe, Rule: "link-name"}
		p.What = "the logo link has no accessible name (axe link-name)"
	}
}

func (s *site) putImage() func(p *placed) {
	return func(p *placed) {
		s.image = p
		p.Page = "/"
		p.Trigger = s.visit("/")
		p.Expect = Expect{Signal: SignalAxe, Rule: "image-alt"}
		p.What = "the home page's illustration has no alt text (axe image-alt)"
	}
}

func bannerMsg(r *rand.Rand, what, id string) string {
	switch r.IntN(3) {
	case 0:
		return fmt.Sprintf("java.lang.IllegalStateException: %s job has no owner\n\tat com.acme.jobs.Runner.run(Runner.java:142)\n\tat com.acme.web.Handler.handle(Handler.java:57)\n[%s]", what, id)
	case 1:
		return fmt.Sprintf("Traceback (most recent call last):\n  File \"/srv/app/views.py\", line 318, in %s\n    rows = build(rows)\nKeyError: 'owner'\n[%s]", slug(what), id)
	}
	return fmt.Sprintf("System.NullReferenceException: Object reference not set to an instance of an object.\n   at App.Services.%sService.Run() in Service.cs:line 88\n[%s]", strings.ReplaceAll(titleCase(slug(what)), "-", ""), id)
}

func inputWords(in Input) string {
	return map[Input]string{
		InputQuote: "text with a quote", InputNegative: "negative", InputZero: "zero",
		InputOutOfRange: "above its maximum", InputEmpty: "left empty", InputLong: "longer than its column",
		InputNonLatin1: "text outside Latin-1",
	}[in]
}

// id is the DOM id of a related link.
func (l *link) id(pg *page) string {
	for i, x := range pg.Related {
		if x == l {
			return "rel-" + strconv.Itoa(i)
		}
	}
	return "rel"
}

// article is "a" or "an" for noun.
func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an"
	}
	return "a"
}
