package cdpfake_test

import (
	"context"
	"errors"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
)

func TestSession(t *testing.T) {
	s := cdpfake.New()
	s.Reply(dom.CommandGetBoxModel, dom.GetBoxModelResult{Model: &dom.BoxModel{Width: 3}})
	s.Fail(dom.CommandDescribeNode, "No node with given id found")
	ctx := context.Background()
	res, err := cdp.Call(ctx, s, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: 7})
	if err != nil || res.Model.Width != 3 {
		t.Fatalf("GetBoxModel: got %+v, %v", res, err)
	}
	_, err = cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: 7})
	var fe *cdpfake.Error
	if !errors.As(err, &fe) || fe.Message != "No node with given id found" {
		t.Errorf("DescribeNode: got %v, want the scripted failure", err)
	}
	if _, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{}); err == nil {
		t.Error("unscripted call: got no error")
	}
	if got := s.Calls(); len(got) != 3 || got[0].Method != dom.CommandGetBoxModel || string(got[0].Params) != `{"backendNodeId":7}` {
		t.Errorf("calls: got %+v", got)
	}
	kid := s.AddChild(cdptab.Child{SessionID: "K", Type: "iframe"})
	kid.Reply(dom.CommandGetBoxModel, dom.GetBoxModelResult{})
	if _, err := cdp.Call(ctx, s.Child("K"), dom.GetBoxModel, dom.GetBoxModelParams{}); err != nil {
		t.Errorf("child call: %v", err)
	}
	if kid.Count(dom.CommandGetBoxModel) != 1 || len(s.Children()) != 1 {
		t.Errorf("child: got %d calls, %d children", kid.Count(dom.CommandGetBoxModel), len(s.Children()))
	}
}
