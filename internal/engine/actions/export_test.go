package actions

// SettleScripts are observe.js, mutation.js (observe.js's third argument)
// and settle.js, for the tests that drive the settle's watch in a page.
func SettleScripts() (observe, mutation, settle string) { return observeJS, mutationJS, settleJS }
