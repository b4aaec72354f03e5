package skills

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentgraph/agentgraph/tools"
)

// Tool names.
const (
	ToolList    = "skill_list"
	ToolShow    = "skill_show"
	ToolScripts = "skill_scripts"
	ToolRun     = "skill_run"
)

type noArgs struct{}

type skillArgs struct {
	Skill string `json:"skill" jsonschema:"description=skill name (see skill_list)"`
}

type runArgs struct {
	Skill  string   `json:"skill" jsonschema:"description=skill name"`
	Script string   `json:"script" jsonschema:"description=script file name (see skill_scripts)"`
	Args   []string `json:"args,omitempty" jsonschema:"description=positional arguments"`
}

// Tools returns the library's tools: skill_list, skill_show (a skill's
// SKILL.md), skill_scripts (its scripts and their arguments) and skill_run.
func (l *Library) Tools() []tools.Tool {
	return []tools.Tool{
		tools.New(ToolList, "List the available skills with their descriptions.", func(context.Context, noArgs) (string, error) {
			var b strings.Builder
			for _, s := range l.List() {
				fmt.Fprintf(&b, "- %s: %s\n", s.Name, s.Description)
			}
			if b.Len() == 0 {
				return "no skills are installed", nil
			}
			return b.String(), nil
		}),
		tools.New(ToolShow, "Show a skill's documentation (its SKILL.md).", func(_ context.Context, in skillArgs) (string, error) {
			s, err := l.skill(in.Skill)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("# skill %s\n%s\n\n%s", s.Name, s.Description, s.Doc), nil
		}),
		tools.New(ToolScripts, "List a skill's scripts and the arguments each takes.", func(_ context.Context, in skillArgs) (string, error) {
			s, err := l.skill(in.Skill)
			if err != nil {
				return "", err
			}
			return describeScripts(s), nil
		}),
		tools.New(ToolRun, "Run one of a skill's scripts with positional arguments (no shell; arguments are validated).", func(ctx context.Context, in runArgs) (string, error) {
			out, err := l.Run(ctx, in.Skill, in.Script, in.Args)
			var re *RunError
			if errors.As(err, &re) {
				return "", fmt.Errorf("%v\n%s", re, re.Output.Text)
			}
			if err != nil {
				return "", err
			}
			return out.Text, nil
		}),
	}
}

func (l *Library) skill(name string) (*Skill, error) {
	s, ok := l.Get(name)
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownSkill, name, strings.Join(l.names(), ", "))
	}
	return s, nil
}

func describeScripts(s *Skill) string {
	if len(s.Scripts) == 0 {
		return fmt.Sprintf("skill %s has no scripts", s.Name)
	}
	var b strings.Builder
	for _, n := range s.ScriptNames() {
		sc := s.Scripts[n]
		if sc.Spec == nil {
			fmt.Fprintf(&b, "- %s (undeclared: arguments must match %s)\n", n, SafeArg)
			continue
		}
		fmt.Fprintf(&b, "- %s: %s (%s)\n", n, sc.Spec.Description, usage(sc.Spec.Args))
		for _, a := range sc.Spec.Args {
			fmt.Fprintf(&b, "    %s", a.Name)
			if a.Required {
				b.WriteString(" (required)")
			}
			if a.Description != "" {
				b.WriteString(": " + a.Description)
			}
			if len(a.Enum) > 0 {
				b.WriteString("; one of " + strings.Join(a.Enum, ", "))
			} else if a.Pattern != "" {
				b.WriteString("; pattern " + a.Pattern)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
