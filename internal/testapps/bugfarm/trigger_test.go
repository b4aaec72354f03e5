package bugfarm

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

var simpleID = regexp.MustCompile(`^#([a-z0-9-]+)`)

// TestTriggerSelectorsExist checks, for every trigger of seeds 1-20, that
// the control acted on right after each goto is in the page the goto
// opens (the frame's page for iframe steps, the component's script for
// shadow-DOM steps), in the buggy and in the fixed build.
func TestTriggerSelectorsExist(t *testing.T) {
	for seed := int64(1); seed <= seeds; seed++ {
		for _, fixed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d fixed=%v", seed, fixed), func(t *testing.T) {
				t.Parallel()
				s := serve(t, seed, Options{Fixed: fixed})
				s.signIn(t)
				checked := 0
				for _, b := range s.app.All {
					for i, st := range b.Trigger {
						if st.Op != OpGoto || i+1 >= len(b.Trigger) || st.Path == "/signin" {
							continue
						}
						next := b.Trigger[i+1]
						if next.Op == OpClearCookies && i+2 < len(b.Trigger) {
							next = b.Trigger[i+2]
						}
						if next.Selector == "" {
							continue
						}
						page := s.get(t, st.Path).body
						if next.Frame != "" {
							id := simpleID.FindStringSubmatch(next.Frame)
							if assert.NotNil(t, id, b.ID) {
								page = s.get(t, "/embed/"+id[1]).body
							}
						}
						m := simpleID.FindStringSubmatch(next.Selector)
						if m == nil {
							// a custom element's button: the element is defined on the page
							tag := strings.Fields(next.Selector)[0]
							assert.Contains(t, page, `"`+tag+`"`, "%s: %s on %s", b.ID, next.Selector, st.Path)
							checked++
							continue
						}
						assert.Contains(t, page, `id="`+m[1]+`"`, "%s: %s on %s", b.ID, next.Selector, st.Path)
						checked++
					}
				}
				assert.Positive(t, checked)
			})
		}
	}
}
