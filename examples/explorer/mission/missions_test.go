package mission

import (
	"errors"
	"testing"

	"github.com/agentgraph/agentgraph/examples/explorer/internal/xerr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseMissionsRejects(t *testing.T) {
	const one = "missions:\n  - thread_id: a\n    prompt: p\n"
	tests := []struct {
		name, yaml string
		want       string
	}{
		{"second document", one + "---\nmissions:\n  - thread_id: b\n    prompt: q\n", "line 4: a second YAML document starts here"},
		{"second document after a comment", one + "# more\n---\n# the rest\nmissions: []\n", "line 5: a second YAML document starts here"},
		{"second document of a scalar", one + "---\nhello\n", "line 4: a second YAML document"},
		{"bare marker at the end", one + "---\n", "line 4: a second YAML document"},
		{"broken second document", one + "---\nmissions: [\n", "after the first document"},
		{"latin-1 byte", "missions:\n  - thread_id: a\n    prompt: caf\xe9 au lait\n", "line 3: column 16: byte 0xe9 is not UTF-8"},
		{"invalid byte on line 1", "\xffmissions:\n", "line 1: column 1: byte 0xff"},
		{"utf-16 file", "\xff\xfem\x00i\x00", "line 1: column 1: byte 0xff"},
		{"absolute start URL without host", one + "    start_url: http:/x\n", `start_url "http:/x": an absolute URL needs a host`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := ParseMissions("m.yaml", []byte(tc.yaml))
			require.Error(t, err)
			assert.Nil(t, ms)
			var me *MissionsError
			require.True(t, errors.As(err, &me), "%T", err)
			assert.ErrorIs(t, err, xerr.ErrUsage)
			require.Len(t, me.Problems, 1, "%q", me.Problems)
			assert.Contains(t, me.Problems[0], tc.want)
		})
	}
}

func TestParseMissionsAccepts(t *testing.T) {
	tests := []struct {
		name, yaml string
		start      string
	}{
		{"utf-8 text and a BOM", "\ufeffmissions:\n  - thread_id: a\n    prompt: café — ünïcode ✓\n", ""},
		{"one document with markers", "---\nmissions:\n  - thread_id: a\n    prompt: p\n...\n", ""},
		{"absolute start URL kept as written", "missions:\n  - thread_id: a\n    prompt: p\n    start_url: https://other.example/x\n", "https://other.example/x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := ParseMissions("m.yaml", []byte(tc.yaml))
			require.NoError(t, err)
			require.Len(t, ms, 1)
			assert.Equal(t, tc.start, ms[0].StartURL)
		})
	}
}

func TestResolveStartURL(t *testing.T) {
	const target = "http://localhost:8080"
	tests := []struct {
		name, start, target string
		want                string
		err                 string
	}{
		{"empty", "", target, "/", ""},
		{"path", "/settings?tab=1", target, "/settings?tab=1", ""},
		{"same origin", "http://localhost:8080/settings?tab=1", target, "/settings?tab=1", ""},
		{"same origin, other case, target with a path", "HTTP://LocalHost:8080/a", "http://localhost:8080/app/", "/a", ""},
		{"default port", "https://shop.example:443/cart", "https://shop.example", "/cart", ""},
		{"origin without a path", "http://localhost:8080", target, "/", ""},
		{"other host", "http://evil.example/settings", target, "", `start_url "http://evil.example/settings" is on http://evil.example, not on the target http://localhost:8080`},
		{"other port", "http://localhost:9090/x", target, "", "is on http://localhost:9090, not on the target"},
		{"other scheme", "https://localhost:8080/x", target, "", "is on https://localhost:8080, not on the target"},
		{"scheme-relative", "//evil.example/x", target, "", "want a path"},
		{"relative path", "settings", target, "", "want a path"},
		{"target not an origin", "http://a/x", "localhost", "", `target "localhost" is not an origin`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveStartURL(tc.start, tc.target)
			if tc.err != "" {
				require.Error(t, err)
				assert.ErrorIs(t, err, xerr.ErrUsage)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
