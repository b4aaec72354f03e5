package config

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/examples/explorer/explore"
)

func TestParseAccount(t *testing.T) {
	env := envOf(map[string]string{"ALICE_PW": "s3cret-alice", "EMPTY": ""})
	tests := []struct {
		spec    string
		want    explore.Account
		wantErr string
	}{
		{spec: "name=alice,email=alice@example.com,password-env=ALICE_PW", want: explore.Account{Name: "alice", Email: "alice@example.com", Password: "s3cret-alice"}},
		{spec: "name=bob, storage-state=auth/bob.json", want: explore.Account{Name: "bob", StorageState: "auth/bob.json"}},
		{spec: "name=alice,password_env=ALICE_PW,storage_state=a.json", want: explore.Account{Name: "alice", Password: "s3cret-alice", StorageState: "a.json"}},
		{spec: "name=alice,password=hunter2", wantErr: "password-env=VAR"},
		{spec: "name=alice,password-env=NOPE", wantErr: "NOPE is not set"},
		{spec: "name=alice,password-env=EMPTY", wantErr: "EMPTY is not set"},
		{spec: "name=alice,password-env=1BAD", wantErr: "no environment variable name"},
		{spec: "email=a@example.com", wantErr: "name=… is missing"},
		{spec: "name=alice,colour=blue", wantErr: `unknown key "colour"`},
		{spec: "name=alice,name=bob", wantErr: "name is given twice"},
		{spec: "alice", wantErr: "want key=value pairs"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := ParseAccount(tt.spec, env)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				assert.NotContains(t, err.Error(), "hunter2", "a password is never quoted")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseStorageState(t *testing.T) {
	for _, tt := range []struct{ spec, name, path string }{
		{"bob=auth/bob.json", "bob", "auth/bob.json"},
		{"auth/state.json", explore.DefaultUser, "auth/state.json"},
		{"/tmp/a=b.json", explore.DefaultUser, "/tmp/a=b.json"},
	} {
		name, path, err := ParseStorageState(tt.spec)
		require.NoError(t, err, tt.spec)
		assert.Equal(t, tt.name, name, tt.spec)
		assert.Equal(t, tt.path, path, tt.spec)
	}
	_, _, err := ParseStorageState("bob=")
	require.Error(t, err)
}

func TestUsersFromFileAndFlags(t *testing.T) {
	dir := t.TempDir()
	state := writeFile(t, dir, "bob.json", `{"cookies": [], "origins": []}`)
	writeFile(t, dir, "notjson.json", `cookies=1`)
	file := "budget: 5\nusers:\n  - name: alice\n    email: alice@example.com\n    password: ${ALICE_PW}\n  - name: bob\n    storage_state: " + state + "\nusers_share_data: true\n"
	writeFile(t, dir, "explorer.yaml", file)
	env := envOf(map[string]string{"ALICE_PW": "pw-of-alice", "BOB_PW": "pw-of-bob"})

	l, err := Load(Options{Dir: dir, Env: env})
	require.NoError(t, err)
	require.Len(t, l.Settings.Users, 2)
	assert.Equal(t, explore.Account{Name: "alice", Email: "alice@example.com", Password: "pw-of-alice"}, l.Settings.Users[0])
	assert.Equal(t, explore.Account{Name: "bob", StorageState: state}, l.Settings.Users[1])
	assert.True(t, l.Settings.UsersShareData)
	assert.Equal(t, "explorer.yaml line 2", filepath.Base(l.Sources[UsersKey]))

	// The effective config masks the password and reads back.
	var out bytes.Buffer
	require.NoError(t, l.Print(&out))
	assert.NotContains(t, out.String(), "pw-of-alice")
	assert.Contains(t, out.String(), "  - name: alice\n    email: alice@example.com\n    password: '****'\n")
	assert.Contains(t, out.String(), "users_share_data: true")

	// --account replaces the file's users; --storage-state adds to them.
	l, err = Load(Options{Dir: dir, Env: env, Accounts: []string{"name=carol,password-env=BOB_PW"}, StorageStates: []string{"dave=" + state}})
	require.NoError(t, err)
	require.Len(t, l.Settings.Users, 2)
	assert.Equal(t, "carol", l.Settings.Users[0].Name)
	assert.Equal(t, "pw-of-bob", l.Settings.Users[0].Password)
	assert.Equal(t, explore.Account{Name: "dave", StorageState: state}, l.Settings.Users[1])
	assert.Equal(t, "flag --account, flag --storage-state", l.Sources[UsersKey])

	// A bare --storage-state path is the default user's, with --user and
	// --password.
	l, err = Load(Options{Dir: t.TempDir(), Env: env, Flags: map[string]string{"user": "me@example.com", "password": "pw-of-me"}, StorageStates: []string{state}})
	require.NoError(t, err)
	assert.Equal(t, []explore.Account{{Name: explore.DefaultUser, Email: "me@example.com", Password: "pw-of-me", StorageState: state}}, l.Settings.Users)
}

func TestUsersErrors(t *testing.T) {
	dir := t.TempDir()
	state := writeFile(t, dir, "ok.json", `{"cookies": []}`)
	bad := writeFile(t, dir, "bad.json", `[1, 2`)
	env := envOf(map[string]string{"PW": "pw-value-1"})
	tests := []struct {
		name, file string
		opts       Options
		wantErr    string
	}{
		{name: "not a list", file: "users: alice\n", wantErr: "line 1: users: want a list of users"},
		{name: "item not a mapping", file: "users:\n  - alice\n", wantErr: "line 2: users: want a mapping per user"},
		{name: "unknown key", file: "users:\n  - name: a\n    pasword: x\n", wantErr: `line 3: users: unknown key "pasword"`},
		{name: "no name", file: "users:\n  - email: a@example.com\n    password: x\n", wantErr: "line 2: users: name is missing"},
		{name: "unset variable", file: "users:\n  - name: a\n    password: ${NOPE}\n", wantErr: "line 3: users: password"},
		{name: "password twice", file: "users:\n  - name: a\n    password: x1234\n    password_env: PW\n", wantErr: "give password or password_env, not both"},
		{name: "duplicate names", file: "users:\n  - name: a\n    password: x1234\n  - name: a\n    storage_state: " + state + "\n", wantErr: `user "a": the name is used twice`},
		{name: "no credentials", file: "users:\n  - name: a\n    email: a@example.com\n", wantErr: `user "a": give a password`},
		{name: "missing state", file: "users:\n  - name: a\n    storage_state: " + filepath.Join(dir, "none.json") + "\n", wantErr: "no such file"},
		{name: "state not JSON", file: "users:\n  - name: a\n    storage_state: " + bad + "\n", wantErr: "is not a JSON object"},
		{name: "bad name", file: "users:\n  - name: al ice\n    password: x1234\n", wantErr: `name "al ice"`},
		{name: "users twice", file: "users: []\nusers: []\n", wantErr: "users is already set on line 1"},
		{name: "flag password", opts: Options{Accounts: []string{"name=a,password=hunter2"}}, wantErr: "--account: a password on the command line"},
		{name: "flag state missing", opts: Options{StorageStates: []string{"a=" + filepath.Join(dir, "none.json")}}, wantErr: "flag --storage-state"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := t.TempDir()
			if tt.file != "" {
				writeFile(t, d, "explorer.yaml", tt.file)
			}
			o := tt.opts
			o.Dir, o.Env = d, env
			_, err := Load(o)
			require.ErrorContains(t, err, tt.wantErr)
			for _, secret := range []string{"hunter2", "pw-value-1", "x1234"} {
				assert.NotContains(t, err.Error(), secret)
			}
		})
	}
}
