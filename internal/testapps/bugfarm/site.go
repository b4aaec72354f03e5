package bugfarm

import (
	"fmt"
	"html/template"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultSlowDelay is how long slow_response bugs take unless
// Options.SlowDelay says otherwise.
const DefaultSlowDelay = 3500 * time.Millisecond

// BugHeader is the response header naming the bug a server-side firing
// belongs to.
const BugHeader = "X-Bugfarm-Bug"

// site is a generated app: its plan (fixed at Generate) and its state.
type site struct {
	seed int64
	opts Options
	log  *slog.Logger

	th                        theme
	product, one, many, coll  string
	fields                    []field
	accent                    string
	side, cards, dropdown     bool
	reveal, tableList         bool
	multi, upload             bool
	fetchForms                bool // the create form posts through fetch()
	perPage                   int
	creds                     *Credentials
	pages                     []*page
	byKind                    map[pageKind]*page
	idioms                    map[Idiom]bool
	bugs                      []*placed
	newField, editField       map[string]*placed
	searchQ, listQ, storedXSS *placed
	double, export, timeline  *placed
	wizard, logo, image       *placed

	ids  map[string]string  // DOM ids of the fixed controls, drawn per seed
	tmpl *template.Template // pageTemplates with this app's ids

	st store
}

// record is one stored record.
type record struct {
	ID     int
	Values map[string]string
	File   string
	Mine   bool   // created through the app, not seeded
	DupBug string // the double_submit bug that made this row a duplicate
	token  string
}

// copy returns r with its own values map (readers render without the lock).
func (r *record) copy() record {
	c := *r
	c.Values = maps.Clone(r.Values)
	return c
}

// store is the app's mutable state.
type store struct {
	mu       sync.Mutex
	recs     []*record
	next     int
	tokens   map[string]int // form token -> record made with it
	issued   int
	sessions map[string]bool
	nsess    int
}

// Generate builds the app of seed. The same seed and options give the same
// app, byte for byte: structure, bugs and triggers are drawn from a PCG
// seeded with seed, and options only switch bugs on or off.
func Generate(seed int64, opts Options) *App {
	if opts.SlowDelay <= 0 {
		opts.SlowDelay = DefaultSlowDelay
	}
	s := &site{seed: seed, opts: opts, newField: map[string]*placed{}, editField: map[string]*placed{}}
	s.log = opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x62756766_61726d21))
	s.drawIDs()
	s.plan(r)
	s.placeBugs(r)
	s.seedRecords(r)
	off := map[string]bool{}
	for _, id := range opts.Disabled {
		off[strings.ToLower(strings.TrimSpace(id))] = true
	}
	app := &App{Seed: seed, SignIn: s.creds}
	for _, p := range s.bugs {
		p.on = !opts.Fixed && !off[p.ID]
		app.All = append(app.All, p.Bug)
		if p.on {
			app.Bugs = append(app.Bugs, p.Bug)
		}
	}
	for _, id := range allIdioms() {
		if s.idioms[id] {
			app.Idioms = append(app.Idioms, id)
		}
	}
	for _, pg := range s.pages {
		app.Pages = append(app.Pages, pg.Path)
		for _, w := range pg.Widgets {
			if w.Kind == wRouter {
				for _, o := range w.Options {
					app.Pages = append(app.Pages, pg.Path+"/"+o.Value)
				}
			}
		}
	}
	app.handler, app.site = s.routes(), s
	return app
}

// seedRecords fills the store with the app's first records.
func (s *site) seedRecords(r *rand.Rand) {
	n := 3 + r.IntN(4)
	if s.perPage > 0 {
		n = 2*s.perPage + 1 + r.IntN(s.perPage)
	}
	s.st.tokens = map[string]int{}
	s.st.sessions = map[string]bool{}
	for i := range n {
		v := map[string]string{}
		for _, f := range s.fields {
			v[f.Key] = sampleValue(r, f, i, s.th.Samples)
		}
		s.st.next++
		s.st.recs = append(s.st.recs, &record{ID: s.st.next, Values: v})
	}
}

// sampleValue draws a valid value of f for the i-th seeded record.
func sampleValue(r *rand.Rand, f field, i int, names []string) string {
	switch f.Kind {
	case kNumber:
		return strconv.Itoa(f.Min + r.IntN(min(f.Max-f.Min+1, 200)))
	case kSelect, kRadio:
		return f.Options[r.IntN(len(f.Options))]
	case kDate:
		return fmt.Sprintf("2025-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28))
	case kCheckbox:
		if r.IntN(2) == 0 {
			return "on"
		}
		return ""
	}
	if f.Key == "title" || f.Key == "name" || f.Key == "subject" || f.Key == "patient" || f.Key == "plate" || f.Key == "destination" {
		name := names[i%len(names)]
		if i >= len(names) {
			name += " " + strconv.Itoa(i/len(names)+1)
		}
		return name
	}
	return f.Sample
}

// records returns a copy of the records, newest first.
func (s *site) records() []record {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	out := make([]record, 0, len(s.st.recs))
	for _, r := range slices.Backward(s.st.recs) {
		out = append(out, r.copy())
	}
	return out
}

// recordByID returns a copy of record id.
func (s *site) recordByID(id int) (record, bool) {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	for _, r := range s.st.recs {
		if r.ID == id {
			return r.copy(), true
		}
	}
	return record{}, false
}

// token issues a form token.
func (s *site) token() string {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	s.st.issued++
	return "t" + strconv.Itoa(s.st.issued)
}

// insertResult says what insert did.
type insertResult int

const (
	inserted insertResult = iota // a new record
	repeated                     // the token was used: the record it made
	clash                        // the token was used and double_submit (5xx) is on
)

// insert stores a new record made with token. A token already used gives
// back the record it made, unless the double_submit bug is on: then a
// duplicate row is stored, marked with the bug's id, or (dup5x) nothing is
// stored and the caller answers 500.
func (s *site) insert(values map[string]string, file, token string) (record, insertResult) {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	if prev, seen := s.st.tokens[token]; seen && token != "" {
		id := s.double.fires()
		switch {
		case id != "" && s.double.dup5x:
			return record{}, clash
		case id == "":
			for _, r := range s.st.recs {
				if r.ID == prev {
					return r.copy(), repeated
				}
			}
		default:
			s.st.next++
			nr := &record{ID: s.st.next, Values: values, File: file, Mine: true, DupBug: id, token: token}
			s.st.recs = append(s.st.recs, nr)
			return nr.copy(), inserted
		}
	}
	s.st.next++
	nr := &record{ID: s.st.next, Values: values, File: file, Mine: true, token: token}
	s.st.recs = append(s.st.recs, nr)
	if token != "" {
		s.st.tokens[token] = nr.ID
	}
	return nr.copy(), inserted
}

// update changes one record's values.
func (s *site) update(id int, values map[string]string) bool {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	for _, r := range s.st.recs {
		if r.ID == id {
			for k, v := range values {
				r.Values[k] = v
			}
			return true
		}
	}
	return false
}

// newSession starts a session and returns its cookie value.
func (s *site) newSession() string {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	s.st.nsess++
	id := fmt.Sprintf("s%d-%d", s.seed, s.st.nsess)
	s.st.sessions[id] = true
	return id
}

func (s *site) hasSession(id string) bool {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	return s.st.sessions[id]
}

func (s *site) endSession(id string) {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	delete(s.st.sessions, id)
}

// drawIDs picks the DOM ids of the app's fixed controls (from a PCG of its
// own, so the other draws stay as they were), and the templates that use
// them.
func (s *site) drawIDs() {
	r := rand.New(rand.NewPCG(uint64(s.seed), 3))
	choose := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	s.ids = map[string]string{
		"record-submit":   choose("record-submit", "save-record", "submit-form", "create-btn"),
		"wizard-next":     choose("wizard-next", "next-step", "continue-btn"),
		"wizard-confirm":  choose("wizard-confirm", "confirm-create", "finish-btn"),
		"export":          choose("export", "export-csv", "download-list"),
		"timeline":        choose("timeline", "show-history", "history-btn"),
		"f-":              choose("f-", "field-", "in-"),
		"list-q":          choose("list-q", "filter-text", "list-filter"),
		"search-q":        choose("search-q", "search-box", "query"),
		"signin-user":     choose("signin-user", "login-email", "email"),
		"signin-password": choose("signin-password", "login-password", "password"),
		"signin-submit":   choose("signin-submit", "login-btn", "sign-in"),
	}
	s.tmpl = template.Must(pageTemplates.Clone()).Funcs(template.FuncMap{"id": s.domID})
}

// domID is the app's DOM id for the control named k.
func (s *site) domID(k string) string {
	if v, ok := s.ids[k]; ok {
		return v
	}
	return k
}
