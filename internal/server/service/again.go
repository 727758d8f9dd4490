package service

import (
	"context"

	"github.com/egohost/egohost/internal/link/browserlink"
)

// again runs a page-level call (raw CDP, the page engine's actions,
// snapshots, resolution), and once more when it failed and nothing it sent
// reached the page (browserlink.Attempt): Chrome refused every command
// because the tab's debugger session was gone without a detach event
// (something else ended it), or none was sent because the browser link
// dropped first. The tab's state was dropped with the detach, so the
// second run attaches the tab again, or waits for the browser to be back
// (pickLink): the agent gets its answer, not an error for something that
// never happened. A call that may have done anything in the page is never
// run twice; run must change nothing outside the page before its first
// command (these calls do not).
func (s *Service) again(ctx context.Context, op string, run func(context.Context) (any, error)) (any, error) {
	tctx, att := browserlink.Track(ctx)
	res, err := run(tctx)
	if err == nil || ctx.Err() != nil || !att.Unreached() {
		return res, err
	}
	s.log.Info("nothing the call sent reached the page (its tab's debugger session was gone, or the browser link down): running it again", "op", op, "err", err)
	return run(ctx)
}
