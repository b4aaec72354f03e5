package eval

import (
	"strings"

	"github.com/tmc/langchaingo/llms"
)

type (
	llmsMessages    = llms.MessageContent
	llmsCallOptions = llms.CallOptions
)

// judgeFromPage answers yes when the page text the judge was shown
// contains the thank-you message: a deterministic stand-in for a model
// that reads the page.
func judgeFromPage(msgs []llms.MessageContent) string {
	for _, m := range msgs {
		for _, p := range m.Parts {
			if tp, ok := p.(llms.TextContent); ok && strings.Contains(tp.Text, "Final page text:\nThanks for buying Pro") {
				return "yes"
			}
		}
	}
	return "no"
}
