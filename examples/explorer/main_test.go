package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/examples/explorer/config"
	"github.com/agentgraph/agentgraph/examples/explorer/explore"
	"github.com/agentgraph/agentgraph/examples/explorer/observe"
	"github.com/agentgraph/agentgraph/examples/explorer/session"
	"github.com/agentgraph/agentgraph/internal/testapps/demoapp"
)

func TestUsageErrorsExitTwo(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "m.yaml")
	assert.NoError(t, os.WriteFile(bad, []byte("missions:\n  - thread_id: x\n    colour: red\n"), 0o644))
	env := func(string) (string, bool) { return "", false }
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--nope"}, "flag provided but not defined"},
		{"bad fail-on", []string{"--fail-on", "sometimes"}, "want new, any or none"},
		{"stray argument", []string{"extra"}, "unexpected arguments"},
		{"bad missions", []string{"--missions", bad}, "line 3: field colour not found"},
		{"missing missions file", []string{"--missions", filepath.Join(t.TempDir(), "none.yaml")}, "no such file"},
		{"bad PR URL", []string{"--pr-url", "https://gitlab.com/o/r/pull/1"}, "want https://github.com/OWNER/REPO/pull/N"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errOut, env)
			assert.Equal(t, explore.ExitSetup, code)
			assert.Contains(t, errOut.String(), tc.want)
		})
	}
}

func mapEnv(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// inDir runs the test in a fresh working directory holding files.
func inDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600))
	}
	t.Chdir(dir)
	return dir
}

// TestConfigPrecedence: `explorer config` prints each setting with where it
// came from: flag > AGENTGRAPH_* (environment, then .env) > explorer.yaml > default.
func TestConfigPrecedence(t *testing.T) {
	inDir(t, map[string]string{
		"explorer.yaml": "budget: 50\nseed: 5\nteam: advanced\nreports: file-reports\npassword: ${QA_PW}\nuser: ${QA_USER:-qa@example.com}\n",
		".env":          "QA_PW=dotenv-secret\nAGENTGRAPH_SEED=6\nAGENTGRAPH_TEAM=standard\n",
	})
	env := mapEnv(map[string]string{"AGENTGRAPH_BUDGET": "70", "AGENTGRAPH_SEED": "8"})
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"config", "--budget", "90", "-v"}, &out, &errOut, env)
	require.Equal(t, explore.ExitClean, code, errOut.String())
	for _, want := range []string{
		"budget: 90 # flag --budget\n",                     // flag over env over file
		"seed: 8 # env AGENTGRAPH_SEED\n",                  // environment over .env over file
		"team: standard # .env line 3 (AGENTGRAPH_TEAM)\n", // .env over file
		"reports: file-reports # explorer.yaml line 4\n",
		"user: qa@example.com # explorer.yaml line 6\n",
		"password: '****' # explorer.yaml line 5\n",
		"turn_steps: 10 # default\n",
		"verbose: true # flag --verbose\n",
		"# model: offline\n",
	} {
		assert.Contains(t, out.String(), want)
	}
	assert.NotContains(t, out.String(), "dotenv-secret")
}

func TestConfigFileErrorsExitTwo(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		args  []string
		want  string
	}{
		{"unknown key", map[string]string{"explorer.yaml": "budget: 1\ncolour: red\n"}, nil, "explorer.yaml line 2: unknown setting \"colour\""},
		{"wrong type", map[string]string{"explorer.yaml": "\nbudget: many\n"}, nil, "explorer.yaml line 2: budget: want an integer"},
		{"unset variable", map[string]string{"explorer.yaml": "password: ${NOPE_PW}\n"}, nil, "explorer.yaml line 1: password: ${NOPE_PW} is not set"},
		{"missing --config", nil, []string{"--config", "other.yaml"}, "--config: stat other.yaml"},
		{"bad .env", map[string]string{".env": "OK=1\nNOT OK\n"}, nil, ".env line 2"},
		{"missing --env-file", nil, []string{"--env-file", "ci.env"}, "--env-file: stat ci.env"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inDir(t, tc.files)
			var out, errOut bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errOut, mapEnv(nil))
			assert.Equal(t, explore.ExitSetup, code)
			assert.Contains(t, errOut.String(), tc.want)
		})
	}
}

// TestInitRoundTrip: `explorer init` writes a file that loads back to the
// defaults and does not overwrite one without --force.
func TestInitRoundTrip(t *testing.T) {
	dir := inDir(t, nil)
	var out, errOut bytes.Buffer
	require.Equal(t, explore.ExitClean, run(context.Background(), []string{"init"}, &out, &errOut, mapEnv(nil)), errOut.String())
	assert.Contains(t, out.String(), "wrote explorer.yaml")

	l, err := config.Load(config.Options{Env: mapEnv(nil)})
	require.NoError(t, err)
	assert.Equal(t, config.Defaults(), l.Settings)
	assert.Equal(t, "explorer.yaml line 9", l.Sources["target"], "the written file is the one read")

	require.NoError(t, os.WriteFile("explorer.yaml", []byte("budget: 3\n"), 0o600))
	errOut.Reset()
	assert.Equal(t, explore.ExitSetup, run(context.Background(), []string{"init"}, &out, &errOut, mapEnv(nil)))
	assert.Contains(t, errOut.String(), "explorer.yaml exists; use --force")
	body, err := os.ReadFile("explorer.yaml")
	require.NoError(t, err)
	assert.Equal(t, "budget: 3\n", string(body))
	assert.Equal(t, explore.ExitClean, run(context.Background(), []string{"init", "--force"}, &out, &errOut, mapEnv(nil)))
	body, err = os.ReadFile("explorer.yaml")
	require.NoError(t, err)
	assert.Equal(t, config.Template(), body)
	assert.Equal(t, explore.ExitClean, run(context.Background(), []string{"init", "--config", "ci.yaml"}, &out, &errOut, mapEnv(nil)))
	assert.FileExists(t, filepath.Join(dir, "ci.yaml"))
}

// TestProviderFlag: --provider forces a provider; a forced provider without
// its key, or one contradicting --offline, is a set-up error before the browser.
func TestProviderFlag(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		env   map[string]string
		args  []string
		code  int
		want  string
	}{
		{"offline despite key", nil, map[string]string{"OPENAI_API_KEY": "sk"}, []string{"config", "--provider", "offline"}, explore.ExitClean, "# model: offline"},
		{"detected", nil, map[string]string{"OPENAI_API_KEY": "sk"}, []string{"config"}, explore.ExitClean, "# model: openai (via OPENAI_API_KEY)"},
		{"forced over detection", nil, map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "sk"}, []string{"config", "--provider", "openai"}, explore.ExitClean, "# model: openai (via OPENAI_API_KEY)"},
		{"forced over AGENTGRAPH_PROVIDER", nil, map[string]string{"AGENTGRAPH_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "a", "GOOGLE_API_KEY": "g"}, []string{"config", "--provider", "google"}, explore.ExitClean, "# model: google (via GOOGLE_API_KEY)"},
		{"key from .env", map[string]string{".env": "ANTHROPIC_API_KEY=from-dotenv\n"}, nil, []string{"config", "--provider", "anthropic"}, explore.ExitClean, "# model: anthropic (via ANTHROPIC_API_KEY)"},
		{"from file", map[string]string{"explorer.yaml": "provider: offline\n"}, map[string]string{"OPENAI_API_KEY": "sk"}, []string{"config"}, explore.ExitClean, "provider: offline # explorer.yaml line 1"},
		{"key missing", nil, map[string]string{"OPENAI_API_KEY": "sk"}, []string{"--provider", "anthropic"}, explore.ExitSetup,
			"explorer: provider anthropic (flag --provider): llm: provider anthropic is forced but ANTHROPIC_API_KEY is not set"},
		{"key missing from file", map[string]string{"explorer.yaml": "provider: google\n"}, nil, []string{"config"}, explore.ExitSetup,
			"provider google (explorer.yaml line 1): llm: provider google is forced but GOOGLE_API_KEY or GEMINI_API_KEY is not set"},
		{"unknown provider", nil, nil, []string{"--provider", "mistral"}, explore.ExitSetup, `unknown provider "mistral"`},
		{"offline wins on the same layer", nil, map[string]string{"OPENAI_API_KEY": "sk"}, []string{"config", "--provider", "openai", "--offline"}, explore.ExitClean, "# model: offline"},
		{"offline from env wins over provider from file", map[string]string{"explorer.yaml": "provider: openai\n"}, map[string]string{"OPENAI_API_KEY": "sk", "AGENTGRAPH_OFFLINE": "true"}, []string{"config"}, explore.ExitClean, "# model: offline"},
		{"provider flag wins over offline from file", map[string]string{"explorer.yaml": "offline: true\n"}, map[string]string{"OPENAI_API_KEY": "sk"}, []string{"config", "--provider", "openai"}, explore.ExitClean, "# model: openai (via OPENAI_API_KEY)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inDir(t, tc.files)
			var out, errOut bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errOut, mapEnv(tc.env))
			assert.Equal(t, tc.code, code, errOut.String())
			assert.Contains(t, out.String()+errOut.String(), tc.want)
		})
	}
}

// TestVerbosePrintsMaskedConfig: -v prints the effective config, secrets
// masked, before anything starts (here the run then stops at set-up).
func TestVerbosePrintsMaskedConfig(t *testing.T) {
	inDir(t, map[string]string{".env": "QA_PASSWORD=pa55-from-dotenv\n", "explorer.yaml": "password: ${QA_PASSWORD}\nbudget: 12\n"})
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"-v", "--provider", "anthropic"}, &out, &errOut, mapEnv(nil))
	assert.Equal(t, explore.ExitSetup, code)
	assert.Contains(t, errOut.String(), "password: '****' # explorer.yaml line 1\n")
	assert.Contains(t, errOut.String(), "budget: 12 # explorer.yaml line 2\n")
	assert.Contains(t, errOut.String(), "ANTHROPIC_API_KEY is not set")
	assert.NotContains(t, errOut.String(), "pa55-from-dotenv")
}

// TestExploreConfig: the settings reach explore.Config.
func TestExploreConfig(t *testing.T) {
	s := config.Defaults()
	s.User, s.Password, s.Budget, s.MissionRetries, s.MinimizeTime, s.Team = "qa", "pw", 7, 0, time.Minute, "advanced"
	cfg, err := exploreConfig(s, mapEnv(nil))
	require.NoError(t, err)
	assert.Equal(t, session.Credentials{Email: "qa", Password: "pw"}, cfg.Credentials)
	assert.Equal(t, 7, cfg.Budget)
	assert.Equal(t, -1, cfg.MissionRetries, "0 means never")
	assert.Equal(t, time.Minute, cfg.MinimizeTime)
	assert.Equal(t, "advanced", cfg.Team)
	assert.Equal(t, "reports/explorer.db", cfg.DB)
	assert.Empty(t, cfg.Target, "no target: the command serves the demo app")

	// Without a target the demo app is served, its bugs off with
	// DEMOAPP_FIXED; a bad list is an error.
	stop, err := onDemoApp(&cfg, mapEnv(map[string]string{"DEMOAPP_FIXED": "all"}))
	require.NoError(t, err)
	assert.NotEmpty(t, cfg.Target)
	assert.Equal(t, demoapp.MemoryOrigin, cfg.MemoryOrigin)
	require.NotNil(t, cfg.Seeded)
	assert.Empty(t, cfg.Seeded.IDs, "DEMOAPP_FIXED=all: no bug seeded")
	assert.NotNil(t, cfg.ReplayTarget)
	stop()
	cfg = explore.Config{}
	stop, err = onDemoApp(&cfg, mapEnv(nil))
	require.NoError(t, err)
	assert.NotEmpty(t, cfg.Seeded.IDs)
	stop()
	_, err = onDemoApp(&cfg, mapEnv(map[string]string{"DEMOAPP_FIXED": "BUG-NO-SUCH"}))
	assert.Error(t, err)

	s.Target = "http://app"
	cfg, err = exploreConfig(s, mapEnv(nil))
	require.NoError(t, err)
	assert.Equal(t, "http://app", cfg.Target)
	s.Missions = filepath.Join(t.TempDir(), "none.yaml")
	_, err = exploreConfig(s, mapEnv(nil))
	assert.Error(t, err)
}

// TestMainTemplateMissionsAndEvents runs the program offline on the demo
// app with a missions file made of a goal template and --events: the
// template's missions run and every event lands in the JSON-lines log.
func TestMainTemplateMissionsAndEvents(t *testing.T) {
	dir := t.TempDir()
	missions := filepath.Join(dir, "missions.yaml")
	require.NoError(t, os.WriteFile(missions, []byte("missions:\n  - template: simulate_all_users\n    params:\n      users: [{name: new_user}, {name: adversarial}]\n      budget: 3\n"), 0o644))
	events := filepath.Join(dir, "events.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	code := run(ctx, []string{"--offline", "--missions", missions, "--events", events, "--reports", dir, "--db", "", "--plain",
		"--fail-on", "none", "--minimize-replays", "-1"}, &out, &errOut, mapEnv(nil))
	require.Equal(t, explore.ExitClean, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	assert.Contains(t, out.String(), "[1/2 user-new_user] step 1/3")
	assert.Contains(t, out.String(), "[2/2 user-adversarial] step 3/3")
	f, err := os.Open(events)
	require.NoError(t, err)
	defer f.Close()
	evs, err := observe.ReadJSONL(f)
	require.NoError(t, err)
	var starts, ends, steps []observe.Event
	for _, ev := range evs {
		switch ev.Kind {
		case observe.GoalStart:
			starts = append(starts, ev)
		case observe.GoalComplete:
			ends = append(ends, ev)
		case observe.Step:
			steps = append(steps, ev)
		}
	}
	require.Len(t, starts, 2)
	assert.Equal(t, "user-new_user", starts[0].Goal)
	assert.Contains(t, starts[1].Text, "Simulate the user adversarial")
	require.Len(t, ends, 2)
	assert.Len(t, steps, ends[0].Steps+ends[1].Steps)
}

// TestTargetSetupErrorsExitTwo: a target that is unreachable, not HTTP(S)
// or answering nothing is a set-up error (exit 2, the cause on stderr),
// never "app bugs" and exit 1; no report is written for it.
func TestTargetSetupErrorsExitTwo(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closedURL := "http://" + closed.Addr().String()
	require.NoError(t, closed.Close())
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = silent.Close() })
	go func() { // accepts and never answers
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() })
		}
	}()
	tests := []struct {
		name, target, want string
		within             time.Duration
	}{
		{"unreachable", closedURL, "is unreachable", 5 * time.Second},
		{"not http", "ftp://127.0.0.1/x", "not an http(s) URL", 5 * time.Second},
		{"file URL", "file:///etc/passwd", "not an http(s) URL", 5 * time.Second},
		{"answering nothing", "http://" + silent.Addr().String(), "answered nothing within 10s", 20 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := inDir(t, nil)
			var out, errOut bytes.Buffer
			start := time.Now()
			code := run(context.Background(), []string{"--target", tc.target, "--offline", "--reports", filepath.Join(dir, "reports")}, &out, &errOut, mapEnv(nil))
			assert.Less(t, time.Since(start), tc.within)
			assert.Equal(t, explore.ExitSetup, code, "stdout: %s\nstderr: %s", out.String(), errOut.String())
			assert.Contains(t, errOut.String(), tc.want)
			assert.NotContains(t, out.String(), "bug")
		})
	}
}

// TestUsersFlags: --account and --storage-state reach explore.Config,
// `explorer config` prints the users with passwords masked, and bad users
// stop the program at set-up (exit 2) before any browser.
func TestUsersFlags(t *testing.T) {
	dir := inDir(t, map[string]string{"bob.json": `{"cookies": [], "origins": []}`, "bad.json": "nope"})
	env := mapEnv(map[string]string{"ALICE_PW": "alice-secret-77"})
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"config", "--account", "name=alice,email=alice@example.com,password-env=ALICE_PW",
		"--storage-state", "bob=" + filepath.Join(dir, "bob.json"), "--users-share-data"}, &out, &errOut, env)
	require.Equal(t, explore.ExitClean, code, errOut.String())
	assert.Contains(t, out.String(), "users: # flag --account, flag --storage-state\n  - name: alice\n    email: alice@example.com\n    password: '****'\n  - name: bob\n    storage_state: ")
	assert.Contains(t, out.String(), "users_share_data: true # flag --users-share-data")
	assert.NotContains(t, out.String()+errOut.String(), "alice-secret-77")

	l, code := loadConfig("explorer", []string{"--account", "name=alice,password-env=ALICE_PW", "--account", "name=bob,storage-state=bob.json"}, &errOut, env)
	require.NotNil(t, l, errOut.String())
	cfg, err := exploreConfig(l.Settings, env)
	require.NoError(t, err)
	assert.Equal(t, []explore.Account{{Name: "alice", Password: "alice-secret-77"}, {Name: "bob", StorageState: "bob.json"}}, cfg.Users)
	assert.Equal(t, explore.ExitClean, code)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--account", "name=alice,password=alice-secret-77"}, "use password-env=VAR"},
		{[]string{"--account", "name=alice,password-env=NOPE"}, "NOPE is not set"},
		{[]string{"--storage-state", "bad.json"}, "is not a JSON object"},
		{[]string{"--account", "name=a,password-env=ALICE_PW", "--account", "name=a,password-env=ALICE_PW"}, "used twice"},
	} {
		out.Reset()
		errOut.Reset()
		assert.Equal(t, explore.ExitSetup, run(context.Background(), tc.args, &out, &errOut, env), tc.args)
		assert.Contains(t, errOut.String(), tc.want, tc.args)
		assert.NotContains(t, errOut.String(), "alice-secret-77", tc.args)
	}
}
