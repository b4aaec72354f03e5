package graph

import "encoding/json"

// Serializer encodes channel values, Send inputs, interrupt payloads and
// resume values for a Checkpointer. The engine never serializes anything
// when the graph has no checkpointer.
type Serializer interface {
	// Format names the encoding; it is stored in each checkpoint.
	Format() string
	Marshal(v any) ([]byte, error)
	Unmarshal(data []byte, v any) error
}

// JSON is the default Serializer (encoding/json).
type JSON struct{}

func (JSON) Format() string                     { return "json" }
func (JSON) Marshal(v any) ([]byte, error)      { return json.Marshal(v) }
func (JSON) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
