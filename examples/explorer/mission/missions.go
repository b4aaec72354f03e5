package mission

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentgraph/agentgraph/examples/explorer/internal/xerr"
	"github.com/agentgraph/agentgraph/internal/urlx"
	"go.yaml.in/yaml/v3"
)

// MissionsError lists every problem of a missions file, each with its line.
type MissionsError struct {
	File     string
	Problems []string // "line N: …"
}

func (e *MissionsError) Error() string {
	ps := e.Problems
	more := ""
	if len(ps) > maxProblems {
		more = fmt.Sprintf("\n  … and %d more problems", len(ps)-maxProblems)
		ps = ps[:maxProblems]
	}
	return fmt.Sprintf("explore: missions %s:\n  %s%s", e.File, strings.Join(ps, "\n  "), more)
}

func (e *MissionsError) Unwrap() error { return xerr.ErrUsage }

// Bounds of a missions file: every number and size in it is bounded, so a
// hostile or mistaken file is refused with its line rather than run.
const (
	// MaxMissionsFile bounds the file, in bytes.
	MaxMissionsFile = 1 << 20
	// MaxExpanded bounds the file's text with its YAML aliases expanded
	// (each *alias counted as the text of its anchor): an alias may share
	// a prompt, not multiply the file.
	MaxExpanded = MaxMissionsFile
	// MaxMissions bounds the missions of a file, templates expanded.
	MaxMissions = 1000
	// MaxBudget bounds a mission's budget, in browser steps.
	MaxBudget = 100_000
	// MaxPrompt bounds a mission's prompt, in bytes.
	MaxPrompt = 16 << 10
	// MaxStartURL bounds a mission's start URL, in bytes.
	MaxStartURL = 2048
	// maxProblems bounds the problems a MissionsError lists.
	maxProblems = 20
)

// LoadMissions reads a missions YAML file (at most MaxMissionsFile bytes).
func LoadMissions(path string) ([]Mission, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: missions: %v", xerr.ErrUsage, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxMissionsFile+1))
	if err != nil {
		return nil, fmt.Errorf("%w: missions: %v", xerr.ErrUsage, err)
	}
	return ParseMissions(path, b)
}

type missionsFile struct {
	Missions []Mission `yaml:"missions"`
}

// ParseMissions parses `missions: [{thread_id, prompt, team?, budget?,
// start_url?}]` strictly. An item may instead name a goal template with its
// parameters, `{template: simulate_all_users, params: {…}}`, which expands
// to that template's missions (ExpandTemplate) in its place. It checks text that is not UTF-8, a second YAML document,
// unknown keys, wrong types, missing or duplicate thread ids, empty
// prompts, unknown teams, negative budgets and start URLs that are not
// paths or http(s) URLs are errors naming their line. An absolute start
// URL is kept as written: ResolveStartURL checks it against the target.
func ParseMissions(name string, data []byte) ([]Mission, error) {
	e := &MissionsError{File: name}
	if len(data) > MaxMissionsFile {
		e.Problems = append(e.Problems, fmt.Sprintf("line %d: the file passes %d bytes (1 MiB) here: a missions file is at most that; split it into several runs",
			1+bytes.Count(data[:MaxMissionsFile], []byte("\n")), MaxMissionsFile))
		return nil, e
	}
	if p := invalidUTF8(data); p != "" {
		e.Problems = append(e.Problems, p)
		return nil, e
	}
	if p := aliasBomb(data); p != "" {
		e.Problems = append(e.Problems, p)
		return nil, e
	}
	if ms, ok := parseTemplated(e, data); ok {
		return ms, nil
	} else if len(e.Problems) > 0 {
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
	validateMissions(e, doc.Missions, lines)
	if len(e.Problems) > 0 {
		return nil, e
	}
	return doc.Missions, nil
}

// validateMissions checks each mission as a missions file's (lines[i] is
// mission i's line; 0 when unknown), adding problems to e.
func validateMissions(e *MissionsError, ms []Mission, lines []int) {
	if len(ms) > MaxMissions {
		ln := 0
		if MaxMissions < len(lines) {
			ln = lines[MaxMissions]
		}
		e.Problems = append(e.Problems, fmt.Sprintf("line %d: mission %d: more than %d missions (%d): split them into several runs (--shard i/n shares one run among machines)", ln, MaxMissions+1, MaxMissions, len(ms)))
		return
	}
	seen := map[string]int{}
	for i, m := range ms {
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
		case ValidThread(m.ThreadID) != nil:
			bad("%v", ValidThread(m.ThreadID))
		default:
			if prev, dup := seen[m.ThreadID]; dup {
				bad("thread_id %q is already used on line %d", m.ThreadID, prev)
			}
			seen[m.ThreadID] = ln
		}
		if strings.TrimSpace(m.Prompt) == "" {
			bad("prompt is required")
		} else if len(m.Prompt) > MaxPrompt {
			bad("prompt of %d bytes: at most %d", len(m.Prompt), MaxPrompt)
		}
		if m.Team != "" && m.Team != TeamStandard && m.Team != TeamAdvanced {
			bad("team %q: want %s or %s", m.Team, TeamStandard, TeamAdvanced)
		}
		if m.Budget < 0 {
			bad("budget %d: want a positive number of steps", m.Budget)
		} else if m.Budget > MaxBudget {
			bad("budget %d: at most %d steps", m.Budget, MaxBudget)
		}
		if len(m.StartURL) > MaxStartURL {
			bad("start_url of %d bytes: at most %d", len(m.StartURL), MaxStartURL)
		} else if m.StartURL != "" {
			u, err := url.Parse(m.StartURL)
			if err != nil || (!strings.HasPrefix(m.StartURL, "/") && u.Scheme != "http" && u.Scheme != "https") {
				bad("start_url %q: want a path (/projects) or an http(s) URL", m.StartURL)
			} else if u.IsAbs() && u.Host == "" {
				bad("start_url %q: an absolute URL needs a host", m.StartURL)
			}
		}
	}
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
// URL on another origin is an error wrapping xerr.ErrUsage: it is not rewritten
// onto the target.
func ResolveStartURL(startURL, target string) (string, error) {
	if startURL == "" {
		return "/", nil
	}
	u, err := url.Parse(startURL)
	if err != nil {
		return "", fmt.Errorf("%w: start_url %q: %v", xerr.ErrUsage, startURL, err)
	}
	if !u.IsAbs() {
		if !strings.HasPrefix(startURL, "/") || strings.HasPrefix(startURL, "//") {
			return "", fmt.Errorf("%w: start_url %q: want a path (/projects) or an http(s) URL on %s", xerr.ErrUsage, startURL, target)
		}
		return startURL, nil
	}
	t, err := url.Parse(target)
	if err != nil || !t.IsAbs() {
		return "", fmt.Errorf("%w: start_url %q: target %q is not an origin", xerr.ErrUsage, startURL, target)
	}
	if origin(u) != origin(t) {
		return "", fmt.Errorf("%w: start_url %q is on %s, not on the target %s: use a path, or a URL on the target", xerr.ErrUsage, startURL, origin(u), origin(t))
	}
	if p := urlx.PathQuery(startURL); p != "" && p[0] == '/' {
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

// missionKeys are the keys of a mission in a missions file.
var missionKeys = []string{"thread_id", "prompt", "team", "budget", "start_url"}

// parseTemplated parses a missions file that uses goal templates: ok is
// false, with no problem added, when no item names a template (the plain
// parser then reads the file).
func parseTemplated(e *MissionsError, data []byte) ([]Mission, bool) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil || root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return nil, false
	}
	top := root.Content[0]
	seq := mapValue(top, "missions")
	if seq == nil || seq.Kind != yaml.SequenceNode || !slices.ContainsFunc(seq.Content, func(n *yaml.Node) bool { return mapValue(n, "template") != nil }) {
		return nil, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		e.Problems = append(e.Problems, fmt.Sprintf("line %d: a second YAML document starts here (---); it would be ignored: put every mission in the one `missions:` list", extra.Line))
		return nil, false
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		if k := top.Content[i]; k.Value != "missions" {
			e.Problems = append(e.Problems, fmt.Sprintf("line %d: field %s not found in type explore.missionsFile", k.Line, k.Value))
		}
	}
	var ms []Mission
	var lines []int
	for i, item := range seq.Content {
		bad := func(line int, format string, args ...any) {
			e.Problems = append(e.Problems, fmt.Sprintf("line %d: mission %d: ", line, i+1)+fmt.Sprintf(format, args...))
		}
		if item.Kind != yaml.MappingNode {
			bad(item.Line, "want a mapping ({thread_id, prompt} or {template, params})")
			continue
		}
		if t := mapValue(item, "template"); t != nil {
			for k := 0; k+1 < len(item.Content); k += 2 {
				if key := item.Content[k]; key.Value != "template" && key.Value != "params" {
					bad(key.Line, "field %s: a template item takes only template and params", key.Value)
				}
			}
			got, err := ExpandTemplate(TemplateName(t.Value), mapValue(item, "params"))
			if err != nil {
				bad(item.Line, "template %s: %v", t.Value, err)
				continue
			}
			for _, m := range got {
				ms, lines = append(ms, m), append(lines, item.Line)
			}
			continue
		}
		unknown := false
		for k := 0; k+1 < len(item.Content); k += 2 {
			if key := item.Content[k]; !slices.Contains(missionKeys, key.Value) {
				e.Problems = append(e.Problems, fmt.Sprintf("line %d: field %s not found in type explore.Mission", key.Line, key.Value))
				unknown = true
			}
		}
		var m Mission
		if err := item.Decode(&m); err != nil {
			var te *yaml.TypeError
			if errors.As(err, &te) {
				e.Problems = append(e.Problems, te.Errors...)
			} else {
				bad(item.Line, "%v", err)
			}
			continue
		}
		if !unknown {
			ms, lines = append(ms, m), append(lines, item.Line)
		}
	}
	if len(ms) == 0 && len(e.Problems) == 0 {
		e.Problems = append(e.Problems, "line 1: no missions: the templates made none")
	}
	validateMissions(e, ms, lines)
	if len(e.Problems) > 0 {
		return nil, false
	}
	return ms, true
}

// mapValue is the value node of key in a mapping node, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// aliasBomb names the alias at which data's YAML, with its aliases expanded,
// passes MaxExpanded bytes ("" when it does not, or when data does not
// parse: the decoders say why). Each scalar counts its text and every node
// a byte; an alias counts what its anchor does, nested aliases included; an
// anchor that contains its own alias is refused too.
func aliasBomb(data []byte) string {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return ""
	}
	const limit = MaxExpanded
	sizes := map[*yaml.Node]int{}
	open := map[*yaml.Node]bool{}
	var size func(n *yaml.Node) (int, *yaml.Node)
	// size is n's expanded size, saturated at limit+1; the second result
	// is an alias whose anchor contains it (a cycle).
	size = func(n *yaml.Node) (int, *yaml.Node) {
		if s, ok := sizes[n]; ok {
			return s, nil
		}
		if open[n] {
			return limit + 1, n
		}
		open[n] = true
		defer delete(open, n)
		total := 1 + len(n.Value)
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			s, cyc := size(n.Alias)
			if cyc != nil {
				return limit + 1, n
			}
			total = s
		}
		for _, c := range n.Content {
			s, cyc := size(c)
			if cyc != nil {
				return limit + 1, cyc
			}
			total = min(total+s, limit+1)
		}
		sizes[n] = total
		return total, nil
	}
	// Walk in document order, so the alias named is the first one at
	// which the expanded text passes the bound.
	running := 0
	var walk func(n *yaml.Node) string
	walk = func(n *yaml.Node) string {
		if n.Kind == yaml.AliasNode {
			s, cyc := size(n)
			if cyc != nil {
				return fmt.Sprintf("line %d: column %d: alias *%s refers to an anchor that contains it: refused", n.Line, n.Column, n.Value)
			}
			if running += s; running > limit {
				return fmt.Sprintf("line %d: column %d: alias *%s: with its aliases expanded the file passes %d bytes (1 MiB): aliases may share text, not multiply it", n.Line, n.Column, n.Value, limit)
			}
			return ""
		}
		running += 1 + len(n.Value)
		for _, c := range n.Content {
			if p := walk(c); p != "" {
				return p
			}
		}
		return ""
	}
	return walk(&root)
}
