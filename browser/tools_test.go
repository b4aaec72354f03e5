package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/tools"
)

func TestBrowserTools(t *testing.T) {
	app := newFixture(t)
	dir := t.TempDir()
	e := newEngine(t, app, func(c *Config) { c.ArtifactDir = dir })
	reg, err := tools.NewRegistry(Tools(e, "tester")...)
	require.NoError(t, err)
	assert.Equal(t, []string{"execute_browser_command", "get_dom_snapshot", "capture_screenshot", "generate_reproduction_spec"}, reg.Names())
	for _, tl := range reg.List() {
		var schema map[string]any
		require.NoError(t, json.Unmarshal(tl.Schema(), &schema), tl.Name())
		assert.Equal(t, "object", schema["type"], tl.Name())
		assert.NotEmpty(t, tl.Description())
	}
	ctx := context.Background()
	call := func(name, args string) (string, bool) { return reg.Dispatch(ctx, name, json.RawMessage(args)) }

	out, isErr := call("execute_browser_command", fmt.Sprintf(`{"intent":{"action":"navigate","url":%q}}`, app.URL))
	require.False(t, isErr, out)
	assert.Contains(t, out, `ok: navigate`)
	assert.Contains(t, out, `"Fixture Home"`)

	out, isErr = call("get_dom_snapshot", `{}`)
	require.False(t, isErr, out)
	saveRef := refOf(t, out, `button "Save"`)

	out, isErr = call("execute_browser_command", fmt.Sprintf(`{"intent":{"action":"click","target":%q}}`, saveRef))
	require.False(t, isErr, out)
	assert.Contains(t, out, "on getByTestId('save')")

	out, isErr = call("execute_browser_command", `{"intent":{"action":"click","target":"div:nth-child(2)"}}`)
	assert.True(t, isErr)
	assert.Contains(t, out, "positional selectors")

	out, isErr = call("execute_browser_command", `{"intent":{"action":"teleport"}}`)
	assert.True(t, isErr)
	assert.Contains(t, out, `unknown action "teleport"`)

	out, isErr = call("execute_browser_command", `{"intent":{"action":"click","target":"e1"},"usr":"x"}`)
	assert.True(t, isErr)
	assert.Contains(t, out, `unknown field(s) "usr"`)

	out, isErr = call("capture_screenshot", `{"full_page":true}`)
	require.False(t, isErr, out)
	assert.Contains(t, out, "saved to "+dir)

	out, isErr = call("generate_reproduction_spec", `{"name":"save works","file":"save.spec.ts"}`)
	require.False(t, isErr, out)
	assert.Contains(t, out, "await page.getByTestId('save').click();")
	src, err := os.ReadFile(filepath.Join(dir, "save.spec.ts"))
	require.NoError(t, err)
	assert.Contains(t, string(src), "test('save works'")

	out, isErr = call("generate_reproduction_spec", `{"name":"x","file":"../escape.spec.ts"}`)
	assert.True(t, isErr)
	assert.Contains(t, out, "plain file name")
	out, isErr = call("generate_reproduction_spec", `{"name":"x","user":"nobody"}`)
	assert.True(t, isErr)
	assert.Contains(t, out, `no recorded actions of user "nobody"`)

	// another user is isolated but shares the tape window
	out, isErr = call("execute_browser_command", fmt.Sprintf(`{"user":"other","intent":{"action":"navigate","url":%q}}`, app.URL+"/second"))
	require.False(t, isErr, out)
	assert.Equal(t, []string{"tester", "other"}, e.Users())
}
