package protocol

// Guide is what an agent needs to know to drive egohost, in a few
// paragraphs: `egohost guide` prints it (for AGENTS.md, CLAUDE.md) and
// the MCP server sends it as its instructions. Each step names the CLI
// verb and the MCP tool, so one text serves both.
const Guide = `egohost drives the user's own, logged-in browser: real accounts, real data. Act only as the task asks.

Refs. A snapshot (egohost snapshot -i; MCP browser_snapshot) lists the page's elements with refs: @12. Pass a ref as the TARGET of the next call (egohost click @12). Refs are @N: e12 or [ref=e12] are other tools' and are refused. An interactive snapshot (-i) shows the controls and the messages the page announces (alerts, a form's errors); a full one (egohost snapshot; MCP interactive=false) has all its text. In -i, a field with no label says what it is for by [beside="…"] (the text next to it) or [column="…"] (its table column), and a select lists its options. A ref goes stale when the page changes (stale_ref): take a new snapshot. Actions answer with what changed, so a snapshot after every step is rarely needed.

Locators. Instead of a ref, name the element: role=button[name="Save"], text=Sign in, label=Email, placeholder=…, testid=…, id=…, or CSS (#id, css=li >> nth=2). A target must match one element: ambiguous says how many matched (add >> nth=0, or be more precise); not_found means nothing matched within the wait.

Waits. Actions wait until the element is visible, stable, enabled and receives events, then wait for what they set off to settle; there is no need to sleep. To wait for something else: egohost wait --text Saved, wait --url '**/done', wait @12 --state hidden (MCP browser_wait_for). Reading: egohost get text @12, is visible @12, get url (MCP browser_verify_*, browser_evaluate).

Spaces. A paired agent works in its own space, a Chrome tab group with its name: its tabs open there and tabs outside it are refused (not_in_space). open on the space's empty tab loads the URL there. When the user takes the space over, calls fail with user_in_control: wait until it is handed back (egohost space wait; MCP browser_space_wait), then take a new snapshot and go on (the user may have changed the page; what your raw CDP set on the tab is gone). When the task is done, complete the space (egohost space complete; MCP browser_space_complete).

Errors name their code; what to do: stale_ref, take a snapshot; not_actionable, the answer says why (covered, disabled, hidden, off-screen until hovered): scroll, close what covers it, hover over its row, or wait; dialog_open, answer it (egohost dialog accept|dismiss; MCP browser_handle_dialog); forbidden_origin_scope or scope_denied, the user has not granted that: say so and stop, do not work around it; no_browser, ask the user to start the browser (egohost launch). A command-line mistake exits 2, a failure 1; --json makes every answer and error JSON.`
