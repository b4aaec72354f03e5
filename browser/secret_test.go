package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSecretsAreRecordedAsReferences(t *testing.T) {
	const password, token = "hunter2-Sekr3t!", "tok-9f8e7d6c5b"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Sign in</title><form action="/done">
<label>Email <input name="email"></label><label>Password <input type="password" name="pw"></label>
<label>API key <input name="api_key"></label><button>Sign in</button></form><p id="echo"></p>`)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	tape, err := OpenTape(filepath.Join(dir, "tape.jsonl"))
	require.NoError(t, err)
	e, err := testBrowser.NewEngine(Config{Origins: []string{srv.URL}, Tape: tape, ActionTimeout: 3 * time.Second,
		SecretFields: []string{`[name="api_key"]`}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	s := mustUser(t, e, "alice")
	ctx := context.Background()
	ok(t, s, `{"action":"navigate","url":"/"}`)
	ok(t, s, `{"action":"fill","target":"label=Email","value":"a@b.c"}`)
	ok(t, s, fmt.Sprintf(`{"action":"fill","target":"label=Password","value":%q}`, password))
	ok(t, s, fmt.Sprintf(`{"action":"fill","target":"label=API key","value":%q}`, token))
	// the same password typed into a plain field is still a reference
	r := ok(t, s, fmt.Sprintf(`{"action":"fill","target":"label=Email","value":%q}`, password))
	assert.Equal(t, "${SECRET_1}", *e.Window().Entries()[len(e.Window().Entries())-1].Params.Value, r.Text())
	// a reference is typed as its value (replays)
	ok(t, s, `{"action":"fill","target":"label=Email","value":"${SECRET_2}"}`)
	v, err := s.Evaluate(ctx, `document.querySelector('[name=email]').value`, nil)
	require.NoError(t, err)
	assert.Equal(t, token, v)
	require.NoError(t, tape.Close())

	raw, err := os.ReadFile(filepath.Join(dir, "tape.jsonl"))
	require.NoError(t, err)
	assert.NotContains(t, string(raw), password)
	assert.NotContains(t, string(raw), token)
	assert.Contains(t, string(raw), `${SECRET_1}`)
	assert.Contains(t, string(raw), `"a@b.c"`, "plain values stay")
	assert.Equal(t, []string{"SECRET_1=" + password, "SECRET_2=" + token}, e.Secrets().Env())

	es, _, err := ReadTapeFile(filepath.Join(dir, "tape.jsonl"))
	require.NoError(t, err)
	spec, err := Translate([]Reproduction{{Name: "sign in", Entries: es}}, SpecOptions{BaseURL: srv.URL})
	require.NoError(t, err)
	assert.NotContains(t, spec, password)
	assert.Contains(t, spec, `.fill(secret('SECRET_1'))`)
	assert.Contains(t, spec, `process.env[name]`)
}

// A log line through RedactHandler carries references, never the secret:
// in its message, string attributes, errors, groups and With attributes.
func TestRedactHandler(t *testing.T) {
	sec := NewSecrets("hunter2-pw")
	var buf bytes.Buffer
	log := slog.New(RedactHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}), sec))
	log = log.With("typed", "x hunter2-pw")
	log.Debug("fill hunter2-pw failed", "err", errors.New("value hunter2-pw refused"), slog.Group("g", "v", "hunter2-pw"), "n", 3)
	out := buf.String()
	assert.NotContains(t, out, "hunter2-pw")
	ref, ok := sec.Ref("hunter2-pw")
	require.True(t, ok)
	assert.Equal(t, 4, strings.Count(out, ref), out)
	assert.Contains(t, out, "n=3")
	// Wrapping twice with the same secrets is one wrapper.
	h := RedactHandler(slog.NewTextHandler(&buf, nil), sec)
	assert.Equal(t, h, RedactHandler(h, sec))
}
