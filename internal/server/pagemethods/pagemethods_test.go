package pagemethods

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/protocol"
)

// codeOf is err's wire code (0 for nil).
func codeOf(err error) protocol.Code {
	if err == nil {
		return 0
	}
	return protocol.AsError(err).Code
}

// TestRun is every decision of running a page method on its tab: the
// tab that does not open, the dialog that blocks it (and the one Chrome
// did not report, which only the dialog method answers), the end of the
// call when its tab goes, and the trace around it.
func TestRun(t *testing.T) {
	alert := &protocol.Dialog{Type: "alert", Message: "hi"}
	blocked := protocol.Errorf(protocol.CodeDialogOpen, "tab 7 answers nothing")
	tests := []struct {
		name    string
		op      string // "click" unless set
		timeout time.Duration
		call    fakeCall
		tab     fakeTab
		// event, when set, is what the tab's link says while the call
		// runs ("done": the link went); the call then fails with fnErr.
		event  string
		reason string // the event's reason; canceled_by_user when not set
		fnErr  error

		want        protocol.Code
		wantIn      string // in the error's message
		wantRan     bool   // the call's fn ran
		wantTimeout time.Duration
		wantRes     any
		wantTrace   []string
	}{
		{name: "the tab opens", wantRan: true, wantTimeout: actionTimeout, wantRes: "done"},
		{name: "the call's own timeout", timeout: time.Second, wantRan: true, wantTimeout: time.Second, wantRes: "done"},
		{name: "the tab does not open", call: fakeCall{tabErr: protocol.Errorf(protocol.CodeTabNotFound, "no tab 7")}, want: protocol.CodeTabNotFound, wantTimeout: actionTimeout},
		{name: "a dialog blocks the tab", tab: fakeTab{dialog: alert}, want: protocol.CodeDialogOpen, wantIn: "click: a alert dialog", wantTimeout: actionTimeout},
		{name: "the dialog method works on a blocked tab", op: protocol.MethodDialog, tab: fakeTab{dialog: alert}, wantRan: true, wantTimeout: actionTimeout, wantRes: "done"},
		{name: "the dialog method: a tab that answers nothing", op: protocol.MethodDialog,
			call:    fakeCall{link: &fakeLink{reachErr: blocked, dismissed: &actions.DialogResult{Accepted: false, Took: 3 * time.Millisecond}}},
			wantRes: protocol.DialogResult{Tab: 7, TookMs: 3, Unreported: true}},
		{name: "the dialog method: the unreported dialog does not close", op: protocol.MethodDialog,
			call: fakeCall{link: &fakeLink{reachErr: blocked, dismissErr: context.DeadlineExceeded}}, want: protocol.CodeTimeout},
		{name: "the dialog method: a tab not reached for another reason", op: protocol.MethodDialog,
			call: fakeCall{link: &fakeLink{reachErr: protocol.Errorf(protocol.CodeTimeout, "slow")}}, wantRan: true, wantTimeout: actionTimeout, wantRes: "done"},
		{name: "the dialog method: no such tab", op: protocol.MethodDialog,
			call: fakeCall{linkErr: protocol.Errorf(protocol.CodeTabNotFound, "no tab 7")}, want: protocol.CodeTabNotFound},
		{name: "the tab closes", event: "tab.removed", fnErr: protocol.Errorf(protocol.CodeTimeout, "timed out"),
			want: protocol.CodeTabNotFound, wantIn: "click: tab 7 was closed", wantRan: true, wantTimeout: actionTimeout},
		{name: "the debugger detaches as the tab closes", event: "detached", reason: "target_closed", fnErr: context.DeadlineExceeded,
			want: protocol.CodeTabNotFound, wantIn: "click: tab 7 was closed", wantRan: true, wantTimeout: actionTimeout},
		{name: "the debugger detaches", event: "detached", fnErr: context.DeadlineExceeded,
			want: protocol.CodeDetached, wantIn: "click: the debugger was detached from tab 7 (canceled_by_user)", wantRan: true, wantTimeout: actionTimeout},
		{name: "the browser goes", event: "done", fnErr: context.DeadlineExceeded,
			want: protocol.CodeBrowserGone, wantIn: "click: browser B1 disconnected", wantRan: true, wantTimeout: actionTimeout},
		{name: "another tab closes", event: "other tab", fnErr: context.DeadlineExceeded, want: protocol.CodeTimeout, wantRan: true, wantTimeout: actionTimeout},
		{name: "an error of its own after the tab closed", event: "tab.removed", fnErr: protocol.Errorf(protocol.CodeNotFound, "no element"),
			want: protocol.CodeNotFound, wantRan: true, wantTimeout: actionTimeout},
		{name: "a traced call", tab: fakeTab{traced: true}, wantRan: true, wantTimeout: actionTimeout, wantRes: "done", wantTrace: []string{"before", "ran", "after"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := tt.op
			if op == "" {
				op = protocol.MethodClick
			}
			svc := &fakeService{dialogs: map[string]bool{protocol.MethodDialog: true}}
			c, tab := &tt.call, &tt.tab
			c.tab = tab
			if c.link == nil {
				c.link = &fakeLink{}
			}
			ran := false
			res, err := New[*fakeTab](svc, discard).Run(context.Background(), c, protocol.Target{Tab: 7}, op, tt.timeout, func(ctx context.Context, got *fakeTab, r *actions.Runner) (any, error) {
				ran = true
				if tab.traced {
					tab.trace = append(tab.trace, "ran")
				}
				if got != tab || r == nil {
					t.Errorf("got tab %p and runner %v, want the call's tab %p and a runner", got, r, tab)
				}
				if tt.event == "" {
					return "done", nil
				}
				sub := tab.subs[0]
				switch tt.event {
				case "done":
					sub.Done()
				case "other tab":
					in := &extwire.Message{Event: "tab.removed", TabID: 8}
					if sub.Filter(in) {
						sub.Deliver(in)
					}
				default:
					reason := tt.reason
					if reason == "" {
						reason = "canceled_by_user"
					}
					in := &extwire.Message{Event: tt.event, TabID: 7, Reason: reason}
					if !sub.Filter(in) {
						t.Fatalf("the guard does not take %s of its tab", tt.event)
					}
					sub.Deliver(in)
				}
				return nil, tt.fnErr
			})
			if got := codeOf(err); got != tt.want {
				t.Fatalf("got error %v (%s), want %s", err, got.Name(), tt.want.Name())
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("got error %q, want it to contain %q", err, tt.wantIn)
			}
			if ran != tt.wantRan {
				t.Errorf("got fn ran %v, want %v", ran, tt.wantRan)
			}
			if diff := cmp.Diff(tt.wantRes, res); err == nil && diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if tt.wantTimeout != 0 && (len(c.timeouts) != 1 || c.timeouts[0] != tt.wantTimeout) {
				t.Errorf("got the tab opened within %v, want once within %v", c.timeouts, tt.wantTimeout)
			}
			if tt.wantTimeout == 0 && len(c.timeouts) > 0 {
				t.Errorf("got the tab opened (%v), want it not opened", c.timeouts)
			}
			if len(tab.subs) != tab.unsubbed {
				t.Errorf("got %d subscriptions and %d ended, want all ended", len(tab.subs), tab.unsubbed)
			}
			if diff := cmp.Diff(tt.wantTrace, tab.trace); diff != "" {
				t.Errorf("trace (-want +got):\n%s", diff)
			}
		})
	}
}

// The dialog method probes a tab for at most a second (unreportedProbe),
// less when its own timeout is shorter.
func TestUnreportedProbe(t *testing.T) {
	for _, tt := range []struct {
		timeoutMs int
		want      time.Duration
	}{{0, time.Second}, {10_000, time.Second}, {400, 0}} {
		l := &fakeLink{}
		c := &fakeCall{tab: &fakeTab{}, link: l}
		m := New[*fakeTab](&fakeService{dialogs: map[string]bool{protocol.MethodDialog: true}}, discard)
		_, _ = m.Dialog(context.Background(), c, protocol.DialogParams{Target: protocol.Target{Tab: 7}, TimeoutMs: tt.timeoutMs})
		if len(l.probed) != 1 || l.probed[0] != tt.want {
			t.Errorf("timeoutMs %d: got probes %v, want one of %v", tt.timeoutMs, l.probed, tt.want)
		}
	}
}

// The dialog that held a tab's close, accepted: the tab may close before
// Chrome's reply comes (the call then ends as its tab closed). The dialog
// was answered: a result saying the tab closed, not tab_not_found. With
// no dialog known to be open, the same failure is the tab's.
func TestDialogAnsweredAsTheTabCloses(t *testing.T) {
	leave := &protocol.Dialog{Type: "beforeunload"}
	closed := protocol.Errorf(protocol.CodeTabNotFound, "dialog: tab 7 was closed")
	m := New[*fakeTab](&fakeService{dialogs: map[string]bool{protocol.MethodDialog: true}}, discard)
	c := &fakeCall{tab: &fakeTab{dialog: leave, dialogErr: closed}, link: &fakeLink{}}
	res, err := m.Dialog(context.Background(), c, protocol.DialogParams{Target: protocol.Target{Tab: 7}, Accept: true})
	got, ok := res.(protocol.DialogResult)
	if err != nil || !ok || !got.TabClosed || !got.Accepted || got.Dialog != leave {
		t.Errorf("got %+v, %v, want the beforeunload accepted and the tab closed", res, err)
	}
	c = &fakeCall{tab: &fakeTab{dialogErr: closed}, link: &fakeLink{}}
	if _, err := m.Dialog(context.Background(), c, protocol.DialogParams{Target: protocol.Target{Tab: 7}, Accept: true}); codeOf(err) != protocol.CodeTabNotFound {
		t.Errorf("no dialog known: got %v, want tab_not_found", err)
	}
}

// TestAct is an element action's decisions around its engine call: the
// params' check, the confirmation (and the focused element a key without
// a target goes to, when it asks), the tab's action lock, the trace's box
// and where the action led.
func TestAct(t *testing.T) {
	box := &actions.Box{X: 1, Y: 2, Width: 3, Height: 4}
	tests := []struct {
		name    string
		op      string
		p       ActParams
		tab     fakeTab
		hidden  string
		res     actions.Result
		want    protocol.Code
		wantRun bool
		wantOn  string // the element the engine call got
		hooked  []string
		wantURL string // the result's settled URL
		fails   error  // the engine call's error
	}{
		{name: "a click the policy may ask about", op: protocol.MethodClick, p: protocol.ClickParams{Element: "#buy"}, tab: fakeTab{hook: true},
			wantRun: true, wantOn: "#buy", hooked: []string{`["click",false]`}},
		{name: "a press of Enter without a target, asked", op: protocol.MethodPress, p: protocol.PressParams{Key: "Enter"}, tab: fakeTab{hook: true},
			wantRun: true, wantOn: "css=:focus >> last" /* confirmmethods.Target: the focused element */, hooked: []string{`["press Enter in",true]`}},
		{name: "a press of Enter without a target, not asked", op: protocol.MethodPress, p: protocol.PressParams{Key: "Enter"},
			wantRun: true, wantOn: "", hooked: []string{`["press Enter in",true]`}},
		{name: "a hover is never asked", op: protocol.MethodHover, p: protocol.ElementParams{Element: "#menu"}, tab: fakeTab{hook: true},
			wantRun: true, wantOn: "#menu"},
		{name: "params that do not check", op: protocol.MethodClick, p: protocol.ClickParams{}, want: protocol.CodeInvalidParams},
		{name: "it led to a page the caller may read", op: protocol.MethodClick, p: protocol.ClickParams{Element: "a"},
			res: actions.Result{Box: box, Settled: actions.Settled{URL: "https://example.com/next"}}, wantRun: true, wantOn: "a", hooked: []string{`["click",false]`}, wantURL: "https://example.com/next"},
		{name: "it led to a page the caller may not read", op: protocol.MethodClick, p: protocol.ClickParams{Element: "a"}, hidden: "bank",
			res: actions.Result{Box: box, Settled: actions.Settled{URL: "https://bank.example/"}}, wantRun: true, wantOn: "a", hooked: []string{`["click",false]`}},
		{name: "the tabs it opened are in its result", op: protocol.MethodClick, p: protocol.ClickParams{Element: "a"},
			tab: fakeTab{opened: []protocol.Tab{{ID: 8, OpenerTabID: 7, URL: "https://example.com/new"}}}, wantRun: true, wantOn: "a", hooked: []string{`["click",false]`}},
		{name: "a failed action ends its watch too", op: protocol.MethodClick, p: protocol.ClickParams{Element: "a"},
			fails: protocol.Errorf(protocol.CodeNotFound, "no a"), want: protocol.CodeNotFound, wantRun: true, wantOn: "a", hooked: []string{`["click",false]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &fakeCall{tab: &tt.tab, link: &fakeLink{}, hidden: tt.hidden}
			m := New[*fakeTab](&fakeService{}, discard)
			var on string
			var confirmed bool
			ran := false
			run := func(_ context.Context, _ actwire.Runner, p ActParams, o actions.ActOptions) (*actions.Result, error) {
				ran = true
				confirmed = o.Confirm != nil
				switch p := p.(type) {
				case protocol.ClickParams:
					on = p.Element
				case protocol.PressParams:
					on = p.Element
				case protocol.ElementParams:
					on = p.Element
				}
				if tt.fails != nil {
					return nil, tt.fails
				}
				res := tt.res
				return &res, nil
			}
			got, err := Act(m, tt.op, run)(context.Background(), c, tt.p)
			wantCode(t, err, tt.want)
			if ran != tt.wantRun {
				t.Fatalf("got the engine called %v, want %v", ran, tt.wantRun)
			}
			if !ran {
				return
			}
			if tt.tab.watches != 1 || tt.tab.ended != 1 {
				t.Errorf("got %d watches of the tabs it opens and %d ended, want 1 and 1", tt.tab.watches, tt.tab.ended)
			}
			if tt.fails != nil {
				return
			}
			if on != tt.wantOn {
				t.Errorf("got the action on %q, want on %q", on, tt.wantOn)
			}
			if confirmed != tt.tab.hook && len(tt.hooked) > 0 {
				t.Errorf("got a Confirm %v, want %v", confirmed, tt.tab.hook)
			}
			if diff := cmp.Diff(tt.hooked, tt.tab.hooked); diff != "" {
				t.Errorf("confirmation hooks (-want +got):\n%s", diff)
			}
			if tt.tab.locks != 1 || tt.tab.unlocks != 1 {
				t.Errorf("got %d locks and %d unlocks, want 1 and 1", tt.tab.locks, tt.tab.unlocks)
			}
			if want := boolInt(tt.res.Box != nil); c.boxes != want {
				t.Errorf("got %d boxes traced, want %d", c.boxes, want)
			}
			ar := got.(protocol.ActionResult)
			if ar.Action != tt.op || ar.Tab != 7 || ar.Settled.URL != tt.wantURL {
				t.Errorf("got %s on tab %d settled on %q, want %s on tab 7 settled on %q", ar.Action, ar.Tab, ar.Settled.URL, tt.op, tt.wantURL)
			}
			if diff := cmp.Diff(tt.tab.opened, ar.Opened); diff != "" {
				t.Errorf("opened tabs (-want +got):\n%s", diff)
			}
		})
	}
}

// wantCode stops t unless err has the wire code want (0: no error).
func wantCode(t *testing.T, err error, want protocol.Code) {
	t.Helper()
	if got := codeOf(err); got != want {
		t.Fatalf("got error %v, want %s", err, want.Name())
	}
}

// wantOpened checks whether call c opened its tab.
func wantOpened(t *testing.T, c *fakeCall, want bool) {
	t.Helper()
	if opened := len(c.timeouts) > 0; opened != want {
		t.Errorf("got the tab opened %v, want %v", opened, want)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestGoto is goto's decisions before its navigation: the URL and the
// caller's destinations, a named agent's first tab, and the snapshot
// answered with the page.
func TestGoto(t *testing.T) {
	nav := protocol.NavResult{Tab: 9, URL: "https://example.com/"}
	snap := protocol.SnapshotResult{Tab: 9, URL: "https://example.com/", Text: "- heading"}
	tests := []struct {
		name     string
		p        protocol.GotoParams
		call     fakeCall
		want     protocol.Code
		wantRes  protocol.NavResult
		wantOpen []protocol.TabsOpenParams
		wantSnap []protocol.SnapshotParams
		wantTab  bool // the tab was opened for a navigation
	}{
		{name: "no URL", p: protocol.GotoParams{}, want: protocol.CodeInvalidParams},
		{name: "a URL egohost does not load", p: protocol.GotoParams{URL: "javascript:alert(1)"}, want: protocol.CodeInvalidParams},
		{name: "a destination the caller may not load", p: protocol.GotoParams{URL: "https://bank.example/"}, call: fakeCall{denied: "bank"}, want: protocol.CodeForbiddenOriginScope},
		{name: "a first tab with an unknown load state", p: protocol.GotoParams{URL: "https://example.com/", Until: "soon"}, call: fakeCall{firstTab: true}, want: protocol.CodeInvalidParams},
		{name: "a named agent's first tab", p: protocol.GotoParams{Target: protocol.Target{Browser: "B1"}, URL: "example.com", Until: "commit", TimeoutMs: 900},
			call:     fakeCall{firstTab: true, opened: protocol.TabResult{Tab: protocol.Tab{ID: 9}, Nav: &nav}},
			wantRes:  nav,
			wantOpen: []protocol.TabsOpenParams{{Browser: "B1", URL: "https://example.com", Until: "commit", TimeoutMs: 900}}},
		{name: "a first tab that answers no navigation", p: protocol.GotoParams{URL: "https://example.com/"},
			call:     fakeCall{firstTab: true, opened: protocol.TabResult{Tab: protocol.Tab{ID: 9}}},
			wantRes:  protocol.NavResult{Tab: 9, URL: "https://example.com/"},
			wantOpen: []protocol.TabsOpenParams{{URL: "https://example.com/"}}},
		{name: "a first tab with its snapshot", p: protocol.GotoParams{Target: protocol.Target{Browser: "B1"}, URL: "https://example.com/", Snapshot: &protocol.PageSnapshot{Interactive: true, MaxChars: 100}},
			call:     fakeCall{firstTab: true, opened: protocol.TabResult{Tab: protocol.Tab{ID: 9}, Nav: &nav}, snap: snap},
			wantRes:  protocol.NavResult{Tab: 9, URL: "https://example.com/", Snapshot: &snap},
			wantOpen: []protocol.TabsOpenParams{{Browser: "B1", URL: "https://example.com/"}},
			wantSnap: []protocol.SnapshotParams{{Target: protocol.Target{Browser: "B1", Tab: 9}, Interactive: true, MaxChars: 100}}},
		{name: "a snapshot that fails", p: protocol.GotoParams{URL: "https://example.com/", Snapshot: &protocol.PageSnapshot{}},
			call:     fakeCall{firstTab: true, opened: protocol.TabResult{Tab: protocol.Tab{ID: 9}, Nav: &nav}, snapErr: protocol.Errorf(protocol.CodeTimeout, "snapshot: slow")},
			wantRes:  protocol.NavResult{Tab: 9, URL: "https://example.com/", SnapshotError: protocol.Errorf(protocol.CodeTimeout, "snapshot: slow")},
			wantOpen: []protocol.TabsOpenParams{{URL: "https://example.com/"}},
			wantSnap: []protocol.SnapshotParams{{Target: protocol.Target{Tab: 9}}}},
		{name: "no snapshot of a page a dialog blocks", p: protocol.GotoParams{URL: "https://example.com/", Snapshot: &protocol.PageSnapshot{}},
			call:     fakeCall{firstTab: true, opened: protocol.TabResult{Tab: protocol.Tab{ID: 9}, Nav: &protocol.NavResult{Tab: 9, Dialog: &protocol.Dialog{Type: "alert"}}}},
			wantRes:  protocol.NavResult{Tab: 9, Dialog: &protocol.Dialog{Type: "alert"}},
			wantOpen: []protocol.TabsOpenParams{{URL: "https://example.com/"}}},
		{name: "a navigation the policy refuses", p: protocol.GotoParams{Target: protocol.Target{Tab: 7}, URL: "https://example.org/"},
			call: fakeCall{kinds: []confirm.Kind{confirm.NavigateNewOrigin}, tab: &fakeTab{navErr: protocol.Errorf(protocol.CodeDeniedByPerson, "denied")}},
			want: protocol.CodeDeniedByPerson, wantTab: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &tt.call
			if c.tab == nil {
				c.tab = &fakeTab{}
			}
			got, err := New[*fakeTab](&fakeService{}, discard).Goto(context.Background(), c, tt.p)
			wantCode(t, err, tt.want)
			if err == nil {
				if diff := cmp.Diff(tt.wantRes, got); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tt.wantOpen, c.opens); diff != "" {
				t.Errorf("tabs opened (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSnap, c.snapshots); diff != "" {
				t.Errorf("snapshots (-want +got):\n%s", diff)
			}
			wantOpened(t, c, tt.wantTab)
		})
	}
}

// TestHistory is what back, forward and reload ask the person before
// they navigate: back and forward a new origin's entry, reload nothing.
func TestHistory(t *testing.T) {
	refused := protocol.Errorf(protocol.CodeDeniedByPerson, "the person said no")
	tests := []struct {
		op    string
		kinds []confirm.Kind
		want  []string
		code  protocol.Code // the engine's fake page answers nothing: a navigation that starts fails
	}{
		{op: protocol.MethodBack, kinds: []confirm.Kind{confirm.NavigateNewOrigin}, want: []string{`["go back to",-1,""]`}, code: protocol.CodeDeniedByPerson},
		{op: protocol.MethodForward, kinds: []confirm.Kind{confirm.NavigateNewOrigin}, want: []string{`["go forward to",1,""]`}, code: protocol.CodeDeniedByPerson},
		{op: protocol.MethodReload, kinds: []confirm.Kind{confirm.NavigateNewOrigin}},
		{op: protocol.MethodBack},
	}
	for _, tt := range tests {
		t.Run(tt.op+" "+fmtArgs(tt.kinds), func(t *testing.T) {
			tab := &fakeTab{navErr: refused}
			c := &fakeCall{tab: tab, kinds: tt.kinds}
			_, err := New[*fakeTab](&fakeService{}, discard).History(tt.op)(context.Background(), c, protocol.NavParams{Target: protocol.Target{Tab: 7}})
			if diff := cmp.Diff(tt.want, tab.asked); diff != "" {
				t.Errorf("asked (-want +got):\n%s", diff)
			}
			if tt.code != 0 && codeOf(err) != tt.code {
				t.Errorf("got error %v, want %s", err, tt.code.Name())
			}
			if tt.code == 0 && errors.Is(err, refused) {
				t.Errorf("got the refusal %v, want the person not asked", err)
			}
		})
	}
}

// TestScreenshot is what a screenshot refuses before it takes a picture:
// a file it may not write, a frame the caller may not reach.
func TestScreenshot(t *testing.T) {
	tests := []struct {
		name     string
		p        protocol.ScreenshotParams
		call     fakeCall
		tab      fakeTab
		want     protocol.Code
		wantIn   string
		wantData map[string]any
		wantOuts []string
		wantTab  bool
	}{
		{name: "a file it may not write", p: protocol.ScreenshotParams{Path: "/etc/x.png"}, call: fakeCall{outErr: protocol.Errorf(protocol.CodeScopeDenied, "screenshot: outside the output folder")},
			want: protocol.CodeScopeDenied, wantOuts: []string{"/etc/x.png"}},
		{name: "a frame the caller may not reach", tab: fakeTab{withheld: []string{"https://bank.example"}}, want: protocol.CodeForbiddenOriginScope,
			wantIn:   "screenshot: tab 7 shows a frame of https://bank.example, which this agent may not reach",
			wantData: map[string]any{"name": "forbidden_origin_scope", "tab": 7, "origin": "https://bank.example", "reason": "frame", "frame": true}, wantTab: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &tt.call
			c.tab = &tt.tab
			_, err := New[*fakeTab](&fakeService{}, discard).Screenshot(context.Background(), c, tt.p)
			wantCode(t, err, tt.want)
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("got error %q, want it to contain %q", err, tt.wantIn)
			}
			if tt.wantData != nil {
				if diff := cmp.Diff(tt.wantData, protocol.AsError(err).Data); diff != "" {
					t.Errorf("error data (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tt.wantOuts, c.outputs); diff != "" {
				t.Errorf("files made (-want +got):\n%s", diff)
			}
			wantOpened(t, c, tt.wantTab)
		})
	}
}

// Params that do not check are refused before any tab is opened.
func TestParamsChecked(t *testing.T) {
	m := New[*fakeTab](&fakeService{}, discard)
	c := &fakeCall{tab: &fakeTab{}}
	for name, call := range map[string]func() error{
		"eval":      func() error { _, err := m.Eval(context.Background(), c, protocol.EvalParams{}); return err },
		"form.fill": func() error { _, err := m.FormFill(context.Background(), c, protocol.FormFillParams{}); return err },
	} {
		if err := call(); codeOf(err) != protocol.CodeInvalidParams {
			t.Errorf("%s: got error %v, want invalid_params", name, err)
		}
	}
	if len(c.timeouts) > 0 {
		t.Errorf("got the tab opened %d times, want never", len(c.timeouts))
	}
}
