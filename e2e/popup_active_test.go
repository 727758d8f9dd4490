package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/extension"
	"github.com/egohost/egohost/protocol"
)

// The popup the way a person opens it: the toolbar button opens
// popup.html, without ?tab, over the window's active tab, and the popup
// works on that tab (extension/popup.js chooseTarget; the other popup
// tests open it as a page with ?tab=N). Chrome's action popup is opened
// here as the button opens it, by chrome.action.openPopup in the
// extension's worker.
func TestPopupOpensOnTheActiveTab(t *testing.T) {
	c := useSharedChain(t)
	ctx := ctxT(t, 60*time.Second)
	base := serve(t, map[string]string{"/first": `<title>first page</title><h1>First heading</h1>`, "/second": `<title>second page</title><h1>Second heading</h1>`})
	first := c.openTab(t, base+"/first")
	c.openTab(t, base+"/second")
	// The first tab is made the active one again: the popup follows the
	// active tab, not the last one opened.
	if err := c.agent.Call(ctx, protocol.MethodTabsSelect, protocol.TabParams{Target: first}, nil); err != nil {
		t.Fatalf("tabs.select %d: %v", first.Tab, err)
	}

	worker := workerTarget(ctx, t, c.direct)
	ws, err := c.direct.Attach(ctx, worker)
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	res, err := cdp.Call(ctx, ws, cdpruntime.Evaluate, cdpruntime.EvaluateParams{
		Expression:   fmt.Sprintf(`chrome.tabs.get(%d).then((t) => chrome.action.openPopup({windowId: t.windowId})).then(() => "opened", (e) => "failed: " + e.message)`, first.Tab),
		AwaitPromise: &yes, ReturnByValue: &yes,
	})
	if err != nil || string(res.Result.Value) != `"opened"` {
		t.Fatalf("chrome.action.openPopup: %v, %v", res, err)
	}
	url := "chrome-extension://" + extension.ID + "/popup.html" // as Chrome opens it: no ?tab
	var popup target.ID
	for popup == "" {
		targets, err := cdp.Call(ctx, c.direct.Browser(), target.GetTargets, target.GetTargetsParams{})
		if err != nil {
			t.Fatal(err)
		}
		for _, ti := range targets.TargetInfos {
			if ti.Type == "page" && ti.URL == url {
				popup = ti.TargetID
			}
		}
		if popup == "" && ctx.Err() != nil {
			t.Fatalf("no page at %s after chrome.action.openPopup", url)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s, err := c.direct.Attach(ctx, popup)
	if err != nil {
		t.Fatal(err)
	}
	p := &ui{t: t, s: s, id: popup}
	want := fmt.Sprintf("first page (tab %d)", first.Tab)
	p.waitFor(ctx, "the popup naming the active tab", fmt.Sprintf(`document.getElementById('target-tab').textContent === %q`, want))
	// And it works on it: its snapshot is of that tab.
	p.click(ctx, "#snapshot")
	p.waitFor(ctx, "the popup's snapshot of the active tab", `document.getElementById('snapshot-lines').textContent.includes('First heading')`)
}
