package actions_test

import (
	"encoding/json"
	"testing"

	"github.com/egohost/egohost/internal/engine/actions"
)

// The settle's first wait is one animation frame and the tasks after the
// action: observe.js asks for that frame at the action's events, so a
// frame that came between the action's last event and the settle's call
// counts (caught) and the call has nothing left to wait for; before that
// frame, without the action's last event (a page that stops it), or with
// no event at all, the call waits as it always did. What a handler set
// off in that frame (an animation frame it asked for, a timer that frame
// set) is seen either way: the settle does not end early then.
func TestSettleCountsTheFrameAfterTheAction(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`<input id=i><p id=out>-</p>
<script>
const i = document.getElementById('i');
i.addEventListener('keydown', () => requestAnimationFrame(() => { out.textContent = 'frame' }));
i.addEventListener('change', () => requestAnimationFrame(() => setTimeout(() => { out.textContent = 'late' }, 0)));
</script>`)}, "/")
	observe, mutation, settle := actions.SettleScripts()
	const (
		input     = `el.dispatchEvent(new Event('input', {bubbles: true}))`
		twoFrames = `await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))))`
	)
	tests := []struct {
		name string
		act  string // what the page sees of the action, then what happens before the settle's call
		want map[string]any
		out  string // what #out says after the settle
	}{
		{"the frame came before the settle's call", input + `; ` + twoFrames, map[string]any{"early": true, "caught": true}, "-"},
		{"the settle's call comes in the same task as the action", input, map[string]any{"early": true, "caught": false}, "-"},
		{"no event of an action", twoFrames, map[string]any{"early": true, "caught": false}, "-"},
		{"the action's last event did not come", `el.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true})); ` + twoFrames, map[string]any{"early": true, "caught": false}, "-"},
		{"an event after the frame asks for another", input + `; ` + twoFrames + `; el.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true}))`, map[string]any{"early": true, "caught": false}, "-"},
		{"and that frame counts", input + `; ` + twoFrames + `; el.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true})); ` + twoFrames, map[string]any{"early": true, "caught": true}, "-"},
		{"a handler's frame changed the page", `el.dispatchEvent(new KeyboardEvent('keydown', {bubbles: true})); ` + twoFrames, map[string]any{"early": nil, "quiet": true}, "frame"},
		// The settle's call comes inside the frame, after the page's
		// callback set its timer: it waits for that timer.
		// Every frame comes 250 ms late (a busy machine): the settle waits
		// for it, not only 100 ms, and sees what the handler's frame did.
		{"a frame that comes late", `const raf = window.__raf = requestAnimationFrame; window.requestAnimationFrame = (cb) => raf((t) => setTimeout(() => cb(t), 250)); el.dispatchEvent(new KeyboardEvent('keydown', {bubbles: true}))`, map[string]any{"early": nil, "quiet": true}, "frame"},
		{"a timer a handler's frame set", `el.dispatchEvent(new Event('change', {bubbles: true})); await new Promise((r) => requestAnimationFrame(r))`, map[string]any{"early": nil, "quiet": true}, "late"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expr := `(async () => {
const el = document.getElementById('i');
out.textContent = '-';
(` + observe + `)(el, null, ` + mutation + `, ['input', 'change', 'keyup']);
` + tt.act + `;
const r = await (` + settle + `)(el, null, 20, 5000, false);
r.out = out.textContent;
if (window.__raf) {
  window.requestAnimationFrame = window.__raf;
  delete window.__raf;
}
return r;
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
			if got["out"] != tt.out {
				t.Errorf("#out when the settle answered: got %v, want %q (%s)", got["out"], tt.out, answer)
			}
		})
	}
}
