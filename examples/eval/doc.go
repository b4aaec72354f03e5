// Package eval grades browser agents without trusting them: an agent's
// "done" is a claim, and the graders re-derive the truth from the page it
// left behind, so agents built with agentgraph can be gated in CI.
//
// It lives under examples/ rather than at the top level because DESIGN.md
// fixes the top-level layout and puts the eval lane with the QA programs
// (examples/explorer); it imports browser, graph, state and llm and nothing
// imports it.
//
// # Pieces
//
//   - A suite (ParseSuite, LoadSuite; strict YAML, errors name the line):
//     tasks with a start URL, a step budget, set-up steps (intents or
//     JavaScript run before the agent, not counted as its steps; RunSetup)
//     and checks — DOM assertions (visible, hidden, text_equals,
//     text_contains, count, attribute, url_matches, and js: a JavaScript
//     expression evaluated in the final page, such as a task page's own
//     reward variable, compared with equals as JSON or else tested for
//     truthiness), a reference screenshot with a region and an SSIM
//     threshold (default 0.92), and an LLM-judge question with a reference
//     answer.
//   - Harness: one Chromium for agent and graders. The agent acts through a
//     browser.Engine; the graders attach to the same Chromium over the
//     DevTools protocol and see the very page the agent left. Each trial's
//     page gets an init script freezing Date and performance.now
//     (FreezeScript) and a route aborting requests to hosts outside the
//     task's origin.
//   - Graders: GradeDOM (Playwright locators), GradeVisual (SSIM on
//     greyscale with 11×11 Gaussian windows, σ = 1.5, C1 = (0.01·255)²,
//     C2 = (0.03·255)², after resizing to the reference and cropping to the
//     region, plus a pixel-mismatch ratio; records a missing reference with
//     its date and viewport when asked), GradeJudge (three votes, a strict
//     yes/no rubric, majority wins; with judge.screenshot the final page's
//     PNG goes with the question as an image part).
//   - The gate (Decide): pass = DOM AND (visual OR judge) by default;
//     Gate.Evidence "all" or "none" and Gate.DOM false change it.
//   - Runner: N trials per task, a Row per trial, a TaskSummary per task
//     (majority of trials), the table (success rate, mean steps, mean cost
//     per success) and the list of self-reported successes that were wrong.
//   - Agents: Scripted (a fixed intent list per task, offline) and
//     ModelAgent (a plan → act → observe → reflect graph over browser, the
//     model picking JSON intents, the step budget a hard limit). Any other
//     Agent may return its own final page in Claim.Page.
package eval
