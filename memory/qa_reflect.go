package memory

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agentgraph/agentgraph/memory/internal/storekit"
)

// ReflectionInput is what a Reflector learns one persona's supplement from.
type ReflectionInput struct {
	Persona  string
	Current  string           // the persona's current supplement, "" if none
	Sessions []SessionSummary // sessions the persona took part in, oldest first
	Bugs     []BugEntry       // every bug of the catalog (open and fixed)
	// FailedSelectors are selectors that failed at least twice and more often
	// than they worked, most failures first.
	FailedSelectors []SelectorRecord
}

// Reflector writes a persona's prompt supplement from its past sessions. An
// LLM adapter implements it to let a model rewrite the supplement; RuleReflector
// is the offline one.
type Reflector interface {
	Reflect(ctx context.Context, in ReflectionInput) (string, error)
}

// ReflectorFunc adapts a function to Reflector.
type ReflectorFunc func(ctx context.Context, in ReflectionInput) (string, error)

// Reflect calls f.
func (f ReflectorFunc) Reflect(ctx context.Context, in ReflectionInput) (string, error) {
	return f(ctx, in)
}

// RuleReflector is the offline Reflector: deterministic rules that name the pages and
// payloads where the persona found bugs, the open bugs others found, the
// selectors that keep failing, and pages visited often without findings.
type RuleReflector struct{}

// Reflect derives the supplement by rules; it never fails.
func (RuleReflector) Reflect(_ context.Context, in ReflectionInput) (string, error) {
	return RuleSupplement(in), nil
}

// Caps on the lists of a rule supplement.
const (
	ruleItems         = 5
	maxSupplementRune = 1500
)

// RuleSupplement is the supplement the offline rules derive from in.
func RuleSupplement(in ReflectionInput) string {
	var own, others []BugEntry
	for _, b := range in.Bugs {
		if qaContains(b.Personas, in.Persona) {
			own = append(own, b)
		} else if b.Status == BugOpen {
			others = append(others, b)
		}
	}
	qaSortBugs(own)
	qaSortBugs(others)

	var lines []string
	lines = append(lines, fmt.Sprintf("Learned from %d past session(s) of %s:", len(in.Sessions), in.Persona))

	if len(own) > 0 {
		pages := map[string]int{}
		for _, b := range own {
			pages[b.Page]++
		}
		lines = append(lines, "- Pages where you found bugs (start there, re-check them): "+qaTopCounts(pages, ruleItems)+".")
		var payloads []string
		for _, b := range own {
			for _, p := range b.Payloads {
				if p != "" && !qaContains(payloads, p) {
					payloads = append(payloads, p)
				}
			}
		}
		if len(payloads) > 0 {
			sort.Strings(payloads)
			q := make([]string, 0, ruleItems)
			for _, p := range payloads[:min(ruleItems, len(payloads))] {
				q = append(q, fmt.Sprintf("%q", qaOneLine(p, 60)))
			}
			lines = append(lines, "- Inputs that found bugs (try them and variants on other fields): "+strings.Join(q, ", ")+".")
		}
		kinds := map[string]int{}
		for _, b := range own {
			kinds[b.Kind]++
		}
		lines = append(lines, "- Bug kinds you found: "+qaTopCounts(kinds, ruleItems)+".")
		var reg []string
		for _, b := range own {
			if b.Regressions > 0 {
				reg = append(reg, fmt.Sprintf("%s on %s", b.Kind, b.Page))
			}
		}
		if len(reg) > 0 {
			lines = append(lines, "- Regressed after a fix (check every run): "+strings.Join(reg[:min(ruleItems, len(reg))], "; ")+".")
		}
	}
	if len(others) > 0 {
		var s []string
		for _, b := range others[:min(ruleItems, len(others))] {
			s = append(s, fmt.Sprintf("%s on %s", b.Kind, b.Page))
		}
		lines = append(lines, "- Open bugs found by others (avoid re-reporting, look nearby): "+strings.Join(s, "; ")+".")
	}
	if len(in.FailedSelectors) > 0 {
		var s []string
		for _, r := range in.FailedSelectors[:min(ruleItems, len(in.FailedSelectors))] {
			s = append(s, fmt.Sprintf("%s on %s (%d failures)", qaOneLine(r.Selector, 80), r.Page, r.Failures))
		}
		lines = append(lines, "- Selectors that kept failing (prefer roles, labels and text): "+strings.Join(s, "; ")+".")
	}
	bugPages := map[string]bool{}
	for _, b := range in.Bugs {
		bugPages[b.Page] = true
	}
	quiet := map[string]int{}
	for _, s := range in.Sessions {
		for _, p := range s.Pages {
			if !bugPages[p] {
				quiet[p]++
			}
		}
	}
	for p, n := range quiet {
		if n < 2 {
			delete(quiet, p)
		}
	}
	if len(quiet) > 0 {
		lines = append(lines, "- Visited often without findings (lower priority): "+qaTopCounts(quiet, ruleItems)+".")
	}
	if len(lines) == 1 {
		lines = append(lines, "- Nothing specific learned yet; explore broadly.")
	}
	return qaCapLines(lines, maxSupplementRune)
}

// qaTopCounts renders the n largest counts as "key (count)", ties by key.
func qaTopCounts(m map[string]int, n int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys[:min(n, len(keys))] {
		parts = append(parts, fmt.Sprintf("%s (%d)", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// ReflectOptions tune QA.Reflect.
type ReflectOptions struct {
	// Reflector writes the supplements; nil means RuleReflector. When it fails for a
	// persona, the rules write that persona's supplement instead.
	Reflector Reflector
	// Personas to reflect for; nil means every persona named in a session or
	// a bug.
	Personas []string
}

// Reflection reports what QA.Reflect stored.
type Reflection struct {
	Procedures   []Procedure
	RoutingRules []RoutingRule
	// Fallbacks names the personas whose Reflector failed, with the error;
	// their supplement came from the rules.
	Fallbacks map[string]error
}

// Reflect is procedural reflection after a batch of sessions: it rewrites each
// persona's supplement (Source "model" from opts.Reflector, "rules" offline or
// on fallback) and derives the supervisor's routing rules: for each page with
// open bugs, prefer the persona that found most of them.
func (q *QA) Reflect(ctx context.Context, opts ReflectOptions) (Reflection, error) {
	// Records that do not decode are left out of the reflection and
	// reported with it (a *CorruptRecordsError) once it is stored.
	var bad storekit.CorruptSet
	sessions, err := q.Sessions(ctx)
	if err := bad.Keep(err); err != nil {
		return Reflection{}, err
	}
	bugs, err := q.Bugs(ctx, "")
	if err := bad.Keep(err); err != nil {
		return Reflection{}, err
	}
	sels, err := q.Selectors(ctx)
	if err := bad.Keep(err); err != nil {
		return Reflection{}, err
	}
	var failed []SelectorRecord
	for _, s := range sels {
		if s.Failures >= 2 && s.Failures > s.Successes {
			failed = append(failed, s)
		}
	}
	personas := opts.Personas
	if personas == nil {
		set := map[string]bool{}
		for _, s := range sessions {
			for _, p := range s.Personas {
				set[p] = true
			}
		}
		for _, b := range bugs {
			for _, p := range b.Personas {
				set[p] = true
			}
		}
		for p := range set {
			personas = append(personas, p)
		}
		sort.Strings(personas)
	}
	reflector, source := opts.Reflector, "model"
	if reflector == nil {
		reflector, source = RuleReflector{}, "rules"
	}
	var out Reflection
	for _, persona := range personas {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		in := ReflectionInput{Persona: persona, Bugs: bugs, FailedSelectors: failed}
		for _, s := range sessions {
			if qaContains(s.Personas, persona) {
				in.Sessions = append(in.Sessions, s)
			}
		}
		cur, err := q.Supplement(ctx, persona)
		if err != nil {
			return out, err
		}
		in.Current = cur
		src := source
		text, err := reflector.Reflect(ctx, in)
		if err == nil && strings.TrimSpace(text) == "" {
			err = errors.New("empty supplement")
		}
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			q.log.Warn("qa memory: reflector failed, using rules", "persona", persona, "err", err)
			if out.Fallbacks == nil {
				out.Fallbacks = map[string]error{}
			}
			out.Fallbacks[persona] = err
			text, src = RuleSupplement(in), "rules"
		}
		if err := q.setProcedure(ctx, persona, text, src); err != nil {
			return out, err
		}
		p, err := q.Procedure(ctx, persona)
		if err != nil {
			return out, err
		}
		out.Procedures = append(out.Procedures, p)
	}
	out.RoutingRules = qaRoutingFromBugs(bugs)
	if err := q.SetRoutingRules(ctx, out.RoutingRules); err != nil {
		return out, err
	}
	return out, bad.Err()
}

// qaRoutingFromBugs: per page with open bugs, the persona that found most of
// them (ties by name).
func qaRoutingFromBugs(bugs []BugEntry) []RoutingRule {
	counts := map[string]map[string]int{}
	for _, b := range bugs {
		if b.Status != BugOpen {
			continue
		}
		for _, p := range b.Personas {
			if counts[b.Page] == nil {
				counts[b.Page] = map[string]int{}
			}
			counts[b.Page][p]++
		}
	}
	pages := make([]string, 0, len(counts))
	for p := range counts {
		pages = append(pages, p)
	}
	sort.Strings(pages)
	rules := make([]RoutingRule, 0, len(pages))
	for _, page := range pages {
		best, n := "", 0
		for p, c := range counts[page] {
			if c > n || c == n && p < best {
				best, n = p, c
			}
		}
		reason := fmt.Sprintf("found %d open bug", n)
		if n != 1 {
			reason += "s"
		}
		rules = append(rules, RoutingRule{Page: page, Persona: best, Reason: reason + " there"})
	}
	return rules
}
