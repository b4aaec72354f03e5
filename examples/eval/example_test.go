package eval_test

import (
	"fmt"

	"github.com/agentgraph/agentgraph/examples/eval"
)

func ExampleParseSuite() {
	s, err := eval.ParseSuite([]byte(`name: shop
tasks:
  - id: subscribe
    task: Subscribe to the newsletter
    start: /
    checks:
      dom:
        - {locator: "#thanks", visible: true}
      visual: {reference: refs/subscribe.png}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	t := s.Tasks[0]
	fmt.Println(t.ID, t.Steps, t.Checks.DOM[0], t.Checks.Visual.Threshold)

	_, err = eval.ParseSuite([]byte("tasks:\n  - id: x\n    task: go\n    start: /\n    checks: {dom: [{locator: a}]}\n"))
	fmt.Println(err)
	// Output:
	// subscribe 10 #thanks visible 0.92
	// line 5: task "x": dom check 1: set exactly one of visible, hidden, text_equals, text_contains, count, attribute, url_matches, js
}

func ExampleSSIM() {
	a := eval.NewGray(16, 16, 100)
	b := eval.NewGray(16, 16, 150)
	same, _ := eval.SSIM(a, a)
	diff, _ := eval.SSIM(a, b)
	fmt.Printf("%.4f %.4f\n", same, diff)
	// Output: 1.0000 0.9231
}

func ExampleDecide() {
	g := eval.Gate{Evidence: eval.EvidenceAny}
	fmt.Println(eval.Decide(g, eval.Pass, eval.Fail, eval.Pass)) // DOM and the judge
	fmt.Println(eval.Decide(g, eval.Fail, eval.Pass, eval.Pass)) // DOM failed
	fmt.Println(eval.Decide(g, eval.Pass, eval.NA, eval.NA))     // no evidence grader applies
	// Output:
	// true
	// false
	// true
}
