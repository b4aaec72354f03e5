package tools

import (
	"context"
	"encoding/json"
)

// Tool is one capability an agent can call.
//
// Call receives the model's raw JSON arguments and returns text for the model.
// An error is also meant for the model: the Registry turns it into text.
type Tool interface {
	Name() string
	Description() string
	// Schema is the JSON Schema of the arguments object.
	Schema() json.RawMessage
	Call(ctx context.Context, args json.RawMessage) (string, error)
}
