package service

import (
	"context"
	"encoding/json"
	"os"
	"strings"

	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/protocol"
)

// The popup channel (PROTOCOL.md §2.6): the extension's own pages (the
// popup) call the service over their browser's native link. A method named
// popup.* is one of popupHandlers; any other name runs the agents' handler
// as the person at that browser (the link's person agent), whose calls
// without a browser go to that same browser.

// popupHandler runs one popup.* method for the link whose extension asked
// (typed and bound make one, as they do the agents' handlers).
type popupHandler = methodHandler[*link]

func (s *Service) popupHandlers() map[string]popupHandler {
	return map[string]popupHandler{
		protocol.MethodPopupStatus:        typed(s.popupStatus),
		protocol.MethodPopupAgents:        bound(ownerPopup, s.owner().PopupAgents),
		protocol.MethodPopupPairingDecide: bound(ownerPopup, s.owner().PopupPairingDecide),
		protocol.MethodPopupDisconnect:    bound(ownerPopup, s.owner().PopupDisconnect),
		protocol.MethodPopupTrace:         bound(ownerPopup, s.owner().PopupTrace),
		protocol.MethodPopupConfirmList:   bound(confirmPopup, s.confirmMethods().PopupList),
		protocol.MethodPopupConfirmAnswer: bound(confirmPopup, s.confirmMethods().PopupAnswer),
		protocol.MethodPopupHighlight:     bound(s.toolsPopup, s.popupTools().Highlight),
		protocol.MethodPopupClear:         bound(s.toolsPopup, s.popupTools().Clear),
		protocol.MethodPopupPick:          bound(s.toolsPopup, s.popupTools().Pick),
		protocol.MethodPopupLastPick:      bound(s.toolsPopup, s.popupTools().LastPick),
		protocol.MethodPopupAutomation:    bound(s.toolsPopup, s.popupTools().Automation),
	}
}

// popupCall answers one call from l's extension.
func (s *Service) popupCall(ctx context.Context, l *link, method string, params json.RawMessage) (any, error) {
	if strings.HasPrefix(method, protocol.PopupPrefix) {
		h, ok := s.popupMethods[method]
		if !ok {
			return nil, protocol.Errorf(protocol.CodeMethodNotFound, "unknown popup method %q", method)
		}
		ctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
		defer cancel()
		return h.run(ctx, l, rpcparams.Parse(params))
	}
	if m, ok := s.methods[method]; ok && m.noPopup != "" {
		return nil, protocol.Errorf(protocol.CodeMethodNotFound, "%s is for agent connections: the popup channel carries no notifications", method)
	}
	return s.call(ctx, l.person, l, method, params)
}

// personCall is a popup.* method's call as the person at l's browser: the
// tabs it reaches are checked (and noted) as the person's; the popup's
// views are not audited.
func (l *link) personCall(method string) *call {
	return &call{conn: l.person, home: l, method: method, need: pairing.NeedRead}
}

func (s *Service) popupStatus(ctx context.Context, l *link, _ rpcparams.None) (any, error) {
	return protocol.PopupStatusResult{
		Browser:   l.ID,
		Version:   Version,
		PID:       os.Getpid(),
		Endpoint:  "ws://" + s.Addr() + protocol.Path,
		TokenFile: s.opts.TokenFile,
		StateDir:  s.opts.StateDir,
		DataDir:   s.opts.DataDir,
	}, nil
}
