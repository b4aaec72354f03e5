// Package llm connects agentgraph to language models through langchaingo
// (github.com/tmc/langchaingo v0.1.14): provider detection, per-role model
// tiers, structured routing, a tool-calling agent for graph, retries with
// backoff, input budgets, and token usage and cost accounting.
//
// # Providers
//
// Detect reads the environment through an injected Lookup (os.LookupEnv in
// programs, MapEnv in tests) in this order:
//
//	AGENTGRAPH_PROVIDER   anthropic | openai | google | ollama | offline (explicit choice)
//	ANTHROPIC_API_KEY     Anthropic (ANTHROPIC_BASE_URL optional)
//	OPENAI_API_KEY        OpenAI; OPENAI_BASE_URL points it at any OpenAI-compatible
//	                      server (vLLM, LM Studio, llama.cpp…); the URL alone is enough
//	                      for servers that need no key
//	GOOGLE_API_KEY        Google AI (Gemini), then GEMINI_API_KEY (GOOGLE_AI_BASE_URL optional)
//	OLLAMA_HOST           Ollama ("host:port" or a URL); AGENTGRAPH_OLLAMA_API=native
//	                      selects langchaingo's native Ollama client instead of the
//	                      default OpenAI-compatible /v1 API (the native client cannot
//	                      call tools in langchaingo v0.1.14)
//
// With nothing set, Detect returns a *NoProviderError listing what it looked
// for. Offline mode is a result, not an error: AGENTGRAPH_PROVIDER=offline,
// or the OfflineFallback / ForceOffline options, give Detection.Provider ==
// Offline, and callers branch on Detection.IsOffline to use heuristics.
// ForceProvider(p) picks p whatever else is set (a command line's
// --provider); p's key must then be set.
//
// NewProviderModel builds the langchaingo client (anthropic, openai,
// googleai over REST, ollama) over an HTTP client whose Transport records
// the HTTP status and Retry-After of failed calls, which langchaingo's
// errors do not carry.
//
// # Roles
//
// Tiers gives each role (supervisor, persona, summarizer, reporter, judge or
// any free-form name) a RoleConfig: provider, model, temperature,
// reasoning_effort (none|low|medium|high), max_tokens and input_budget. YAML
// (decoded strictly; errors name the line):
//
//	default:
//	  temperature: 0.2
//	roles:
//	  supervisor: {model: gpt-4.1-mini, temperature: 0}
//	  judge:      {provider: anthropic, reasoning_effort: medium}
//	  my_critic:  {max_tokens: 300, input_budget: 4000}
//
// LoadTiers reads such a file; TiersFromEnv reads the one named by
// AGENTGRAPH_ROLES_FILE (none: defaults only). Environment overrides, per
// role and for "default":
// AGENTGRAPH_<ROLE>_PROVIDER, _MODEL, _TEMPERATURE, _REASONING_EFFORT,
// _MAX_TOKENS, _INPUT_BUDGET (role upper-cased, other characters as "_",
// e.g. AGENTGRAPH_MY_CRITIC_MODEL, AGENTGRAPH_DEFAULT_MODEL). Unset models
// default to a cheap one per provider (DefaultModel): claude-3-5-haiku-latest,
// gpt-4o-mini, gemini-2.0-flash, llama3.2.
//
// reasoning_effort reaches the providers as: OpenAI (and OpenAI-compatible
// servers) "reasoning_effort" in the request, added by this package because
// langchaingo v0.1.14 does not send it (set it only for models that accept
// it); Anthropic extended thinking with a budget share of max_tokens, for the
// models langchaingo knows support it (Claude 3.7+); Ollama's native "think";
// Google: not supported by langchaingo's googleai client.
//
// Factory puts it together: NewFactory detects, For(ctx, role) resolves the
// role and returns a *Model.
//
// # Model
//
// Model wraps any llms.Model for a role: it applies the role's options
// (caller options override), cuts each message to input_budget characters
// (head and tail kept around a "[… N characters cut …]" marker), retries
// transient failures (HTTP 429, 408, 5xx incl. 529 overloaded, timeouts,
// "overloaded"/"rate limit" errors) with exponential backoff and jitter,
// honouring Retry-After and Retry-After-Ms (RetryPolicy), and records usage
// in a Meter. A streamed call that already delivered chunks is not retried.
// Failures are *CallError with the HTTP status and attempt count. A
// provider's error text can echo the credential it was sent: before it
// reaches a CallError (or a log line) it goes through Redact, which
// replaces bearer tokens, API-key headers and fields, key= URL parameters,
// sk-… and AIza… keys, and the configured key itself (WithSecrets; Factory
// passes it) with [REDACTED]. errors.Is still sees the original error;
// Unwrap and errors.As do not reach its text.
// TransientError tells callers that retry whole jobs (the explorer's
// missions) whether a failure was transient.
//
// # Usage and cost
//
// UsageOf reads each provider's reported usage from the response
// (GenerationInfo keys differ per provider). For Gemini, whose Go SDK keeps
// only the first streamed chunk's usage, Model reads the last usageMetadata
// from the raw response instead. Meter sums usage per call (WithUsageHook),
// per role (ByRole), per model and per run (Total), priced by DefaultPrices
// (USD per million tokens, documented on DefaultPrices; pass your own
// PriceTable to NewMeter).
//
// # Routing and agents
//
// Choose asks the model to pick one of an enum through function calling,
// validates the answer, retries once with the error, then returns a
// *RouteError. Agent is the ReAct loop over a tools.Registry: model, tool
// calls, dispatch, tool messages back, until the model stops calling tools
// or MaxSteps. A tool's error reaches the model as text. Node and
// MessagesNode make it a graph node; Agent.Graph builds it as a model/tools
// subgraph over state.MessagesState for graph.Subgraph. With a checkpointer,
// keep messages as state.Message (MessagesNode, Agent.Graph): the parts of an
// llms.MessageContent are interface values that encoding/json cannot decode.
// ToLLM and FromLLM convert between the two.
//
// # Vision
//
// AskImage sends an image and a question as one multi-part human message
// (text + llms.BinaryContent) and returns the answer; VisionFunc binds it to
// a model for browser.VisionTools. The OpenAI-compatible clients that
// NewProviderModel builds send image parts as image_url data URLs
// (ImagesAsDataURLs), since langchaingo v0.1.14's openai client would
// marshal BinaryContent in a shape the API does not read; Anthropic, Google
// and native Ollama clients put BinaryContent on their wires themselves.
//
// # Tests and embedding
//
// Scripted is an llms.Model answering from a queue of Reply values or from
// a function of the messages; it records every call.
package llm
