package memory

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentgraph/agentgraph/memory/internal/storekit"
)

// RiskWeights tune the page-risk score.
//
// A page's score is the sum of
//   - per open bug: Severity[sev] × KindWeight(kind) × (1 + log2(seen count))
//     × (1 + RegressionBonus × regressions) × recency(last seen),
//   - per quirk: Quirk × recency,
//   - per selector: SelectorFailure × min(failures, MaxSelectorFailures) ×
//     failure ratio × recency,
//
// where recency halves every HalfLife and never drops below MinRecency.
type RiskWeights struct {
	Severity            map[Severity]float64
	Kinds               []KindWeight // the first whose Contains occurs in the bug kind wins; else 1
	RegressionBonus     float64
	Quirk               float64
	SelectorFailure     float64
	MaxSelectorFailures int
	HalfLife            time.Duration
	MinRecency          float64
}

// KindWeight weighs the bug kinds that contain a substring.
type KindWeight struct {
	Contains string
	Weight   float64
}

// DefaultRiskWeights are the weights NewQA uses.
func DefaultRiskWeights() RiskWeights {
	return RiskWeights{
		Severity: map[Severity]float64{SeverityCritical: 8, SeverityHigh: 4, SeverityMedium: 2, SeverityLow: 1},
		Kinds: []KindWeight{
			{"xss", 1.5}, {"inject", 1.5}, {"5xx", 1.25}, {"500", 1.25}, {"server", 1.25}, {"crash", 1.25},
			{"page_error", 1}, {"404", 0.75}, {"console", 0.75}, {"a11y", 0.75}, {"axe", 0.75}, {"access", 0.75},
			{"slow", 0.5}, {"dead", 0.5},
		},
		RegressionBonus:     0.5,
		Quirk:               1,
		SelectorFailure:     0.5,
		MaxSelectorFailures: 5,
		HalfLife:            7 * 24 * time.Hour,
		MinRecency:          0.1,
	}
}

// KindWeight is the weight of a bug kind (case-insensitive).
func (w RiskWeights) KindWeight(kind string) float64 {
	kind = strings.ToLower(kind)
	for _, k := range w.Kinds {
		if k.Contains != "" && strings.Contains(kind, strings.ToLower(k.Contains)) {
			return k.Weight
		}
	}
	return 1
}

func (w RiskWeights) recency(now, seen time.Time) float64 {
	if w.HalfLife <= 0 || seen.IsZero() || !now.After(seen) {
		return 1
	}
	r := math.Pow(0.5, float64(now.Sub(seen))/float64(w.HalfLife))
	return math.Max(r, w.MinRecency)
}

// PageRisk is the risk of one page and what it is made of.
type PageRisk struct {
	Page             string    `json:"page"`
	URL              string    `json:"url,omitempty"` // an absolute URL of the page, when known
	Score            float64   `json:"score"`
	OpenBugs         int       `json:"open_bugs"`
	Quirks           int       `json:"quirks"`
	SelectorFailures int       `json:"selector_failures"`
	LastSeen         time.Time `json:"last_seen"`
}

// Reason renders what makes the page risky, e.g. "2 open bugs, 1 quirk".
func (r PageRisk) Reason() string {
	var parts []string
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(r.OpenBugs, "open bug", "open bugs")
	add(r.Quirks, "quirk", "quirks")
	add(r.SelectorFailures, "selector failure", "selector failures")
	return strings.Join(parts, ", ")
}

// PageRisks scores every page with open bugs, quirks or selector failures,
// highest score first (ties by page).
func (q *QA) PageRisks(ctx context.Context) ([]PageRisk, error) {
	var bad storekit.CorruptSet
	bugs, err := q.Bugs(ctx, BugOpen)
	if err := bad.Keep(err); err != nil {
		return nil, err
	}
	quirks, err := q.Quirks(ctx)
	if err := bad.Keep(err); err != nil {
		return nil, err
	}
	sels, err := q.Selectors(ctx)
	if err := bad.Keep(err); err != nil {
		return nil, err
	}
	pages, err := q.Pages(ctx)
	if err := bad.Keep(err); err != nil {
		return nil, err
	}
	return q.scorePages(bugs, quirks, sels, pages), bad.Err()
}

func (q *QA) scorePages(bugs []BugEntry, quirks []Quirk, sels []SelectorRecord, pages []PageRecord) []PageRisk {
	w := q.weights
	now := q.now().UTC()
	byPage := map[string]*PageRisk{}
	get := func(page string, seen time.Time) *PageRisk {
		r := byPage[page]
		if r == nil {
			r = &PageRisk{Page: page}
			byPage[page] = r
		}
		if seen.After(r.LastSeen) {
			r.LastSeen = seen
		}
		return r
	}
	for _, b := range bugs {
		r := get(b.Page, b.LastSeen)
		sev, ok := w.Severity[b.Severity]
		if !ok {
			sev = w.Severity[SeverityMedium]
		}
		seen := math.Max(1, float64(b.SeenCount))
		r.Score += sev * w.KindWeight(b.Kind) * (1 + math.Log2(seen)) * (1 + w.RegressionBonus*float64(b.Regressions)) * w.recency(now, b.LastSeen)
		r.OpenBugs++
		if r.URL == "" {
			r.URL = b.URL
		}
	}
	for _, k := range quirks {
		r := get(k.Page, k.LastSeen)
		r.Score += w.Quirk * w.recency(now, k.LastSeen)
		r.Quirks++
	}
	for _, s := range sels {
		if s.Failures == 0 {
			continue
		}
		r := get(s.Page, s.LastSeen)
		f := s.Failures
		if w.MaxSelectorFailures > 0 && f > w.MaxSelectorFailures {
			f = w.MaxSelectorFailures
		}
		ratio := float64(s.Failures) / float64(s.Failures+s.Successes)
		r.Score += w.SelectorFailure * float64(f) * ratio * w.recency(now, s.LastSeen)
		r.SelectorFailures += s.Failures
	}
	for _, p := range pages {
		if r := byPage[p.Page]; r != nil && p.URL != "" {
			r.URL = p.URL
		}
	}
	out := make([]PageRisk, 0, len(byPage))
	for _, r := range byPage {
		r.Score = math.Round(r.Score*1000) / 1000
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Page < out[j].Page
	})
	return out
}

// HighRiskPages returns the n riskiest pages (all when n ≤ 0).
func (q *QA) HighRiskPages(ctx context.Context, n int) ([]PageRisk, error) {
	risks, err := q.PageRisks(ctx)
	if !IsCorruptOnly(err) {
		return nil, err
	}
	if n > 0 && len(risks) > n {
		risks = risks[:n]
	}
	return risks, err
}

// DefaultContextChars is the cap SupervisorContext uses for maxChars ≤ 0.
const DefaultContextChars = 2000

// Section sizes of the supervisor context before the character cap.
const (
	contextPages  = 5
	contextBugs   = 10
	contextQuirks = 8
	contextRules  = 10
)

// SupervisorContext renders what the memory knows for the supervisor's prompt:
// high-risk pages, open bugs, known quirks and routing rules, in at most
// maxChars characters (runes). When the text is cut, whole lines are dropped
// from the end and a last line says how many were omitted. An app with no
// memory yet gets a one-line text saying so.
func (q *QA) SupervisorContext(ctx context.Context, maxChars int) (string, error) {
	if maxChars <= 0 {
		maxChars = DefaultContextChars
	}
	var bad storekit.CorruptSet
	bugs, err := q.Bugs(ctx, BugOpen)
	if err := bad.Keep(err); err != nil {
		return "", err
	}
	quirks, err := q.Quirks(ctx)
	if err := bad.Keep(err); err != nil {
		return "", err
	}
	sels, err := q.Selectors(ctx)
	if err := bad.Keep(err); err != nil {
		return "", err
	}
	pages, err := q.Pages(ctx)
	if err := bad.Keep(err); err != nil {
		return "", err
	}
	rules, err := q.RoutingRules(ctx)
	if err := bad.Keep(err); err != nil {
		return "", err
	}
	risks := q.scorePages(bugs, quirks, sels, pages)

	lines := []string{fmt.Sprintf("QA memory for %s:", q.origin)}
	if len(risks) == 0 && len(rules) == 0 {
		lines = append(lines, fmt.Sprintf("No known risks yet (%d pages visited before).", len(pages)))
	}
	section := func(title string, n, total int) {
		if total > n {
			title = fmt.Sprintf("%s (top %d of %d)", title, n, total)
		}
		lines = append(lines, title+":")
	}
	if len(risks) > 0 {
		section("High-risk pages", contextPages, len(risks))
		for _, r := range risks[:min(contextPages, len(risks))] {
			lines = append(lines, fmt.Sprintf("- %s (risk %.1f: %s)", r.Page, r.Score, r.Reason()))
		}
	}
	if len(bugs) > 0 {
		section("Open bugs", contextBugs, len(bugs))
		for _, b := range bugs[:min(contextBugs, len(bugs))] {
			what := b.Title
			if what == "" {
				what = b.Evidence
			}
			line := fmt.Sprintf("- [%s] %s on %s, seen %d×", b.Severity, b.Kind, b.Page, b.SeenCount)
			if b.Regressions > 0 {
				line += fmt.Sprintf(", regressed %d×", b.Regressions)
			}
			if what != "" {
				line += ": " + qaOneLine(what, 120)
			}
			lines = append(lines, line+" (id "+b.Fingerprint+")")
		}
	}
	if len(quirks) > 0 {
		section("Known quirks", contextQuirks, len(quirks))
		for _, k := range quirks[:min(contextQuirks, len(quirks))] {
			lines = append(lines, fmt.Sprintf("- %s: %s", k.Page, qaOneLine(k.Text, 160)))
		}
	}
	if len(rules) > 0 {
		section("Routing rules", contextRules, len(rules))
		for _, r := range rules[:min(contextRules, len(rules))] {
			lines = append(lines, "- "+qaOneLine(r.String(), 200))
		}
	}
	return qaCapLines(lines, maxChars), bad.Err()
}

// qaOneLine collapses whitespace and caps s at n runes.
func qaOneLine(s string, n int) string {
	return qaTruncateRunes(strings.Join(strings.Fields(s), " "), n)
}

// qaCapLines joins lines with newlines in at most max runes, dropping whole
// lines from the end and saying so in a final line.
func qaCapLines(lines []string, max int) string {
	full := strings.Join(lines, "\n")
	if utf8.RuneCountInString(full) <= max {
		return full
	}
	for keep := len(lines) - 1; keep >= 0; keep-- {
		note := fmt.Sprintf("… (truncated: %d more lines omitted)", len(lines)-keep)
		text := strings.Join(append(lines[:keep:keep], note), "\n")
		if utf8.RuneCountInString(text) <= max {
			return text
		}
	}
	return qaTruncateRunes("… (truncated)", max)
}

// RegressionMission re-checks the open bugs of one page. It is independent of
// the explorer package, which maps it onto its own mission type.
type RegressionMission struct {
	ThreadID     string   `json:"thread_id"` // deterministic: "regression-<app>-<page hash>"
	Prompt       string   `json:"prompt"`
	StartURL     string   `json:"start_url"`
	Team         string   `json:"team,omitempty"` // empty: let the explorer route the mission
	Page         string   `json:"page"`
	Fingerprints []string `json:"fingerprints"`       // the open bugs it re-checks
	Personas     []string `json:"personas,omitempty"` // who found those bugs
}

// RegressionMissions returns one mission per page with open bugs, riskiest
// page first; together they cover every open bug.
func (q *QA) RegressionMissions(ctx context.Context) ([]RegressionMission, error) {
	bugs, err := q.Bugs(ctx, BugOpen)
	if !IsCorruptOnly(err) {
		return nil, err
	}
	corrupt := err
	byPage := map[string][]BugEntry{}
	for _, b := range bugs {
		byPage[b.Page] = append(byPage[b.Page], b)
	}
	risks := q.scorePages(bugs, nil, nil, nil)
	out := make([]RegressionMission, 0, len(byPage))
	for _, r := range risks {
		pb := byPage[r.Page]
		if len(pb) == 0 {
			continue
		}
		qaSortBugs(pb)
		m := RegressionMission{
			ThreadID: "regression-" + q.app + "-" + qaHash(r.Page)[:8],
			StartURL: pb[0].URL,
			Page:     r.Page,
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Regression check of %s (start at %s). Reproduce each known bug below and report for each whether it still occurs; report any new bug as usual.\n", r.Page, pb[0].URL)
		for i, e := range pb {
			m.Fingerprints = append(m.Fingerprints, e.Fingerprint)
			for _, p := range e.Personas {
				if !qaContains(m.Personas, p) {
					m.Personas = append(m.Personas, p)
				}
			}
			fmt.Fprintf(&b, "%d. [%s] %s (id %s, seen %d×)", i+1, e.Severity, e.Kind, e.Fingerprint, e.SeenCount)
			if e.Title != "" {
				b.WriteString(": " + qaOneLine(e.Title, 120))
			}
			if e.Evidence != "" {
				b.WriteString(" — evidence: " + qaOneLine(e.Evidence, 200))
			}
			if len(e.Payloads) > 0 {
				b.WriteString(" — payload: " + qaOneLine(e.Payloads[len(e.Payloads)-1], 120))
			}
			b.WriteString("\n")
		}
		sort.Strings(m.Personas)
		m.Prompt = strings.TrimRight(b.String(), "\n")
		out = append(out, m)
	}
	return out, corrupt
}
