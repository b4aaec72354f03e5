package skills

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Defaults of Options.
const (
	DefaultTimeout   = 60 * time.Second
	DefaultMaxOutput = 64 << 10
	maxArgs          = 32
	maxArgLen        = 1024
)

// SafeArg is what an argument of a script without declared args must match:
// it cannot start with "-" (no option injection) and holds no shell
// metacharacters, spaces or control characters.
var SafeArg = regexp.MustCompile(`^[A-Za-z0-9_./:@%+=,][A-Za-z0-9_./:@%+=,-]{0,255}$`)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ArgSpec declares one positional argument of a script.
type ArgSpec struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Required    bool     `yaml:"required"`
	Pattern     string   `yaml:"pattern"` // RE2, anchored; empty: SafeArg
	Enum        []string `yaml:"enum"`

	re *regexp.Regexp
}

// ScriptSpec declares a script in SKILL.md's front matter.
type ScriptSpec struct {
	Description string    `yaml:"description"`
	Args        []ArgSpec `yaml:"args"`
	// Variadic lets the last declared argument repeat.
	Variadic bool `yaml:"variadic"`
}

// Script is one file of a skill's scripts/ folder.
type Script struct {
	Name string
	Path string
	// Spec is the front matter declaration; nil when undeclared (then up to
	// 32 arguments matching SafeArg are accepted).
	Spec *ScriptSpec
}

// Skill is one folder with a SKILL.md and an optional scripts/ folder.
//
// SKILL.md starts with YAML front matter between "---" lines:
//
//	---
//	name: link-check
//	description: Check the links of a page and report broken ones.
//	scripts:
//	  check.sh:
//	    description: Fetch a URL and list its broken links
//	    args:
//	      - {name: url, required: true, pattern: 'https?://[^\s]+'}
//	      - {name: depth, enum: ["1", "2", "3"]}
//	---
//	# Link check
//	Free-form documentation for the model...
type Skill struct {
	Name        string
	Description string
	Dir         string
	Doc         string // SKILL.md without its front matter
	Scripts     map[string]*Script
}

// ScriptNames returns the skill's script names, sorted.
func (s *Skill) ScriptNames() []string {
	names := make([]string, 0, len(s.Scripts))
	for n := range s.Scripts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

type frontMatter struct {
	Name        string                 `yaml:"name"`
	Description string                 `yaml:"description"`
	Scripts     map[string]*ScriptSpec `yaml:"scripts"`
	// Common optional keys of other skill formats, accepted and ignored.
	License      string            `yaml:"license"`
	AllowedTools any               `yaml:"allowed-tools"`
	Metadata     map[string]string `yaml:"metadata"`
}

// ParseSkillMD splits SKILL.md into its front matter and body.
func parseSkillMD(data []byte) (frontMatter, string, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return frontMatter{}, "", errors.New(`SKILL.md must start with a "---" front matter line`)
	}
	rest := text[4:]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return frontMatter{}, "", errors.New(`SKILL.md front matter has no closing "---" line`)
	}
	head := rest[:end]
	body := strings.TrimPrefix(rest[end+4:], "\n")
	var fm frontMatter
	dec := yaml.NewDecoder(bytes.NewReader([]byte(head)))
	dec.KnownFields(true)
	if err := dec.Decode(&fm); err != nil {
		// yaml counts lines from the front matter's first line: SKILL.md line 2
		return frontMatter{}, "", fmt.Errorf("front matter (line numbers from the line after the first ---): %w", err)
	}
	return fm, body, nil
}

// LoadSkill reads one skill folder.
func LoadSkill(dir string) (*Skill, error) {
	data, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	fm, body, err := parseSkillMD(data)
	if err != nil {
		return nil, fmt.Errorf("skills: %s: %w", filepath.Join(dir, "SKILL.md"), err)
	}
	if fm.Name == "" {
		fm.Name = filepath.Base(dir)
	}
	if !nameRE.MatchString(fm.Name) {
		return nil, fmt.Errorf("skills: %s: name %q: want 1-64 of [A-Za-z0-9_.-]", dir, fm.Name)
	}
	if strings.TrimSpace(fm.Description) == "" {
		return nil, fmt.Errorf("skills: %s: front matter needs a description", dir)
	}
	s := &Skill{Name: fm.Name, Description: strings.TrimSpace(fm.Description), Dir: dir, Doc: body, Scripts: map[string]*Script{}}
	scriptsDir := filepath.Join(dir, "scripts")
	entries, err := os.ReadDir(scriptsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("skills: %s: %w", scriptsDir, err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || !nameRE.MatchString(e.Name()) {
			continue
		}
		info, err := os.Stat(filepath.Join(scriptsDir, e.Name())) // follows links
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		s.Scripts[e.Name()] = &Script{Name: e.Name(), Path: filepath.Join(scriptsDir, e.Name())}
	}
	for name, spec := range fm.Scripts {
		sc, ok := s.Scripts[name]
		if !ok {
			return nil, fmt.Errorf("skills: %s: front matter declares script %q, but scripts/%s does not exist", dir, name, name)
		}
		if spec == nil {
			spec = &ScriptSpec{}
		}
		for i := range spec.Args {
			a := &spec.Args[i]
			if a.Name == "" {
				return nil, fmt.Errorf("skills: %s: script %q: argument %d has no name", dir, name, i+1)
			}
			if a.Pattern != "" {
				re, err := regexp.Compile(`^(?:` + a.Pattern + `)$`)
				if err != nil {
					return nil, fmt.Errorf("skills: %s: script %q: argument %q: pattern: %w", dir, name, a.Name, err)
				}
				a.re = re
			}
		}
		sc.Spec = spec
	}
	return s, nil
}

// validate checks args against the script's declaration (or SafeArg).
func (sc *Script) validate(args []string) error {
	if len(args) > maxArgs {
		return fmt.Errorf("%d arguments: at most %d", len(args), maxArgs)
	}
	for i, a := range args {
		if len(a) > maxArgLen {
			return fmt.Errorf("argument %d is longer than %d bytes", i+1, maxArgLen)
		}
		if strings.ContainsRune(a, 0) {
			return fmt.Errorf("argument %d holds a NUL byte", i+1)
		}
	}
	if sc.Spec == nil {
		for i, a := range args {
			if !SafeArg.MatchString(a) {
				return fmt.Errorf("argument %d %q: undeclared script arguments must match %s", i+1, a, SafeArg)
			}
		}
		return nil
	}
	specs := sc.Spec.Args
	if len(args) > len(specs) && !(sc.Spec.Variadic && len(specs) > 0) {
		return fmt.Errorf("%d arguments given, the script takes %d (%s)", len(args), len(specs), usage(specs))
	}
	for i, sp := range specs {
		if i >= len(args) {
			if sp.Required {
				return fmt.Errorf("missing required argument %q (%s)", sp.Name, usage(specs))
			}
			continue
		}
		if err := sp.check(args[i]); err != nil {
			return err
		}
	}
	for _, a := range args[min(len(args), len(specs)):] {
		if err := specs[len(specs)-1].check(a); err != nil {
			return err
		}
	}
	return nil
}

func (sp ArgSpec) check(v string) error {
	if len(sp.Enum) > 0 {
		for _, e := range sp.Enum {
			if v == e {
				return nil
			}
		}
		return fmt.Errorf("argument %q = %q: want one of %s", sp.Name, v, strings.Join(sp.Enum, ", "))
	}
	if sp.re != nil {
		if !sp.re.MatchString(v) {
			return fmt.Errorf("argument %q = %q: does not match %s", sp.Name, v, sp.Pattern)
		}
		return nil
	}
	if !SafeArg.MatchString(v) {
		return fmt.Errorf("argument %q = %q: must match %s", sp.Name, v, SafeArg)
	}
	return nil
}

func usage(specs []ArgSpec) string {
	parts := make([]string, len(specs))
	for i, s := range specs {
		if s.Required {
			parts[i] = "<" + s.Name + ">"
		} else {
			parts[i] = "[" + s.Name + "]"
		}
	}
	if len(parts) == 0 {
		return "no arguments"
	}
	return "usage: " + strings.Join(parts, " ")
}
