// Package report is the explorer's results and the files it writes from
// them: Result and MissionResult (what Run returns), summary.json,
// test_report.md, report.html, junit.xml, the playwright.config.ts beside
// the specs, the console table, and MergeReports, which joins the report
// directories of shards (--shard i/n) into one.
//
// # Outputs
//
// Per mission, in <ReportDir>/<thread_id>/: traces.log (every step, route
// and bug), action_tape.jsonl (browser.Entry lines), test_report.md,
// report.html (findings with screenshots, a timeline of the personas'
// actions), reproduction_<bug>.spec.ts per bug (browser.Translate of its
// minimised reproduction, the bug asserted under test.fail()),
// screenshots/ and summary.json, which, for an app with known bugs
// (explore.Config.Seeded: the demo app, a benchmark's), carries demo:
// {seeded, found}, found being the seeded ids the findings' evidence names
// and nothing else. Per batch: <ReportDir>/junit.xml and
// <ReportDir>/summary.json.
//
// Every address an artifact keeps is the app's own (collector.Addresser): the
// collector's loopback origin in findings, the tape (every field a page
// can put an address in: URLs, results, a loading page's title, locators,
// typed values), traces.log and the reports is rewritten to the target,
// and the collector's injected
// script tags are taken out of the page bodies quoted as evidence. Specs
// use relative paths under the generated playwright.config.ts, whose
// baseURL is BASE_URL, else AGENTGRAPH_BASE_URL, else the target, e.g.
// BASE_URL=http://127.0.0.1:8080 npx playwright test.
// A spec that signs in reads the password from SECRET_1 (SECRET_n for
// other values typed into password fields or Config.SecretFields):
// artifacts (tape, traces.log, specs, reports, memory) hold only the
// ${SECRET_n} references; Result.SecretEnv gives the variables in memory.
// Report files are 0600 in 0700 directories.
package report
