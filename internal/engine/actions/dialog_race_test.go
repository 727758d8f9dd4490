package actions_test

import (
	"context"
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
)

// bufferedEvents is a scripted tab whose dialog event is already waiting
// on the subscription when the first answer succeeds: the order Chrome
// keeps when the wait woke on its timer just as the dialog opened.
type bufferedEvents struct {
	*cdpfake.Session
	events chan jsonv2.Value
}

func (b bufferedEvents) Subscribe(string) (<-chan jsonv2.Value, func()) {
	return b.events, func() {}
}

func TestHandleDialogReadsTheEventThatCameWithTheAnswer(t *testing.T) {
	s := cdpfake.New()
	s.Reply(page.Enable.Method, struct{}{})
	s.Reply(page.HandleJavaScriptDialog.Method, struct{}{})
	events := make(chan jsonv2.Value, 1)
	events <- jsonv2.Value(`{"url":"http://a.test/","message":"later","type":"alert","hasBrowserHandler":true,"defaultPrompt":""}`)
	r := actions.New(bufferedEvents{s, events}, nil, actions.Options{})
	got, err := r.HandleDialog(context.Background(), true, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Dialog == nil || got.Dialog.Message != "later" {
		t.Fatalf("got %+v, want the dialog 'later'", got.Dialog)
	}
}
