package service

import (
	"context"

	"github.com/egohost/egohost/internal/link/browserlink"
)

// again runs a page-level call (raw CDP, the page engine's actions,
// snapshots, resolution), and once more when it failed and nothing it sent
// reached the page (browserlink.Again): the second run attaches the tab
// again, or waits for the browser to be back (pickLink).
func (s *Service) again(ctx context.Context, op string, run func(context.Context) (any, error)) (any, error) {
	return browserlink.Again(ctx, s.log, op, run)
}
