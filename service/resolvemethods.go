package service

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/protocol"
)

func (s *Service) resolveHandlers() map[string]handler {
	return map[string]handler{}
}

// scopeNode resolves a locator to the one node a scoped snapshot starts at.
func (s *Service) scopeNode(ctx context.Context, tc *tabContext, locator string) (cdp.BackendNodeID, target.SessionID, error) {
	return 0, "", protocol.Errorf(protocol.CodeUnsupported, "snapshot scope by locator %q: the resolver is not wired yet; use a @ref", locator)
}
