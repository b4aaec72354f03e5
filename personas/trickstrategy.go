package personas

import (
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
	"github.com/agentgraph/agentgraph/internal/urlx"
)

// trickStrategy plays a persona's tricks when Run drives it: the same
// TrickPlayer the explorer's team members play, on a board of Run's (the
// pages seen, the sign-in page, the values typed, the model strategy's
// targets). A trick's macro goes out one intent per step.
type trickStrategy struct {
	tricks []Trick
	tp     *TrickPlayer
	q      []Move
	board  runBoard
}

func newTrickStrategy(tricks []Trick, ms *modelStrategy) *trickStrategy {
	return &trickStrategy{tricks: tricks, tp: NewTrickPlayer(nil),
		board: runBoard{ms: ms, seen: map[string]bool{}, links: map[string]bool{}, tags: map[int]bool{}}}
}

// observe records the page of step s on the board. It is called on
// every step, also those another strategy plays (the model's way to its
// target, a custom persona's own step), so the board knows every page
// the run saw.
func (ts *trickStrategy) observe(s Step) {
	ts.board.s = s
	ts.board.note(s)
}

// next is the trick's next intent, or false when no trick has anything
// to do on this page. The step was observed first.
func (ts *trickStrategy) next(s Step) (browser.Intent, bool) {
	b := &ts.board
	if len(ts.q) == 0 {
		if strings.Contains(s.Snapshot.URL, collector.Prefix) {
			return browser.Intent{}, false
		}
		tpl := URLTemplate(urlx.Path(s.Snapshot.URL))
		pg := TrickPage{URL: s.Snapshot.URL, Elements: s.Elements, Template: tpl, Form: FormSignature(tpl, s.Elements)}
		for _, t := range ts.tricks {
			if macro := ts.tp.Plan(t, pg, b); len(macro) > 0 {
				ts.q = macro
				break
			}
		}
	}
	if len(ts.q) == 0 {
		return browser.Intent{}, false
	}
	mv := ts.q[0]
	ts.q = ts.q[1:]
	if mv.Hold && s.Hold != nil {
		s.Hold()
	}
	return mv.Intent, true
}

// runBoard is Run's side of a persona's tricks.
type runBoard struct {
	s           Step
	ms          *modelStrategy
	pages       []string // visited, in order
	seen        map[string]bool
	links       map[string]bool // same-origin link targets seen (path?query)
	signin      string
	buttonPages []string
	dropped     bool
	tags        map[int]bool
}

// note records the page of step s.
func (b *runBoard) note(s Step) {
	here := urlx.PathQuery(s.Snapshot.URL)
	if here == "" || strings.HasPrefix(here, collector.Prefix) || strings.HasPrefix(s.Snapshot.URL, "about:") {
		return
	}
	if !b.seen[here] {
		b.seen[here] = true
		b.pages = append(b.pages, here)
	}
	for _, e := range s.Elements {
		if e.Role == "link" && e.URL != "" {
			if u, ok := urlx.Resolve(s.Snapshot.URL, e.URL); ok {
				b.links[urlx.PathQuery(u.String())] = true
			}
		}
	}
	if HasPassword(s.Elements) {
		if b.signin == "" {
			b.signin = here
		}
		return
	}
	if len(PageButtons(s.Elements, 1)) > 0 && !slices.Contains(b.buttonPages, here) {
		b.buttonPages = append(b.buttonPages, here)
	}
}

// Value is the catalogue's valid value for e.
func (b *runBoard) Value(e Element) string { return ValidValue(FieldOf(e, nil)) }

// Tag draws a number the run's values did not carry yet.
func (b *runBoard) Tag() int {
	r := b.s.Rand
	if r == nil {
		r = rand.New(rand.NewPCG(1, 2))
	}
	return DrawTag(r, b.tags)
}

// Played: the model strategy has tried the click on e here.
func (b *runBoard) Played(e Element) bool {
	st, ok := b.ms.m.State(b.ms.cur)
	if !ok {
		return false
	}
	for _, t := range st.Targets {
		if t.Action.Kind == ActionClick && t.Action.Role == e.Role && t.Action.Name == e.Name && t.Status != TargetUntried {
			return true
		}
	}
	return false
}

// Cover settles the model's fill targets a trick typed.
func (b *runBoard) Cover(played map[string][]InputClass) {
	st, ok := b.ms.m.State(b.ms.cur)
	if !ok {
		return
	}
	for _, t := range st.Targets {
		if t.Status != TargetUntried || t.Action.Kind != ActionFill {
			continue
		}
		if e, ok := Locate(t.Action, b.s.Elements); ok && slices.Contains(played[e.Ref], t.Action.Class) {
			b.ms.m.Transition(b.ms.cur, t.Key(), "", 0)
		}
	}
}

// ListPages are the page's visited ancestors and the start page.
func (b *runBoard) ListPages() []string {
	var out []string
	p := strings.TrimSuffix(urlx.Path(b.s.Snapshot.URL), "/")
	for i := strings.LastIndexByte(p, '/'); i > 0; i = strings.LastIndexByte(p, '/') {
		p = p[:i]
		if b.seen[p] && len(out) < 2 {
			out = append(out, p)
		}
	}
	if start := urlx.PathQuery(b.s.Start); start != "" && !slices.Contains(out, start) {
		out = append(out, start)
	}
	return out
}

// Session gives the pages seen that a link led to, or the start page.
func (b *runBoard) Session() SessionInfo {
	start := urlx.PathQuery(b.s.Start)
	var pages []string
	for _, l := range b.pages {
		if b.links[l] || l == start {
			pages = append(pages, l)
		}
	}
	return SessionInfo{SignIn: b.signin, Pages: pages, ButtonPages: b.buttonPages, Dropped: b.dropped, Start: b.s.Start, Template: URLTemplate}
}

func (b *runBoard) DropSession() { b.dropped = true }
