// Package embed shows, in its tests, the explorer embedded in a Go test
// harness and extended by its user, without touching the explorer's
// packages. It has no API of its own: read embed_test.go and
// custom_test.go, and run them with
//
//	. scripts/env.sh && go test ./examples/embed/
//
// TestEmbedMission starts a small app with two bugs (a button whose
// handler throws, a link answering 500) on an httptest server and runs one
// offline mission on it with explore.Run: a Config of a few typed fields,
// the test binary's shared Chromium (Config.Browser), an in-memory
// checkpointer and store (Config.Checkpointer, Config.Store), a small
// budget and no minimisation. It asserts on the findings of the result.
//
// TestCustomPersonaAndTool brings a team of its own: one persona
// (personas.Persona with its name, role, lean over the app model and
// tricks: it fills forms with over-long text) in Config.Personas, and one
// tool (tools.New over a Go func) in Config.Tools. Offline, the persona's
// actions are on the mission's tape (browser.Entry.User is its name) and
// the bug its long text provokes is its own. Model-driven, against the
// fake OpenAI server of internal/fakes/llmfake, the persona's model calls
// the tool, then a browser command, then ends: the tool got the model's
// arguments, its answer reached the model, its call is on the observers
// (tool_call, tool_result) and in traces.log, and the browser step the
// model took after it is on the tape.
//
// A custom tool does not drive the browser itself: it answers the model
// with text, and the model acts through execute_browser_command, so that
// every browser action is on the tape, watched by the oracles and
// replayed by the reproduction specs.
package embed
