package mission

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/agentgraph/agentgraph/internal/clip"
	"github.com/agentgraph/agentgraph/personas"
)

// Mission is one exploration goal.
type Mission struct {
	ThreadID string `yaml:"thread_id" json:"thread_id"`
	Prompt   string `yaml:"prompt" json:"prompt"`
	// Team is "standard", "advanced" or empty (routed by the prompt's keywords).
	Team string `yaml:"team,omitempty" json:"team,omitempty"`
	// Budget is the number of browser steps (0: Config.Budget).
	Budget int `yaml:"budget,omitempty" json:"budget,omitempty"`
	// StartURL is where the mission starts: a path or a URL within the target.
	StartURL string `yaml:"start_url,omitempty" json:"start_url,omitempty"`
}

// DefaultMission is the mission of a run without missions.
func DefaultMission() Mission {
	return Mission{ThreadID: "explore", Prompt: "Explore the whole app as a new user, a power user and an adversarial tester; report every bug with evidence."}
}

// Team names.
const (
	TeamStandard = "standard"
	TeamAdvanced = "advanced"
)

// builtinTeam is a personas built-in team: its members' names, roles,
// focus, tricks and leans over the app model, one definition shared with
// model prompts and personas.Run.
func builtinTeam(team string) []personas.Persona {
	ps, _ := personas.NewRegistry().Team(team) // the built-in teams always exist
	return ps
}

// StandardTeam is the default team: new user, power user, adversarial.
func StandardTeam() []personas.Persona { return builtinTeam(personas.TeamStandard) }

// AdvancedTeam is the deeper team: accessibility, data-heavy, impatient,
// returning user and the coverage-guided explorer.
func AdvancedTeam() []personas.Persona { return builtinTeam(personas.TeamAdvanced) }

// Team returns the named built-in team.
func Team(name string) ([]personas.Persona, error) {
	switch name {
	case TeamStandard, "":
		return StandardTeam(), nil
	case TeamAdvanced:
		return AdvancedTeam(), nil
	}
	return nil, fmt.Errorf("explore: unknown team %q (want %s or %s)", name, TeamStandard, TeamAdvanced)
}

var advancedWords = []string{"accessib", "a11y", "keyboard", "screen reader", "data-heavy", "large data", "pagination", "impatient", "slow network", "double", "returning", "session", "cookie", "deep", "thorough", "coverage"}

// RouteTeam picks the team for a mission prompt by keywords: advanced when
// the prompt talks about accessibility, data volume, impatience, sessions or
// deep coverage, standard otherwise.
func RouteTeam(prompt string) string {
	p := strings.ToLower(prompt)
	for _, w := range advancedWords {
		if strings.Contains(p, w) {
			return TeamAdvanced
		}
	}
	return TeamStandard
}

var reThread = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$`)

func ValidThread(id string) error {
	if !reThread.MatchString(id) {
		return fmt.Errorf("thread_id %q: use 1-80 letters, digits, '.', '_' or '-' (it names the report directory)", id)
	}
	return nil
}

// threadName makes a valid thread id of s.
func ThreadName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-._")
	if len(out) > 80 {
		out = out[:80]
	}
	if out == "" {
		out = "pr"
	}
	return out
}

// capPrompt cuts s to MaxPRMissionPrompt bytes.
func CapPrompt(s string) string {
	if len(s) <= MaxPRMissionPrompt {
		return s
	}
	const ell = "…"
	return clip.UTF8(s, MaxPRMissionPrompt-len(ell)) + ell
}

// MaxPRMissionPrompt bounds each generated mission's prompt, in bytes: a
// longer prompt from the model (or one naming long paths) is cut at a rune
// boundary and ends in "…".
const MaxPRMissionPrompt = 1200

// StartURLs are the missions' start URLs, in order ("" where a mission
// starts at "/").
func StartURLs(ms []Mission) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.StartURL
	}
	return out
}
