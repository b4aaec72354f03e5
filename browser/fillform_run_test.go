package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/agentgraph/agentgraph/browser/browsertest"
	"github.com/agentgraph/agentgraph/tools"
)

// formHTML is a form with a text input, a textarea, a select, a checkbox
// and a password; #out shows the values (the password as its length)
// whenever one changes.
const formHTML = `<!doctype html><html><head><title>Form</title></head><body>
<form id="f" onsubmit="return false">
<label>Name <input name="name"></label>
<label>Bio <textarea name="bio"></textarea></label>
<label for="plan">Plan</label> <select id="plan" name="plan"><option value="free">Free</option><option value="pro">Pro</option></select>
<label><input type="checkbox" name="agree"> I agree</label>
<label>Password <input type="password" name="pw"></label>
</form>
<p id="out">form: empty</p>
<script>
const f = document.getElementById('f');
const show = () => { document.getElementById('out').textContent = 'form: ' + [f.name.value, f.bio.value.replace(/\n/g, '/'), f.plan.value, f.agree.checked, 'pw' + f.pw.value.length].join('|'); };
f.addEventListener('input', show);
f.addEventListener('change', show);
</script>
</body></html>`

// formValues reads the form's values from the page.
func formValues(t *testing.T, s *browser.Session) map[string]any {
	t.Helper()
	v, err := s.Evaluate(context.Background(), `(() => { const f = document.getElementById('f');
  return { name: f.name.value, bio: f.bio.value, plan: f.plan.value, agree: f.agree.checked, pw: f.pw.value }; })()`, nil)
	require.NoError(t, err)
	m, ok := v.(map[string]any)
	require.True(t, ok, "%T", v)
	return m
}

// formUser serves formHTML and gives a user of an engine that records to
// a tape and keeps its secrets in secrets.
func formUser(t *testing.T) (srv *httptest.Server, dir, tapePath string, tape *browser.Tape, eng *browser.Engine, s *browser.Session) {
	t.Helper()
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, formHTML)
	}))
	t.Cleanup(srv.Close)
	dir = t.TempDir()
	tapePath = filepath.Join(dir, "tape.jsonl")
	tape, err := browser.OpenTape(tapePath)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tape.Close() })
	eng, err = browser.SharedTestBrowser(t).NewEngine(browser.Config{Origins: []string{srv.URL}, Tape: tape, ActionTimeout: 3 * time.Second, Secrets: browser.NewSecrets()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = eng.Close() })
	s, err = eng.User(context.Background(), "ada")
	require.NoError(t, err)
	return srv, dir, tapePath, tape, eng, s
}

// refIn finds the ref of a snapshot line such as `textbox "Name"`.
func refIn(t *testing.T, snap, line string) string {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(line) + ` \[ref=(e\d+)\]`).FindStringSubmatch(snap)
	require.NotNil(t, m, "%s in\n%s", line, snap)
	return m[1]
}

// TestFillFormInChromium: one fill_form fills a text input, a textarea, a
// select and a checkbox (and a password) on a real page; the result and
// the tape entry list the fields' locators; the tape holds the password
// as a reference only; the spec has one line per field, in order, and
// replays under `npx playwright test` to the same values.
func TestFillFormInChromium(t *testing.T) {
	const password = "Hunter2-Sekr3t!"
	srv, dir, tapePath, tape, eng, s := formUser(t)
	ctx := context.Background()
	run := func(intent string) browser.Result {
		t.Helper()
		r := s.Run(ctx, json.RawMessage(intent))
		require.True(t, r.OK, "%s: %s", intent, r.Error)
		return r
	}
	run(fmt.Sprintf(`{"action":"navigate","url":%q}`, srv.URL+"/"))
	snap, err := s.Snapshot(ctx)
	require.NoError(t, err)
	name, plan, agree := refIn(t, snap.Text, `textbox "Name"`), refIn(t, snap.Text, `combobox "Plan"`), refIn(t, snap.Text, `checkbox "I agree"`)

	r := run(fmt.Sprintf(`{"action":"fill_form","fields":[
		{"target":%q,"value":"Ada Lovelace"},
		{"target":"label=Bio","value":"Line one\nline 'two'"},
		{"target":%q,"value":"Pro","kind":"select"},
		{"target":%q,"value":"","kind":"check"},
		{"target":"label=Password","value":%q}]}`, name, plan, agree, password))
	assert.Equal(t, browser.ActFillForm, r.Action)
	assert.Equal(t, map[string]any{"name": "Ada Lovelace", "bio": "Line one\nline 'two'", "plan": "pro", "agree": true, "pw": password}, formValues(t, s))
	wantLocs := []string{"getByRole('textbox', { name: 'Name' })", "getByRole('textbox', { name: 'Bio' })", "getByLabel('Plan')",
		"getByRole('checkbox', { name: 'I agree' })", "getByRole('textbox', { name: 'Password' })"}
	assert.Equal(t, wantLocs, r.Locators)
	assert.Contains(t, r.Output, "5 of 5 fields done")
	assert.Contains(t, r.Output, "select getByLabel('Plan'): selected pro")
	assert.NotContains(t, r.Output+r.Text(), password)
	run(`{"action":"wait_for","text":"form: Ada Lovelace|Line one/line 'two'|pro|true|pw15","timeout_ms":3000}`)

	// A fill_form through the model's tool, and a second one that types
	// the recorded reference: it is typed as the password.
	reg, err := tools.NewRegistry(browser.Tools(eng, "ada")...)
	require.NoError(t, err)
	out, isErr := reg.Dispatch(ctx, "execute_browser_command", json.RawMessage(`{"intent":{"action":"fill_form","fields":[{"target":"label=Name","value":"Grace"},{"target":"label=Password","value":"${SECRET_1}"},{"target":"label=Plan","value":"free","kind":"select"}]}}`))
	require.False(t, isErr, out)
	assert.Contains(t, out, "ok: fill_form")
	assert.Contains(t, out, "3 of 3 fields done")
	got := formValues(t, s)
	assert.Equal(t, "Grace", got["name"])
	assert.Equal(t, password, got["pw"], "a reference is typed as its secret")
	assert.Equal(t, "free", got["plan"])
	run(fmt.Sprintf(`{"action":"fill_form","fields":[{"target":"label=Name","value":"Ada Lovelace"},{"target":"label=Plan","value":"pro","kind":"select"}]}`))
	require.NoError(t, tape.Close())

	raw, err := os.ReadFile(tapePath)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), password, "the tape never holds the secret")
	ents, _, err := browser.ReadTapeFile(tapePath)
	require.NoError(t, err)
	var forms []browser.Entry
	for _, e := range ents {
		if e.Action == browser.ActFillForm {
			forms = append(forms, e)
		}
	}
	require.Len(t, forms, 3)
	assert.Equal(t, wantLocs, forms[0].Locators)
	assert.Equal(t, "${SECRET_1}", forms[0].Params.Fields[4].Value)
	assert.Equal(t, "Ada Lovelace", forms[0].Params.Fields[0].Value, "plain values stay")
	assert.Equal(t, "${SECRET_1}", forms[1].Params.Fields[1].Value)
	assert.Equal(t, []string{"SECRET_1=" + password}, eng.Secrets().Env())

	src, err := browser.Translate([]browser.Reproduction{{Name: "fill the form", Entries: ents}}, browser.SpecOptions{BaseURL: srv.URL})
	require.NoError(t, err)
	assert.NotContains(t, src, password)
	first := strings.Join([]string{
		`  await page.getByRole('textbox', { name: 'Name' }).fill('Ada Lovelace');`,
		`  await page.getByRole('textbox', { name: 'Bio' }).fill('Line one\nline \'two\'');`,
		`  await page.getByLabel('Plan').selectOption('Pro');`,
		`  await page.getByRole('checkbox', { name: 'I agree' }).check();`,
		`  await page.getByRole('textbox', { name: 'Password' }).fill(secret('SECRET_1'));`,
	}, "\n") + "\n"
	assert.Contains(t, src, first, "one line per field, in order:\n%s", src)
	assert.Contains(t, src, "function secret(name: string)")

	require.NoError(t, browsertest.SpecDir(dir))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "form.spec.ts"), []byte(src), 0o644))
	rctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	outs, text, err := browsertest.RunSpecs(rctx, dir, append([]string{"AGENTGRAPH_BASE_URL=" + srv.URL}, eng.Secrets().Env()...))
	require.NoError(t, err, text)
	require.Len(t, outs, 1, text)
	assert.Equal(t, "expected", outs[0].Status, "%v\n%s", outs[0].Errors, src)
}

// TestFillFormStopsAtFailingField: a field whose ref is unknown, or whose
// action fails, stops the fill_form with an error naming the field (index
// and target); the fields before it stay filled, the ones after are not
// touched, and the entry records the locators of the fields done, which a
// spec replays before the comment on the failure.
func TestFillFormStopsAtFailingField(t *testing.T) {
	const password = "Sw0rdfish-99"
	srv, _, tapePath, tape, _, s := formUser(t)
	ctx := context.Background()
	r := s.Run(ctx, json.RawMessage(fmt.Sprintf(`{"action":"navigate","url":%q}`, srv.URL+"/")))
	require.True(t, r.OK, r.Error)
	snap, err := s.Snapshot(ctx)
	require.NoError(t, err)
	name := refIn(t, snap.Text, `textbox "Name"`)

	r = s.Run(ctx, json.RawMessage(fmt.Sprintf(`{"action":"fill_form","fields":[
		{"target":%q,"value":"Ada"},
		{"target":"label=Password","value":%q},
		{"target":"e999","value":"x"},
		{"target":"label=Bio","value":"never"}]}`, name, password)))
	require.False(t, r.OK)
	assert.Contains(t, r.Error, `fill_form stopped at fields[2] (fill "e999", field 3 of 4)`)
	assert.Contains(t, r.Error, "ref e999 is not in the latest snapshot")
	assert.Contains(t, r.Error, "fields[0..1] before it were done")
	assert.Equal(t, []string{"getByRole('textbox', { name: 'Name' })", "getByRole('textbox', { name: 'Password' })"}, r.Locators)
	got := formValues(t, s)
	assert.Equal(t, "Ada", got["name"])
	assert.Equal(t, password, got["pw"])
	assert.Equal(t, "", got["bio"], "the fields after the failure are not touched")

	// An action that fails (check on a text input) names its field too.
	r = s.Run(ctx, json.RawMessage(`{"action":"fill_form","fields":[{"target":"label=Bio","value":"kept"},{"target":"label=Name","kind":"check"}]}`))
	require.False(t, r.OK)
	assert.Contains(t, r.Error, `fill_form stopped at fields[1] (check "label=Name", field 2 of 2): check on getByRole('textbox', { name: 'Name' }) failed`)
	assert.Contains(t, r.Error, "; fields[0] before it was done")
	assert.Equal(t, "kept", formValues(t, s)["bio"])

	// Refused before anything runs.
	r = s.Run(ctx, json.RawMessage(`{"action":"fill_form","fields":[{"target":"label=Bio","value":"x","kind":"radio"}]}`))
	require.False(t, r.OK)
	assert.Contains(t, r.Error, `invalid fill_form intent: fields[0].kind must be "fill", "select" or "check"`)
	r = s.Do(ctx, browser.Intent{Action: browser.ActFillForm})
	require.False(t, r.OK)
	assert.Contains(t, r.Error, "fill_form needs at least one field")
	assert.Equal(t, "kept", formValues(t, s)["bio"])
	require.NoError(t, tape.Close())

	raw, err := os.ReadFile(tapePath)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), password)
	ents, _, err := browser.ReadTapeFile(tapePath)
	require.NoError(t, err)
	var failed []browser.Entry
	for _, e := range ents {
		if e.Action == browser.ActFillForm && len(e.Params.Fields) > 0 {
			failed = append(failed, e)
		}
	}
	require.Len(t, failed, 2, "the refused intent is recorded without its fields")
	assert.False(t, failed[0].OK)
	assert.Len(t, failed[0].Locators, 2)
	assert.Equal(t, "${SECRET_1}", failed[0].Params.Fields[1].Value)
	assert.Equal(t, "", failed[0].Params.Fields[3].Value, "a field never reached keeps no value on the tape")
	src, err := browser.Translate([]browser.Reproduction{{Name: "partial", Entries: ents}}, browser.SpecOptions{BaseURL: srv.URL})
	require.NoError(t, err)
	assert.Contains(t, src, strings.Join([]string{
		`  await page.getByRole('textbox', { name: 'Name' }).fill('Ada');`,
		`  await page.getByRole('textbox', { name: 'Password' }).fill(secret('SECRET_1'));`,
		`  // failed in the recorded session: fill_form — fill_form stopped at fields[2]`,
	}, "\n"), src)
	assert.Contains(t, src, "  await page.getByRole('textbox', { name: 'Bio' }).fill('kept');\n  // failed in the recorded session: fill_form — fill_form stopped at fields[1]")
	assert.NotContains(t, src, "never")
	assert.NotContains(t, src, password)
}

// TestMalformedIntentDuringFillForm: a malformed intent recorded while
// another goroutine's fill_form with a password runs takes the session's
// lock, so it neither races with the values the fill_form records (the
// race detector sees it) nor takes them: the tape never holds the
// password, and the malformed entries record no fields.
func TestMalformedIntentDuringFillForm(t *testing.T) {
	const password = "Pl4in-Sesame-77"
	srv, _, tapePath, tape, _, s := formUser(t)
	ctx := context.Background()
	r := s.Run(ctx, json.RawMessage(fmt.Sprintf(`{"action":"navigate","url":%q}`, srv.URL+"/")))
	require.True(t, r.OK, r.Error)

	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 3 {
			r := s.Run(ctx, json.RawMessage(fmt.Sprintf(`{"action":"fill_form","fields":[{"target":"label=Name","value":"Ada"},{"target":"label=Password","value":%q}]}`, password)))
			assert.True(t, r.OK, r.Error)
		}
	}()
	bad := 0
	for {
		select {
		case <-done:
		default:
			r := s.Run(ctx, json.RawMessage(`{"action":"fill_form","fields":"not a list"}`))
			assert.False(t, r.OK)
			bad++
			continue
		}
		break
	}
	require.NoError(t, tape.Close())
	raw, err := os.ReadFile(tapePath)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), password, "the tape never holds the password")
	ents, _, err := browser.ReadTapeFile(tapePath)
	require.NoError(t, err)
	fills, malformed := 0, 0
	for _, e := range ents {
		if e.Action != browser.ActFillForm {
			continue
		}
		if e.OK {
			fills++
			require.Len(t, e.Params.Fields, 2)
			assert.NotEmpty(t, e.Params.Fields[1].Value, "the password's reference is recorded")
			continue
		}
		malformed++
		assert.Empty(t, e.Params.Fields, "a malformed intent records no fields")
	}
	assert.Equal(t, 3, fills)
	assert.Equal(t, bad, malformed)
	assert.Positive(t, bad)
}
