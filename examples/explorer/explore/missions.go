package explore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"unicode/utf8"

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
// start_url?}]` strictly: text that is not UTF-8, a second YAML document,
// unknown keys, wrong types, missing or duplicate thread ids, empty
// prompts, unknown teams, negative budgets and start URLs that are not
// paths or http(s) URLs are errors naming their line. An absolute start
// URL is kept as written: ResolveStartURL checks it against the target.
func ParseMissions(name string, data []byte) ([]Mission, error) {
	e := &MissionsError{File: name}
	if p := invalidUTF8(data); p != "" {
		e.Problems = append(e.Problems, p)
		return nil, e
	}
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
	// A second document would be dropped without a word.
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		e.Problems = append(e.Problems, "after the first document: "+strings.TrimPrefix(err.Error(), "yaml: "))
		return nil, e
	default:
		e.Problems = append(e.Problems, fmt.Sprintf("line %d: a second YAML document starts here (---); it would be ignored: put every mission in the one `missions:` list", extra.Line))
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
			} else if u.IsAbs() && u.Host == "" {
				bad("start_url %q: an absolute URL needs a host", m.StartURL)
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

// invalidUTF8 names the line and column of the first byte of data that is
// not UTF-8 ("" when all is); a UTF-8 byte order mark is fine.
func invalidUTF8(data []byte) string {
	if utf8.Valid(data) {
		return ""
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return fmt.Sprintf("line %d: column %d: byte 0x%02x is not UTF-8: save the missions file as UTF-8 text", line, col, data[i])
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += n
	}
	return ""
}

// ResolveStartURL returns where a mission starts on target (an origin such
// as http://localhost:8080): "/" for an empty start URL, a path as it is,
// and an absolute URL's path and query when it is on target's origin
// (scheme, host and port; default ports and letter case do not matter). A
// URL on another origin is an error wrapping ErrUsage: it is not rewritten
// onto the target.
func ResolveStartURL(startURL, target string) (string, error) {
	if startURL == "" {
		return "/", nil
	}
	u, err := url.Parse(startURL)
	if err != nil {
		return "", fmt.Errorf("%w: start_url %q: %v", ErrUsage, startURL, err)
	}
	if !u.IsAbs() {
		if !strings.HasPrefix(startURL, "/") || strings.HasPrefix(startURL, "//") {
			return "", fmt.Errorf("%w: start_url %q: want a path (/projects) or an http(s) URL on %s", ErrUsage, startURL, target)
		}
		return startURL, nil
	}
	t, err := url.Parse(target)
	if err != nil || !t.IsAbs() {
		return "", fmt.Errorf("%w: start_url %q: target %q is not an origin", ErrUsage, startURL, target)
	}
	if origin(u) != origin(t) {
		return "", fmt.Errorf("%w: start_url %q is on %s, not on the target %s: use a path, or a URL on the target", ErrUsage, startURL, origin(u), origin(t))
	}
	if p := pathQuery(startURL); p != "" && p[0] == '/' {
		return p, nil
	}
	return "/", nil
}

// origin is scheme://host[:port], lower-cased, without a default port.
func origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}
