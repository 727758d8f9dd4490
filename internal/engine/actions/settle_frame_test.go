package actions_test

import (
	"encoding/json"
	"testing"

	"github.com/egohost/egohost/internal/engine/actions"
)

// The settle's first wait is one animation frame and a task after the
// action: observe.js asks for that frame at the action's events, so a
// frame that came between the action and the settle's call counts
// (caught) and the call has nothing left to wait for; without the
// action's events, or before their frame, the call waits as it always
// did. What a handler set off in that frame (an animation frame it asked
// for) is seen either way: the settle does not end early then.
func TestSettleCountsTheFrameAfterTheAction(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`<input id=i><p id=out>-</p>
<script>
document.getElementById('i').addEventListener('keydown', () => requestAnimationFrame(() => { out.textContent = 'frame' }));
</script>`)}, "/")
	observe, mutation, settle := actions.SettleScripts()
	const twoFrames = `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))))`
	tests := []struct {
		name string
		act  string // what the page sees of the action, then what happens before the settle's call
		want map[string]any
	}{
		{"the frame came before the settle's call", `el.dispatchEvent(new Event('input', {bubbles: true})); await ` + twoFrames, map[string]any{"early": true, "caught": true}},
		{"the settle's call comes in the same task as the action", `el.dispatchEvent(new Event('input', {bubbles: true}))`, map[string]any{"early": true, "caught": false}},
		{"no event of an action", `await ` + twoFrames, map[string]any{"early": true, "caught": false}},
		{"an event after the frame asks for another", `el.dispatchEvent(new Event('input', {bubbles: true})); await ` + twoFrames + `; el.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true}))`, map[string]any{"early": true, "caught": false}},
		{"a handler's frame changed the page", `el.dispatchEvent(new KeyboardEvent('keydown', {bubbles: true})); await ` + twoFrames, map[string]any{"early": nil, "quiet": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expr := `(async () => {
const el = document.getElementById('i');
out.textContent = '-';
(` + observe + `)(el, null, ` + mutation + `);
` + tt.act + `;
return (` + settle + `)(el, null, 20, 5000, false);
})()`
			answer := tb.eval(expr)
			var got map[string]any
			if err := json.Unmarshal([]byte(answer), &got); err != nil {
				t.Fatal(err)
			}
			for k, want := range tt.want {
				if got[k] != want {
					t.Errorf("%s: got %v, want %v (the settle answered %s)", k, got[k], want, answer)
				}
			}
		})
	}
}
