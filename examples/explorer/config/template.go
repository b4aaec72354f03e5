package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Template returns a commented explorer.yaml that sets every setting to its
// default: one comment line per setting with its flag and variable.
func Template() []byte {
	var b bytes.Buffer
	b.WriteString(`# explorer.yaml: settings of the QA explorer (go run ./examples/explorer).
# Written by "explorer init"; every setting below is at its default.
# Keys are the flag names in snake_case; unknown keys are an error.
# Precedence: flag > AGENTGRAPH_<KEY> variable > this file > default.
# Values may use ${VAR} and ${VAR:-default} from the environment or the .env
# file (which never overrides the environment); $$ is a literal $.
`)
	d := Defaults()
	for _, f := range Fields() {
		v := f.Example
		if v == "" {
			v = yamlScalar(f, f.Get(&d))
		}
		fmt.Fprintf(&b, "\n# %s [--%s, %s]\n%s: %s\n", f.Usage, f.Flag(), f.EnvVar(), f.Key, v)
	}
	b.WriteString(`
# users to explore as, each in an isolated browser context [--account
# name=NAME,email=EMAIL,password-env=VAR and --storage-state [NAME=]PATH,
# both repeatable]. A user with a password is signed in once before the
# missions; two or more users turn on the cross-user leak oracle.
# users:
#   - name: alice
#     email: alice@example.com
#     password: ${ALICE_PASSWORD}
#   - name: bob
#     storage_state: auth/bob.json
`)
	return b.Bytes()
}

// WriteTemplate writes Template to path. An existing file is an error unless
// force is set.
func WriteTemplate(path string, force bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("config: %s exists; use --force to overwrite it", path)
	}
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if _, err := f.Write(Template()); err != nil {
		f.Close()
		return fmt.Errorf("config: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("config: write %s: %w", path, err)
	}
	return nil
}
