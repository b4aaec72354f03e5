package browser

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInjectHTML(t *testing.T) {
	const tag = `<script src="/x.js"></script>`
	cases := []struct {
		name, ctype, enc, body, want string
		max                          int
		err                          error
	}{
		{"head", "text/html; charset=utf-8", "", `<html><HEAD lang="en"><title>t</title></head></html>`, `<html><HEAD lang="en">` + tag + `<title>t</title></head></html>`, 1 << 20, nil},
		{"body only", "text/html", "", `<body class="a">hi</body>`, `<body class="a">` + tag + `hi</body>`, 1 << 20, nil},
		{"fragment", "text/html", "", `hi`, tag + `hi`, 1 << 20, nil},
		{"not html", "application/json", "", `{"a":1}`, `{"a":1}`, 1 << 20, nil},
		{"encoded", "text/html", "gzip", `<head>`, `<head>`, 1 << 20, nil},
		{"too large", "text/html", "", `<head>` + strings.Repeat("x", 100), `<head>` + strings.Repeat("x", 100), 10, ErrTooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := &http.Response{Header: http.Header{}, Body: io.NopCloser(strings.NewReader(c.body))}
			resp.Header.Set("Content-Type", c.ctype)
			resp.Header.Set("Content-Security-Policy", "script-src 'none'")
			if c.enc != "" {
				resp.Header.Set("Content-Encoding", c.enc)
			}
			err := InjectHTML(resp, tag, c.max)
			if c.err != nil {
				require.ErrorIs(t, err, c.err)
			} else {
				require.NoError(t, err)
			}
			got, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, c.want, string(got), "the whole page arrives")
			if c.want != c.body {
				assert.Equal(t, int64(len(c.want)), resp.ContentLength)
				assert.Empty(t, resp.Header.Get("Content-Security-Policy"))
			}
		})
	}
}
