package llm

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/tmc/langchaingo/llms"
)

func TestTransientError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"transient call error", &CallError{Status: 429, Transient: true, Err: assert.AnError}, true},
		{"wrapped transient call error", fmt.Errorf("graph: node x: %w", &CallError{Status: 503, Transient: true, Err: assert.AnError}), true},
		{"permanent call error", &CallError{Status: 401, Err: assert.AnError}, false},
		{"rate limit code", &llms.Error{Code: llms.ErrCodeRateLimit}, true},
		{"unavailable code", fmt.Errorf("x: %w", &llms.Error{Code: llms.ErrCodeProviderUnavailable}), true},
		{"auth code", &llms.Error{Code: llms.ErrCodeAuthentication}, false},
		{"cancelled", fmt.Errorf("x: %w", context.Canceled), false},
		{"cancelled during a transient call", &CallError{Transient: true, Err: context.Canceled}, false},
		{"plain error", assert.AnError, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, TransientError(tt.err))
		})
	}
}
