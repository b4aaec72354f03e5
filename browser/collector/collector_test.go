package collector

import (
	"bytes"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentgraph/agentgraph/browser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAddresser(t *testing.T) {
	a := NewAddresser("http://127.0.0.1:4100", "https://shop.example/app/")
	assert.Equal(t, "https://shop.example/app/cart?x=1", a.Text("http://127.0.0.1:4100/cart?x=1"))
	assert.Equal(t, "Host: shop.example; other http://127.0.0.1:41001/x", a.Text("Host: 127.0.0.1:4100; other http://127.0.0.1:41001/x"),
		"a longer port is another address")
	assert.Equal(t, "<head><title>t</title>", a.Text("<head>"+injectTag+"<title>t</title>"), "the collector's tags go")
	assert.Equal(t, "<head>x", (*Addresser)(nil).Text("<head>"+injectTagNoAxe+"x"), "even without an address to map")
	assert.Nil(t, NewAddresser("http://127.0.0.1:4100", "http://127.0.0.1:4100"))
	assert.Nil(t, NewAddresser("", "http://a"))

	e := browser.Entry{URL: "http://127.0.0.1:4100/p", Params: browser.Intent{Action: browser.ActNavigate, URL: "http://127.0.0.1:4100/q"},
		Findings: []browser.Finding{{URL: "http://127.0.0.1:4100/r", Message: "GET http://127.0.0.1:4100/r failed"}}}
	pub := a.Entry(e)
	assert.Equal(t, "https://shop.example/app/p", pub.URL)
	assert.Equal(t, "https://shop.example/app/q", pub.Params.URL)
	assert.Equal(t, "GET https://shop.example/app/r failed", pub.Findings[0].Message)
	assert.Equal(t, "http://127.0.0.1:4100/r", e.Findings[0].URL, "the original entry is left as it is")
	typed := "see http://127.0.0.1:4100/s"
	e = browser.Entry{Title: "Loading http://127.0.0.1:4100/s?saved=1", Locator: "getByRole('link', { name: 'http://127.0.0.1:4100/s' })",
		Params: browser.Intent{Action: browser.ActFill, Target: "text=127.0.0.1:4100", Value: &typed}}
	pub = a.Entry(e)
	assert.Equal(t, "Loading https://shop.example/app/s?saved=1", pub.Title, "a loading page's title is its address")
	assert.Equal(t, "getByRole('link', { name: 'https://shop.example/app/s' })", pub.Locator)
	assert.Equal(t, "text=shop.example", pub.Params.Target)
	assert.Equal(t, "see https://shop.example/app/s", *pub.Params.Value)
	assert.Equal(t, "see http://127.0.0.1:4100/s", typed, "the original value is left as it is")

	e = browser.Entry{Locators: []string{"getByLabel('http://127.0.0.1:4100/s')"}, Params: browser.Intent{Action: browser.ActFillForm,
		Fields: []browser.FormField{{Target: "e2", Value: "http://127.0.0.1:4100/t"}}}}
	pub = a.Entry(e)
	assert.Equal(t, "getByLabel('https://shop.example/app/s')", pub.Locators[0])
	assert.Equal(t, "https://shop.example/app/t", pub.Params.Fields[0].Value)
	assert.Equal(t, "http://127.0.0.1:4100/t", e.Params.Fields[0].Value, "the original fields are left as they are")

	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(a.Writer(&buf), nil)).Info("look", "url", "http://127.0.0.1:4100/z")
	assert.Contains(t, buf.String(), "url=https://shop.example/app/z")
	assert.NotContains(t, buf.String(), "4100")
}

func TestPostKeyMultipart(t *testing.T) {
	form := func(title string) (string, []byte) {
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf) // a boundary of its own, as each fetch(FormData) has
		_ = w.WriteField("form_token", "t7")
		_ = w.WriteField("title", title)
		fw, _ := w.CreateFormFile("attachment", "a.txt")
		_, _ = fw.Write([]byte("abc"))
		_ = w.Close()
		return w.FormDataContentType(), buf.Bytes()
	}
	ct1, b1 := form("Quiet Harbour")
	ct2, b2 := form("Quiet Harbour")
	ct3, b3 := form("Other")
	assert.NotEqual(t, ct1, ct2)
	assert.Equal(t, postKey(ct1, b1), postKey(ct2, b2), "the same submission sent twice")
	assert.NotEqual(t, postKey(ct1, b1), postKey(ct3, b3))
	assert.Equal(t, "attachment=file:a.txt:3&title=Quiet Harbour", postKey(ct1, b1))
	assert.Equal(t, postKey("application/x-www-form-urlencoded", []byte("a=1&csrf_token=x")), postKey("application/x-www-form-urlencoded", []byte("a=1&csrf_token=y")))
	assert.Equal(t, "junk", postKey("multipart/form-data; boundary=zz", []byte("junk")), "a body that does not parse is kept as it is")
}

// TestCollectorKeepsRedirectsOnTheApp: a Location or Refresh on the app's
// own origin becomes a path (the browser stays on the collector); one on
// another origin is left for the browser's origin guard to refuse.
func TestCollectorKeepsRedirectsOnTheApp(t *testing.T) {
	target, err := url.Parse("http://127.0.0.1:8080")
	require.NoError(t, err)
	c := &Collector{target: target, log: slog.New(slog.DiscardHandler)}
	tests := []struct{ header, in, want string }{
		{"Location", "http://127.0.0.1:8080/next?x=1#f", "/next?x=1#f"},
		{"Location", "http://127.0.0.1:8080", "/"},
		{"Location", "//127.0.0.1:8080/a", "/a"},
		{"Location", "/relative", "/relative"},
		{"Location", "other", "other"},
		{"Location", "http://127.0.0.1:9999/x", "http://127.0.0.1:9999/x"},
		{"Location", "https://127.0.0.1:8080/x", "https://127.0.0.1:8080/x"},
		{"Refresh", "0;url=http://127.0.0.1:8080/r", "0;url=/r"},
		{"Refresh", "5; URL=http://evil.example/", "5; URL=http://evil.example/"},
	}
	for _, tc := range tests {
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/from", nil)
		resp := &http.Response{Header: http.Header{}, Request: req}
		resp.Header.Set(tc.header, tc.in)
		c.rewriteLocation(resp)
		assert.Equal(t, tc.want, resp.Header.Get(tc.header), tc.in)
	}
}

func TestFromConsole(t *testing.T) {
	f, ok := FromConsole(browser.Finding{Kind: browser.FindConsoleError, URL: "http://h/x", Message: consoleMark + `{"kind":"xss","message":"ran","evidence":"<p data-bug=\"B\">"}`})
	require.True(t, ok)
	assert.Equal(t, FindXSS, f.Kind)
	assert.Equal(t, `<p data-bug="B">`, f.Evidence)
	// Cut by the engine's message limit: the kind still counts.
	f, ok = FromConsole(browser.Finding{Kind: browser.FindConsoleError, Message: consoleMark + `{"kind":"a11y","message":"no name","evidence":"<button data-bug`})
	require.True(t, ok)
	assert.Equal(t, FindA11y, f.Kind)
	assert.Contains(t, f.Evidence, "data-bug")
	_, ok = FromConsole(browser.Finding{Kind: browser.FindConsoleError, Message: "TypeError: x"})
	assert.False(t, ok)
}

// The recorder's report of the element a payload ran in is that
// element's finding, though the element's markup holds the payload's
// marker; the payload's own log of the marker is the typed payload's.
func TestPageFindingsXSS(t *testing.T) {
	fs := PageFindings([]browser.Finding{
		{Kind: browser.FindConsoleError, URL: "http://h/x/8", Message: consoleMark + `{"kind":"xss","message":"an injected script executed in dd","evidence":"<dd id=\"n\"><img src=\"\" onerror=\"console.error('` + XSSMarker + `in1')\"></dd>"}`},
		{Kind: browser.FindConsoleError, URL: "http://h/x/8", Message: XSSMarker + "in1"},
		{Kind: browser.FindConsoleError, URL: "http://h/x/8", Message: "TypeError: x"},
	})
	require.Len(t, fs, 3)
	assert.Equal(t, FindXSS, fs[0].Kind)
	assert.Equal(t, "an injected script executed in dd", fs[0].Message)
	assert.True(t, strings.HasPrefix(fs[0].Evidence, `<dd id="n">`), fs[0].Evidence)
	assert.Equal(t, FindXSS, fs[1].Kind)
	assert.Contains(t, fs[1].Message, "typed into a field")
	assert.Equal(t, browser.FindConsoleError, fs[2].Kind)
}

// A held answer is the network's slowness, not the app's: it arrives late
// but never counts as a slow response; an answer the app itself was slow
// on still does.
func TestHoldNextPostIsNotSlow(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			time.Sleep(250 * time.Millisecond)
		}
		_, _ = io.WriteString(w, "ok")
	}))
	defer app.Close()
	c, err := New(app.URL, 200*time.Millisecond, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	proxy := httptest.NewServer(c)
	defer proxy.Close()

	post := func(path string) time.Duration {
		start := time.Now()
		resp, err := http.Post(proxy.URL+path, "application/x-www-form-urlencoded", strings.NewReader("title=a"))
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(start)
	}
	c.HoldNextPost(400 * time.Millisecond)
	assert.GreaterOrEqual(t, post("/fast"), 400*time.Millisecond, "the answer was held")
	assert.Less(t, post("/fast"), 400*time.Millisecond, "only the next post is held")
	for _, f := range c.Take() {
		assert.NotEqual(t, FindSlow, f.Kind, "held time counted as the app's: %s", f.Message)
	}
	c.HoldNextPost(400 * time.Millisecond)
	post("/slow")
	var slow []string
	for _, f := range c.Take() {
		if f.Kind == FindSlow {
			slow = append(slow, f.Message)
		}
	}
	require.Len(t, slow, 1, "the app's own 250 ms is over the threshold")
	assert.NotContains(t, slow[0], "took 6", "the held 400 ms is not in the time reported: %s", slow[0])
}
