package popuptools

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/resolver"
)

func TestHighlight(t *testing.T) {
	save := resolver.Match{BackendNodeID: 4, Role: "button", Name: "Save", Box: &resolver.Box{X: 60, Y: 20, Width: 100, Height: 20}}
	link := resolver.Match{BackendNodeID: 5, Role: "link", Name: "More", Box: &resolver.Box{X: 10, Y: 50, Width: 20, Height: 10}}
	hidden := resolver.Match{BackendNodeID: 6, Role: "none"}
	matches := map[string][]resolver.Match{"@4": {save}, "role=link": {link, hidden}, "css=.none": {}}
	for _, tt := range []struct {
		name    string
		targets []string
		want    []string // the matches' targets and roles
		drawn   []string // the overlay's ops
		code    protocol.Code
	}{
		{name: "no targets clears the boxes", drawn: []string{"show []"}},
		{name: "a ref", targets: []string{"@4"}, want: []string{"@4 button"},
			drawn: []string{`show [{"x":10,"y":10,"width":100,"height":20,"label":"@4 button \"Save\""}]`}},
		{name: "a locator's matches are numbered, one without a box listed but not drawn", targets: []string{"role=link"}, want: []string{"role=link link", "role=link none"},
			drawn: []string{`show [{"x":0,"y":45,"width":20,"height":10,"label":"1/2"}]`}},
		{name: "several targets in one drawing", targets: []string{"@4", "css=.none", "role=link"}, want: []string{"@4 button", "role=link link", "role=link none"},
			drawn: []string{`show [{"x":10,"y":10,"width":100,"height":20,"label":"@4 button \"Save\""},{"x":0,"y":45,"width":20,"height":10,"label":"1/2"}]`}},
		{name: "an empty target draws nothing", targets: []string{"@4", " "}, code: protocol.CodeInvalidParams},
		{name: "a target that does not parse draws nothing", targets: []string{"role=["}, code: protocol.CodeSyntax},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newMethods()
			tab := newTab(matches)
			pp := &fakePopup{tab: tab}
			got, err := m.Highlight(context.Background(), pp, protocol.PopupHighlightParams{Tab: 3, Targets: tt.targets})
			if codeOf(err) != tt.code {
				t.Fatalf("error: got %v, want code %v", err, tt.code)
			}
			if diff := cmp.Diff(tt.drawn, drawn(tab.page)); diff != "" {
				t.Errorf("drawn (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			res := got.(protocol.PopupHighlightResult)
			var seen []string
			for _, h := range res.Matches {
				seen = append(seen, h.Target+" "+h.Role)
			}
			if diff := cmp.Diff(tt.want, seen); diff != "" {
				t.Errorf("matches (-want +got):\n%s", diff)
			}
			if res.Tab != 7 || res.Count != len(tt.want) || res.Matches == nil {
				t.Errorf("got tab %d, count %d, matches %v; want tab 7, count %d, a list", res.Tab, res.Count, res.Matches, len(tt.want))
			}
			if want := []string{"popup.highlight/3"}; !slices.Equal(pp.asked, want) {
				t.Errorf("tabs reached: got %v, want %v", pp.asked, want)
			}
		})
	}
}

// The offset of an empty target is the wire's (PROTOCOL.md: a locator
// that does not parse has data.offset).
func TestHighlightEmptyTargetHasOffset(t *testing.T) {
	m, _ := newMethods()
	_, err := m.Highlight(context.Background(), &fakePopup{tab: newTab(nil)}, protocol.PopupHighlightParams{Targets: []string{""}})
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Data["offset"] != 0 || pe.Message != "popup.highlight: an empty target" {
		t.Fatalf("got %v, want invalid_params with offset 0", err)
	}
}

func TestClear(t *testing.T) {
	reachErr := protocol.Errorf(protocol.CodeTabNotFound, "no tab 5")
	for _, tt := range []struct {
		name     string
		tab      int
		attached bool
		err      error // reaching the tab
		asked    []string
		drawn    []string
		code     protocol.Code
	}{
		// Closing a popup that drew nothing must not attach the debugger
		// to the tab just to clear it.
		{name: "an unattached tab is not reached", tab: 5},
		{name: "an attached tab is cleared", tab: 5, attached: true, asked: []string{"popup.clear/5"}, drawn: []string{"clear null"}},
		{name: "the active tab is reached to be cleared", asked: []string{"popup.clear/0"}, drawn: []string{"clear null"}},
		{name: "a tab not reached is the error", tab: 5, attached: true, err: reachErr, asked: []string{"popup.clear/5"}, code: protocol.CodeTabNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newMethods()
			tab := newTab(nil)
			pp := &fakePopup{tab: tab, err: tt.err, attached: map[int]bool{tt.tab: tt.attached}}
			got, err := m.Clear(context.Background(), pp, protocol.PopupTabParams{Tab: tt.tab})
			if codeOf(err) != tt.code {
				t.Fatalf("error: got %v, want code %v", err, tt.code)
			}
			if !slices.Equal(pp.asked, tt.asked) {
				t.Errorf("tabs reached: got %v, want %v", pp.asked, tt.asked)
			}
			if diff := cmp.Diff(tt.drawn, drawn(tab.page)); diff != "" {
				t.Errorf("drawn (-want +got):\n%s", diff)
			}
			if err == nil && got != (struct {
				Cleared bool `json:"cleared"`
			}{true}) {
				t.Errorf("got %+v, want cleared", got)
			}
		})
	}
}

// A pick that fails keeps nothing and tells nobody; the popup's last
// pick is still the one before.
func TestPickThatFailsKeepsNothing(t *testing.T) {
	before := &protocol.PopupPickResult{Tab: 7, Locator: "#a"}
	for _, tt := range []struct {
		name  string
		err   error // reaching the tab
		code  protocol.Code
		asked []string
	}{
		{name: "the tab is not reached", err: protocol.Errorf(protocol.CodeAutomationStopped, "stopped"), code: protocol.CodeAutomationStopped},
		{name: "the page refuses inspect mode", code: protocol.CodeInternal},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newMethods()
			tab := newTab(nil)
			tab.page.Fail("DOM.enable", "DOM agent is not enabled")
			pp := &fakePopup{tab: tab, err: tt.err}
			pp.latest.Set(before)
			_, err := m.Pick(context.Background(), pp, protocol.PopupTabParams{})
			if codeOf(err) != tt.code {
				t.Fatalf("error: got %v, want code %v", err, tt.code)
			}
			if got := pp.latest.Get(); got != before || len(pp.notices) != 0 {
				t.Errorf("got last pick %+v and notices %v, want the one before and none", got, pp.notices)
			}
		})
	}
}

func TestLastPick(t *testing.T) {
	m, _ := newMethods()
	pp := &fakePopup{}
	got, err := m.LastPick(context.Background(), pp, rpcparams.None{})
	if err != nil || got.(protocol.PopupLastPickResult).Pick != nil {
		t.Fatalf("before any pick: got %+v, %v; want no pick", got, err)
	}
	pick := &protocol.PopupPickResult{Tab: 7, Locator: `role=button[name="Save"]`, Ref: "@4"}
	pp.latest.Set(pick)
	got, err = m.LastPick(context.Background(), pp, rpcparams.None{})
	if err != nil || got.(protocol.PopupLastPickResult).Pick != pick {
		t.Fatalf("after a pick: got %+v, %v; want it", got, err)
	}
}

func TestAutomation(t *testing.T) {
	yes, no := true, false
	for _, tt := range []struct {
		name    string
		was     bool
		stopped *bool
		want    bool
		audits  []audit.Entry
	}{
		{name: "reading changes nothing and audits nothing", was: true, want: true},
		{name: "stop all", stopped: &yes, want: true,
			audits: []audit.Entry{{Agent: "person", Method: protocol.MethodPopupAutomation, Target: "stop all", Result: "ok", Browser: "b1"}}},
		{name: "resume all", was: true, stopped: &no, want: false,
			audits: []audit.Entry{{Agent: "person", Method: protocol.MethodPopupAutomation, Target: "resume all", Result: "ok", Browser: "b1"}}},
		{name: "stopping again is audited again", was: true, stopped: &yes, want: true,
			audits: []audit.Entry{{Agent: "person", Method: protocol.MethodPopupAutomation, Target: "stop all", Result: "ok", Browser: "b1"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, s := newMethods()
			pp := &fakePopup{stopped: tt.was}
			got, err := m.Automation(context.Background(), pp, protocol.PopupAutomationParams{Stopped: tt.stopped})
			if err != nil {
				t.Fatal(err)
			}
			if got != (protocol.PopupAutomationResult{Stopped: tt.want}) || pp.stopped != tt.want {
				t.Errorf("got %+v, switch %v; want stopped %v", got, pp.stopped, tt.want)
			}
			if diff := cmp.Diff(tt.audits, s.audits); diff != "" {
				t.Errorf("audit lines (-want +got):\n%s", diff)
			}
		})
	}
}
