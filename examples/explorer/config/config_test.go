package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	return p
}

func TestFieldsRoundTrip(t *testing.T) {
	d := Defaults()
	for _, f := range Fields() {
		var s Settings
		require.NoError(t, f.Set(&s, f.Get(&d)), f.Key)
		assert.Equal(t, f.Get(&d), f.Get(&s), f.Key)
		assert.NotEmpty(t, f.Usage, f.Key)
	}
	assert.Len(t, Fields(), 33)
}

func TestPrecedence(t *testing.T) {
	const file = "budget: 50\nteam: advanced\nreports: file-reports\nminimize_time: 30s\nheaded: true\n"
	tests := []struct {
		name    string
		file    bool
		env     map[string]string
		flags   map[string]string
		key     string
		want    string
		wantSrc string
	}{
		{"default", false, nil, nil, "budget", "200", "default"},
		{"file over default", true, nil, nil, "budget", "50", "explorer.yaml line 1"},
		{"env over file", true, map[string]string{"AGENTGRAPH_BUDGET": "70"}, nil, "budget", "70", "env AGENTGRAPH_BUDGET"},
		{"flag over env", true, map[string]string{"AGENTGRAPH_BUDGET": "70"}, map[string]string{"budget": "90"}, "budget", "90", "flag --budget"},
		{"flag over default", false, nil, map[string]string{"seed": "7"}, "seed", "7", "flag --seed"},
		{"env over default", false, map[string]string{"AGENTGRAPH_TARGET": "http://app:8080"}, nil, "target", "http://app:8080", "env AGENTGRAPH_TARGET"},
		{"empty env is unset", true, map[string]string{"AGENTGRAPH_TEAM": ""}, nil, "team", "advanced", "explorer.yaml line 2"},
		{"file string", true, map[string]string{"AGENTGRAPH_BUDGET": "70"}, nil, "reports", "file-reports", "explorer.yaml line 3"},
		{"file duration", true, nil, nil, "minimize_time", "30s", "explorer.yaml line 4"},
		{"flag bool over file", true, nil, map[string]string{"headed": "false"}, "headed", "false", "flag --headed"},
		{"env bool over file", true, map[string]string{"AGENTGRAPH_HEADED": "false"}, nil, "headed", "false", "env AGENTGRAPH_HEADED"},
		{"env snake key", false, map[string]string{"AGENTGRAPH_TURN_STEPS": "4"}, nil, "turn_steps", "4", "env AGENTGRAPH_TURN_STEPS"},
		{"skills from env", false, map[string]string{"AGENTGRAPH_SKILLS": "qa-skills"}, nil, "skills", "qa-skills", "env AGENTGRAPH_SKILLS"},
		{"skills flag over env", false, map[string]string{"AGENTGRAPH_SKILLS": "qa-skills"}, map[string]string{"skills": "mine"}, "skills", "mine", "flag --skills"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.file {
				writeFile(t, dir, DefaultFile, file)
			}
			l, err := Load(Options{Dir: dir, Env: envOf(tc.env), Flags: tc.flags})
			require.NoError(t, err)
			f, ok := FieldByKey(tc.key)
			require.True(t, ok)
			want := tc.want
			if tc.key == "minimize_time" {
				want = (30 * time.Second).String()
			}
			assert.Equal(t, want, f.Get(&l.Settings))
			src := tc.wantSrc
			if tc.file && src != "default" && src[:4] == "expl" {
				src = filepath.Join(dir, src)
			}
			assert.Equal(t, src, l.Sources[tc.key])
			layers := map[string]Layer{"default": LayerDefault, "explorer.yaml": LayerFile, "env": LayerEnv, "flag": LayerFlag}
			first, _, _ := strings.Cut(tc.wantSrc, " ")
			assert.Equal(t, layers[first], l.Layers[tc.key])
		})
	}
}

func TestExpand(t *testing.T) {
	env := envOf(map[string]string{"PW": "s3cret", "EMPTY": "", "HOST": "app"})
	tests := []struct {
		in, want, wantErr string
	}{
		{"${PW}", "s3cret", ""},
		{"http://${HOST}:8080/x", "http://app:8080/x", ""},
		{"${MISSING:-fallback}", "fallback", ""},
		{"${EMPTY:-fallback}", "fallback", ""},
		{"${EMPTY}", "", ""},
		{"${PW:-other}", "s3cret", ""},
		{"cost $$5 and $HOME", "cost $5 and $HOME", ""},
		{"$${PW}", "${PW}", ""},
		{"trailing $", "trailing $", ""},
		{"${MISSING}", "", "${MISSING} is not set and has no default"},
		{"${PW", "", "unterminated ${"},
		{"${1X}", "", `bad variable name "1X"`},
		{"${}", "", `bad variable name ""`},
		{"${A:-${B}}", "", "nested ${"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Expand(tc.in, env)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestFileErrors(t *testing.T) {
	tests := []struct {
		name, body, wantErr string
	}{
		{"unknown key", "budget: 5\ncolour: red\n", "line 2: unknown setting \"colour\""},
		{"flag spelling", "\nturn-steps: 3\n", "line 2: unknown setting \"turn-steps\" (did you mean turn_steps?"},
		{"wrong type int", "budget: lots\n", "line 1: budget: want an integer, got \"lots\""},
		{"unknown snake key", "a_comment: 1\n", "line 1: unknown setting \"a_comment\" (run `explorer init`"},
		{"wrong type bool value", "# c\nheaded: maybe\n", "line 2: headed: want true or false"},
		{"wrong duration", "minimize_time: 5\n", "line 1: minimize_time: want a duration"},
		{"bad enum", "team: huge\n", "line 1: team: want standard or advanced"},
		{"bad fail_on", "fail_on: sometimes\n", "line 1: fail_on:"},
		{"bad provider", "provider: mistral\n", `line 1: provider: llm: unknown provider "mistral"`},
		{"list value", "budget:\n  - 1\n", "line 2: budget: want a single value"},
		{"duplicate", "budget: 1\nbudget: 2\n", "line 2: budget is already set on line 1"},
		{"not a mapping", "- budget\n", "line 1: want a mapping"},
		{"yaml syntax", "budget: 1\n  x: : y\n", "yaml: line 2"},
		{"unset variable", "budget: 3\npassword: ${EXPLORER_TEST_UNSET_PW}\n", "line 2: password: ${EXPLORER_TEST_UNSET_PW} is not set"},
		{"unterminated", "\n\nuser: ${USER_NAME\n", "line 3: user: unterminated ${"},
		{"interpolated wrong type", "budget: ${N:-many}\n", "line 1: budget: want an integer, got \"many\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, DefaultFile, tc.body)
			_, err := Load(Options{Dir: dir, Env: envOf(nil)})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func TestFileOptional(t *testing.T) {
	dir := t.TempDir()
	l, err := Load(Options{Dir: dir})
	require.NoError(t, err)
	assert.Equal(t, Defaults(), l.Settings)
	assert.Empty(t, l.File)

	_, err = Load(Options{Dir: dir, File: "none.yaml"})
	require.Error(t, err, "an explicit --config must exist")
	assert.Contains(t, err.Error(), "--config")
	_, err = Load(Options{Dir: dir, EnvFile: "none.env"})
	require.Error(t, err, "an explicit --env-file must exist")
	assert.Contains(t, err.Error(), "--env-file")

	writeFile(t, dir, "empty.yaml", "# nothing\n")
	l, err = Load(Options{Dir: dir, File: "empty.yaml"})
	require.NoError(t, err)
	assert.Equal(t, Defaults(), l.Settings)
	writeFile(t, dir, "null.yaml", "target:\nbudget: 3\n")
	l, err = Load(Options{Dir: dir, File: "null.yaml"})
	require.NoError(t, err)
	assert.Equal(t, "", l.Settings.Target)
	assert.Equal(t, 3, l.Settings.Budget)
}

func TestDotEnv(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, DefaultEnvFile, "# secrets\nEXPLORER_PW=from-dotenv\nexport AGENTGRAPH_BUDGET=33\nOPENAI_API_KEY=\"sk-dot\"\nAGENTGRAPH_SEED=4\n")
	writeFile(t, dir, DefaultFile, "password: ${EXPLORER_PW}\nuser: ${EXPLORER_USER:-qa@example.com}\n")

	l, err := Load(Options{Dir: dir, Env: envOf(map[string]string{"AGENTGRAPH_SEED": "9"})})
	require.NoError(t, err)
	assert.Equal(t, "from-dotenv", l.Settings.Password, ".env feeds interpolation")
	assert.Equal(t, "qa@example.com", l.Settings.User)
	assert.Equal(t, 33, l.Settings.Budget, ".env feeds AGENTGRAPH_* settings")
	assert.Equal(t, filepath.Join(dir, DefaultEnvFile)+" line 3 (AGENTGRAPH_BUDGET)", l.Sources["budget"])
	assert.Equal(t, uint64(9), l.Settings.Seed, "the real environment wins over .env")
	assert.Equal(t, "env AGENTGRAPH_SEED", l.Sources["seed"])
	key, ok := l.Lookup("OPENAI_API_KEY")
	assert.True(t, ok)
	assert.Equal(t, "sk-dot", key, "provider keys from .env reach Lookup")

	// the real environment is never overridden by .env
	l, err = Load(Options{Dir: dir, Env: envOf(map[string]string{"EXPLORER_PW": "from-env", "OPENAI_API_KEY": "sk-env"})})
	require.NoError(t, err)
	assert.Equal(t, "from-env", l.Settings.Password)
	key, _ = l.Lookup("OPENAI_API_KEY")
	assert.Equal(t, "sk-env", key)

	// --env-file names another file; the default .env is then not read
	other := writeFile(t, dir, "ci.env", "EXPLORER_PW=ci\n")
	l, err = Load(Options{Dir: dir, EnvFile: other, Env: envOf(nil)})
	require.NoError(t, err)
	assert.Equal(t, "ci", l.Settings.Password)
	assert.Equal(t, 200, l.Settings.Budget)
}

func TestDotEnvErrors(t *testing.T) {
	tests := []struct {
		name, body, wantErr, notWant string
	}{
		{"bad name", "A=1\nB=2\nBAD-NAME=secret-value\nC=3\n", "line 3: unexpected character \"-\" in variable name", "secret-value"},
		{"unterminated quote", "A=1\nB=\"open\nC=3\n", "line 2: unterminated quoted value", "open"},
		{"bad setting value", "AGENTGRAPH_BUDGET=x\n", "line 1 (AGENTGRAPH_BUDGET): budget: want an integer", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, DefaultEnvFile, tc.body)
			_, err := Load(Options{Dir: dir, Env: envOf(nil)})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
			if tc.notWant != "" {
				assert.NotContains(t, err.Error(), tc.notWant, "the message does not quote the file's values")
			}
		})
	}
}

func TestEnvAndFlagErrors(t *testing.T) {
	_, err := Load(Options{Env: envOf(map[string]string{"AGENTGRAPH_MINIMIZE_WORKERS": "three"})})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "env AGENTGRAPH_MINIMIZE_WORKERS: minimize_workers: want an integer")
	_, err = Load(Options{Dir: t.TempDir(), Flags: map[string]string{"team": "huge"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--team: want standard or advanced")
	_, err = Load(Options{Dir: t.TempDir(), Flags: map[string]string{"colour": "x"}})
	require.Error(t, err)
}

func TestTemplateLoadsToDefaults(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, DefaultFile)
	require.NoError(t, WriteTemplate(p, false))
	l, err := Load(Options{Dir: dir, Env: envOf(nil)})
	require.NoError(t, err)
	assert.Equal(t, Defaults(), l.Settings)
	for _, f := range Fields() {
		assert.Contains(t, l.Sources[f.Key], DefaultFile, "the template sets %s", f.Key)
	}
	body, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Contains(t, string(body), "# browser steps per mission [--budget, AGENTGRAPH_BUDGET]\nbudget: 200\n")

	require.NoError(t, os.WriteFile(p, []byte("budget: 1\n"), 0o600))
	err = WriteTemplate(p, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exists; use --force")
	body, _ = os.ReadFile(p)
	assert.Equal(t, "budget: 1\n", string(body), "not overwritten")
	require.NoError(t, WriteTemplate(p, true))
	body, _ = os.ReadFile(p)
	assert.Equal(t, Template(), body)
}

func TestPrintMasksSecrets(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, DefaultFile, "password: ${PW}\ntarget: https://bob:hunter2@app.example\nreports: \"cost$$\"\n")
	l, err := Load(Options{Dir: dir, Env: envOf(map[string]string{"PW": "s3cret-pw"}), Flags: map[string]string{"budget": "5"}})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, l.Print(&out))
	s := out.String()
	assert.NotContains(t, s, "s3cret-pw")
	assert.NotContains(t, s, "hunter2")
	assert.Contains(t, s, "password: '****' # "+filepath.Join(dir, DefaultFile)+" line 1\n")
	assert.Contains(t, s, "budget: 5 # flag --budget\n")
	assert.Contains(t, s, "seed: 1 # default\n")

	// the printout (secrets aside) loads back to the same settings
	writeFile(t, dir, "printed.yaml", s)
	back, err := Load(Options{Dir: dir, File: "printed.yaml", Env: envOf(nil)})
	require.NoError(t, err)
	want := l.Settings
	want.Password = Mask
	want.Target = "https://bob:xxxxx@app.example"
	assert.Equal(t, want, back.Settings)
}
