package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/protocol"
)

func BenchmarkZZBig(b *testing.B) {
	c := startChain(b)
	url := serve(b, map[string]string{"/": "<title>bench</title>"}) + "/"
	tab := c.openTab(b, url)
	direct := c.directTab(b, url)
	ctx := context.Background()
	yes := true
	for _, kb := range []int{1, 100, 300, 600} {
		expr := fmt.Sprintf("'Button 1234\\tlink\\n'.repeat(%d)", kb*1000/17)
		params, _ := json.Marshal(map[string]any{"expression": expr, "returnByValue": true})
		var rel, dir latencies
		for i := range 25 {
			t := time.Now()
			if err := c.agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "Runtime.evaluate", Params: params}, nil); err != nil {
				b.Fatal(err)
			}
			if i >= 5 {
				rel = append(rel, time.Since(t))
			}
			t = time.Now()
			if _, err := cdp.Call(ctx, direct, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes}); err != nil {
				b.Fatal(err)
			}
			if i >= 5 {
				dir = append(dir, time.Since(t))
			}
		}
		fmt.Printf("ZZBIG %d KB: relayed p50 %.2f ms, direct p50 %.2f ms, added %.2f\n", kb, ms(rel.pct(0.5)), ms(dir.pct(0.5)), ms(rel.pct(0.5)-dir.pct(0.5)))
	}
}
