package bugfarm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// pageKind names what a page is for.
type pageKind string

const (
	pHome    pageKind = "home"
	pList    pageKind = "list"
	pNew     pageKind = "new"
	pView    pageKind = "view"
	pEdit    pageKind = "edit"
	pSearch  pageKind = "search"
	pPrefs   pageKind = "prefs"
	pReports pageKind = "reports"
	pHelp    pageKind = "help"
	pTools   pageKind = "tools"
	pBoard   pageKind = "board"
	pPlanner pageKind = "planner"
	pSignIn  pageKind = "signin"
)

// page is one server-rendered page of a generated app.
type page struct {
	Kind    pageKind
	Path    string // route (view and edit: record 1)
	Title   string
	Widgets []*widget
	Related []*link
	load    *placed // console error or rejection when the page loads
	slow    *placed // the page answers late
	session *placed // the page crashes without a session
}

// link is a same-origin link in a page's "Related" list.
type link struct {
	Text, Href string
	bug        *placed // broken_link: the href goes nowhere
}

// wkind is a kind of interactive widget.
type wkind string

const (
	wSelect  wkind = "select"  // <select> switching a view
	wToggle  wkind = "toggle"  // checkbox acting at once
	wRadio   wkind = "radio"   // radio group acting at once
	wFetch   wkind = "fetch"   // type=button that fetches
	wRole    wkind = "role"    // div/span/a acting as a button
	wCombo   wkind = "combo"   // ARIA combobox with a listbox
	wModal   wkind = "modal"   // <dialog> with confirm
	wHover   wkind = "hover"   // row actions shown on hover
	wShadow  wkind = "shadow"  // web component, open shadow root
	wKeys    wkind = "keys"    // Enter adds, Escape clears
	wFrame   wkind = "frame"   // same-origin iframe with a button
	wRouter  wkind = "router"  // pushState views
	wHash    wkind = "hash"    // "#/" views
	wDblEdit wkind = "dbledit" // double-click to edit a value
)

// opt is a value and its text.
type opt struct{ Value, Text string }

// widget is one interactive control group on a page.
type widget struct {
	Kind    wkind
	ID      string
	Label   string
	Options []opt
	Hot     int    // the option, row or route that fires a bug
	Tag     string // custom element name (wShadow), element (wRole)
	Icon    bool   // wFetch: an icon-only button
	Param   *field // wFetch: an input sent along
	page    *page
	bug     *placed // behavioural bug
	name    *placed // a11y bug: the control loses its name
}

// placed is a bug placed in the app, on or off.
type placed struct {
	Bug
	on      bool
	msg     string // the error text, id included
	errName string // the constructor of a thrown error
	field   string // form field key
	sink    pageKind
	dup5x   bool // double_submit answers 500 instead of a duplicate
}

// fires returns the bug's id when p is on, else "".
func (p *placed) fires() string {
	if p == nil || !p.on {
		return ""
	}
	return p.ID
}

// slot is a place that can hold one bug of the given classes.
type slot struct {
	classes []Class
	input   Input
	put     func(p *placed)
}

// plan draws everything about an app of seed but its state.
func (s *site) plan(r *rand.Rand) {
	ths := themes()
	th := ths[int(((s.seed-1)%int64(len(ths))+int64(len(ths)))%int64(len(ths)))]
	s.th = th
	s.product = th.Products[r.IntN(len(th.Products))]
	s.one, s.many = th.One, th.Many
	s.coll = "/" + th.Slugs[r.IntN(len(th.Slugs))]
	s.accent = accents[r.IntN(len(accents))]
	s.drawFields(r)

	chance := func(p float64) bool { return r.Float64() < p }
	s.side = chance(0.5)
	s.cards = chance(0.5)
	s.dropdown = chance(0.45)
	s.reveal = chance(0.4)
	s.tableList = chance(0.6)
	s.multi = chance(0.45)
	s.upload = chance(0.4)
	if chance(0.5) {
		s.perPage = 5 + r.IntN(4)
	}
	if chance(0.45) {
		s.creds = &Credentials{
			User:     fmt.Sprintf("%s.%d@%s.test", []string{"ana", "bo", "chen", "dee", "eli", "fay"}[r.IntN(6)], 10+r.IntN(90), strings.ToLower(strings.ReplaceAll(s.product, " ", ""))),
			Password: fmt.Sprintf("%s-%04d", strings.ToLower(s.th.One), r.IntN(10000)),
		}
	}
	want := map[wkind]bool{}
	for _, k := range []wkind{wShadow, wFrame, wHover, wModal, wCombo, wKeys, wDblEdit, wRouter, wHash, wRole} {
		want[k] = chance(0.45)
	}
	controls := chance(0.6)
	search := chance(0.6)

	s.byKind = map[pageKind]*page{}
	add := func(k pageKind, path, title string) *page {
		pg := &page{Kind: k, Path: path, Title: title}
		s.pages = append(s.pages, pg)
		s.byKind[k] = pg
		return pg
	}
	add(pHome, "/", pick(r, "Dashboard", "Overview", "Home"))
	add(pList, s.coll, titleCase(s.many))
	add(pNew, s.coll+"/new", "New "+s.one)
	add(pView, s.coll+"/1", titleCase(s.one))
	add(pEdit, s.coll+"/1/edit", "Edit "+s.one)
	if search {
		add(pSearch, "/search", "Search")
	}
	if controls {
		add(pPrefs, pick(r, "/settings", "/preferences"), pick(r, "Settings", "Preferences"))
	}
	if chance(0.6) {
		add(pReports, pick(r, "/reports", "/insights", "/stats"), pick(r, "Reports", "Insights", "Statistics"))
	}
	if chance(0.6) {
		add(pHelp, pick(r, "/help", "/about", "/guide"), pick(r, "Help", "About", "Guide"))
	}
	if want[wRouter] {
		add(pBoard, "/board", pick(r, "Board", "Planner board", "Activity"))
	}
	if want[wHash] {
		add(pPlanner, pick(r, "/planner", "/timeline"), pick(r, "Timeline", "Planner"))
	}
	// widgets that are no native form controls live on a workspace page
	// unless another page takes them
	hosts := []*page{s.byKind[pHome], s.byKind[pList], s.byKind[pView]}
	for _, k := range []pageKind{pPrefs, pReports, pHelp} {
		if pg := s.byKind[k]; pg != nil {
			hosts = append(hosts, pg)
		}
	}
	if want[wShadow] || want[wCombo] || want[wKeys] || want[wModal] || chance(0.3) {
		hosts = append(hosts, add(pTools, pick(r, "/workspace", "/tools", "/desk"), pick(r, "Workspace", "Quick actions", "Desk")))
	}
	if s.creds != nil {
		add(pSignIn, "/signin", "Sign in")
	}

	n := 0
	anyHost := func() *page { return hosts[r.IntN(len(hosts))] }
	newWidget := func(k wkind, pg *page, label string) *widget {
		if pg == nil { // the drawn page kind is absent from this app
			pg = anyHost()
		}
		n++
		w := &widget{Kind: k, ID: fmt.Sprintf("%s-%d", slug(label), n), Label: label, page: pg}
		pg.Widgets = append(pg.Widgets, w)
		return w
	}
	if controls {
		prefs := s.byKind[pPrefs]
		for i, lbl := range th.Prefs {
			if i < 2 || chance(0.5) {
				newWidget(wToggle, prefs, lbl)
			}
		}
		w := newWidget(wSelect, pick(r, prefs, s.byKind[pList], prefs), "Show")
		w.Options = opts(th.Views)
		w.Hot = 1 + r.IntN(len(w.Options)-1)
		w = newWidget(wRadio, prefs, pick(r, "Density", "Sort by", "Group by"))
		w.Options = opts(pickN(r, []string{"Name", "Date added", "Status", "Owner", "Size"}, 3))
		w.Hot = 1 + r.IntN(len(w.Options)-1)
		for i, lbl := range th.Actions {
			if i == 0 || chance(0.5) {
				host := prefs
				if i > 0 {
					host = anyHost()
				}
				w := newWidget(wFetch, host, lbl)
				w.Icon = chance(0.35)
				if i == 0 {
					w.Param = s.numberField(r)
				}
			}
		}
	}
	if want[wRole] || !controls {
		for i := range 1 + r.IntN(2) {
			w := newWidget(wRole, anyHost(), pick(r, "Mark all as read", "Archive done", "Pin to top", "Clear filters", "Copy summary"))
			w.Tag = []string{"div", "span", "a"}[(i+r.IntN(3))%3]
		}
	}
	tools := s.byKind[pTools]
	if want[wCombo] {
		w := newWidget(wCombo, tools, "Assign to")
		w.Options = opts(pickN(r, []string{"Alex Kim", "Bea Novak", "Carl Weiss", "Dana Fox", "Emil Sato", "Fern Diaz"}, 4))
		w.Hot = 1 + r.IntN(len(w.Options)-1)
	}
	if want[wModal] {
		newWidget(wModal, pick(r, tools, s.byKind[pList]), pick(r, "Archive finished "+s.many, "Reset counters", "Close the period"))
	}
	if want[wHover] {
		w := newWidget(wHover, pick(r, s.byKind[pHome], s.byKind[pList], anyHost()), "Pinned "+s.many)
		w.Options = opts(pickN(r, th.Samples, 3))
		w.Hot = r.IntN(len(w.Options))
	}
	if want[wShadow] {
		w := newWidget(wShadow, tools, pick(r, "Rating", "Counter", "Stars"))
		w.Tag = "x-" + slug(w.Label) + "-" + strconv.Itoa(n)
	}
	if want[wKeys] {
		newWidget(wKeys, pick(r, tools, s.byKind[pView]), pick(r, "Quick note", "Add a tag", "Jot down"))
	}
	if want[wFrame] {
		newWidget(wFrame, pick(r, tools, s.byKind[pHome], anyHost()), pick(r, "Sync widget", "Status panel", "Mini calendar"))
	}
	if want[wDblEdit] {
		newWidget(wDblEdit, s.byKind[pView], "Details")
	}
	if pg := s.byKind[pBoard]; pg != nil {
		w := newWidget(wRouter, pg, "Board views")
		w.Options = opts([]string{"Overview", "Activity", "Team", "Backlog"}[:3+r.IntN(2)])
		w.Hot = 1 + r.IntN(len(w.Options)-1)
	}
	if pg := s.byKind[pPlanner]; pg != nil {
		w := newWidget(wHash, pg, "Planner views")
		w.Options = opts([]string{"Week", "Month", "Quarter"})
		w.Hot = 1 + r.IntN(len(w.Options)-1)
	}
	// related links (broken-link sites)
	targets := []*page{}
	for _, pg := range s.pages {
		if pg.Kind != pView && pg.Kind != pEdit && pg.Kind != pSignIn {
			targets = append(targets, pg)
		}
	}
	for _, pg := range s.pages {
		if pg.Kind == pSignIn || pg.Kind == pEdit || pg.Kind == pNew || !chance(0.6) && pg.Kind != pHelp && pg.Kind != pHome {
			continue
		}
		for range 1 + r.IntN(2) {
			t := targets[r.IntN(len(targets))]
			if t == pg || slices.ContainsFunc(pg.Related, func(l *link) bool { return l.Href == t.Path }) {
				continue
			}
			pg.Related = append(pg.Related, &link{Text: relatedText(r, t), Href: t.Path})
		}
	}
	// drawn apart so that adding it left the other draws as they were
	s.fetchForms = rand.New(rand.NewPCG(uint64(s.seed), 2)).IntN(2) == 0
	s.idioms = s.idiomSet(controls)
}

func (s *site) idiomSet(controls bool) map[Idiom]bool {
	has := func(k wkind) bool {
		for _, pg := range s.pages {
			for _, w := range pg.Widgets {
				if w.Kind == k {
					return true
				}
			}
		}
		return false
	}
	return map[Idiom]bool{
		IdiomTopNav: !s.side, IdiomSidebar: s.side, IdiomCards: s.cards, IdiomDropdownNav: s.dropdown,
		IdiomRevealLinks: s.reveal && s.revealed() != nil, IdiomPagination: s.perPage > 0, IdiomControls: controls,
		IdiomRoleButtons: has(wRole), IdiomClientRouter: has(wRouter), IdiomHashRoutes: has(wHash),
		IdiomShadowDOM: has(wShadow), IdiomIframe: has(wFrame), IdiomHoverReveal: has(wHover),
		IdiomModal: has(wModal), IdiomCombobox: has(wCombo), IdiomDblClickEdit: has(wDblEdit),
		IdiomKeyboardOnly: has(wKeys), IdiomSignIn: s.creds != nil, IdiomMultiStep: s.multi,
		IdiomFileUpload: s.upload, IdiomFetchForms: s.fetchForms, IdiomSearch: s.byKind[pSearch] != nil, IdiomCardList: !s.tableList,
	}
}

// drawFields picks the record's fields: the title and 3 to 5 others, with
// at least one number and one long text.
func (s *site) drawFields(r *rand.Rand) {
	extra := slices.Clone(s.th.Extra)
	r.Shuffle(len(extra), func(i, j int) { extra[i], extra[j] = extra[j], extra[i] })
	k := 3 + r.IntN(3)
	chosen := slices.Clone(extra[:k])
	for _, need := range []kind{kNumber, kTextarea} {
		if !slices.ContainsFunc(chosen, func(f field) bool { return f.Kind == need }) {
			if i := slices.IndexFunc(extra, func(f field) bool { return f.Kind == need }); i >= 0 {
				chosen = append(chosen, extra[i])
			}
		}
	}
	// keep the theme's order so forms read naturally
	order := func(f field) int { return slices.IndexFunc(s.th.Extra, func(g field) bool { return g.Key == f.Key }) }
	slices.SortFunc(chosen, func(a, b field) int { return order(a) - order(b) })
	for i := range chosen {
		if chosen[i].Kind == kSelect && r.IntN(5) < 2 {
			chosen[i].Kind = kRadio
		}
	}
	s.fields = append([]field{s.th.Title}, chosen...)
}

// numberField returns a copy of one of the record's number fields.
func (s *site) numberField(r *rand.Rand) *field {
	var nums []field
	for _, f := range s.fields {
		if f.Kind == kNumber {
			nums = append(nums, f)
		}
	}
	f := nums[r.IntN(len(nums))]
	return &f
}

// revealed lists the pages whose links show only after "Show more".
func (s *site) revealed() []*page {
	if !s.reveal {
		return nil
	}
	var out []*page
	for _, k := range []pageKind{pHelp, pReports, pPlanner} {
		if pg := s.byKind[k]; pg != nil {
			out = append(out, pg)
		}
	}
	return out
}

// wizardGroups splits the fields into the steps of the create form.
func (s *site) wizardGroups() [][]field {
	if !s.multi {
		return [][]field{s.fields}
	}
	half := (len(s.fields) + 1) / 2
	return [][]field{s.fields[:half], s.fields[half:]}
}

func (s *site) field(key string) field {
	for _, f := range s.fields {
		if f.Key == key {
			return f
		}
	}
	return field{}
}

var accents = []string{"#1d4ed8", "#047857", "#b91c1c", "#6d28d9", "#0f766e", "#9a3412", "#334155", "#a21caf"}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

func pickN(r *rand.Rand, xs []string, n int) []string {
	c := slices.Clone(xs)
	r.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
	return c[:min(n, len(c))]
}

func opts(xs []string) []opt {
	out := make([]opt, len(xs))
	for i, x := range xs {
		out[i] = opt{Value: slug(x), Text: x}
	}
	return out
}

func relatedText(r *rand.Rand, t *page) string {
	switch t.Kind {
	case pHome:
		return "Back to the " + strings.ToLower(t.Title)
	case pList:
		return pick(r, "All ", "Browse ") + strings.ToLower(t.Title)
	}
	return pick(r, "", "Open ", "See ") + t.Title
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
