package personas

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Team names.
const (
	TeamStandard = "standard"
	TeamAdvanced = "advanced"
)

// ErrUnknownPersona is wrapped when a name is not registered.
var ErrUnknownPersona = errors.New("personas: unknown persona")

// ErrDuplicate is wrapped when a persona name is registered twice.
var ErrDuplicate = errors.New("personas: persona already registered")

// Registry holds personas and teams: the standard team (new user, power
// user, adversarial), the advanced team (accessibility, data-heavy,
// impatient, returning user, explorer) and custom personas. Safe for
// concurrent use.
type Registry struct {
	mu    sync.RWMutex
	byID  map[string]Persona
	order []string
	teams map[string][]string
}

// NewRegistry returns a registry with the eight built-ins and both teams.
func NewRegistry() *Registry {
	r := &Registry{byID: map[string]Persona{}, teams: map[string][]string{}}
	for _, p := range Builtins() {
		r.byID[p.Name] = p
		r.order = append(r.order, p.Name)
	}
	r.teams[TeamStandard] = []string{NewUser, PowerUser, Adversarial}
	r.teams[TeamAdvanced] = []string{Accessibility, DataHeavy, Impatient, ReturningUser, Explorer}
	return r
}

// Register adds a custom persona. Names must be unique.
func (r *Registry) Register(p Persona) error {
	if err := p.Validate(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byID[p.Name]; ok {
		return fmt.Errorf("%w: %q", ErrDuplicate, p.Name)
	}
	r.byID[p.Name] = p
	r.order = append(r.order, p.Name)
	return nil
}

// Get returns the named persona.
func (r *Registry) Get(name string) (Persona, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	p, ok := r.byID[name]
	if !ok {
		return Persona{}, fmt.Errorf("%w: %q (known: %s)", ErrUnknownPersona, name, strings.Join(r.order, ", "))
	}
	return p, nil
}

// Names lists every persona in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.order)
}

// SetTeam defines (or redefines) a team from registered personas.
func (r *Registry) SetTeam(team string, members ...string) error {
	if strings.TrimSpace(team) == "" || len(members) == 0 {
		return errors.New("personas: a team needs a name and at least one member")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range members {
		if _, ok := r.byID[m]; !ok {
			return fmt.Errorf("personas: team %q: %w: %q", team, ErrUnknownPersona, m)
		}
	}
	r.teams[team] = slices.Clone(members)
	return nil
}

// Team returns a team's personas in order.
func (r *Registry) Team(team string) ([]Persona, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names, ok := r.teams[team]
	if !ok {
		return nil, fmt.Errorf("personas: unknown team %q", team)
	}
	out := make([]Persona, 0, len(names))
	for _, n := range names {
		out = append(out, r.byID[n])
	}
	return out, nil
}

// Teams lists the team names, sorted.
func (r *Registry) Teams() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for t := range r.teams {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// Routing is the result of Route.
type Routing struct {
	Team     string
	Personas []Persona
	// Matched are the keywords that decided the choice (empty for the
	// default or an override).
	Matched []string
	// Override says the team was forced by the caller.
	Override bool
}

// Route picks the team for a mission prompt. A non-empty override (a team
// name, or a comma-separated list of persona names) wins. Otherwise each
// team scores the keywords of its members found in the prompt (whole
// words, case-insensitive) and the best wins; ties and no match go to the
// standard team.
func (r *Registry) Route(mission, override string) (Routing, error) {
	if o := strings.TrimSpace(override); o != "" {
		if ps, err := r.Team(o); err == nil {
			return Routing{Team: o, Personas: ps, Override: true}, nil
		}
		var ps []Persona
		for _, n := range strings.Split(o, ",") {
			p, err := r.Get(strings.TrimSpace(n))
			if err != nil {
				return Routing{}, fmt.Errorf("personas: route override %q: not a team, and %w", o, err)
			}
			ps = append(ps, p)
		}
		return Routing{Team: "custom", Personas: ps, Override: true}, nil
	}
	text := " " + normalizeWords(mission) + " "
	r.mu.RLock()
	best, bestScore, bestHits := TeamStandard, 0, []string(nil)
	teams := make([]string, 0, len(r.teams))
	for t := range r.teams {
		teams = append(teams, t)
	}
	slices.Sort(teams)
	// standard first so it wins ties
	slices.SortStableFunc(teams, func(a, b string) int {
		switch {
		case a == TeamStandard:
			return -1
		case b == TeamStandard:
			return 1
		}
		return 0
	})
	for _, t := range teams {
		var hits []string
		for _, n := range r.teams[t] {
			for _, k := range r.byID[n].Keywords {
				if strings.Contains(text, " "+normalizeWords(k)+" ") && !slices.Contains(hits, k) {
					hits = append(hits, k)
				}
			}
		}
		if len(hits) > bestScore {
			best, bestScore, bestHits = t, len(hits), hits
		}
	}
	r.mu.RUnlock()
	ps, err := r.Team(best)
	if err != nil {
		return Routing{}, err
	}
	return Routing{Team: best, Personas: ps, Matched: bestHits}, nil
}

// normalizeWords lower-cases s and turns punctuation into spaces.
func normalizeWords(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r > 127:
			return r
		}
		return ' '
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
