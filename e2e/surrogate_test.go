package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// TestLoneSurrogatesThroughChain: a page's strings may hold a lone UTF-16
// surrogate (text cut in the middle of an emoji, or put there to break an
// agent's reads). On a DevTools connection Chrome writes it as a lone
// \ud800 escape, which strict JSON decoders refuse; through the extension
// it must arrive as U+FFFD (native messaging writes UTF-8), so that the
// snapshot, an evaluation returning the string, a locator naming it and
// the console message holding it all work.
func TestLoneSurrogatesThroughChain(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": `<title>cut</title><button id=b onclick="this.dataset.n=(+this.dataset.n||0)+1">x</button><p id=p>y</p>
<script>document.getElementById('b').textContent = 'Buy \uD83D'; document.getElementById('p').textContent = 'half \uDE00 of a smile'</script>`})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 20*time.Second)

	var snap protocol.SnapshotResult
	if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab}, &snap); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	for _, want := range []string{"button \"Buy \uFFFD\" @", "half \uFFFD of a smile"} {
		if !strings.Contains(snap.Text, want) {
			t.Errorf("snapshot: got %q, want it to hold %q", snap.Text, want)
		}
	}
	var ev protocol.EvalResult
	if err := c.agent.Call(ctx, protocol.MethodEval, protocol.EvalParams{Target: tab, Expression: `console.log('log \uD800 end'); document.getElementById('b').textContent`}, &ev); err != nil {
		t.Fatalf("eval: %v", err)
	}
	if got, want := ev.Value, "Buy \uFFFD"; got != want {
		t.Errorf("eval: got %q, want %q", got, want)
	}
	if err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: tab, Element: `role=button[name="Buy"]`}, nil); err != nil {
		t.Errorf("click by role and name: %v", err)
	} else if v, err := c.eval(ctx, tab, "document.getElementById('b').dataset.n"); err != nil || string(v) != `"1"` {
		t.Errorf("after the click: got data-n %s (%v), want \"1\"", v, err)
	}
	var cons protocol.ConsoleListResult
	if err := c.agent.Call(ctx, protocol.MethodConsoleList, protocol.ConsoleListParams{Target: tab}, &cons); err != nil {
		t.Fatalf("console.list: %v", err)
	}
	found := false
	for _, m := range cons.Messages {
		found = found || m.Text == "log \uFFFD end"
	}
	if !found {
		t.Errorf("console.list: got %+v, want the message %q", cons.Messages, "log \uFFFD end")
	}
}
