package protocol

import "encoding/json"

// MethodScriptRun runs a script in the service's sandboxed JavaScript
// engine against a tab: ScriptRunParams → ScriptRunResult. A script that
// fails answers with the failing call's own code (not_found, timeout, …),
// CodeScript when the script itself threw or does not compile, or
// CodeScriptLimit when it hit the memory or call-depth guard; data.output
// holds what it logged before, data.line and data.column where it failed.
const MethodScriptRun = "script.run"

// ScriptRunParams are the params of script.run.
type ScriptRunParams struct {
	// Target is the tab the script's page is (default: the active tab).
	Target
	// Script is JavaScript run as the body of an async function: await
	// works at the top level, and the value of a final expression
	// statement is the result's Value.
	Script string `json:"script"`
	// TimeoutMs bounds the whole script (default timeouts.script, at most
	// timeouts.script_max).
	TimeoutMs int `json:"timeoutMs,omitempty"`
	// Files are the absolute paths the script may hand to
	// locator.setInputFiles (under the rules of upload's Files); scripts
	// reach no other file.
	Files []string `json:"files,omitempty"`
	// Payloads are files given by their bytes that the script may hand
	// to setInputFiles by their name (or a path ending in it).
	Payloads []FilePayload `json:"payloads,omitempty"`
}

// ScriptRunResult answers script.run.
type ScriptRunResult struct {
	// Output is what the script logged with console.*, one line per call.
	Output string `json:"output"`
	// Cut counts the bytes of output left out past limits.script_output
	// (the output then ends with a marker saying so).
	Cut int `json:"cut,omitempty"`
	// Value is the script's last expression as JSON; absent when it is
	// undefined.
	Value json.RawMessage `json:"value,omitempty"`
	// Calls counts the service calls the script made.
	Calls  int     `json:"calls"`
	TookMs float64 `json:"tookMs"`
	// Screenshots are the images page.screenshot() took, in order.
	Screenshots []ScriptScreenshot `json:"screenshots,omitempty"`
}

// ScriptScreenshot is one image a script took: the handle the script got
// names it, the client saves it.
type ScriptScreenshot struct {
	Name   string `json:"name"` // e.g. "screenshot-1.png", or the script's {name}
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Data   []byte `json:"data"` // PNG (base64 in JSON)
}
