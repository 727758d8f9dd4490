package service

import (
	"context"

	"github.com/chromedp/cdproto/cdp"

	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/confirmmethods"
	"github.com/egohost/egohost/internal/server/popuptools"
	"github.com/egohost/egohost/protocol"
)

// The popup's page tools (popup.highlight, pick, lastPick, clear,
// automation) run in internal/server/popuptools: a popup's browser is its
// Popup, a tab context its Tab, and toolsService its Service.

// popupTools is the popup's page tools on s.
func (s *Service) popupTools() *popuptools.Methods {
	return popuptools.New(toolsService{s}, s.log)
}

// toolsPopup is l as the page tools see a popup's browser.
func (s *Service) toolsPopup(l *link) popuptools.Popup { return toolsPopup{s: s, l: l} }

// toolsService is the service as the page tools need it.
type toolsService struct{ s *Service }

func (ts toolsService) Audit(who, method, target string, err error, fill func(*audit.Entry)) {
	ts.s.auditDecision(who, method, target, err, fill)
}

func (ts toolsService) TopURL(ctx context.Context, sess cdp.Session) (string, error) {
	return confirmmethods.TopURL(ctx, sess)
}

// toolsPopup is the browser of a popup's call, whose tabs it reaches as
// the person there (personCall).
type toolsPopup struct {
	s *Service
	l *link
}

func (tp toolsPopup) Browser() string                       { return tp.l.ID }
func (tp toolsPopup) AuditName() string                     { return personName }
func (tp toolsPopup) Attached(tab int) bool                 { return tp.l.Tabs.HasPage(tab) }
func (tp toolsPopup) Latest() *popuptools.Latest            { return &tp.l.latest }
func (tp toolsPopup) Notify(topic string, params any) error { return tp.l.Notify(topic, params) }
func (tp toolsPopup) Stopped() bool                         { return tp.l.Stopped() }
func (tp toolsPopup) SetStopped(on bool)                    { tp.l.SetStopped(on) }

func (tp toolsPopup) Tab(ctx context.Context, op string, tab int) (popuptools.Tab, error) {
	tc, err := tp.s.tabContextWithin(ctx, tp.l.personCall(op), protocol.Target{Browser: tp.l.ID, Tab: tab}, op, 0)
	if err != nil {
		return nil, err
	}
	return toolsTab{tc}, nil
}

// toolsTab is a tab context as the page tools use it.
type toolsTab struct{ tc *tabContext }

func (tt toolsTab) ID() int                         { return tt.tc.tabID }
func (tt toolsTab) Page() cdp.Session               { return tt.tc.page }
func (tt toolsTab) Resolver() popuptools.Resolver   { return tt.tc.res }
func (tt toolsTab) Snapshots() popuptools.Snapshots { return tt.tc.snap }
