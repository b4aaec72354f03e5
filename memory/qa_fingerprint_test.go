package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNormalizePage(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"root", "http://localhost:8080", "/"},
		{"root slash", "http://localhost:8080/", "/"},
		{"relative", "/items", "/items"},
		{"trailing slash", "/items/", "/items"},
		{"double slash", "/items//edit", "/items/edit"},
		{"number", "/items/42", "/items/{n}"},
		{"numbers", "/users/7/orders/1234", "/users/{n}/orders/{n}"},
		{"uuid", "/o/3f2504e0-4f89-11d3-9a0c-0305e82c3301/view", "/o/{id}/view"},
		{"hex id", "/commit/9fceb02d0ae598e95dc970b74767f19372d61af8", "/commit/{id}"},
		{"mongo id", "/doc/507f1f77bcf86cd799439011", "/doc/{id}"},
		{"token", "/share/Ab3dE5gH7jK9mN1pQ", "/share/{id}"},
		{"slug number", "/posts/hello-world-12", "/posts/hello-world-{n}"},
		{"word not id", "/deadbeef/facade", "/deadbeef/facade"},
		{"api version kept", "/api/v2/users", "/api/v2/users"},
		{"fragment dropped", "/items/3#top", "/items/{n}"},
		{"query sorted", "/search?sort=asc&page=2", "/search?page={n}&sort=asc"},
		{"query order ignored", "/search?page=2&sort=asc", "/search?page={n}&sort=asc"},
		{"query free text masked", "/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E", "/search?q={v}"},
		{"query id", "/view?id=3f2504e0-4f89-11d3-9a0c-0305e82c3301", "/view?id={id}"},
		{"query word lower", "/list?Filter=Open", "/list?Filter=open"},
		{"query empty value", "/list?x=", "/list?x="},
		{"query repeated", "/list?tag=b&tag=a", "/list?tag=a&tag=b"},
		{"host dropped", "https://Example.com/a/1", "/a/{n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizePage(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := NormalizePage("http://[::1")
	require.Error(t, err)
}

func TestNormalizeEvidence(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"lower and spaces", "  TypeError:\n\tCannot   read  ", "typeerror: cannot read"},
		{"numbers", "GET /items/42 returned 500 after 1.5s", "get /items/<n> returned <n> after <n>s"},
		{"iso timestamp", "at 2026-03-01T12:00:00.123Z failed", "at <ts> failed"},
		{"date", "expired 2025-12-31", "expired <ts>"},
		{"clock", "at 09:41:07 failed", "at <ts> failed"},
		{"uuid", "order 3F2504E0-4F89-11D3-9A0C-0305E82C3301 missing", "order <uuid> missing"},
		{"hex 0x", "segfault at 0xDEADBEEF", "segfault at <hex>"},
		{"hex id", "session 9fceb02d0ae5 gone", "session <hex> gone"},
		{"hex-looking word kept", "decade facade", "decade facade"},
		{"double quoted", `unknown field "fooBar" in body`, `unknown field "<q>" in body`},
		{"single quoted", `can't find 'x-42' here`, `can't find "<q>" here`},
		{"single quoted at start", `'abc' is bad`, `"<q>" is bad`},
		{"backticks", "column `user_id` missing", `column "<q>" missing`},
		{"escaped quote", `value "a\"b" bad`, `value "<q>" bad`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, NormalizeEvidence(tt.in))
		})
	}

	long := strings.Repeat("é", 3*MaxEvidenceKey)
	got := NormalizeEvidence(long)
	assert.Equal(t, MaxEvidenceKey, utf8.RuneCountInString(got))
	assert.True(t, strings.HasSuffix(got, "…"))
}

func TestFingerprint(t *testing.T) {
	page := "/items/{n}"
	base := Fingerprint("console_error", page, `Uncaught TypeError: x is undefined at app.js:12:34 (id "a1")`)

	// What it is built from, recomputed independently.
	h := sha256.Sum256([]byte("console_error\x00" + page + "\x00" + NormalizeEvidence(`Uncaught TypeError: x is undefined at app.js:12:34 (id "a1")`)))
	assert.Equal(t, hex.EncodeToString(h[:])[:16], base)
	assert.Len(t, base, 16)

	same := []struct{ name, kind, evidence string }{
		{"kind case and space", "  Console_Error ", `Uncaught TypeError: x is undefined at app.js:12:34 (id "a1")`},
		{"other numbers", "console_error", `Uncaught TypeError: x is undefined at app.js:99:1 (id "a1")`},
		{"other quoted value", "console_error", `Uncaught TypeError: x is undefined at app.js:12:34 (id "zz-top")`},
		{"whitespace", "console_error", "Uncaught  TypeError:\n x is undefined at app.js:12:34 (id \"a1\")"},
	}
	for _, s := range same {
		assert.Equal(t, base, Fingerprint(s.kind, page, s.evidence), s.name)
	}
	differ := []struct{ name, kind, page, evidence string }{
		{"kind", "page_error", page, `Uncaught TypeError: x is undefined at app.js:12:34 (id "a1")`},
		{"page", "console_error", "/orders/{n}", `Uncaught TypeError: x is undefined at app.js:12:34 (id "a1")`},
		{"message", "console_error", page, `Uncaught ReferenceError: y is not defined`},
	}
	for _, d := range differ {
		assert.NotEqual(t, base, Fingerprint(d.kind, d.page, d.evidence), d.name)
	}

	// Evidence beyond the cap does not change the fingerprint.
	prefix := strings.Repeat("a", MaxEvidenceKey)
	assert.Equal(t, Fingerprint("k", "/", prefix+" tail one"), Fingerprint("k", "/", prefix+" tail two"))
}

func TestNormalizeOriginAndAppID(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://localhost:8080", "http://localhost:8080"},
		{"HTTP://LocalHost:8080/some/path?x=1", "http://localhost:8080"},
		{"http://example.com:80", "http://example.com"},
		{"https://example.com:443/", "https://example.com"},
		{"https://example.com:8443", "https://example.com:8443"},
		{"http://[::1]:3000", "http://[::1]:3000"},
	}
	for _, tt := range tests {
		got, _, err := NormalizeOrigin(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
	for _, bad := range []string{"", "localhost", "/path", "http://[::1", "http://"} {
		_, _, err := NormalizeOrigin(bad)
		require.ErrorIs(t, err, ErrInvalidQAInput, "%q", bad)
	}
	assert.Equal(t, AppID("http://a.test"), AppID("http://a.test"))
	assert.NotEqual(t, AppID("http://a.test"), AppID("http://b.test"))
	assert.Len(t, AppID("http://a.test"), 12)
}

func TestCauseFingerprint(t *testing.T) {
	list := `server_error|/things|get /things → #; attributeerror: 'nonetype' object has no attribute 'owner' file "app/views/list.py", in render`
	view := strings.Replace(list, "list.py", "view.py", 1)
	assert.NotEqual(t, CauseFingerprint("server_error", list), CauseFingerprint("server_error", view),
		"two scripts failing with one message are two causes")
	assert.Equal(t, Fingerprint("server_error", "", list), Fingerprint("server_error", "", view),
		"evidence fingerprints still mask every quoted value")

	// Free text in quotes (what a user typed, echoed) is one placeholder.
	typed1 := `server_error|/notes|valueerror: could not convert 'qa note 41' to a note`
	typed2 := `server_error|/notes|valueerror: could not convert 'ÅØ 日本 مرحبا' to a note`
	assert.Equal(t, CauseFingerprint("server_error", typed1), CauseFingerprint("server_error", typed2))
	assert.Contains(t, NormalizeCause(`x 'o'brien & co' y`), `"<q>"brien`, "an apostrophe does not close a name")
	long := "'" + strings.Repeat("a", 80) + "'"
	assert.Equal(t, `error «x» "<q>"`, NormalizeCause(`Error 'x' `+long))

	// Numbers inside a kept name are masked; case and kind are folded.
	assert.Equal(t, CauseFingerprint("Server_Error", `File "app/v2/items.py" line 41`), CauseFingerprint("server_error", `file "app/v3/items.py" line 9`))
	assert.NotEqual(t, CauseFingerprint("server_error", "x"), Fingerprint("server_error", "", "x"), "the two keys never collide")
}

func TestRecordBugUsesCauseFingerprint(t *testing.T) {
	ctx := context.Background()
	q, err := NewQA(NewInMemoryStore(), "http://app.test")
	require.NoError(t, err)
	a, err := q.RecordBug(ctx, BugReport{Kind: "server_error", Severity: "high", URL: "http://app.test/things/3", Evidence: "500", Cause: `x|"app/views/view.py"`})
	require.NoError(t, err)
	b, err := q.RecordBug(ctx, BugReport{Kind: "server_error", Severity: "high", URL: "http://app.test/things", Evidence: "500", Cause: `x|"app/views/list.py"`})
	require.NoError(t, err)
	assert.True(t, a.New && b.New, "two causes, two bugs")
	assert.Equal(t, CauseFingerprint("server_error", `x|"app/views/view.py"`), a.Entry.Fingerprint)
}
