package explore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/findings"
	"github.com/agentgraph/agentgraph/examples/explorer/report"
)

// Account is one user the explorer acts as (Config.Users). It signs in
// with Email and Password, or starts from StorageState, a Playwright
// storage-state file (cookies and localStorage of a signed-in browser,
// e.g. saved by `npx playwright codegen --save-storage`).
type Account struct {
	// Name names the user in the tape, reports and specs: letters,
	// digits, '_' and '-'. Never an email or a password.
	Name     string `json:"name" yaml:"name"`
	Email    string `json:"-" yaml:"email,omitempty"`
	Password string `json:"-" yaml:"password,omitempty"`
	// StorageState is the path of a storage-state JSON file.
	StorageState string `json:"storage_state,omitempty" yaml:"storage_state,omitempty"`
}

// DefaultUser names the one user of Config.Credentials, and the user a
// bare --storage-state path belongs to.
const DefaultUser = "default"

var reUserName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)

// ValidateUsers checks a list of users: each has a valid, unique name and
// a password or a storage state; a storage state is a readable JSON
// object. Errors wrap ErrUsage and name the user, never its password.
func ValidateUsers(users []Account) error {
	seen := map[string]bool{}
	for i, u := range users {
		at := fmt.Sprintf("user %d", i+1)
		if u.Name != "" {
			at = fmt.Sprintf("user %q", u.Name)
		}
		if !reUserName.MatchString(u.Name) {
			return fmt.Errorf("%w: %s: name %q: use 1-32 letters, digits, '_' or '-' (it names the user in reports and specs)", ErrUsage, at, u.Name)
		}
		if seen[u.Name] {
			return fmt.Errorf("%w: %s: the name is used twice", ErrUsage, at)
		}
		seen[u.Name] = true
		if u.Password == "" && u.StorageState == "" {
			return fmt.Errorf("%w: %s: give a password (from an environment variable) or a storage state file", ErrUsage, at)
		}
		if u.StorageState != "" {
			if err := checkStorageState(u.StorageState); err != nil {
				return fmt.Errorf("%w: %s: storage state: %v", ErrUsage, at, err)
			}
		}
	}
	return nil
}

// checkStorageState checks that path is a readable file holding a JSON
// object (Playwright's storage state: {"cookies": […], "origins": […]}).
// Its contents are never quoted in the error.
func checkStorageState(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var v map[string]json.RawMessage
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("%s is not a JSON object (a Playwright storage state)", path)
	}
	return nil
}

// userRun is a user at work in a run: its sign-in tape (from the set-up
// mission), its storage state and the values its personas typed.
type userRun struct {
	Account
	// state is the storage-state file its contexts start from: the
	// configured one, or the set-up mission's ("" for none).
	state string
	// signIn are the set-up mission's replayable steps (passwords as
	// ${SECRET_n}, addresses the target's), for the specs.
	signIn []browser.Entry
}

// users is the run's accounts: Config.Users, else none (the single
// Credentials account of earlier versions, handled as before).
func (c *Config) users() []*userRun {
	var out []*userRun
	for _, u := range c.Users {
		out = append(out, &userRun{Account: u, state: u.StorageState})
	}
	return out
}

// storageStateEnv is the variable a spec reads a user's storage-state
// path from.
func storageStateEnv(name string) string {
	return "AGENTGRAPH_STORAGE_STATE_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// errNoSignIn: the set-up mission found no sign-in form.
var errNoSignIn = errors.New("no sign-in form: the start page has no password field and no sign-in link or button leads to one")

// signInSeq numbers the set-up mission's steps when they open a spec:
// apart from every mission tape's numbers.
const signInSeq = 1_000_000_000

// bugUser is the user whose action found b (nil without Config.Users).
func (mr *missionRun) bugUser(tl []report.TimelineEntry, b findings.Bug) *userRun {
	if len(mr.accounts) == 0 {
		return nil
	}
	for _, t := range tl {
		if t.Entry.Seq == b.TapeSeq && t.Entry.Account != "" {
			return mr.userNamed(t.Entry.Account)
		}
	}
	if len(mr.accounts) == 1 {
		return mr.accounts[0]
	}
	return nil
}

// bugEntries are the steps a bug's spec replays: the tape up to the bug
// (replayable); with Config.Users, only its user's steps (the other
// users acted in other browser contexts), after the set-up mission's
// sign-in of that user unless it starts from a configured storage state.
func (mr *missionRun) bugEntries(tl []report.TimelineEntry, b findings.Bug) []browser.Entry {
	full := report.Replayable(tl, b.TapeSeq)
	u := mr.bugUser(tl, b)
	if u == nil {
		return full
	}
	var out []browser.Entry
	if u.StorageState == "" {
		for i, e := range u.signIn {
			e.Seq = signInSeq + int64(i)
			out = append(out, e)
		}
	}
	for _, e := range full {
		if len(mr.accounts) == 1 || e.Account == u.Name {
			out = append(out, e)
		}
	}
	return out
}

// withUserState makes r start from its user's configured storage state
// (a browser context of its own, the file's path read from
// AGENTGRAPH_STORAGE_STATE_<NAME>) when the user has one.
func (mr *missionRun) withUserState(r browser.Reproduction, tl []report.TimelineEntry, b findings.Bug) browser.Reproduction {
	u := mr.bugUser(tl, b)
	if u == nil || u.StorageState == "" || len(r.Actors) > 0 {
		return r
	}
	r.Actors = []browser.Actor{{Name: u.Name, StorageStateEnv: storageStateEnv(u.Name), Entries: r.Entries}}
	r.Entries = nil
	return r
}

// usersHeader puts, at the top of a spec that signs in as a user or
// starts from a user's storage state, which environment variable holds
// what: names and variable names only, never a value.
func (mr *missionRun) usersHeader(spec string) string {
	var lines []string
	for _, u := range mr.accounts {
		var what []string
		for _, v := range []struct{ value, label string }{{u.Email, "email"}, {u.Password, "password"}} {
			if ref, ok := mr.secrets.Ref(v.value); ok && strings.Contains(spec, "secret('"+strings.Trim(ref, "${}")+"')") {
				what = append(what, strings.Trim(ref, "${}")+" is "+u.Name+"'s "+v.label)
			}
		}
		if env := storageStateEnv(u.Name); strings.Contains(spec, "'"+env+"'") {
			what = append(what, env+" is the path of "+u.Name+"'s storage-state file")
		}
		if len(what) > 0 {
			lines = append(lines, "// "+strings.Join(what, "; ")+".")
		}
	}
	if len(lines) == 0 {
		return spec
	}
	return "// Environment: " + strings.TrimPrefix(strings.Join(lines, "\n"), "// ") + "\n" + spec
}
