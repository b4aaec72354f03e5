package config

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentgraph/agentgraph/examples/explorer/explore"
)

// UsersKey is the list of users in explorer.yaml:
//
//	users:
//	  - name: alice
//	    email: alice@example.com
//	    password: ${ALICE_PASSWORD}    # or password_env: ALICE_PASSWORD
//	  - name: bob
//	    storage_state: auth/bob.json  # a Playwright storage state
//
// On the command line: --account name=alice,email=…,password-env=VAR
// (repeatable; a password itself is refused there) and --storage-state
// [NAME=]PATH (repeatable; a bare path is the default user's, whose
// email and password are --user and --password).
const UsersKey = "users"

// accountKeys are the keys of one user, in the file (snake_case) and in
// --account (either spelling).
var accountKeys = []string{"name", "email", "password", "password_env", "storage_state"}

// ParseAccount parses one --account value: comma-separated key=value
// pairs with keys name, email, password-env (the environment variable
// that holds the password, read with lookup) and storage-state. A
// password itself is refused: it would show in the process list and the
// shell's history.
func ParseAccount(spec string, lookup func(string) (string, bool)) (explore.Account, error) {
	var a explore.Account
	seen := map[string]bool{}
	for part := range strings.SplitSeq(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return a, fmt.Errorf("%q: want key=value pairs separated by commas (name=alice,email=…,password-env=VAR)", clipSpec(part))
		}
		key := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(k)), "-", "_")
		if seen[key] {
			return a, fmt.Errorf("%s is given twice", key)
		}
		seen[key] = true
		v = strings.TrimSpace(v)
		switch key {
		case "name":
			a.Name = v
		case "email", "user":
			a.Email = v
		case "password_env":
			pw, err := passwordFromEnv(v, lookup)
			if err != nil {
				return a, err
			}
			a.Password = pw
		case "storage_state":
			a.StorageState = v
		case "password":
			return a, errors.New("a password on the command line shows in the process list and the shell's history: use password-env=VAR (or password: ${VAR} in explorer.yaml)")
		default:
			return a, fmt.Errorf("unknown key %q (want name, email, password-env or storage-state)", k)
		}
	}
	if a.Name == "" {
		return a, errors.New("name=… is missing")
	}
	return a, nil
}

var reEnvVar = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func passwordFromEnv(name string, lookup func(string) (string, bool)) (string, error) {
	if !reEnvVar.MatchString(name) {
		return "", fmt.Errorf("password_env %q is no environment variable name", name)
	}
	v, ok := "", false
	if lookup != nil {
		v, ok = lookup(name)
	}
	if !ok || v == "" {
		return "", fmt.Errorf("password_env: %s is not set", name)
	}
	return v, nil
}

// ParseStorageState parses one --storage-state value: NAME=PATH, or a
// bare PATH for the default user (explore.DefaultUser).
func ParseStorageState(spec string) (name, path string, err error) {
	spec = strings.TrimSpace(spec)
	if k, v, ok := strings.Cut(spec, "="); ok && reName.MatchString(k) {
		name, path = k, v
	} else {
		name, path = explore.DefaultUser, spec
	}
	if path == "" {
		return "", "", fmt.Errorf("%q: want [NAME=]PATH of a storage-state file", spec)
	}
	return name, path, nil
}

var reName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)

func clipSpec(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// loadUsers reads the users: list of the file (node v, after key k).
func (l *Loaded) loadUsers(k, v *yaml.Node) error {
	if v.Tag == "!!null" {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		return fmt.Errorf("config: %s line %d: users: want a list of users (- name: …)", l.File, v.Line)
	}
	var users []explore.Account
	for _, item := range v.Content {
		at := fmt.Sprintf("config: %s line %d", l.File, item.Line)
		if item.Kind != yaml.MappingNode {
			return fmt.Errorf("%s: users: want a mapping per user (name, email, password or password_env, storage_state)", at)
		}
		var a explore.Account
		seen := map[string]bool{}
		for i := 0; i+1 < len(item.Content); i += 2 {
			kk, vv := item.Content[i], item.Content[i+1]
			at := fmt.Sprintf("config: %s line %d", l.File, kk.Line)
			key := kk.Value
			if !contains(accountKeys, key) {
				return fmt.Errorf("%s: users: unknown key %q (want %s)", at, key, strings.Join(accountKeys, ", "))
			}
			if seen[key] {
				return fmt.Errorf("%s: users: %s is given twice", at, key)
			}
			seen[key] = true
			if vv.Kind != yaml.ScalarNode {
				return fmt.Errorf("%s: users: %s: want a single value", at, key)
			}
			val, err := Expand(vv.Value, l.Lookup)
			if err != nil {
				return fmt.Errorf("%s: users: %s: %w", at, key, err)
			}
			switch key {
			case "name":
				a.Name = val
			case "email":
				a.Email = val
			case "password":
				a.Password = val
			case "password_env":
				if a.Password, err = passwordFromEnv(val, l.Lookup); err != nil {
					return fmt.Errorf("%s: users: %w", at, err)
				}
			case "storage_state":
				a.StorageState = val
			}
		}
		if seen["password"] && seen["password_env"] {
			return fmt.Errorf("%s: users: give password or password_env, not both", at)
		}
		if a.Name == "" {
			return fmt.Errorf("%s: users: name is missing", at)
		}
		users = append(users, a)
	}
	l.Settings.Users = users
	l.Sources[UsersKey], l.Layers[UsersKey] = fmt.Sprintf("%s line %d", l.File, k.Line), LayerFile
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// applyUserFlags applies --account (replacing the file's users) and
// --storage-state, then checks the users (explore.ValidateUsers).
func (l *Loaded) applyUserFlags(o Options) error {
	if len(o.Accounts) > 0 {
		var users []explore.Account
		for _, spec := range o.Accounts {
			a, err := ParseAccount(spec, l.Lookup)
			if err != nil {
				return fmt.Errorf("config: --account: %w", err)
			}
			users = append(users, a)
		}
		l.Settings.Users = users
		l.Sources[UsersKey], l.Layers[UsersKey] = "flag --account", LayerFlag
	}
	for _, spec := range o.StorageStates {
		name, path, err := ParseStorageState(spec)
		if err != nil {
			return fmt.Errorf("config: --storage-state: %w", err)
		}
		found := false
		for i := range l.Settings.Users {
			if l.Settings.Users[i].Name == name {
				l.Settings.Users[i].StorageState, found = path, true
			}
		}
		if !found {
			a := explore.Account{Name: name, StorageState: path}
			if name == explore.DefaultUser {
				a.Email, a.Password = l.Settings.User, l.Settings.Password
			}
			l.Settings.Users = append(l.Settings.Users, a)
		}
		src := "flag --storage-state"
		if l.Layers[UsersKey] == LayerFile || l.Sources[UsersKey] == "flag --account" {
			src = l.Sources[UsersKey] + ", flag --storage-state"
		}
		l.Sources[UsersKey], l.Layers[UsersKey] = src, LayerFlag
	}
	if err := explore.ValidateUsers(l.Settings.Users); err != nil {
		return fmt.Errorf("config: users (%s): %s", l.Sources[UsersKey], strings.TrimPrefix(err.Error(), explore.ErrUsage.Error()+": "))
	}
	return nil
}

// printUsers writes the users as an explorer.yaml list, passwords masked.
func (l *Loaded) printUsers(w io.Writer) error {
	if len(l.Settings.Users) == 0 {
		_, err := fmt.Fprintf(w, "%s: [] # %s\n", UsersKey, l.Sources[UsersKey])
		return err
	}
	if _, err := fmt.Fprintf(w, "%s: # %s\n", UsersKey, l.Sources[UsersKey]); err != nil {
		return err
	}
	for _, u := range l.Settings.Users {
		line := "  - name: " + quoted(u.Name)
		if u.Email != "" {
			line += "\n    email: " + quoted(u.Email)
		}
		if u.Password != "" {
			line += "\n    password: " + quoted(Mask)
		}
		if u.StorageState != "" {
			line += "\n    storage_state: " + quoted(u.StorageState)
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

func quoted(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	q := strings.TrimSuffix(string(out), "\n")
	if strings.Contains(s, "$") {
		q = fmt.Sprintf("%q", strings.ReplaceAll(s, "$", "$$"))
	}
	return q
}
