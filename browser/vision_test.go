package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentgraph/agentgraph/internal/fakes/llmfake"
	"github.com/agentgraph/agentgraph/llm"
	"github.com/agentgraph/agentgraph/tools"
)

// visionPage has a 120×50 red box on white.
const visionPage = `<!doctype html><html><head><title>Vision</title><style>body{margin:0;background:#fff}#box{position:absolute;left:30px;top:40px;width:120px;height:50px;background:#f00}</style></head>
<body><div id="box" data-testid="box" role="img" aria-label="red box"></div><p style="margin-top:120px">Hello</p></body></html>`

// seenImage is what a fake vision server received.
type seenImage struct {
	mime          string
	width, height int
	red           bool // the centre pixel is red
}

// describe decodes a base64 PNG as a vision model would see it.
func describe(b64, mime string) (seenImage, error) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return seenImage{}, err
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		return seenImage{}, err
	}
	b := img.Bounds()
	r, g, bl, _ := img.At(b.Dx()/2, b.Dy()/2).RGBA()
	return seenImage{mime: mime, width: b.Dx(), height: b.Dy(), red: r > 0xe000 && g < 0x2000 && bl < 0x2000}, nil
}

// fakeVision serves one provider's wire format and answers with what it
// decoded of the image it got ("WxH red|other"), recording it.
type fakeVision struct {
	mu   sync.Mutex
	seen []seenImage
}

func (f *fakeVision) record(s seenImage) string {
	f.mu.Lock()
	f.seen = append(f.seen, s)
	f.mu.Unlock()
	colour := "other"
	if s.red {
		colour = "red"
	}
	return fmt.Sprintf("%dx%d %s", s.width, s.height, colour)
}

// server starts a fake provider (llmfake speaks both the OpenAI and the
// Anthropic wire) answering with what it decoded of the image it got.
func (f *fakeVision) server(t *testing.T) *llmfake.Server {
	srv := llmfake.New(func(r llmfake.Request) llmfake.Reply {
		answer := "no image"
		for _, img := range r.Images() {
			if s, err := describe(img.Data, img.MIME); err == nil {
				answer = f.record(s)
			} else {
				answer = "bad image: " + err.Error()
			}
		}
		return llmfake.Reply{Content: answer, PromptTokens: 900, CompletionTokens: 5}
	})
	t.Cleanup(srv.Close)
	return srv
}

// TestVisionTools drives analyze_visual_state on real Chromium through
// langchaingo's real OpenAI and Anthropic clients against local servers
// speaking their wire formats: the image part arrives as PNG with its MIME
// type, cropped to the element when asked; capture_bug_screenshot saves a
// named PNG with its record.
func TestVisionTools(t *testing.T) {
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, visionPage)
	}))
	t.Cleanup(app.Close)
	dir := t.TempDir()
	e, err := testBrowser.NewEngine(Config{Origins: []string{app.URL}, ArtifactDir: dir, SettleTimeout: 2 * time.Second, ActionTimeout: 3 * time.Second,
		Viewport: Viewport{Width: 640, Height: 400}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := e.User(ctx, "tester")
	require.NoError(t, err)
	require.True(t, s.Do(ctx, Intent{Action: ActNavigate, URL: app.URL}).OK)

	fv := &fakeVision{}
	srv := fv.server(t)
	providers := map[string]llm.Detection{
		"openai":    {Provider: llm.OpenAI, APIKey: "sk-test", BaseURL: srv.URL()},
		"anthropic": {Provider: llm.Anthropic, APIKey: "sk-ant-test", BaseURL: srv.URL()},
	}
	for name, det := range providers {
		t.Run(name, func(t *testing.T) {
			model, err := llm.NewProviderModel(ctx, det, llm.RoleConfig{Provider: det.Provider}, nil)
			require.NoError(t, err)
			reg, err := tools.NewRegistry(VisionTools(e, "tester", llm.VisionFunc(model))...)
			require.NoError(t, err)
			assert.Equal(t, []string{"capture_bug_screenshot", "analyze_visual_state"}, reg.Names())

			out, isErr := reg.Dispatch(ctx, "analyze_visual_state", json.RawMessage(`{"question":"What colour is the box?","target":"[data-testid=\"box\"]"}`))
			require.False(t, isErr, out)
			assert.True(t, strings.HasPrefix(out, "120x50 red"), "cropped to the element: %s", out)
			assert.Contains(t, out, "element [data-testid=\"box\"]")

			out, isErr = reg.Dispatch(ctx, "analyze_visual_state", json.RawMessage(`{"question":"Is anything overlapping?"}`))
			require.False(t, isErr, out)
			assert.True(t, strings.HasPrefix(out, "640x400 other"), "the viewport: %s", out)

			out, isErr = reg.Dispatch(ctx, "analyze_visual_state", json.RawMessage(`{"question":"?","target":"#nope"}`))
			assert.True(t, isErr)
			assert.Contains(t, out, "no element matches")
			out, isErr = reg.Dispatch(ctx, "analyze_visual_state", json.RawMessage(`{"question":""}`))
			assert.True(t, isErr)
			assert.Contains(t, out, "question")
		})
	}
	wires := map[llmfake.Wire]int{}
	for _, r := range srv.Requests() {
		wires[r.Wire]++
	}
	assert.Equal(t, map[llmfake.Wire]int{llmfake.OpenAI: 2, llmfake.Anthropic: 2}, wires, "each provider spoke its own wire")
	fv.mu.Lock()
	require.Len(t, fv.seen, 4, "two images per provider reached the server")
	for _, s := range fv.seen {
		assert.Equal(t, "image/png", s.mime)
	}
	fv.mu.Unlock()

	reg, err := tools.NewRegistry(VisionTools(e, "tester", nil)...)
	require.NoError(t, err)
	assert.Equal(t, []string{"capture_bug_screenshot"}, reg.Names(), "no vision model: no analyze_visual_state")
	out, isErr := reg.Dispatch(ctx, "capture_bug_screenshot", json.RawMessage(`{"name":"Red box / overlaps","target":"#box","note":"the box covers the text"}`))
	require.False(t, isErr, out)
	assert.Contains(t, out, "saved bug evidence "+filepath.Join(dir, "bugs", "Red_box___overlaps-"))
	files, err := filepath.Glob(filepath.Join(dir, "bugs", "*.png"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	raw, err := os.ReadFile(files[0])
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(raw))
	require.NoError(t, err)
	assert.Equal(t, image.Rect(0, 0, 120, 50), img.Bounds())
	meta, err := os.ReadFile(strings.TrimSuffix(files[0], ".png") + ".json")
	require.NoError(t, err)
	var rec BugShot
	require.NoError(t, json.Unmarshal(meta, &rec))
	assert.Equal(t, "Red box / overlaps", rec.Name)
	assert.Equal(t, "the box covers the text", rec.Note)
	assert.Equal(t, app.URL+"/", rec.URL)
	assert.Equal(t, "tester", rec.User)
	out, isErr = reg.Dispatch(ctx, "capture_bug_screenshot", json.RawMessage(`{"name":"  "}`))
	assert.True(t, isErr)
	assert.Contains(t, out, "name")
}
