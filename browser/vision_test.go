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

func (f *fakeVision) openAI(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		answer := "no image"
		if json.Unmarshal(body, &req) == nil && len(req.Messages) > 0 {
			var parts []struct {
				Type     string `json:"type"`
				ImageURL struct {
					URL string `json:"url"`
				} `json:"image_url"`
			}
			_ = json.Unmarshal(req.Messages[len(req.Messages)-1].Content, &parts)
			for _, p := range parts {
				mime, data, ok := strings.Cut(strings.TrimPrefix(p.ImageURL.URL, "data:"), ";base64,")
				if p.Type == "image_url" && ok {
					if s, err := describe(data, mime); err == nil {
						answer = f.record(s)
					} else {
						answer = "bad image: " + err.Error()
					}
				}
			}
		}
		content, _ := json.Marshal(answer)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1733140000,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":900,"completion_tokens":5,"total_tokens":905}}`, content)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (f *fakeVision) anthropic(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content []struct {
					Type   string `json:"type"`
					Source struct {
						Type      string `json:"type"`
						MediaType string `json:"media_type"`
						Data      string `json:"data"`
					} `json:"source"`
				} `json:"content"`
			} `json:"messages"`
		}
		answer := "no image"
		if json.NewDecoder(r.Body).Decode(&req) == nil {
			for _, m := range req.Messages {
				for _, c := range m.Content {
					if c.Type == "image" && c.Source.Type == "base64" {
						if s, err := describe(c.Source.Data, c.Source.MediaType); err == nil {
							answer = f.record(s)
						} else {
							answer = "bad image: " + err.Error()
						}
					}
				}
			}
		}
		text, _ := json.Marshal(answer)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-haiku-20241022","content":[{"type":"text","text":%s}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":900,"output_tokens":5}}`, text)
	}))
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
	providers := map[string]llm.Detection{
		"openai":    {Provider: llm.OpenAI, APIKey: "sk-test", BaseURL: fv.openAI(t).URL + "/v1"},
		"anthropic": {Provider: llm.Anthropic, APIKey: "sk-ant-test", BaseURL: fv.anthropic(t).URL + "/v1"},
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
	fv.mu.Lock()
	require.Len(t, fv.seen, 4, "two images per provider reached the servers")
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
