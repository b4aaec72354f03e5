package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentgraph/agentgraph/graph"
	"github.com/agentgraph/agentgraph/memory/internal/storekit"
)

// QAKind names one namespace of an app's QA memory.
type QAKind string

// The namespaces of an app's QA memory, each under ["qa", <app id>, <kind>].
const (
	KindPages        QAKind = "pages"        // PageRecord per normalised page
	KindSelectors    QAKind = "selectors"    // SelectorRecord per page and selector
	KindQuirks       QAKind = "quirks"       // Quirk per page and text
	KindObservations QAKind = "observations" // Observation, one per note
	KindSessions     QAKind = "sessions"     // SessionSummary per mission thread
	KindBugs         QAKind = "bugs"         // BugEntry per fingerprint
	KindProcedures   QAKind = "procedures"   // Procedure per persona, routing rules
)

// QARoot is the first namespace element of all QA memory.
const QARoot = "qa"

// Limits on what the QA memory keeps.
const (
	maxEvidenceSample = 500  // runes per stored evidence sample
	maxTextLen        = 2000 // runes per quirk, observation, supplement line
	qaPageSize        = 200  // items per Search page when listing
)

// ErrUnknownBug is returned (wrapped together with graph.ErrNotFound) by
// MarkFixed and Bug for a fingerprint that is not in the catalog.
var ErrUnknownBug = errors.New("qa memory: unknown bug")

// ErrInvalidQAInput is wrapped by every error about bad caller or model input
// (an empty kind, a bad URL, an unknown severity, bad tool arguments).
var ErrInvalidQAInput = errors.New("qa memory: invalid input")

func qaInvalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidQAInput, fmt.Sprintf(format, args...))
}

// QA is the QA knowledge model of one web app (one origin) on a graph.Store:
// pages, selectors, quirks, observations, sessions, the bug catalog and
// procedures, plus the page-risk view built from them. It works on any Store
// back-end. A QA is safe for concurrent use; read-modify-write updates are
// serialised within one QA value, not across processes sharing a store.
type QA struct {
	store    graph.Store
	origin   string
	host     string
	app      string
	now      func() time.Time
	log      *slog.Logger
	weights  RiskWeights
	samples  int
	mu       sync.Mutex
	obsCount uint64
}

// QAOption configures NewQA.
type QAOption func(*QA)

// WithQAClock sets the clock used for timestamps and recency (tests).
func WithQAClock(now func() time.Time) QAOption { return func(q *QA) { q.now = now } }

// WithQALogger sets the logger (default slog.Default()).
func WithQALogger(l *slog.Logger) QAOption { return func(q *QA) { q.log = l } }

// WithRiskWeights replaces the page-risk weights (see DefaultRiskWeights).
func WithRiskWeights(w RiskWeights) QAOption { return func(q *QA) { q.weights = w } }

// WithEvidenceSamples bounds the raw evidence samples kept per bug (default 5).
func WithEvidenceSamples(n int) QAOption {
	return func(q *QA) {
		if n > 0 {
			q.samples = n
		}
	}
}

// NewQA returns the QA memory of the app served at origin (for example
// "http://localhost:8080"; a path is ignored). The app id is a short hash of
// the normalised origin (lower-cased scheme and host, default port dropped).
func NewQA(store graph.Store, origin string, opts ...QAOption) (*QA, error) {
	if store == nil {
		return nil, qaInvalid("nil store")
	}
	norm, host, err := NormalizeOrigin(origin)
	if err != nil {
		return nil, err
	}
	q := &QA{
		store:   store,
		origin:  norm,
		host:    host,
		app:     AppID(norm),
		now:     time.Now,
		log:     slog.Default(),
		weights: DefaultRiskWeights(),
		samples: 5,
	}
	for _, o := range opts {
		o(q)
	}
	return q, nil
}

// NormalizeOrigin returns scheme://host[:port] of rawURL, lower-cased, with
// the scheme's default port dropped, and the host part alone.
func NormalizeOrigin(rawURL string) (origin, host string, err error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return "", "", fmt.Errorf("%w: origin %q: %v", ErrInvalidQAInput, rawURL, err)
	}
	if u.Scheme == "" || u.Host == "" {
		return "", "", qaInvalid("origin %q: want scheme://host[:port]", rawURL)
	}
	scheme := strings.ToLower(u.Scheme)
	host = strings.ToLower(u.Hostname())
	port := u.Port()
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	hp := host
	if strings.Contains(host, ":") { // IPv6
		hp = "[" + host + "]"
	}
	if port != "" {
		hp += ":" + port
	}
	return scheme + "://" + hp, hp, nil
}

// AppID is the short hash that names an origin's namespaces.
func AppID(normalizedOrigin string) string { return qaHash(normalizedOrigin)[:12] }

// Origin is the normalised origin of the app.
func (q *QA) Origin() string { return q.origin }

// AppID is the short hash of the origin used in namespaces.
func (q *QA) AppID() string { return q.app }

// Namespace returns ["qa", <app id>, kind].
func (q *QA) Namespace(kind QAKind) []string { return []string{QARoot, q.app, string(kind)} }

// Page returns the page identity of rawURL (absolute, or relative to the
// origin): NormalizePage's form, prefixed with "//host" when the URL belongs
// to another origin.
func (q *QA) Page(rawURL string) (string, error) {
	_, page, err := q.resolve(rawURL)
	return page, err
}

// resolve makes rawURL absolute against the origin and returns it with its page.
func (q *QA) resolve(rawURL string) (abs, page string, err error) {
	raw := strings.TrimSpace(rawURL)
	if raw == "" {
		return "", "", qaInvalid("empty url")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", fmt.Errorf("%w: url %q: %v", ErrInvalidQAInput, rawURL, err)
	}
	base, _ := url.Parse(q.origin) // validated by NewQA
	u = base.ResolveReference(u)
	if u.Host == "" {
		return "", "", qaInvalid("url %q has no host", rawURL)
	}
	u.Fragment = ""
	page = qaNormalizeURL(u)
	if _, host, err := NormalizeOrigin(u.Scheme + "://" + u.Host); err != nil || host != q.host {
		page = "//" + strings.ToLower(u.Host) + page
	}
	return u.String(), page, nil
}

// ---- generic store helpers ----

func (q *QA) put(ctx context.Context, kind QAKind, key string, v any, index []string) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("qa memory: encode %s/%s: %w", kind, key, err)
	}
	opts := &graph.PutOptions{Index: index, NoIndex: index == nil}
	if err := q.store.Put(ctx, q.Namespace(kind), key, b, opts); err != nil {
		return fmt.Errorf("qa memory: put %s/%s: %w", kind, key, err)
	}
	return nil
}

// get loads one value; found is false for a missing key.
func qaGet[T any](ctx context.Context, q *QA, kind QAKind, key string) (v T, found bool, err error) {
	it, err := q.store.Get(ctx, q.Namespace(kind), key)
	if errors.Is(err, graph.ErrNotFound) {
		return v, false, nil
	}
	if err != nil {
		return v, false, fmt.Errorf("qa memory: get %s/%s: %w", kind, key, err)
	}
	if err := json.Unmarshal(it.Value, &v); err != nil {
		bad := &CorruptRecordsError{Records: []CorruptRecord{{Namespace: q.Namespace(kind), Key: key, Err: err}}}
		return v, false, fmt.Errorf("qa memory: decode %s/%s: %w", kind, key, bad)
	}
	return v, true, nil
}

// qaList loads every value of a namespace (optionally filtered), page by page.
// Records that do not decode (in the store, or into T) are skipped, so one
// corrupt item does not hide the rest; they come back as a
// *CorruptRecordsError together with the values that decoded.
func qaList[T any](ctx context.Context, q *QA, kind QAKind, filter graph.Filter) ([]T, error) {
	var out []T
	var bad storekit.CorruptSet
	for offset := 0; ; offset += qaPageSize {
		items, err := q.store.Search(ctx, q.Namespace(kind), graph.SearchQuery{Filter: filter, Limit: qaPageSize, Offset: offset})
		if err := bad.Keep(err); err != nil {
			return nil, fmt.Errorf("qa memory: list %s: %w", kind, err)
		}
		for _, it := range items {
			var v T
			if err := json.Unmarshal(it.Value, &v); err != nil {
				bad.Add(it.Namespace, it.Key, err)
				continue
			}
			out = append(out, v)
		}
		if len(items) < qaPageSize {
			break
		}
	}
	if err := bad.Err(); err != nil {
		q.log.Warn("qa memory: skipping records that do not decode", "kind", kind, "err", err)
		return out, fmt.Errorf("qa memory: list %s: %w", kind, err)
	}
	return out, nil
}

// ---- pages ----

// PageRecord is what the memory knows of one page.
type PageRecord struct {
	Page      string    `json:"page"` // normalised, see QA.Page
	URL       string    `json:"url"`  // last absolute URL visited
	Title     string    `json:"title,omitempty"`
	Visits    int       `json:"visits"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
}

// RecordPageVisit counts a visit of rawURL and remembers its title.
func (q *QA) RecordPageVisit(ctx context.Context, rawURL, title string) (PageRecord, error) {
	abs, page, err := q.resolve(rawURL)
	if err != nil {
		return PageRecord{}, fmt.Errorf("record page visit: %w", err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	key := qaHash(page)
	rec, found, err := qaGet[PageRecord](ctx, q, KindPages, key)
	if err != nil {
		return PageRecord{}, err
	}
	now := q.now().UTC()
	if !found {
		rec = PageRecord{Page: page, FirstSeen: now}
	}
	rec.URL = abs
	if t := strings.TrimSpace(title); t != "" {
		rec.Title = qaTruncateRunes(t, 200)
	}
	rec.Visits++
	rec.LastSeen = now
	return rec, q.put(ctx, KindPages, key, rec, nil)
}

// Pages lists the known pages, most visited first.
func (q *QA) Pages(ctx context.Context) ([]PageRecord, error) {
	pages, err := qaList[PageRecord](ctx, q, KindPages, nil)
	if !IsCorruptOnly(err) {
		return nil, err
	}
	sort.Slice(pages, func(i, j int) bool {
		if pages[i].Visits != pages[j].Visits {
			return pages[i].Visits > pages[j].Visits
		}
		return pages[i].Page < pages[j].Page
	})
	return pages, err
}

// ---- selectors ----

// SelectorRecord counts how often a selector worked on a page.
type SelectorRecord struct {
	Page      string    `json:"page"`
	Selector  string    `json:"selector"`
	Successes int       `json:"successes"`
	Failures  int       `json:"failures"`
	LastError string    `json:"last_error,omitempty"`
	LastSeen  time.Time `json:"last_seen"`
}

// RecordSelector counts one use of selector on the page of rawURL; errText
// (optional) describes a failure.
func (q *QA) RecordSelector(ctx context.Context, rawURL, selector string, ok bool, errText string) (SelectorRecord, error) {
	if ok {
		return q.AddSelectorUses(ctx, rawURL, selector, 1, 0, "")
	}
	return q.AddSelectorUses(ctx, rawURL, selector, 0, 1, errText)
}

// AddSelectorUses counts successes and failures of selector on the page of
// rawURL at once (a session's tally); errText (optional) describes the
// latest failure.
func (q *QA) AddSelectorUses(ctx context.Context, rawURL, selector string, successes, failures int, errText string) (SelectorRecord, error) {
	if successes < 0 || failures < 0 {
		return SelectorRecord{}, fmt.Errorf("record selector: %w", qaInvalid("negative count"))
	}
	_, page, err := q.resolve(rawURL)
	if err != nil {
		return SelectorRecord{}, fmt.Errorf("record selector: %w", err)
	}
	selector = strings.TrimSpace(selector)
	if selector == "" {
		return SelectorRecord{}, fmt.Errorf("record selector: %w", qaInvalid("empty selector"))
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	key := qaHash(page, selector)
	rec, found, err := qaGet[SelectorRecord](ctx, q, KindSelectors, key)
	if err != nil {
		return SelectorRecord{}, err
	}
	if !found {
		rec = SelectorRecord{Page: page, Selector: qaTruncateRunes(selector, 500)}
	}
	rec.Successes += successes
	rec.Failures += failures
	if e := strings.TrimSpace(errText); e != "" && failures > 0 {
		rec.LastError = qaTruncateRunes(e, 300)
	}
	rec.LastSeen = q.now().UTC()
	return rec, q.put(ctx, KindSelectors, key, rec, nil)
}

// Selectors lists the selector records, most failures first.
func (q *QA) Selectors(ctx context.Context) ([]SelectorRecord, error) {
	recs, err := qaList[SelectorRecord](ctx, q, KindSelectors, nil)
	if !IsCorruptOnly(err) {
		return nil, err
	}
	sort.Slice(recs, func(i, j int) bool {
		if recs[i].Failures != recs[j].Failures {
			return recs[i].Failures > recs[j].Failures
		}
		if recs[i].Page != recs[j].Page {
			return recs[i].Page < recs[j].Page
		}
		return recs[i].Selector < recs[j].Selector
	})
	return recs, err
}

// ---- quirks ----

// Quirk is a known peculiarity of a page ("the save button is enabled only
// after a blur"), deduplicated by page and normalised text.
type Quirk struct {
	Page      string    `json:"page"`
	Text      string    `json:"text"`
	Persona   string    `json:"persona,omitempty"`
	Count     int       `json:"count"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
}

// AddQuirk records a quirk of the page of rawURL; the same text again only
// bumps its count.
func (q *QA) AddQuirk(ctx context.Context, rawURL, text, persona string) (Quirk, error) {
	_, page, err := q.resolve(rawURL)
	if err != nil {
		return Quirk{}, fmt.Errorf("add quirk: %w", err)
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return Quirk{}, fmt.Errorf("add quirk: %w", qaInvalid("empty text"))
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	key := qaHash(page, NormalizeEvidence(text))
	rec, found, err := qaGet[Quirk](ctx, q, KindQuirks, key)
	if err != nil {
		return Quirk{}, err
	}
	now := q.now().UTC()
	if !found {
		rec = Quirk{Page: page, Text: qaTruncateRunes(text, maxTextLen), Persona: persona, FirstSeen: now}
	}
	rec.Count++
	rec.LastSeen = now
	return rec, q.put(ctx, KindQuirks, key, rec, []string{"page", "text"})
}

// Quirks lists the known quirks, most recently seen first.
func (q *QA) Quirks(ctx context.Context) ([]Quirk, error) {
	recs, err := qaList[Quirk](ctx, q, KindQuirks, nil)
	if !IsCorruptOnly(err) {
		return nil, err
	}
	sort.Slice(recs, func(i, j int) bool {
		if !recs[i].LastSeen.Equal(recs[j].LastSeen) {
			return recs[i].LastSeen.After(recs[j].LastSeen)
		}
		if recs[i].Page != recs[j].Page {
			return recs[i].Page < recs[j].Page
		}
		return recs[i].Text < recs[j].Text
	})
	return recs, err
}

// ---- observations ----

// Observation is a free-form note an agent made (record_observation).
type Observation struct {
	ID       string    `json:"id"`
	Text     string    `json:"text"`
	Page     string    `json:"page,omitempty"` // normalised
	Persona  string    `json:"persona,omitempty"`
	ThreadID string    `json:"thread_id,omitempty"`
	Tags     []string  `json:"tags,omitempty"`
	At       time.Time `json:"at"`
}

// AddObservation stores a note. Text is required; Page, if set, is a URL
// (absolute or relative to the origin) and is stored normalised. ID and At
// are filled in.
func (q *QA) AddObservation(ctx context.Context, o Observation) (Observation, error) {
	o.Text = strings.TrimSpace(o.Text)
	if o.Text == "" {
		return Observation{}, fmt.Errorf("add observation: %w", qaInvalid("empty text"))
	}
	o.Text = qaTruncateRunes(o.Text, maxTextLen)
	if strings.TrimSpace(o.Page) != "" {
		_, page, err := q.resolve(o.Page)
		if err != nil {
			return Observation{}, fmt.Errorf("add observation: %w", err)
		}
		o.Page = page
	}
	q.mu.Lock()
	q.obsCount++
	n := q.obsCount
	q.mu.Unlock()
	o.At = q.now().UTC()
	o.ID = fmt.Sprintf("%s-%s", o.At.Format("20060102T150405.000000000Z"), qaHash(o.Text, o.Persona, o.ThreadID, fmt.Sprint(n))[:8])
	return o, q.put(ctx, KindObservations, o.ID, o, []string{"text", "page", "tags"})
}

// Observations lists the notes, newest first.
func (q *QA) Observations(ctx context.Context) ([]Observation, error) {
	recs, err := qaList[Observation](ctx, q, KindObservations, nil)
	if !IsCorruptOnly(err) {
		return nil, err
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].ID > recs[j].ID })
	return recs, err
}

// ---- sessions ----

// SessionSummary is the episodic memory of one mission run.
type SessionSummary struct {
	ThreadID string    `json:"thread_id"`
	Mission  string    `json:"mission,omitempty"`
	StartURL string    `json:"start_url,omitempty"`
	Personas []string  `json:"personas,omitempty"`
	Started  time.Time `json:"started"`
	Ended    time.Time `json:"ended"`
	Steps    int       `json:"steps"`
	// Actions counts the browser actions of the session, Succeeded those
	// that worked.
	Actions   int      `json:"actions,omitempty"`
	Succeeded int      `json:"succeeded,omitempty"`
	Pages     []string `json:"pages,omitempty"` // normalised pages visited
	Bugs      []string `json:"bugs,omitempty"`  // fingerprints found
	// Outcome says how the session ended: why it stopped, or its error.
	Outcome string `json:"outcome,omitempty"`
	Summary string `json:"summary,omitempty"`
}

// SaveSession stores (or replaces) the summary of the mission thread
// s.ThreadID. Pages are normalised; Ended defaults to now.
func (q *QA) SaveSession(ctx context.Context, s SessionSummary) error {
	s.ThreadID = strings.TrimSpace(s.ThreadID)
	if s.ThreadID == "" {
		return fmt.Errorf("save session: %w", qaInvalid("empty thread id"))
	}
	pages := make([]string, 0, len(s.Pages))
	seen := map[string]bool{}
	for _, p := range s.Pages {
		_, page, err := q.resolve(p)
		if err != nil {
			return fmt.Errorf("save session %q: %w", s.ThreadID, err)
		}
		if !seen[page] {
			seen[page] = true
			pages = append(pages, page)
		}
	}
	s.Pages = pages
	if s.Ended.IsZero() {
		s.Ended = q.now().UTC()
	}
	s.Summary = qaTruncateRunes(strings.TrimSpace(s.Summary), 4*maxTextLen)
	s.Outcome = qaTruncateRunes(strings.TrimSpace(s.Outcome), maxTextLen)
	return q.put(ctx, KindSessions, qaHash(s.ThreadID), s, []string{"mission", "summary"})
}

// Sessions lists the session summaries, oldest first.
func (q *QA) Sessions(ctx context.Context) ([]SessionSummary, error) {
	recs, err := qaList[SessionSummary](ctx, q, KindSessions, nil)
	if !IsCorruptOnly(err) {
		return nil, err
	}
	sort.Slice(recs, func(i, j int) bool {
		if !recs[i].Ended.Equal(recs[j].Ended) {
			return recs[i].Ended.Before(recs[j].Ended)
		}
		return recs[i].ThreadID < recs[j].ThreadID
	})
	return recs, err
}

// ---- procedures ----

// Procedure is a persona's learned prompt supplement.
type Procedure struct {
	Persona    string    `json:"persona"`
	Supplement string    `json:"supplement"`
	Source     string    `json:"source"` // "manual", "rules" or "model"
	UpdatedAt  time.Time `json:"updated_at"`
}

// RoutingRule is a learned hint for the supervisor: on Page (a normalised
// page, or empty for any) or for missions mentioning Keyword, prefer Persona.
type RoutingRule struct {
	Page    string `json:"page,omitempty"`
	Keyword string `json:"keyword,omitempty"`
	Persona string `json:"persona"`
	Reason  string `json:"reason,omitempty"`
}

// String renders the rule as one line for a prompt.
func (r RoutingRule) String() string {
	var b strings.Builder
	switch {
	case r.Page != "" && r.Keyword != "":
		fmt.Fprintf(&b, "on %s or for missions about %q", r.Page, r.Keyword)
	case r.Page != "":
		fmt.Fprintf(&b, "on %s", r.Page)
	case r.Keyword != "":
		fmt.Fprintf(&b, "for missions about %q", r.Keyword)
	default:
		b.WriteString("always")
	}
	fmt.Fprintf(&b, ": prefer %s", r.Persona)
	if r.Reason != "" {
		fmt.Fprintf(&b, " (%s)", r.Reason)
	}
	return b.String()
}

type qaRoutingDoc struct {
	Rules     []RoutingRule `json:"rules"`
	UpdatedAt time.Time     `json:"updated_at"`
}

const qaRoutingKey = "supervisor-routing"

func qaProcedureKey(persona string) string { return "persona-" + qaHash(persona) }

// SetProcedure stores a persona's supplement written by hand (Source "manual").
func (q *QA) SetProcedure(ctx context.Context, persona, supplement string) error {
	return q.setProcedure(ctx, persona, supplement, "manual")
}

func (q *QA) setProcedure(ctx context.Context, persona, supplement, source string) error {
	persona = strings.TrimSpace(persona)
	if persona == "" {
		return fmt.Errorf("set procedure: %w", qaInvalid("empty persona"))
	}
	p := Procedure{Persona: persona, Supplement: qaTruncateRunes(strings.TrimSpace(supplement), 2*maxTextLen), Source: source, UpdatedAt: q.now().UTC()}
	return q.put(ctx, KindProcedures, qaProcedureKey(persona), p, nil)
}

// Procedure returns a persona's supplement; the error wraps graph.ErrNotFound
// when there is none.
func (q *QA) Procedure(ctx context.Context, persona string) (Procedure, error) {
	p, found, err := qaGet[Procedure](ctx, q, KindProcedures, qaProcedureKey(strings.TrimSpace(persona)))
	if err != nil {
		return Procedure{}, err
	}
	if !found {
		return Procedure{}, fmt.Errorf("qa memory: procedure for persona %q: %w", persona, graph.ErrNotFound)
	}
	return p, nil
}

// Supplement returns a persona's supplement text, or "" when none is stored:
// what a persona's prompt builder appends.
func (q *QA) Supplement(ctx context.Context, persona string) (string, error) {
	p, err := q.Procedure(ctx, persona)
	if errors.Is(err, graph.ErrNotFound) {
		return "", nil
	}
	return p.Supplement, err
}

// Procedures lists every persona's procedure, by persona name.
func (q *QA) Procedures(ctx context.Context) ([]Procedure, error) {
	items, err := qaList[json.RawMessage](ctx, q, KindProcedures, nil)
	if !IsCorruptOnly(err) {
		return nil, err
	}
	var out []Procedure
	for _, raw := range items {
		var p Procedure
		if json.Unmarshal(raw, &p) == nil && p.Persona != "" {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Persona < out[j].Persona })
	return out, err
}

// SetRoutingRules replaces the supervisor's routing rules.
func (q *QA) SetRoutingRules(ctx context.Context, rules []RoutingRule) error {
	for i, r := range rules {
		if strings.TrimSpace(r.Persona) == "" {
			return fmt.Errorf("set routing rules: rule %d: %w", i, qaInvalid("empty persona"))
		}
	}
	return q.put(ctx, KindProcedures, qaRoutingKey, qaRoutingDoc{Rules: rules, UpdatedAt: q.now().UTC()}, nil)
}

// RoutingRules returns the supervisor's routing rules (none is not an error).
func (q *QA) RoutingRules(ctx context.Context) ([]RoutingRule, error) {
	doc, _, err := qaGet[qaRoutingDoc](ctx, q, KindProcedures, qaRoutingKey)
	return doc.Rules, err
}
