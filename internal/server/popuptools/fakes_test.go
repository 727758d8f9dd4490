package popuptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/internal/engine/locator"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
	"github.com/egohost/egohost/resolver"
)

// fakeService keeps the audit lines and answers the tab's URL with url.
type fakeService struct {
	url    string
	audits []audit.Entry
}

func (s *fakeService) Audit(who, method, target string, err error, fill func(*audit.Entry)) {
	e := audit.Entry{Agent: who, Method: method, Target: target, Result: "ok"}
	if err != nil {
		e.Result = err.Error()
	}
	if fill != nil {
		fill(&e)
	}
	s.audits = append(s.audits, e)
}

func (s *fakeService) TopURL(context.Context, cdp.Session) (string, error) {
	if s.url == "" {
		return "", errors.New("no URL")
	}
	return s.url, nil
}

// newMethods returns the tools over a fakeService, logging nowhere.
func newMethods() (*Methods, *fakeService) {
	s := &fakeService{url: "https://example.test/form"}
	return New(s, slog.New(slog.DiscardHandler)), s
}

// fakePopup is browser "b1", whose tab (every ID reaches it) is tab, or
// fails with err; attached are the tabs it has attached.
type fakePopup struct {
	tab      *fakeTab
	err      error
	attached map[int]bool
	stopped  bool
	latest   Latest
	notices  []string // the notices' topics
	asked    []string // Tab's op/tab
}

func (p *fakePopup) Browser() string       { return "b1" }
func (p *fakePopup) AuditName() string     { return "person" }
func (p *fakePopup) Attached(tab int) bool { return p.attached[tab] }
func (p *fakePopup) Latest() *Latest       { return &p.latest }
func (p *fakePopup) Stopped() bool         { return p.stopped }
func (p *fakePopup) SetStopped(on bool)    { p.stopped = on }
func (p *fakePopup) Notify(topic string, _ any) error {
	p.notices = append(p.notices, topic)
	return nil
}

func (p *fakePopup) Tab(_ context.Context, op string, tab int) (Tab, error) {
	p.asked = append(p.asked, fmt.Sprintf("%s/%d", op, tab))
	if p.err != nil {
		return nil, p.err
	}
	return p.tab, nil
}

// fakeTab is tab 7: its page a scripted session that draws (the
// overlay's world and its script answer), its resolver a table.
type fakeTab struct {
	page  *cdpfake.Session
	res   fakeResolver
	snaps *fakeSnapshots
}

func newTab(matches map[string][]resolver.Match) *fakeTab {
	page := cdpfake.New()
	page.Reply("Page.getFrameTree", map[string]any{"frameTree": map[string]any{"frame": map[string]any{"id": "F", "loaderId": "L", "url": "https://example.test/form", "securityOrigin": "https://example.test", "mimeType": "text/html"}}})
	page.Reply("Page.createIsolatedWorld", map[string]any{"executionContextId": 3})
	page.Reply("Runtime.evaluate", map[string]any{"result": map[string]any{"type": "undefined"}})
	return &fakeTab{page: page, res: matches, snaps: &fakeSnapshots{}}
}

func (t *fakeTab) ID() int              { return 7 }
func (t *fakeTab) Page() cdp.Session    { return t.page }
func (t *fakeTab) Resolver() Resolver   { return t.res }
func (t *fakeTab) Snapshots() Snapshots { return t.snaps }

// fakeResolver finds what the table says; a target not in it does not
// parse.
type fakeResolver map[string][]resolver.Match

func (r fakeResolver) All(_ context.Context, target string) ([]resolver.Match, error) {
	ms, ok := r[target]
	if !ok {
		return nil, &locator.SyntaxError{Input: target, Offset: 0, Msg: "not in the fake's table"}
	}
	return ms, nil
}

// fakeSnapshots has a latest snapshot (prev, nil for none) and takes
// next; an entry whose BackendNodeID is 0 has lost its element.
type fakeSnapshots struct {
	prev  *snapshot.Snapshot
	next  *snapshot.Snapshot
	taken int
}

func (s *fakeSnapshots) Previous() *snapshot.Snapshot { return s.prev }

func (s *fakeSnapshots) Snapshot(context.Context, snapshot.Options) (*snapshot.Snapshot, error) {
	s.taken++
	if s.next == nil {
		return nil, errors.New("no snapshot")
	}
	s.prev = s.next
	return s.next, nil
}

func (s *fakeSnapshots) Resolve(_ context.Context, entries []refmap.Entry) ([]refmap.Entry, error) {
	var out []refmap.Entry
	for _, e := range entries {
		if e.BackendNodeID != 0 {
			out = append(out, e)
		}
	}
	return out, nil
}

// snap is a snapshot whose refs are ref → BackendNodeID.
func snap(refs map[string]cdp.BackendNodeID) *snapshot.Snapshot {
	s := &snapshot.Snapshot{}
	for ref, id := range refs {
		s.Entries = append(s.Entries, refmap.Entry{Ref: ref, BackendNodeID: id})
	}
	return s
}

// codeOf is err's wire code (0 for nil; protocol.CodeOf).
func codeOf(err error) protocol.Code {
	if err == nil {
		return 0
	}
	return protocol.CodeOf(err)
}

// drawn lists the overlay's ops the page ran, each with its argument
// ("show [{…}]", "clear null"); "?" for an evaluation that is not the
// overlay's.
func drawn(page *cdpfake.Session) []string {
	var ops []string
	for _, c := range page.Calls() {
		if c.Method != "Runtime.evaluate" {
			continue
		}
		var p runtime.EvaluateParams
		if err := json.Unmarshal(c.Params, &p); err != nil {
			ops = append(ops, "?")
			continue
		}
		// overlay.js is called with the document, its module, the op and
		// its argument.
		_, call, ok := strings.Cut(p.Expression, "(document, globalThis.")
		if !ok {
			ops = append(ops, "?")
			continue
		}
		_, call, _ = strings.Cut(call, ", ")
		call, _, _ = strings.Cut(call, ")")
		op, arg, _ := strings.Cut(call, ", ")
		ops = append(ops, strings.Trim(op, `"`)+" "+arg)
	}
	return ops
}
