// Package memory holds the graph.Store back-ends and the QA knowledge model
// that the explorer keeps between runs.
//
// # Store back-ends
//
// NewInMemoryStore and NewBoltStore implement graph.Store. In the bbolt store
// namespaces are nested buckets under one top-level bucket (agentgraph.store),
// so one file can be shared with checkpoint.NewBolt. Search filters
// (graph.Filter) use dotted paths and the comparisons graph.OpEq, OpNe,
// OpGt, OpGte, OpLt, OpLte; Query ranks by
// keywords, or by embedding similarity with WithEmbedder (any langchaingo
// embeddings.Embedder satisfies Embedder). TTL comes from PutOptions.TTL;
// expired items are hidden and PurgeExpired deletes them. The conformance
// suite every back-end runs is memory/storetest (Run, and RunUpdate for
// Update).
//
// Update is the Store's atomic read-modify-write of one key: the in-memory
// store runs it under its lock, the bbolt store in one write transaction,
// the Postgres store (memory/postgres) under a row lock.
//
// # PostgreSQL
//
// The PostgreSQL back-end is the sub-package memory/postgres (postgres.New,
// postgres.Open), as checkpoint/postgres is for checkpoints, so that
// importing memory does not link pgx. It takes the same StoreOptions and
// shares this package's record format, filters, ranking and corruption
// reports (through memory/internal/storekit), so its results match the
// in-memory and bbolt stores'.
//
// # Damaged records
//
// A BoltStore record that does not decode is never skipped silently: Get
// fails, and Search returns the other items together with a
// *CorruptRecordsError listing each damaged record (namespace, key,
// error). Check lists every damaged record of the store; Quarantine moves
// them into the bucket QuarantineBucket (agentgraph.store.quarantine),
// keeping their bytes, and Quarantined lists them. A Put over a damaged
// record keeps the old bytes there too. The in-memory store keeps decoded
// records and has nothing to report.
//
// # QA knowledge model
//
// NewQA(store, origin) gives the long-term memory of one web app on any
// graph.Store. Everything lives under ["qa", <app id>, <kind>], where the app
// id is a short hash of the normalised origin and kind is one of pages,
// selectors, quirks, observations, sessions, bugs, procedures.
//
//   - Episodic and semantic memory: RecordPageVisit, RecordSelector,
//     AddQuirk, AddObservation, SaveSession.
//   - Bug catalog: RecordBug deduplicates by Fingerprint(kind, page,
//     evidence). The page is NormalizePage (ids and numbers become
//     placeholders, the query is sorted, free-text values masked); the
//     evidence is NormalizeEvidence (lower-cased; quoted values, timestamps,
//     UUIDs, hex and numbers masked; whitespace collapsed; capped at
//     MaxEvidenceKey runes). An entry keeps a seen count, first and last seen,
//     bounded samples, the latest tape index and screenshot. A fixed bug seen
//     again reopens (BugRecorded.Reopened). A report with a Cause (the
//     explorer's root cause of a finding) is keyed by CauseFingerprint(kind,
//     cause) instead: NormalizeCause keeps a quoted name's text (a script's
//     path, an attribute), so two causes that differ only there stay two
//     bugs, while quoted free text is masked as in evidence.
//   - Prioritisation: PageRisks and HighRiskPages(n) score pages from open
//     bugs (weighted by severity and kind), quirks, selector failures and
//     recency (see RiskWeights). SupervisorContext(ctx, maxChars) is the
//     supervisor's capped memory text. RegressionMissions gives one mission per
//     page with open bugs.
//   - Procedural memory: Reflect rewrites each persona's prompt supplement,
//     offline with RuleReflector or with any Reflector (an LLM adapter, say),
//     and derives the supervisor's routing rules. Prompt builders read
//     Supplement(persona).
//   - Agent tools (they satisfy tools.Tool without importing it): RecallTool
//     is recall_past_findings, ObservationTool is record_observation.
//
// Every QA reader returns what it could read; records that do not decode
// (in the store, or as their kind) come back with it as a
// *CorruptRecordsError, so a caller can warn and go on (IsCorruptOnly).
// QA.Check lists them and QA.Quarantine moves them aside: store-level
// damage into the store's quarantine, values of the wrong shape unchanged
// under Namespace(KindQuarantine)+kind. An update of a damaged entry
// (RecordBug over it, say) fails until it is quarantined.
//
// RecordBug and MarkFixed change a bug entry with one Store.Update, so
// processes sharing a store (memory/postgres) lose no sighting: two
// processes recording one bug 100 times each leave a seen count of 200
// (memory/postgres TestQARecordBugTwoProcesses). The QA's other writers serialise within
// one QA value; share one QA per app and process.
package memory
