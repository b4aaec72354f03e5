// Package memory holds the graph.Store back-ends and the QA knowledge model
// that the explorer keeps between runs.
//
// # Store back-ends
//
// NewInMemoryStore and NewBoltStore implement graph.Store. In the bbolt store
// namespaces are nested buckets under one top-level bucket (agentgraph.store),
// so one file can be shared with checkpoint.NewBolt. Search filters use dotted
// paths and the operators $eq, $ne, $gt, $gte, $lt, $lte; Query ranks by
// keywords, or by embedding similarity with WithEmbedder (any langchaingo
// embeddings.Embedder satisfies Embedder). TTL comes from PutOptions.TTL;
// expired items are hidden and PurgeExpired deletes them. The conformance
// suite every back-end runs is memory/storetest (Run, and RunUpdate for
// Update).
//
// Update is the Store's atomic read-modify-write of one key: the in-memory
// store runs it under its lock, the bbolt store in one write transaction,
// the Postgres store under a row lock.
//
// # PostgreSQL
//
// NewPostgresStore (or OpenPostgresStore with a DSN) is a graph.Store on
// PostgreSQL (pgx), shared by every process that opens the same database:
// the store for several explorer shards or graph replicas. Its schema
// (table agentgraph_store_items) is created or migrated on open, versioned
// in agentgraph_schema and under an advisory lock (package
// internal/pgmigrate), so processes may open it at once. A row holds the
// same JSON record as the bbolt store and the expiry as a column; a
// namespace is a length-prefixed byte key, so the items under a prefix are
// one index range. SQL narrows a Search to that range and to live items;
// the filter, keyword or vector ranking (cosine in Go, no extension) and
// paging run on the rows with the code every back-end shares, so results
// match the other back-ends. WithStoreBucket names the store (a column),
// so several stores can share a database. Update locks the item's row;
// when the key is missing, it inserts only if no one else did meanwhile
// and otherwise runs the function again on the other writer's value.
// Records that do not decode are reported as in the bbolt store (Get fails,
// Search returns the rest with a *CorruptRecordsError); Check, Quarantine
// (into the table agentgraph_store_quarantine, bytes kept) and Quarantined
// work the same way, so QA.Check and QA.Quarantine do too.
// The tests start a throwaway cluster (internal/pgtest) once per test
// binary.
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
// processes sharing a store (PostgresStore) lose no sighting: two
// processes recording one bug 100 times each leave a seen count of 200
// (TestQARecordBugTwoProcesses). The QA's other writers serialise within
// one QA value; share one QA per app and process.
package memory
