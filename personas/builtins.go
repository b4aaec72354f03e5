package personas

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/collector"
)

// Names of the built-in personas.
const (
	NewUser       = "new_user"
	PowerUser     = "power_user"
	Adversarial   = "adversarial"
	Accessibility = "accessibility"
	DataHeavy     = "data_heavy"
	Impatient     = "impatient"
	ReturningUser = "returning_user"
	Explorer      = "explorer"
)

// Builtins returns the eight built-in personas, standard team first.
func Builtins() []Persona {
	return []Persona{
		{Name: NewUser, Role: "a first-time user who discovers the app, keeps the defaults and follows onboarding",
			Focus:       []string{"discovery: every visible link and button", "defaults: submit forms as they come", "onboarding: get started, sign up, next, continue", "controls that do nothing, dead ends, confusing errors"},
			Keywords:    []string{"onboarding", "new user", "first", "signup", "sign up", "discover", "smoke", "happy path", "default"},
			NewStrategy: func() Strategy { return &newUser{m: memo{}} },
			Tricks:      []Trick{TrickClickButtons, TrickValidForm},
			Prefer:      leanKinds(1, ActionClick)},
		{Name: PowerUser, Role: "an expert user who works fast with the keyboard, bulk operations, filters and sorting",
			Focus:       []string{"keyboard: Enter to submit, Tab through forms, shortcuts", "bulk: select all, act on many rows at once", "filters and search", "sorting every column both ways"},
			Keywords:    []string{"power", "bulk", "keyboard", "shortcut", "filter", "sort", "table", "batch"},
			NewStrategy: func() Strategy { return &powerUser{m: memo{}} },
			Tricks:      []Trick{TrickPaginate, TrickSelect},
			Prefer:      leanKinds(1.5, ActionSelect, ActionCheck, ActionUncheck, ActionPress)},
		{Name: Adversarial, Role: "a hostile tester who feeds the app malicious and malformed input",
			Focus:       []string{"injection: XSS probes (a marker is logged when one runs), SQL and template injection", "over-long, unicode, negative and boundary values", "empty submits", "rapid repeated clicks"},
			Keywords:    []string{"security", "xss", "injection", "adversarial", "attack", "malicious", "fuzz", "validation", "input"},
			NewStrategy: func() Strategy { return &adversarial{m: memo{}} },
			Tricks:      []Trick{TrickXSS, TrickDouble, TrickCatalogue, TrickLong, TrickExotic, TrickDropSession},
			Prefer:      leanHostile},
		{Name: Accessibility, Role: "an accessibility auditor who uses only the keyboard and checks every page with axe-core",
			Focus:       []string{"axe-core serious and critical violations on every page", "keyboard-only paths: Tab, Shift+Tab, Enter, Space, Escape", "focus order and visible focus", "names and labels of controls and images"},
			Keywords:    []string{"accessibility", "a11y", "axe", "wcag", "screen reader", "keyboard only", "aria", "label", "contrast"},
			NewStrategy: func() Strategy { return &accessibility{m: memo{}} },
			Tricks:      []Trick{TrickKeyboard, TrickClickButtons},
			Prefer:      leanKinds(1, ActionPress)},
		{Name: DataHeavy, Role: "a user with a lot of data: many records, large inputs and long lists",
			Focus:       []string{"many records: add repeatedly", "large inputs and files", "pagination to the last page, load more, show all", "slow responses"},
			Keywords:    []string{"data", "pagination", "large", "many", "volume", "performance", "slow", "records", "list"},
			NewStrategy: func() Strategy { return &dataHeavy{} },
			Tricks:      []Trick{TrickPaginate, TrickLong, TrickSelect, TrickExotic},
			Prefer:      leanKinds(1.5, ActionSelect, ActionCheck, ActionUncheck, ActionPress)},
		{Name: Impatient, Role: "an impatient user who double-submits, reloads and goes back while requests run",
			Focus:       []string{"double submits", "reloading and navigating mid-request", "going back during a submit", "duplicate records, lost state"},
			Keywords:    []string{"impatient", "double", "race", "reload", "refresh", "duplicate", "concurrency", "submit", "checkout", "payment"},
			NewStrategy: func() Strategy { return &impatient{m: memo{}} },
			Tricks:      []Trick{TrickDouble, TrickValidForm},
			Prefer:      leanKinds(3, ActionDblClick)},
		{Name: ReturningUser, Role: "a returning user whose cookies and storage were cleared or whose session expired, arriving from bookmarks and history",
			Focus:       []string{"cleared cookies and storage", "expired sessions", "cached and bookmarked pages opened directly", "back and forward through history"},
			Keywords:    []string{"returning", "session", "cookie", "storage", "login", "logout", "expired", "cache", "bookmark", "history", "back"},
			NewStrategy: func() Strategy { return &returningUser{m: memo{}} },
			Tricks:      []Trick{TrickDropSession, TrickXSS}},
		{Name: Explorer, Role: "a coverage-driven explorer who seeks page states not seen yet",
			Focus:    []string{"reach every screen: prefer actions that lead to unseen states", "broken links and deep pages", "errors off the main paths"},
			Keywords: []string{"explore", "coverage", "crawl", "everything", "broken link", "404", "deep"},
			Tricks:   []Trick{TrickClickButtons, TrickValidForm},
			Prefer:   leanKinds(1, ActionClick)},
	}
}

// ---- new user -------------------------------------------------------------

var onboardingWords = []string{"get started", "start", "sign up", "begin", "welcome", "tour", "try", "continue", "next", "create", "join", "done", "finish"}

type newUser struct{ m memo }

func (n *newUser) Next(s Step) (browser.Intent, error) {
	page := s.Snapshot.URL
	// empty fields get plain, valid values; filled ones keep their defaults
	for _, e := range n.m.untried(page, Filter(s.Elements, isFillable)) {
		n.m.mark(key(page, e))
		if e.Value == "" {
			return Fill(e, ValidValue(FieldOf(e, nil))), nil
		}
	}
	fresh := n.m.untried(page, Filter(s.Elements, isClickable))
	choice := Named(fresh, nil, onboardingWords...)
	if len(choice) == 0 {
		choice = fresh
	}
	if len(choice) > 0 {
		e := choice[0]
		if len(choice) > 1 && s.Rand.IntN(4) == 0 { // mostly the obvious next step, sometimes a detour
			e, _ = Pick(s.Rand, choice)
		}
		n.m.mark(key(page, e))
		return Click(e), nil
	}
	return browser.Intent{}, ErrPass
}

// ---- power user -----------------------------------------------------------

var (
	bulkWords   = []string{"select all", "all"}
	bulkActions = []string{"delete selected", "selected", "bulk", "archive", "mark", "export", "apply", "delete", "remove"}
	sortWords   = []string{"sort", "order", "ascending", "descending", "newest", "oldest", "price", "name", "date"}
	filterWords = []string{"filter", "search", "find", "query"}
)

type powerUser struct {
	m       memo
	pending []browser.Intent
}

func (p *powerUser) Next(s Step) (browser.Intent, error) {
	if len(p.pending) > 0 {
		in := p.pending[0]
		p.pending = p.pending[1:]
		return in, nil
	}
	page := s.Snapshot.URL
	use := func(e Element) { p.m.mark(key(page, e)) }
	boxes := p.m.untried(page, Filter(s.Elements, func(e Element) bool { return e.Role == "checkbox" && !e.Has("disabled") }))
	// bulk: select all (or every row), then the bulk action
	if all := Named(boxes, nil, bulkWords...); len(all) > 0 {
		use(all[0])
		p.queueBulk(s, page)
		return Click(all[0]), nil
	}
	if len(boxes) > 1 {
		for _, b := range boxes[1:] {
			use(b)
			p.pending = append(p.pending, Click(b))
		}
		use(boxes[0])
		p.queueBulk(s, page)
		return Click(boxes[0]), nil
	}
	// filters: type and press Enter, keyboard only
	if f := Named(p.m.untried(page, Filter(s.Elements, isFillable)), nil, filterWords...); len(f) > 0 {
		use(f[0])
		p.pending = append(p.pending, Press(f[0], "Enter"))
		return Fill(f[0], []string{"a", "zz", "1"}[s.Rand.IntN(3)]), nil
	}
	// sorting: comboboxes through every option, sortable headers and buttons twice
	for _, c := range p.m.untried(page, Filter(s.Elements, func(e Element) bool { return e.Role == "combobox" && len(e.Options) > 0 })) {
		use(c)
		for _, o := range c.Options[1:] {
			p.pending = append(p.pending, browser.Intent{Action: browser.ActSelectOption, Target: c.Ref, Value: &o})
		}
		o := c.Options[0]
		return browser.Intent{Action: browser.ActSelectOption, Target: c.Ref, Value: &o}, nil
	}
	sorters := Named(p.m.untried(page, Filter(s.Elements, func(e Element) bool { return isButton(e) || e.Role == "columnheader" || isLink(e) })), nil, sortWords...)
	if len(sorters) > 0 {
		use(sorters[0])
		return Click(sorters[0]), nil
	}
	// otherwise move on through the app model
	return browser.Intent{}, ErrPass
}

// queueBulk schedules the page's bulk action after the selection.
func (p *powerUser) queueBulk(s Step, page string) {
	acts := Named(Filter(s.Elements, isButton), nil, bulkActions...)
	if len(acts) > 0 {
		p.m.mark(key(page, acts[0]))
		p.pending = append(p.pending, Click(acts[0]))
	}
}

// ---- adversarial ----------------------------------------------------------

// adversarial payloads; %s is the probe token for XSS payloads.
var (
	xssPayloads = []string{
		`<img src onerror="console.error('` + collector.XSSMarker + `%s')">`,
		`"><svg onload="console.error('` + collector.XSSMarker + `%s')">`,
		`</textarea><script>console.error('` + collector.XSSMarker + `%s')</script>`,
	}
	hostilePayloads = []string{
		`' OR '1'='1' --`,
		`{{7*7}}${7*7}`,
		strings.Repeat("A", 5000),
		"Zoë 🧪 \u202Eevil\u202C 𝕌𝕟𝕚𝕔𝕠𝕕𝕖 ثلاثة",
		"-1",
		"0",
		"2147483648",
		"99999999999999999999",
		"",
	}
)

type adversarial struct {
	m       memo
	n       int // payloads used
	pending []browser.Intent
}

func (a *adversarial) Next(s Step) (browser.Intent, error) {
	if len(a.pending) > 0 {
		in := a.pending[0]
		a.pending = a.pending[1:]
		return in, nil
	}
	page := s.Snapshot.URL
	fields := Filter(s.Elements, isFillable)
	if len(fields) > 0 && a.n < 40 {
		f := fields[s.Rand.IntN(len(fields))]
		payload := a.payload(s)
		in := Fill(f, payload)
		if b, ok := SubmitButton(s.Elements); ok {
			a.pending = append(a.pending, Click(b))
		} else {
			a.pending = append(a.pending, Press(f, "Enter"))
		}
		return in, nil
	}
	// rapid clicks on one control, then move on
	if e, ok := Pick(s.Rand, a.m.untried(page, Filter(s.Elements, isClickable))); ok {
		a.m.mark(key(page, e))
		if isButton(e) {
			a.pending = append(a.pending, Click(e), Click(e))
		}
		return Click(e), nil
	}
	return browser.Intent{}, ErrPass
}

// payload cycles XSS probes with hostile values, in a seeded order.
func (a *adversarial) payload(s Step) string {
	a.n++
	if a.n%2 == 1 {
		tpl := xssPayloads[((a.n-1)/2+s.Rand.IntN(len(xssPayloads)))%len(xssPayloads)]
		return fmt.Sprintf(tpl, fmt.Sprintf("p%d", a.n))
	}
	return hostilePayloads[s.Rand.IntN(len(hostilePayloads))]
}

// ---- accessibility --------------------------------------------------------

type accessibility struct {
	m       memo
	tabs    int
	visited map[string]bool
}

// Next walks each page with the keyboard (Tab through it, Enter on what
// has focus) and then opens the page's links it has not audited yet; axe
// runs on every page through the collector.
func (a *accessibility) Next(s Step) (browser.Intent, error) {
	if a.visited == nil {
		a.visited = map[string]bool{}
	}
	page := pathQuery(s.Snapshot.URL)
	a.visited[page] = true
	if a.tabs < 6 {
		a.tabs++
		key := "Tab"
		if a.tabs == 4 {
			key = "Shift+Tab"
		}
		return browser.Intent{Action: browser.ActPress, Key: key}, nil
	}
	if a.tabs == 6 {
		a.tabs++
		return browser.Intent{Action: browser.ActPress, Key: "Enter"}, nil
	}
	a.tabs = 0
	var links []string
	for _, e := range Filter(s.Elements, isLink) {
		if u := e.URL; u != "" && !strings.HasPrefix(u, "#") && !strings.Contains(u, "://") && !a.visited[pathQuery(u)] {
			links = append(links, u)
		}
	}
	slices.Sort(links)
	links = slices.Compact(links)
	if len(links) > 0 {
		u := links[s.Rand.IntN(len(links))]
		a.visited[pathQuery(u)] = true
		return Navigate(u), nil
	}
	return browser.Intent{}, ErrPass
}

// ---- data-heavy -----------------------------------------------------------

var pageWords = []string{"next", "more", "load more", "show all", "older", "»", "›", "last"}

type dataHeavy struct {
	adds  int
	large bool
}

func (d *dataHeavy) Next(s Step) (browser.Intent, error) {
	// pagination first: keep paging to the end
	if p := Named(Filter(s.Elements, isClickable), nil, pageWords...); len(p) > 0 {
		return Click(p[0]), nil
	}
	// large inputs, then many records
	if fields := Filter(s.Elements, isFillable); len(fields) > 0 && d.adds < 8 {
		f := fields[d.adds%len(fields)]
		d.adds++
		v := fmt.Sprintf("record %d ", d.adds)
		if !d.large {
			d.large = true
			v = strings.Repeat("large input ", 1000)
		}
		return Fill(f, v), nil
	}
	if b, ok := SubmitButton(s.Elements); ok && d.adds > 0 && d.adds < 8 {
		return Click(b), nil
	}
	return browser.Intent{}, ErrPass
}

// ---- impatient ------------------------------------------------------------

type impatient struct {
	m       memo
	pending []browser.Intent
}

// Next fills what is needed with something short, then submits twice in a
// row, reloads, and goes back — the moves of a user who does not wait.
func (im *impatient) Next(s Step) (browser.Intent, error) {
	if len(im.pending) > 0 {
		in := im.pending[0]
		im.pending = im.pending[1:]
		return in, nil
	}
	page := s.Snapshot.URL
	for _, f := range Filter(s.Elements, isFillable) {
		if f.Value == "" && !im.m.done(key(page, f)) {
			im.m.mark(key(page, f))
			return Fill(f, ValidValue(FieldOf(f, nil))), nil
		}
	}
	if b, ok := SubmitButton(im.m.untried(page, s.Elements)); ok {
		im.m.mark(key(page, b))
		im.pending = []browser.Intent{Click(b), {Action: browser.ActReload}, {Action: browser.ActGoBack}}
		if s.Rand.IntN(2) == 0 {
			im.pending[1], im.pending[2] = im.pending[2], im.pending[1]
		}
		return Click(b), nil
	}
	return browser.Intent{}, ErrPass
}

// ---- returning user -------------------------------------------------------

type returningUser struct {
	m       memo
	history []string // pages visited before the data was cleared, in order
	phase   int      // 0 browsing, 1 cleared: revisiting
	visit   int
	pending []browser.Intent
}

// Next browses for a while (remembering pages), then clears cookies and
// storage (browser.ActClearSiteData), reopens the remembered pages
// directly, reloads and walks back through history.
func (r *returningUser) Next(s Step) (browser.Intent, error) {
	if len(r.pending) > 0 {
		in := r.pending[0]
		r.pending = r.pending[1:]
		return in, nil
	}
	page := s.Snapshot.URL
	if r.phase == 0 {
		if p := pathQuery(page); page != "" && !slices.Contains(r.history, p) && !strings.HasPrefix(p, collector.Prefix) {
			r.history = append(r.history, p)
		}
		links := r.m.untried(page, Filter(s.Elements, isLink))
		if len(links) > 0 && len(r.history) < 5 && s.N < 8 {
			e, _ := Pick(s.Rand, links)
			r.m.mark(key(page, e))
			return Click(e), nil
		}
		r.phase = 1
		return browser.Intent{Action: browser.ActClearSiteData}, nil
	}
	if r.visit < len(r.history) {
		u := r.history[len(r.history)-1-r.visit] // the latest pages first: bookmarks and open tabs
		r.visit++
		r.pending = []browser.Intent{{Action: browser.ActReload}}
		return Navigate(u), nil
	}
	if r.visit < len(r.history)+3 {
		r.visit++
		return browser.Intent{Action: browser.ActGoBack}, nil
	}
	return browser.Intent{}, ErrPass
}
