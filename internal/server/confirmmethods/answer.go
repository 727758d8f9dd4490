package confirmmethods

import (
	"context"
	"slices"

	"github.com/egohost/egohost/internal/server/confirm/asks"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/protocol"
)

// List answers confirm.list (the owner's CLI): the asks waiting on every
// browser.
func (m *Methods) List(ctx context.Context, c Call, p protocol.ConfirmListParams) (any, error) {
	return protocol.ConfirmListResult{Pending: m.s.Asks().List("", p.Pictures)}, nil
}

// Answer answers confirm.answer (the owner's CLI).
func (m *Methods) Answer(ctx context.Context, c Call, p protocol.ConfirmAnswerParams) (any, error) {
	return m.answer(p, c.AuditName())
}

// PopupList answers popup.confirm.list: the asks on this browser, with
// their pictures.
func (m *Methods) PopupList(ctx context.Context, b Popup, _ rpcparams.None) (any, error) {
	return protocol.ConfirmListResult{Pending: m.s.Asks().List(b.Browser(), true)}, nil
}

// PopupAnswer answers popup.confirm.answer: the person at this browser
// answers an ask on it.
func (m *Methods) PopupAnswer(ctx context.Context, b Popup, p protocol.ConfirmAnswerParams) (any, error) {
	if !slices.ContainsFunc(m.s.Asks().List(b.Browser(), false), func(q protocol.Confirm) bool { return q.ID == p.ID }) {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "popup.confirm.answer: no act waits as %q on this browser", p.ID)
	}
	return m.answer(p, "person")
}

// answer hands who's answer to the ask p.ID.
func (m *Methods) answer(p protocol.ConfirmAnswerParams, who string) (any, error) {
	if p.ID == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "confirm.answer: id is empty (see `egohost confirm list`)")
	}
	ans := asks.Answer{Allow: p.Allow, Always: p.Always, Who: who}
	if _, err := m.s.Asks().Answer(p.ID, ans); err != nil {
		return nil, err
	}
	return protocol.ConfirmAnswerResult{ID: p.ID, Decision: ans.Decision()}, nil
}
