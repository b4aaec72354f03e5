package explore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MissionsError lists every problem of a missions file, each with its line.
type MissionsError struct {
	File     string
	Problems []string // "line N: …"
}

func (e *MissionsError) Error() string {
	return fmt.Sprintf("explore: missions %s:\n  %s", e.File, strings.Join(e.Problems, "\n  "))
}

func (e *MissionsError) Unwrap() error { return ErrUsage }

// LoadMissions reads a missions YAML file.
func LoadMissions(path string) ([]Mission, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: missions: %v", ErrUsage, err)
	}
	return ParseMissions(path, b)
}

type missionsFile struct {
	Missions []Mission `yaml:"missions"`
}

// ParseMissions parses `missions: [{thread_id, prompt, team?, budget?,
// start_url?}]` strictly: unknown keys, wrong types, missing or duplicate
// thread ids, empty prompts, unknown teams, negative budgets and start URLs
// that are not paths or http(s) URLs are errors naming their line.
func ParseMissions(name string, data []byte) ([]Mission, error) {
	e := &MissionsError{File: name}
	var doc missionsFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			e.Problems = append(e.Problems, "line 1: empty file: want `missions:` with a list of missions")
			return nil, e
		}
		var te *yaml.TypeError
		if errors.As(err, &te) {
			e.Problems = append(e.Problems, te.Errors...)
		} else {
			e.Problems = append(e.Problems, strings.TrimPrefix(err.Error(), "yaml: "))
		}
		return nil, e
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		e.Problems = append(e.Problems, err.Error())
		return nil, e
	}
	lines := missionLines(&root)
	if len(doc.Missions) == 0 {
		e.Problems = append(e.Problems, "line 1: no missions: want `missions:` with at least one {thread_id, prompt}")
		return nil, e
	}
	seen := map[string]int{}
	for i, m := range doc.Missions {
		ln := 0
		if i < len(lines) {
			ln = lines[i]
		}
		bad := func(format string, args ...any) {
			e.Problems = append(e.Problems, fmt.Sprintf("line %d: mission %d: ", ln, i+1)+fmt.Sprintf(format, args...))
		}
		switch {
		case m.ThreadID == "":
			bad("thread_id is required")
		case validThread(m.ThreadID) != nil:
			bad("%v", validThread(m.ThreadID))
		default:
			if prev, dup := seen[m.ThreadID]; dup {
				bad("thread_id %q is already used on line %d", m.ThreadID, prev)
			}
			seen[m.ThreadID] = ln
		}
		if strings.TrimSpace(m.Prompt) == "" {
			bad("prompt is required")
		}
		if m.Team != "" && m.Team != TeamStandard && m.Team != TeamAdvanced {
			bad("team %q: want %s or %s", m.Team, TeamStandard, TeamAdvanced)
		}
		if m.Budget < 0 {
			bad("budget %d: want a positive number of steps", m.Budget)
		}
		if m.StartURL != "" {
			u, err := url.Parse(m.StartURL)
			if err != nil || (!strings.HasPrefix(m.StartURL, "/") && u.Scheme != "http" && u.Scheme != "https") {
				bad("start_url %q: want a path (/projects) or an http(s) URL", m.StartURL)
			} else if u.IsAbs() {
				doc.Missions[i].StartURL = pathQuery(m.StartURL)
			}
		}
	}
	if len(e.Problems) > 0 {
		return nil, e
	}
	return doc.Missions, nil
}

// missionLines returns the line of each item of the missions sequence.
func missionLines(root *yaml.Node) []int {
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return nil
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "missions" {
			var out []int
			for _, it := range m.Content[i+1].Content {
				out = append(out, it.Line)
			}
			return out
		}
	}
	return nil
}
