package actions

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
)

// SettleScripts are observe.js, mutation.js (observe.js's third argument)
// and settle.js, for the tests that drive the settle's watch in a page.
func SettleScripts() (observe, mutation, settle string) { return observeJS, mutationJS, settleJS }

// EnableOn is TabSetup.enable, for the tests of the setup shared by calls.
func (t *TabSetup) EnableOn(ctx context.Context, s cdp.Session, withNetwork, replay bool) error {
	return t.enable(ctx, s, withNetwork, replay)
}

// CheckScript is check.js with describe in its scope, for the tests that
// run the checks in a page whose frames they control.
func CheckScript() string { return checkJS }
