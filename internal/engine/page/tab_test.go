package page

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
)

// fakeTab is a tab whose session answers what opening a page asks.
func fakeTab(t *testing.T) (*Tab, *cdpfake.Session) {
	t.Helper()
	sess := cdpfake.New()
	for _, m := range []string{"Page.enable", "Target.setAutoAttach", "Network.enable", "Runtime.enable", "Runtime.runIfWaitingForDebugger"} {
		sess.Reply(m, struct{}{})
	}
	return NewTab(7, sess, refmap.NewCounter(), nil), sess
}

func codeOf(err error) protocol.Code {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return 0
}

// A tab's page opens once, on first use, with its record; a closed tab
// (its browser tab closed or detached) never opens again: a call that
// raced the close gets detached, not a page no one will close.
func TestTabOpensOnceAndNeverAfterClose(t *testing.T) {
	tab, sess := fakeTab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, ok := tab.Engine(); ok {
		t.Fatal("an engine before Open")
	}
	first, err := tab.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if first.Page == nil || first.Snap == nil || first.Res == nil || first.Acts == nil || tab.Record() == nil {
		t.Fatalf("got engine %+v, record %v: want every part", first, tab.Record())
	}
	again, err := tab.Open(ctx)
	if err != nil || again != first {
		t.Fatalf("second Open: got %+v, %v; want the same engine", again, err)
	}
	if n := sess.Count("Target.setAutoAttach"); n != 1 {
		t.Errorf("the page was opened %d times, want once", n)
	}
	tab.Close()
	if _, ok := tab.Engine(); ok || tab.Record() != nil {
		t.Error("the engine or record outlived Close")
	}
	if _, err := tab.Open(ctx); codeOf(err) != protocol.CodeDetached {
		t.Errorf("Open after Close: got %v, want detached", err)
	}
	if n := sess.Count("Target.setAutoAttach"); n != 1 {
		t.Errorf("a closed tab's page was opened again (%d opens)", n)
	}
}

// A page that fails to open leaves no record behind (Record is nil while
// no page is open), though the record's domains went on beside the open;
// the next Open starts both again.
func TestTabWhosePageFailsToOpenHasNoRecord(t *testing.T) {
	tab, sess := fakeTab(t)
	defer tab.Close()
	sess.Fail("Target.setAutoAttach", "auto-attach refused")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := tab.Open(ctx); err == nil {
		t.Fatal("Open with auto-attach refused: got no error")
	}
	if tab.Record() != nil {
		t.Error("a record for a page that did not open")
	}
	sess.Reply("Target.setAutoAttach", struct{}{})
	if _, err := tab.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if tab.Record() == nil {
		t.Error("no record after the page opened")
	}
}

// A tab that answers nothing since the attach (a dialog Chrome never
// reported) fails with dialog_open before the call's deadline, not with a
// bare timeout.
func TestTabThatNeverAnswersSaysDialogOpen(t *testing.T) {
	sess := cdpfake.New()
	sess.Handle("Page.enable", func(ctx context.Context, _ json.RawMessage) (any, error) {
		<-ctx.Done() // blocked by a dialog: until the tab closes
		return nil, ctx.Err()
	})
	tab := NewTab(7, sess, refmap.NewCounter(), nil)
	defer tab.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := tab.Open(ctx)
	if codeOf(err) != protocol.CodeDialogOpen {
		t.Fatalf("got %v, want dialog_open", err)
	}
}

func TestTabFollowsItsDialog(t *testing.T) {
	tab, _ := fakeTab(t)
	tab.FollowDialog("Page.javascriptDialogOpening", json.RawMessage(`{"url":"https://a.example/","message":"sure?","type":"confirm","hasBrowserHandler":false}`))
	if d := tab.Dialog(); d == nil || d.Type != "confirm" || d.Message != "sure?" || d.URL != "https://a.example/" {
		t.Fatalf("got %+v, want the confirm dialog", d)
	}
	tab.FollowDialog("Page.javascriptDialogOpening", json.RawMessage(`not json`)) // ignored
	if tab.Dialog() == nil {
		t.Fatal("a bad event closed the dialog")
	}
	tab.FollowDialog("Page.javascriptDialogClosed", json.RawMessage(`{"result":true,"userInput":""}`))
	if d := tab.Dialog(); d != nil {
		t.Fatalf("got %+v after it closed, want none", d)
	}
}

// One element action at a time per tab: a second waits, and gives up with
// timeout at its deadline.
func TestTabActionLock(t *testing.T) {
	tab, _ := fakeTab(t)
	unlock, err := tab.LockActions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := tab.LockActions(ctx); codeOf(err) != protocol.CodeTimeout {
		t.Fatalf("a second lock: got %v, want timeout", err)
	}
	unlock()
	unlock2, err := tab.LockActions(context.Background())
	if err != nil {
		t.Fatalf("the lock after its release: %v", err)
	}
	unlock2()
}

func TestURLsFollowTheTabEvents(t *testing.T) {
	var u URLs
	if _, ok := u.Get(1); ok {
		t.Fatal("a URL before any event")
	}
	u.Track(tabEvent("tab.created", 1, "about:blank"))
	u.Track(tabEvent("tab.updated", 1, "https://a.example/"))
	u.Track(tabEvent("tab.updated", 2, "https://b.example/"))
	if got, _ := u.Get(1); got != "https://a.example/" {
		t.Errorf("tab 1: got %q, want its last URL", got)
	}
	u.Track(&extwire.Message{Event: "tab.removed", TabID: 1})
	if _, ok := u.Get(1); ok {
		t.Error("tab 1 is still known after its removal")
	}
	u.Set(3, "https://c.example/")
	if got, _ := u.Get(3); got != "https://c.example/" {
		t.Errorf("tab 3: got %q", got)
	}
}

func tabEvent(name string, tab int, url string) *extwire.Message {
	return &extwire.Message{Event: name, Tab: &protocol.Tab{ID: tab, URL: url}}
}

// Background work outlives its caller's context but not StopBackground
// or Close; work started after a stop runs.
func TestBackgroundEndsWithStopAndClose(t *testing.T) {
	tab := NewTab(7, nil, nil, nil)
	run := func() (started chan struct{}, ended chan error) {
		started, ended = make(chan struct{}), make(chan error, 1)
		call, cancel := context.WithCancel(context.Background())
		go func() {
			ended <- tab.Background(context.WithoutCancel(call), func(ctx context.Context) error {
				close(started)
				<-ctx.Done()
				return ctx.Err()
			})
		}()
		<-started
		cancel() // the call that started it ends: the work goes on
		return started, ended
	}
	wait := func(what string, ended chan error) {
		t.Helper()
		select {
		case err := <-ended:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s: got %v, want context.Canceled", what, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the work did not end", what)
		}
	}

	_, a := run()
	_, b := run()
	select {
	case err := <-a:
		t.Fatalf("the work ended with its call: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	if n := tab.StopBackground(); n != 2 {
		t.Errorf("StopBackground: got %d stopped, want 2", n)
	}
	wait("the first after StopBackground", a)
	wait("the second after StopBackground", b)
	if n := tab.StopBackground(); n != 0 {
		t.Errorf("StopBackground again: got %d, want 0", n)
	}

	_, c := run() // after a stop, new work runs
	tab.Close()
	wait("work after Close", c)
	if err := tab.Background(context.Background(), func(context.Context) error { return nil }); err != nil {
		t.Errorf("work that returns at once: %v", err)
	}
}
