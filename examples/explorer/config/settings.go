package config

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/mission"
	"github.com/agentgraph/agentgraph/examples/explorer/pullreq"
	"github.com/agentgraph/agentgraph/llm"
)

// Settings holds every setting of the explorer program. Each field is one
// flag, one key of explorer.yaml and one AGENTGRAPH_* variable (see Fields).
type Settings struct {
	Target          string
	Missions        string
	Team            string
	Budget          int
	TurnSteps       int
	Reports         string
	DB              string
	Shard           string
	BrowserWS       string
	Resume          string
	Regression      bool
	FailOn          string
	Offline         bool
	Provider        string
	User            string
	Password        string
	Seed            uint64
	Headed          bool
	PRURL           string
	MCPConfig       string
	Skills          string
	Events          string
	MissionRetries  int
	MinimizeReplays int
	MinimizeTime    time.Duration
	MinimizeWorkers int
	Verbose         bool
	Plain           bool
	Quiet           bool
	UsersShareData  bool
	EntryPaths      string
	NoDiscovery     bool
	JSCoverage      bool
	// Users are the accounts to explore as: the users: list of the file,
	// or --account and --storage-state (UsersKey). No Field: a list.
	Users []explore.Account
}

// Defaults returns the settings of a run with no flag, variable or file.
func Defaults() Settings {
	return Settings{
		Budget:          200,
		TurnSteps:       10,
		Reports:         "reports",
		DB:              "reports/explorer.db",
		FailOn:          string(explore.FailOnNew),
		Seed:            1,
		MissionRetries:  2,
		MinimizeReplays: explore.DefaultMinimizeReplays,
		MinimizeTime:    explore.DefaultMinimizeTime,
		MinimizeWorkers: explore.DefaultMinimizeWorkers,
	}
}

// Field describes one setting.
type Field struct {
	// Key is the setting's name in explorer.yaml: the flag's name in
	// snake_case (flag --turn-steps, key turn_steps).
	Key string
	// Usage is the one-line help of the flag and of the key in the
	// template that `explorer init` writes.
	Usage string
	// Secret settings are masked when the effective config is printed.
	Secret bool
	// Example is what `explorer init` writes instead of the default value
	// (e.g. an interpolation); it must evaluate to the default when its
	// variables are unset.
	Example string

	ptr   func(*Settings) any // *string, *int, *bool, *uint64 or *time.Duration
	check func(string) error  // extra validation of a parsed string value
}

// Flag is the command-line flag of the setting.
func (f Field) Flag() string { return strings.ReplaceAll(f.Key, "_", "-") }

// EnvVar is the environment variable of the setting.
func (f Field) EnvVar() string { return "AGENTGRAPH_" + strings.ToUpper(f.Key) }

// Get formats the setting's value in s as it would be written in a flag.
func (f Field) Get(s *Settings) string {
	switch p := f.ptr(s).(type) {
	case *string:
		return *p
	case *int:
		return strconv.Itoa(*p)
	case *bool:
		return strconv.FormatBool(*p)
	case *uint64:
		return strconv.FormatUint(*p, 10)
	case *time.Duration:
		return p.String()
	}
	return "" // unreachable: Fields uses the types above (TestFieldsRoundTrip)
}

// Set parses v into the setting in s. The error names the expected type
// or values, not the setting: callers add where v came from.
func (f Field) Set(s *Settings, v string) error {
	switch p := f.ptr(s).(type) {
	case *string:
		if f.check != nil {
			if err := f.check(v); err != nil {
				return err
			}
		}
		*p = v
	case *int:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("want an integer, got %q", v)
		}
		*p = n
	case *bool:
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("want true or false, got %q", v)
		}
		*p = b
	case *uint64:
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return fmt.Errorf("want a non-negative integer, got %q", v)
		}
		*p = n
	case *time.Duration:
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("want a duration such as 90s or 2m, got %q", v)
		}
		*p = d
	}
	return nil
}

// Fields lists every setting in the order of `explorer init`'s template.
func Fields() []Field {
	str := func(p func(*Settings) *string) func(*Settings) any { return func(s *Settings) any { return p(s) } }
	num := func(p func(*Settings) *int) func(*Settings) any { return func(s *Settings) any { return p(s) } }
	boo := func(p func(*Settings) *bool) func(*Settings) any { return func(s *Settings) any { return p(s) } }
	return []Field{
		{Key: "target", Usage: "origin of the app to explore (empty: serve the demo app on loopback)", ptr: str(func(s *Settings) *string { return &s.Target })},
		{Key: "missions", Usage: "missions YAML file (empty: one default mission)", ptr: str(func(s *Settings) *string { return &s.Missions })},
		{Key: "team", Usage: "team for every mission: standard or advanced (empty: by mission keywords)", ptr: str(func(s *Settings) *string { return &s.Team }), check: checkTeam},
		{Key: "budget", Usage: "browser steps per mission", ptr: num(func(s *Settings) *int { return &s.Budget })},
		{Key: "turn_steps", Usage: "step limit of one persona turn", ptr: num(func(s *Settings) *int { return &s.TurnSteps })},
		{Key: "reports", Usage: "report directory", ptr: str(func(s *Settings) *string { return &s.Reports })},
		{Key: "db", Usage: "bbolt file, or postgres:// URL shared by shards, for checkpoints and memory (empty: in memory; a URL's password is masked when printed)", ptr: str(func(s *Settings) *string { return &s.DB }), check: explore.CheckDB},
		{Key: "shard", Usage: "run only shard i of n of the missions, e.g. 1/4 (by a hash of each thread id; empty: all)", ptr: str(func(s *Settings) *string { return &s.Shard }), check: checkShard},
		{Key: "browser_ws", Usage: "ws:// URL of a Playwright browser server (npx playwright run-server) that launches the browser (empty: Chromium here)", ptr: str(func(s *Settings) *string { return &s.BrowserWS }), check: checkBrowserWS},
		{Key: "resume", Usage: "resume the mission with this thread id from its checkpoint", ptr: str(func(s *Settings) *string { return &s.Resume })},
		{Key: "regression", Usage: "missions from the open bugs in memory", ptr: boo(func(s *Settings) *bool { return &s.Regression })},
		{Key: "fail_on", Usage: "exit 1 on bugs: new, any or none", ptr: str(func(s *Settings) *string { return &s.FailOn }), check: checkFailOn},
		{Key: "offline", Usage: "never use a model, even when an API key is set", ptr: boo(func(s *Settings) *bool { return &s.Offline })},
		{Key: "provider", Usage: "force the LLM provider: openai, anthropic, google, ollama or offline (empty: detect from the environment)", ptr: str(func(s *Settings) *string { return &s.Provider }), check: checkProvider},
		{Key: "user", Usage: "sign-in email or user name (empty: one shown on the page)", ptr: str(func(s *Settings) *string { return &s.User })},
		{Key: "password", Usage: "sign-in password (secret: masked when printed)", Secret: true, Example: "${EXPLORER_PASSWORD:-}", ptr: str(func(s *Settings) *string { return &s.Password })},
		{Key: "users_share_data", Usage: "the users (users: or --account) see each other's data by design: no cross-user leak findings", ptr: boo(func(s *Settings) *bool { return &s.UsersShareData })},
		{Key: "entry_paths", Usage: "comma-separated paths to look for pages at besides the sitemaps, robots.txt and the conventional ones (deep links the app's own links may not reach)", ptr: str(func(s *Settings) *string { return &s.EntryPaths })},
		{Key: "no_discovery", Usage: "explore only what the start page's links lead to: no sitemaps, robots.txt or conventional paths", ptr: boo(func(s *Settings) *bool { return &s.NoDiscovery })},
		{Key: "js_coverage", Usage: "collect the app's JavaScript coverage (Chromium's precise coverage: DevTools calls on every step, slower)", ptr: boo(func(s *Settings) *bool { return &s.JSCoverage })},
		{Key: "seed", Usage: "seed of the offline personas", ptr: func(s *Settings) any { return &s.Seed }},
		{Key: "headed", Usage: "show the browser", ptr: boo(func(s *Settings) *bool { return &s.Headed })},
		{Key: "pr_url", Usage: "missions from a GitHub pull request (https://github.com/OWNER/REPO/pull/N)", ptr: str(func(s *Settings) *string { return &s.PRURL }), check: checkPRURL},
		{Key: "mcp_config", Usage: "mcp_servers.json: model personas get its servers' tools, its \"github\" server fetches pr_url (empty: ./mcp_servers.json if present)", ptr: str(func(s *Settings) *string { return &s.MCPConfig })},
		{Key: "skills", Usage: "skills directory (a folder per skill with SKILL.md and scripts/) whose tools model personas get (empty: none)", ptr: str(func(s *Settings) *string { return &s.Skills })},
		{Key: "events", Usage: "write every run event (goal start and end, steps, tool calls and results, bugs, step limits) as JSON lines to this file (empty: none)", ptr: str(func(s *Settings) *string { return &s.Events })},
		{Key: "mission_retries", Usage: "continue a mission from its checkpoint this often after transient model errors (0: never)", ptr: num(func(s *Settings) *int { return &s.MissionRetries })},
		{Key: "minimize_replays", Usage: "replays to shorten one bug's reproduction (negative: off)", ptr: num(func(s *Settings) *int { return &s.MinimizeReplays })},
		{Key: "minimize_time", Usage: "time to shorten one mission's reproductions", ptr: func(s *Settings) any { return &s.MinimizeTime }},
		{Key: "minimize_workers", Usage: "minimisation replays run at once", ptr: num(func(s *Settings) *int { return &s.MinimizeWorkers })},
		{Key: "verbose", Usage: "log diagnostics and the effective config to stderr (flag -v or --verbose)", ptr: boo(func(s *Settings) *bool { return &s.Verbose })},
		{Key: "plain", Usage: "plain progress lines even on a terminal", ptr: boo(func(s *Settings) *bool { return &s.Plain })},
		{Key: "quiet", Usage: "no progress lines", ptr: boo(func(s *Settings) *bool { return &s.Quiet })},
	}
}

// FieldByKey returns the setting named key.
func FieldByKey(key string) (Field, bool) {
	for _, f := range Fields() {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}

func checkTeam(v string) error {
	switch v {
	case "", mission.TeamStandard, mission.TeamAdvanced:
		return nil
	}
	return fmt.Errorf("want %s or %s, got %q", mission.TeamStandard, mission.TeamAdvanced, v)
}

func checkFailOn(v string) error {
	if v == "" {
		return errors.New("want new, any or none, got \"\"")
	}
	_, err := explore.ParseFailOn(v)
	return err
}

func checkProvider(v string) error {
	if v == "" {
		return nil
	}
	_, err := llm.ParseProvider(v)
	return err
}

func checkShard(v string) error {
	_, err := mission.ParseShard(v)
	return err
}

func checkBrowserWS(v string) error {
	if v == "" {
		return nil
	}
	return browser.CheckEndpoint(v)
}

func checkPRURL(v string) error {
	if v == "" {
		return nil
	}
	_, err := pullreq.ParseURL(v)
	return err
}

// RegisterFlags defines one flag per setting on fs, bound to s (and -v as a
// short form of --verbose), with the values in s as the flags' defaults:
// pass Defaults(). The flags only parse types; Load checks the values
// (team, fail_on, provider, pr_url) of the flags that were set.
func RegisterFlags(fs *flag.FlagSet, s *Settings) {
	for _, f := range Fields() {
		names := []string{f.Flag()}
		if f.Key == "verbose" {
			names = append(names, "v")
		}
		for _, name := range names {
			switch p := f.ptr(s).(type) {
			case *string:
				fs.StringVar(p, name, *p, f.Usage)
			case *int:
				fs.IntVar(p, name, *p, f.Usage)
			case *bool:
				fs.BoolVar(p, name, *p, f.Usage)
			case *uint64:
				fs.Uint64Var(p, name, *p, f.Usage)
			case *time.Duration:
				fs.DurationVar(p, name, *p, f.Usage)
			}
		}
	}
}

// FlagKey returns the setting key of a flag name registered by RegisterFlags.
func FlagKey(name string) (string, bool) {
	if name == "v" {
		return "verbose", true
	}
	key := strings.ReplaceAll(name, "-", "_")
	_, ok := FieldByKey(key)
	return key, ok
}
