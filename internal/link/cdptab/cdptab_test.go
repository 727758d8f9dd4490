package cdptab_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/setup/browser"
	"github.com/egohost/egohost/internal/testkit/browsertest"
)

func TestOpenTracksOutOfProcessFrames(t *testing.T) {
	inner := browsertest.Serve(t, browsertest.Pages(map[string]string{"/inner": "<button>inside</button>"}))
	// localhost is another site than 127.0.0.1, so the iframe runs out of process.
	innerURL := strings.Replace(inner, "127.0.0.1", "localhost", 1) + "/inner"
	outer := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": `<iframe src="` + innerURL + `"></iframe>`}))
	b := browsertest.Launch(t, browser.Options{})
	s := b.NewPage(t, outer+"/")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := cdptab.Open(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var kids []cdptab.Child
	for ctx.Err() == nil {
		if kids = p.Children(); len(kids) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(kids) != 1 || kids[0].Type != "iframe" || kids[0].URL != innerURL {
		t.Fatalf("children: got %+v, want one iframe at %s", kids, innerURL)
	}
	if _, ok := p.Frame(cdp.FrameID(kids[0].TargetID)); !ok {
		t.Errorf("Frame(%s): not found", kids[0].TargetID)
	}
}
