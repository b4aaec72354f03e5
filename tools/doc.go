// Package tools defines the Tool interface every agent tool implements, typed
// tools built from Go functions, and a Registry that dispatches model tool
// calls. Subpackages adapt MCP servers and skills to the same interface.
//
// A typed tool is declared with New (or Define, which returns an error
// instead of panicking on a wrong definition). The JSON Schema of its
// arguments is derived from the argument struct with
// github.com/invopop/jsonschema: fields without `omitempty` are required,
// additional properties are refused, and `jsonschema:"description=…"` or
// `jsonschema:"enum=a,enum=b"` tags document and constrain fields. Calls are
// decoded strictly: unknown fields, missing required fields, values outside an
// enum and wrong types all produce an *ArgumentError that names the field and
// what is expected.
//
// Registry.Dispatch always returns text for the model; Registry.Call returns
// typed errors (*UnknownToolError, *ArgumentError, *ToolError, *PanicError)
// for callers that branch on them. A panicking tool is recovered.
package tools
