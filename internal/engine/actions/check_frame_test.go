package actions_test

import (
	"encoding/json"
	"testing"

	"github.com/chromedp/cdproto/animation"
	"github.com/chromedp/cdproto/cdp"

	"github.com/egohost/egohost/internal/engine/actions"
)

// The stable check compares the element's box across one animation frame,
// or across 100 ms when no frame comes (a tab that paints nothing). On a
// busy machine a frame can come later than that: an animation then did
// not tick between the two reads, and the same box said "stable" while
// the element slid (CI once clicked a moving button that had slid away
// between the press and the release: the click reached neither). Without
// a frame, a running animation that can move the element, on it or on
// what holds it, now says "not stable"; one that only paints does not.
// The test takes the page's animation frames away (its rAF) and stops its
// timeline (Animation.setPlaybackRate 0): a late frame, as the page sees
// it. Frames with the timeline stopped (DevTools paused the animations)
// move nothing: stable.
func TestStableWithoutAFrame(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<style>
@keyframes slide { from { margin-left: 0 } to { margin-left: 300px } }
@keyframes glow { from { background-color: white } to { background-color: yellow } }
.slide { animation: slide 60s linear infinite }
.glow { animation: glow 60s linear infinite }
.done { animation: slide 1ms linear 1 forwards }
</style>
<button id=plain>Plain</button>
<button id=sliding class=slide>Sliding</button>
<div class=slide><button id=inner>Inside a sliding box</button></div>
<button id=glowing class=glow>Glowing</button>
<button id=done class=done>Slid</button>`)}, "/")
	check := actions.CheckScript()
	const (
		frames  = iota // animation frames come
		late           // none comes in time, and the timeline stands still (Animation.setPlaybackRate 0)
		noFrame        // none comes in time; the timeline runs (a finished animation stays finished)
		paused         // frames come, the timeline stands still (DevTools paused the animations)
	)
	tests := []struct {
		id   string
		when int
		want string
	}{
		{"plain", late, ""},
		{"sliding", late, "not stable"},
		{"inner", late, "not stable"},
		{"glowing", late, ""},
		{"done", noFrame, ""},
		{"sliding", frames, "not stable"},
		{"glowing", frames, ""},
		{"sliding", paused, ""},
	}
	for _, tt := range tests {
		name := tt.id + []string{", frames", ", a late frame", ", no frame", ", paused"}[tt.when]
		t.Run(name, func(t *testing.T) {
			stub, rate := "true", 1.0
			if tt.when == late || tt.when == noFrame {
				stub = "window.requestAnimationFrame = () => 0"
			}
			if tt.when == late || tt.when == paused {
				rate = 0
			}
			if _, err := cdp.Call(tb.ctx, tb.p, animation.SetPlaybackRate, animation.SetPlaybackRateParams{PlaybackRate: rate}); err != nil {
				t.Fatal(err)
			}
			defer cdp.Call(tb.ctx, tb.p, animation.SetPlaybackRate, animation.SetPlaybackRateParams{PlaybackRate: 1})
			answer := tb.eval(`(async () => {
const raf = window.requestAnimationFrame;
` + stub + `;
try {
  return await (` + check + `)(document.getElementById('` + tt.id + `'), null, {stable: true});
} finally {
  window.requestAnimationFrame = raf;
}
})()`)
			var got struct {
				OK     bool   `json:"ok"`
				Reason string `json:"reason"`
			}
			if err := json.Unmarshal([]byte(answer), &got); err != nil {
				t.Fatal(err)
			}
			if got.Reason != tt.want || got.OK != (tt.want == "") {
				t.Errorf("got %s, want reason %q", answer, tt.want)
			}
		})
	}
}

// The next frame often runs at the very time of the document's timeline
// that a read between frames saw (about a third of the time in Chromium
// 156): comparing the box then with the box in that frame found a sliding
// button stable. Twenty checks, each a few milliseconds after the last:
// every one must see the slide.
func TestStableSeesTheSlideInEveryPhase(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`
<style>@keyframes slide { from { margin-left: 0 } to { margin-left: 300px } }</style>
<button id=sliding style="animation: slide 60s linear infinite">Sliding</button>`)}, "/")
	answer := tb.eval(`(async () => {
const el = document.getElementById('sliding');
const reasons = [];
for (let i = 0; i < 20; i++) {
  await new Promise((r) => setTimeout(r, i % 17));
  const r = await (` + actions.CheckScript() + `)(el, null, {stable: true});
  reasons.push(r.ok ? "ok" : r.reason);
}
return reasons;
})()`)
	var got []string
	if err := json.Unmarshal([]byte(answer), &got); err != nil {
		t.Fatal(err)
	}
	for i, r := range got {
		if r != "not stable" {
			t.Errorf("check %d of %d: got %q, want \"not stable\" (all: %s)", i+1, len(got), r, answer)
		}
	}
}
