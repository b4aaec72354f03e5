package llm

import (
	"errors"
	"regexp"
	"strings"
)

// Redacted replaces every secret Redact finds.
const Redacted = "[REDACTED]"

// minSecret is the shortest configured secret Redact replaces: shorter
// values would mangle ordinary words and are no real keys.
const minSecret = 4

// secretPatterns are credentials as providers echo them in error text.
// Each keeps its first group (the label) and replaces the rest.
var secretPatterns = []*regexp.Regexp{
	// Authorization: Bearer <token>
	regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]+`),
	// x-api-key: <key>, "api_key": "<key>", authorization=<key>, …
	regexp.MustCompile(`(?i)(\b(?:x-api-key|x-goog-api-key|api[_-]?key|access[_-]?token|authorization)"?\s*[:=]\s*"?)(?:bearer\s+)?[^\s"',;&}]+`),
	// ?key=<key> or &key=<key> in a URL
	regexp.MustCompile(`(?i)([?&](?:key|api_key|apikey|token|access_token)=)[^&\s"']+`),
	// OpenAI and Anthropic keys (sk-…, sk-ant-…), Google API keys (AIza…)
	regexp.MustCompile(`()\bsk-[A-Za-z0-9_-]{6,}`),
	regexp.MustCompile(`()\bAIza[0-9A-Za-z_-]{20,}`),
}

// Redact returns s with credentials replaced by Redacted: the values of
// bearer tokens, API-key headers and fields, key= URL parameters, strings
// shaped like OpenAI/Anthropic (sk-…) and Google (AIza…) keys, and every
// given secret (the configured key, say) of at least 4 bytes.
func Redact(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= minSecret {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	for _, re := range secretPatterns {
		s = re.ReplaceAllString(s, "${1}"+Redacted)
	}
	return s
}

// redactedError carries a provider error whose text went through Redact.
// errors.Is still sees the original chain (context.Canceled, deadlines);
// Unwrap and errors.As do not, so its text cannot leak through them.
type redactedError struct {
	msg  string
	orig error
}

func (e *redactedError) Error() string        { return e.msg }
func (e *redactedError) Is(target error) bool { return errors.Is(e.orig, target) }

// redactErr returns err with its text redacted (nil for nil).
func redactErr(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	return &redactedError{msg: Redact(err.Error(), secrets...), orig: err}
}
