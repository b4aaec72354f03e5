package llm

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

// testPNG is a small real PNG: a red square on white.
func testPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for y := range 30 {
		for x := range 40 {
			c := color.RGBA{255, 255, 255, 255}
			if x > 10 && x < 30 && y > 5 && y < 25 {
				c = color.RGBA{220, 0, 0, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

// decodesAsPNG asserts that b64 is base64 of a PNG of 40×30 pixels.
func decodesAsPNG(t *testing.T, b64 string) {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b64)
	require.NoError(t, err, "base64")
	img, err := png.Decode(bytes.NewReader(raw))
	require.NoError(t, err, "the image part decodes as PNG")
	assert.Equal(t, image.Rect(0, 0, 40, 30), img.Bounds())
}

// TestAskImageWire sends a PNG and a question through each provider's real
// langchaingo client to a fake server speaking its wire format, and checks
// that a real image part arrives: the right MIME type, base64 that decodes
// as the PNG.
func TestAskImageWire(t *testing.T) {
	shot := testPNG(t)
	const question = "Is the red square centred?"
	cases := []struct {
		name  string
		det   func(url string) Detection
		reply fakeReply
		check func(t *testing.T, r recorded)
	}{
		{"openai", openAICase().det, openAICase().afterTool, func(t *testing.T, r recorded) {
			assert.Equal(t, "/v1/chat/completions", r.Path)
			assert.Equal(t, "user", jsonPath(t, r.Body, "messages", 0, "role"))
			assert.Equal(t, "text", jsonPath(t, r.Body, "messages", 0, "content", 0, "type"))
			assert.Equal(t, question, jsonPath(t, r.Body, "messages", 0, "content", 0, "text"))
			assert.Equal(t, "image_url", jsonPath(t, r.Body, "messages", 0, "content", 1, "type"))
			u := jsonPath(t, r.Body, "messages", 0, "content", 1, "image_url", "url").(string)
			require.True(t, strings.HasPrefix(u, "data:image/png;base64,"), u[:min(len(u), 40)])
			decodesAsPNG(t, strings.TrimPrefix(u, "data:image/png;base64,"))
		}},
		{"ollama (openai-compatible)", ollamaCase().det, ollamaCase().afterTool, func(t *testing.T, r recorded) {
			assert.Equal(t, "/v1/chat/completions", r.Path)
			u := jsonPath(t, r.Body, "messages", 0, "content", 1, "image_url", "url").(string)
			require.True(t, strings.HasPrefix(u, "data:image/png;base64,"))
			decodesAsPNG(t, strings.TrimPrefix(u, "data:image/png;base64,"))
		}},
		{"anthropic", anthropicCase().det, anthropicCase().afterTool, func(t *testing.T, r recorded) {
			assert.Equal(t, "/v1/messages", r.Path)
			assert.Equal(t, "user", jsonPath(t, r.Body, "messages", 0, "role"))
			assert.Equal(t, question, jsonPath(t, r.Body, "messages", 0, "content", 0, "text"))
			assert.Equal(t, "image", jsonPath(t, r.Body, "messages", 0, "content", 1, "type"))
			assert.Equal(t, "base64", jsonPath(t, r.Body, "messages", 0, "content", 1, "source", "type"))
			assert.Equal(t, "image/png", jsonPath(t, r.Body, "messages", 0, "content", 1, "source", "media_type"))
			decodesAsPNG(t, jsonPath(t, r.Body, "messages", 0, "content", 1, "source", "data").(string))
		}},
		{"google", googleCase().det, googleCase().afterTool, func(t *testing.T, r recorded) {
			assert.Contains(t, r.Path, "/v1beta/models/gemini-2.0-flash:")
			assert.Equal(t, question, jsonPath(t, r.Body, "contents", 0, "parts", 0, "text"))
			assert.Equal(t, "image/png", jsonPath(t, r.Body, "contents", 0, "parts", 1, "inlineData", "mimeType"))
			decodesAsPNG(t, jsonPath(t, r.Body, "contents", 0, "parts", 1, "inlineData", "data").(string))
		}},
		{"ollama (native)", func(url string) Detection {
			return Detection{Provider: Ollama, BaseURL: url, OllamaNative: true}
		}, fakeReply{body: `{"model":"llama3.2","created_at":"2024-12-02T10:00:01Z","message":{"role":"assistant","content":"` + sunny + `"},"done":true,"done_reason":"stop","prompt_eval_count":30,"eval_count":6}`},
			func(t *testing.T, r recorded) {
				assert.Equal(t, "/api/chat", r.Path)
				assert.Equal(t, question, jsonPath(t, r.Body, "messages", 0, "content"))
				// Ollama's API carries images as bare base64, without a MIME type
				decodesAsPNG(t, jsonPath(t, r.Body, "messages", 0, "images", 0).(string))
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fp := newFakeProvider(t, c.reply)
			m := newTestModel(t, providerCase{det: c.det}, fp.URL())
			answer, err := AskImage(context.Background(), m, question, shot, "image/png")
			require.NoError(t, err)
			assert.Equal(t, sunny, answer)
			c.check(t, fp.last())

			// VisionFunc is the same call in the browser tools' shape
			fp2 := newFakeProvider(t, c.reply)
			answer, err = VisionFunc(newTestModel(t, providerCase{det: c.det}, fp2.URL()))(context.Background(), question, shot, "")
			require.NoError(t, err, "the type is sniffed")
			assert.Equal(t, sunny, answer)
			c.check(t, fp2.last())
		})
	}
}

func TestAskImageRefusesBadInput(t *testing.T) {
	shot := testPNG(t)
	model := NewScripted(Say("never"))
	cases := []struct {
		name, question, mime string
		img                  []byte
		want                 string
	}{
		{"empty image", "q", "image/png", nil, "empty image"},
		{"empty question", " ", "image/png", shot, "empty question"},
		{"not an image", "q", "", []byte("hello, not a picture"), "text/plain"},
		{"declared wrong", "q", "image/jpeg", shot, "declared image/jpeg but the bytes are image/png"},
		{"svg", "q", "image/svg+xml", shot, "want image/png"},
		{"too big", "q", "image/png", append(append([]byte{}, shot...), make([]byte, MaxImageBytes)...), "limit"},
	}
	for _, c := range cases {
		_, err := AskImage(context.Background(), model, c.question, c.img, c.mime)
		assert.ErrorContains(t, err, c.want, c.name)
	}
	assert.Empty(t, model.Calls(), "no call for bad input")
	_, err := AskImage(context.Background(), nil, "q", shot, "")
	assert.ErrorIs(t, err, ErrNoVision)
}

func TestImagesAsDataURLs(t *testing.T) {
	in := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "s"),
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: "q"}, llms.BinaryContent{MIMEType: "image/png", Data: []byte{1, 2}}, llms.BinaryContent{MIMEType: "application/pdf", Data: []byte{3}}}},
	}
	out := ImagesAsDataURLs(in)
	assert.Equal(t, llms.ImageURLContent{URL: "data:image/png;base64,AQI="}, out[1].Parts[1])
	assert.Equal(t, llms.BinaryContent{MIMEType: "application/pdf", Data: []byte{3}}, out[1].Parts[2], "only images")
	assert.IsType(t, llms.BinaryContent{}, in[1].Parts[1], "the input is not modified")
	plain := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "x")}
	assert.Equal(t, plain, ImagesAsDataURLs(plain))
}
