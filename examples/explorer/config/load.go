package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The files Load looks for in the working directory.
const (
	DefaultFile    = "explorer.yaml"
	DefaultEnvFile = ".env"
)

// Options says where Load finds the layers of the configuration.
type Options struct {
	// Dir is the working directory of DefaultFile and DefaultEnvFile and of
	// relative File and EnvFile paths ("" = the process's).
	Dir string
	// File is the config file (--config); it must exist. Empty: DefaultFile
	// if it exists.
	File string
	// EnvFile is the .env file (--env-file); it must exist. Empty:
	// DefaultEnvFile if it exists.
	EnvFile string
	// Env is the real environment (os.LookupEnv); nil is an empty one.
	Env func(string) (string, bool)
	// Flags holds the flags given on the command line: setting key → value.
	Flags map[string]string
	// Accounts are the --account values (each replaces the file's users)
	// and StorageStates the --storage-state values, in order.
	Accounts      []string
	StorageStates []string
}

// Layer is where a setting's value came from, lowest precedence first.
type Layer int

// The layers of the configuration.
const (
	LayerDefault Layer = iota
	LayerFile          // explorer.yaml or --config
	LayerEnv           // AGENTGRAPH_* in the environment or .env
	LayerFlag          // the command line
)

// Loaded is the effective configuration.
type Loaded struct {
	Settings Settings
	// Sources tells where each setting's value came from: "default",
	// "explorer.yaml line 3", "env AGENTGRAPH_BUDGET", ".env line 2
	// (AGENTGRAPH_BUDGET)" or "flag --budget".
	Sources map[string]string
	// Layers tells the layer of each setting's value.
	Layers  map[string]Layer
	File    string   // the config file read, "" if none
	EnvFile *EnvFile // the .env file read, nil if none
	env     func(string) (string, bool)
}

// Lookup reads a variable from the real environment, then from the .env
// file: .env never overrides a variable the environment sets. Hand it to
// whatever else reads the environment (LLM provider detection).
func (l *Loaded) Lookup(name string) (string, bool) {
	if l.env != nil {
		if v, ok := l.env(name); ok {
			return v, true
		}
	}
	return l.EnvFile.Lookup(name)
}

// Load builds the effective configuration: each setting's default,
// overridden by the config file, then by its AGENTGRAPH_* variable (real
// environment, then .env), then by its flag. Errors name the file and line,
// the variable or the flag.
func Load(o Options) (*Loaded, error) {
	l := &Loaded{Settings: Defaults(), Sources: map[string]string{}, Layers: map[string]Layer{}, env: o.Env}
	for _, f := range Fields() {
		l.Sources[f.Key] = "default"
	}
	l.Sources[UsersKey] = "default"
	envPath, err := findFile(o.Dir, o.EnvFile, DefaultEnvFile)
	if err != nil {
		return nil, fmt.Errorf("config: --env-file: %w", err)
	}
	if envPath != "" {
		if l.EnvFile, err = ReadEnvFile(envPath); err != nil {
			return nil, err
		}
	}
	if l.File, err = findFile(o.Dir, o.File, DefaultFile); err != nil {
		return nil, fmt.Errorf("config: --config: %w", err)
	}
	if l.File != "" {
		if err := l.loadFile(); err != nil {
			return nil, err
		}
	}
	for _, f := range Fields() {
		name := f.EnvVar()
		v, ok := l.Lookup(name)
		if !ok || v == "" {
			continue
		}
		src := "env " + name
		if _, real := lookupReal(o.Env, name); !real {
			src = fmt.Sprintf("%s line %d (%s)", l.EnvFile.Path, l.EnvFile.Lines[name], name)
		}
		if err := f.Set(&l.Settings, v); err != nil {
			return nil, fmt.Errorf("config: %s: %s: %w", src, f.Key, err)
		}
		l.Sources[f.Key], l.Layers[f.Key] = src, LayerEnv
	}
	keys := make([]string, 0, len(o.Flags))
	for k := range o.Flags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f, ok := FieldByKey(k)
		if !ok {
			return nil, fmt.Errorf("config: unknown setting %q", k)
		}
		if err := f.Set(&l.Settings, o.Flags[k]); err != nil {
			return nil, fmt.Errorf("config: --%s: %w", f.Flag(), err)
		}
		l.Sources[k], l.Layers[k] = "flag --"+f.Flag(), LayerFlag
	}
	if err := l.applyUserFlags(o); err != nil {
		return nil, err
	}
	return l, nil
}

func lookupReal(env func(string) (string, bool), name string) (string, bool) {
	if env == nil {
		return "", false
	}
	return env(name)
}

// findFile resolves an explicit path, which must exist, or the default name
// in dir, which may be absent ("").
func findFile(dir, explicit, def string) (string, error) {
	if explicit != "" {
		p := explicit
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return "", err
		}
		return p, nil
	}
	p := filepath.Join(dir, def)
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		return "", err
	}
	return p, nil
}

// loadFile applies the settings of l.File.
func (l *Loaded) loadFile() error {
	data, err := os.ReadFile(l.File)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("config: %s: %w", l.File, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 { // empty file
		return nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" { // only comments
		return nil
	}
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("config: %s line %d: want a mapping of settings (key: value)", l.File, root.Line)
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		at := fmt.Sprintf("config: %s line %d", l.File, k.Line)
		if k.Value == UsersKey {
			if prev, dup := seen[k.Value]; dup {
				return fmt.Errorf("%s: %s is already set on line %d", at, k.Value, prev)
			}
			seen[k.Value] = k.Line
			if err := l.loadUsers(k, v); err != nil {
				return err
			}
			continue
		}
		f, ok := FieldByKey(k.Value)
		if !ok {
			return fmt.Errorf("%s: unknown setting %q%s", at, k.Value, hint(k.Value))
		}
		if prev, dup := seen[k.Value]; dup {
			return fmt.Errorf("%s: %s is already set on line %d", at, k.Value, prev)
		}
		seen[k.Value] = k.Line
		if v.Kind != yaml.ScalarNode {
			return fmt.Errorf("config: %s line %d: %s: want a single value, not a list or mapping", l.File, v.Line, k.Value)
		}
		if v.Tag == "!!null" {
			continue // "key:" with no value keeps the default
		}
		at = fmt.Sprintf("config: %s line %d", l.File, v.Line)
		val, err := Expand(v.Value, l.Lookup)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", at, k.Value, err)
		}
		if err := f.Set(&l.Settings, val); err != nil {
			return fmt.Errorf("%s: %s: %w", at, k.Value, err)
		}
		l.Sources[f.Key], l.Layers[f.Key] = fmt.Sprintf("%s line %d", l.File, v.Line), LayerFile
	}
	return nil
}

// hint suggests the setting a misspelt key probably means.
func hint(key string) string {
	norm := strings.ToLower(strings.ReplaceAll(key, "-", "_"))
	if norm == "v" {
		norm = "verbose"
	}
	if f, ok := FieldByKey(norm); ok {
		return fmt.Sprintf(" (did you mean %s? keys are the flag names in snake_case)", f.Key)
	}
	return " (run `explorer init` for the list of settings)"
}
