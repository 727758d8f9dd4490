package confirmmethods

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/confirm/asks"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
	"github.com/egohost/egohost/protocol"
)

// fakeService is a service whose policy is policy (the default when
// empty) and whose asks wait wait (a minute when 0). answer, when set, is
// the person's answer to every ask, given as soon as the browser is told
// of it.
type fakeService struct {
	policy confirm.Policy
	store  *asks.Store
	wait   time.Duration
	answer *asks.Answer

	audits  []audit.Entry
	badges  []string           // each notice, as "browser badge"
	asked   []protocol.Confirm // each ask the person saw (with its picture)
	noticed error              // what NotifyBrowser fails with
}

// newMethods returns the confirmations of a fakeService whose store
// keeps its "always" answers in a fresh data dir, logging nowhere.
func newMethods(t *testing.T) (*Methods, *fakeService) {
	t.Helper()
	s := &fakeService{store: asks.Load(t.TempDir(), func(msg string, args ...any) { t.Errorf("%s %v", msg, args) })}
	return New(s, slog.New(slog.DiscardHandler)), s
}

func (s *fakeService) Policy() confirm.Policy { return s.policy }
func (s *fakeService) Asks() *asks.Store      { return s.store }
func (s *fakeService) Audit(e audit.Entry)    { s.audits = append(s.audits, e) }

func (s *fakeService) Wait() time.Duration {
	if s.wait == 0 {
		return time.Minute
	}
	return s.wait
}

func (s *fakeService) NotifyBrowser(browser, topic string, params any) error {
	n := params.(protocol.ConfirmNotice)
	if topic != protocol.NoticeConfirm || len(n.Pending) != len(s.store.List(browser, false)) {
		return errors.New("not the browser's asks")
	}
	s.badges = append(s.badges, browser+" "+n.Badge)
	if pending := s.store.List(browser, true); len(pending) > 0 && s.answer != nil {
		s.asked = append(s.asked, pending[0])
		if _, err := s.store.Answer(pending[0].ID, *s.answer); err != nil {
			return err
		}
	}
	return s.noticed
}

// said lists the audit lines as "agent method result: target".
func (s *fakeService) said() []string {
	var out []string
	for _, e := range s.audits {
		out = append(out, e.Agent+" "+e.Method+" "+e.Result+": "+e.Target)
	}
	return out
}

// fakeCall is agent bot's call of method click (kinds: what its policy
// may ask), whose connection keeps its notifications (and hands each
// confirm.waiting to onWait, when set).
type fakeCall struct {
	kinds  []confirm.Kind
	waited []protocol.ConfirmWaiting
	onWait func(protocol.ConfirmWaiting)
}

func (c *fakeCall) Agent() string         { return "bot" }
func (c *fakeCall) Method() string        { return protocol.MethodClick }
func (c *fakeCall) Kinds() []confirm.Kind { return c.kinds }
func (c *fakeCall) AuditName() string     { return "owner" }

func (c *fakeCall) Notify(method string, params any) {
	if method == protocol.NotifyConfirmWaiting {
		c.waited = append(c.waited, params.(protocol.ConfirmWaiting))
		if c.onWait != nil {
			c.onWait(params.(protocol.ConfirmWaiting))
		}
	}
}

// fakeTab is tab 7 of browser B1, whose history is entries, the current
// one at current.
type fakeTab struct{ page *cdpfake.Session }

func newTab(current int, entries ...string) *fakeTab {
	var es []any
	for i, u := range entries {
		es = append(es, map[string]any{"id": i + 1, "url": u, "userTypedURL": "", "title": "", "transitionType": "link"})
	}
	page := cdpfake.New()
	page.Reply("Page.getNavigationHistory", map[string]any{"currentIndex": current, "entries": es})
	return &fakeTab{page: page}
}

func (t *fakeTab) Browser() string   { return "B1" }
func (t *fakeTab) ID() int           { return 7 }
func (t *fakeTab) Page() cdp.Session { return t.page }

// fakeRunner reads the element as facts, then (its second and later
// reads, after the person's answer) as after when that is set.
type fakeRunner struct {
	facts, after *actions.Facts
	reads        int
	noPicture    bool
}

func (r *fakeRunner) Facts(context.Context, actions.Element, bool) (actions.Facts, error) {
	r.reads++
	if r.reads > 1 && r.after != nil {
		return *r.after, nil
	}
	return *r.facts, nil
}

func (r *fakeRunner) Picture(context.Context, actions.Box) ([]byte, error) {
	if r.noPicture {
		return nil, errors.New("it has an empty box")
	}
	return []byte("PNG"), nil
}

// checkErr fails the test at once unless err has the wire code want (0:
// err is nil) and its message has msg.
func checkErr(t *testing.T, err error, want protocol.Code, msg string) {
	t.Helper()
	if got := codeOf(err); got != want || err != nil && !strings.Contains(err.Error(), msg) {
		t.Fatalf("got error %v (code %v), want code %v with %q", err, got, want, msg)
	}
}

// codeOf is err's wire code (0 for nil; protocol.CodeOf).
func codeOf(err error) protocol.Code {
	if err == nil {
		return 0
	}
	return protocol.CodeOf(err)
}
