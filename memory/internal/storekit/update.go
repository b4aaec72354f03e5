package storekit

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentgraph/agentgraph/graph"
)

// CallUpdate runs fn on the live record old (nil when missing or expired)
// and checks what it returns. It returns graph.ErrSkipUpdate as it is.
func CallUpdate(ns []string, key string, fn graph.UpdateFunc, old *Record, now time.Time) (json.RawMessage, error) {
	var cur *graph.Item
	if old != nil && !old.Expired(now) {
		it := old.Item()
		cur = &it
	}
	v, err := fn(cur)
	if err != nil {
		return nil, err
	}
	if err := ValidateValue(ns, key, v); err != nil {
		return nil, fmt.Errorf("update function: %w", err)
	}
	return v, nil
}

// LiveItem returns r's item, or nil when r is nil or expired.
func LiveItem(r *Record, now time.Time) *graph.Item {
	if r == nil || r.Expired(now) {
		return nil
	}
	it := r.Item()
	return &it
}

func CheckUpdate(ctx context.Context, ns []string, key string, fn graph.UpdateFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := ValidateKey(ns, key); err != nil {
		return err
	}
	if fn == nil {
		return Invalid("update %q/%q: nil update function", ns, key)
	}
	return nil
}
