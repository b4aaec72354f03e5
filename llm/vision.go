package llm

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// MaxImageBytes bounds an image AskImage sends (providers refuse larger
// ones: Anthropic at 5 MB, OpenAI at 20 MB).
const MaxImageBytes = 5 << 20

// imageTypes are the image MIME types every supported provider accepts.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/webp": true, "image/gif": true}

// ErrNoVision is returned by AskImage when it has no model to ask.
var ErrNoVision = errors.New("llm: no vision model configured")

// AskImage asks a vision-capable model question about one image and
// returns its answer. The image travels as a langchaingo multi-part human
// message (text, then llms.BinaryContent), which each provider's client
// puts on its own wire: Anthropic an "image" block with base64 source and
// media_type, Google an inlineData part with mimeType, Ollama's native API
// an images entry; for OpenAI and OpenAI-compatible servers the clients
// built by NewProviderModel send it as an image_url data URL
// ("data:image/png;base64,…"), which is what that API reads (langchaingo
// v0.1.14 would send BinaryContent in a shape of its own).
//
// mimeType "" is sniffed from the bytes; a declared type the bytes do not
// match, an empty or oversized image, or a type other than PNG, JPEG, WebP
// or GIF is an error before any call. opts go to the call (e.g.
// llms.WithMaxTokens).
func AskImage(ctx context.Context, m llms.Model, question string, image []byte, mimeType string, opts ...llms.CallOption) (string, error) {
	if m == nil {
		return "", ErrNoVision
	}
	if strings.TrimSpace(question) == "" {
		return "", errors.New("llm: ask image: empty question")
	}
	if len(image) == 0 {
		return "", errors.New("llm: ask image: empty image")
	}
	if len(image) > MaxImageBytes {
		return "", fmt.Errorf("llm: ask image: %d bytes is over the %d-byte limit", len(image), MaxImageBytes)
	}
	sniffed := http.DetectContentType(image)
	if mimeType == "" {
		mimeType = sniffed
	}
	mimeType = strings.ToLower(strings.TrimSpace(mimeType))
	if !imageTypes[mimeType] {
		return "", fmt.Errorf("llm: ask image: type %q: want image/png, image/jpeg, image/webp or image/gif", mimeType)
	}
	if sniffed != mimeType {
		return "", fmt.Errorf("llm: ask image: declared %s but the bytes are %s", mimeType, sniffed)
	}
	resp, err := m.GenerateContent(ctx, []llms.MessageContent{{
		Role:  llms.ChatMessageTypeHuman,
		Parts: []llms.ContentPart{llms.TextContent{Text: question}, llms.BinaryContent{MIMEType: mimeType, Data: image}},
	}}, opts...)
	if err != nil {
		return "", fmt.Errorf("llm: ask image: %w", err)
	}
	if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return "", errors.New("llm: ask image: the model returned no answer")
	}
	return resp.Choices[0].Content, nil
}

// VisionFunc returns AskImage bound to m, in the shape of
// browser.VisionFunc (the browser tools take it without importing llm).
func VisionFunc(m llms.Model) func(ctx context.Context, question string, image []byte, mimeType string) (string, error) {
	return func(ctx context.Context, question string, image []byte, mimeType string) (string, error) {
		return AskImage(ctx, m, question, image, mimeType)
	}
}

// openAIImages sends image parts to OpenAI-compatible servers as image_url
// data URLs: langchaingo v0.1.14's openai client marshals llms.BinaryContent
// as {"type":"binary",…}, which the chat-completions API does not read.
type openAIImages struct{ llms.Model }

func (o *openAIImages) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	return o.Model.GenerateContent(ctx, ImagesAsDataURLs(msgs), opts...)
}

func (o *openAIImages) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, o, prompt, opts...)
}

// ImagesAsDataURLs returns msgs with every image llms.BinaryContent turned
// into an llms.ImageURLContent holding a base64 data URL (other parts and
// messages unchanged; msgs itself is not modified).
func ImagesAsDataURLs(msgs []llms.MessageContent) []llms.MessageContent {
	var out []llms.MessageContent
	for i, m := range msgs {
		for j, p := range m.Parts {
			bc, ok := p.(llms.BinaryContent)
			if !ok || !strings.HasPrefix(bc.MIMEType, "image/") {
				continue
			}
			if out == nil {
				out = append([]llms.MessageContent(nil), msgs...)
			}
			if &out[i].Parts[0] == &msgs[i].Parts[0] {
				out[i].Parts = append([]llms.ContentPart(nil), m.Parts...)
			}
			out[i].Parts[j] = llms.ImageURLContent{URL: "data:" + bc.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(bc.Data)}
		}
	}
	if out == nil {
		return msgs
	}
	return out
}
