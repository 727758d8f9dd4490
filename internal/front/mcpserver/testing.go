package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/egohost/egohost/protocol"
)

// The testing group, Playwright MCP's testing caps: checks an agent makes
// while it writes or runs a test, and the locators it writes down. A
// check that does not hold is a failure whose line starts verify_failed
// (the page answered, it just is not so); other errors keep their codes.

// verifyTimeoutMs is how long a check waits for what it checks to come
// true: Playwright's expect timeout.
const verifyTimeoutMs = 5000

type verifyElementIn struct {
	Role           string `json:"role" jsonschema:"the element's role, as the snapshot shows it: button \"Save\" → button"`
	AccessibleName string `json:"accessibleName" jsonschema:"its accessible name, as the snapshot shows it: button \"Save\" → Save"`
}

type verifyTextIn struct {
	Text string `json:"text" jsonschema:"text that must be visible on the page (case-insensitive, white space normalised)"`
}

type verifyValueIn struct {
	elementArg
	Type  string `json:"type" enum:"textbox,checkbox,radio,combobox,slider" jsonschema:"the kind of field"`
	Value string `json:"value" jsonschema:"the value it must have; true or false for checkbox and radio"`
}

// verifyFailed is the line of a check that does not hold.
func verifyFailed(format string, args ...any) *mcp.CallToolResult {
	r := text("verify_failed: " + fmt.Sprintf(format, args...))
	r.IsError = true
	return r
}

// notThere reports whether err says the thing waited for never came.
func notThere(err error) bool {
	var pe *protocol.Error
	return errors.As(err, &pe) && (pe.Code == protocol.CodeTimeout || pe.Code == protocol.CodeNotFound)
}

func (t *tools) verifyElement(ctx context.Context, in verifyElementIn) *mcp.CallToolResult {
	if strings.TrimSpace(in.Role) == "" {
		return badArgs(errors.New("role is empty"))
	}
	// Any one visible match will do, as in Playwright.
	loc := fmt.Sprintf("role=%s[name=%s] >> visible=true >> nth=0", strings.TrimSpace(in.Role), jsonText(in.AccessibleName))
	var r protocol.WaitResult
	err := t.call(ctx, protocol.MethodWait, protocol.WaitParams{Target: t.target(), Element: loc, State: "visible", TimeoutMs: verifyTimeoutMs}, &r)
	if notThere(err) {
		return verifyFailed("no visible %s %q on the page (waited %d s)", in.Role, in.AccessibleName, verifyTimeoutMs/1000)
	}
	if err != nil {
		return failure(err)
	}
	return text(fmt.Sprintf("verified: %s %q is visible", in.Role, in.AccessibleName))
}

func (t *tools) verifyText(ctx context.Context, in verifyTextIn) *mcp.CallToolResult {
	if strings.TrimSpace(in.Text) == "" {
		return badArgs(errors.New("text is empty"))
	}
	var r protocol.WaitResult
	err := t.call(ctx, protocol.MethodWait, protocol.WaitParams{Target: t.target(), Text: in.Text, TimeoutMs: verifyTimeoutMs}, &r)
	if notThere(err) {
		return verifyFailed("the text %q is not visible on the page (waited %d s)", in.Text, verifyTimeoutMs/1000)
	}
	if err != nil {
		return failure(err)
	}
	return text(fmt.Sprintf("verified: %q is visible", in.Text))
}

func (t *tools) verifyValue(ctx context.Context, in verifyValueIn) *mcp.CallToolResult {
	target, err := in.target()
	if err != nil {
		return badArgs(err)
	}
	var r protocol.InspectResult
	err = t.call(ctx, protocol.MethodInspect, protocol.InspectParams{Target: t.target(), Element: target, TimeoutMs: verifyTimeoutMs}, &r)
	if notThere(err) {
		return verifyFailed("nothing matches %s (waited %d s)", target, verifyTimeoutMs/1000)
	}
	if err != nil {
		return failure(err)
	}
	switch in.Type {
	case "checkbox", "radio":
		if in.Value != "true" && in.Value != "false" {
			return badArgs(fmt.Errorf("value %q: a %s's is true or false", in.Value, in.Type))
		}
		if r.Checked == nil {
			return verifyFailed("%s is not a checkbox or a radio button", r.Element)
		}
		if got := fmt.Sprint(*r.Checked); got != in.Value {
			return verifyFailed("%s: checked is %s, want %s", r.Element, got, in.Value)
		}
	default:
		if r.Value == nil {
			return verifyFailed("%s has no value (not a field)", r.Element)
		}
		if *r.Value != in.Value {
			return verifyFailed("%s: the value is %q, want %q", r.Element, *r.Value, in.Value)
		}
	}
	return text(fmt.Sprintf("verified: %s is %s", r.Element, jsonText(in.Value)))
}

func (t *tools) generateLocator(ctx context.Context, in elementArg) *mcp.CallToolResult {
	target, err := in.target()
	if err != nil {
		return badArgs(err)
	}
	var r protocol.LocatorsResult
	if err := t.call(ctx, protocol.MethodLocators, protocol.LocatorsParams{Target: t.target(), Element: target}, &r); err != nil {
		return failure(err)
	}
	var b strings.Builder
	b.WriteString(r.Locator)
	if r.Ref != "" {
		b.WriteString("  (ref " + r.Ref + ")")
	}
	var others []string
	for _, c := range r.Candidates {
		if c.Locator == r.Locator {
			continue
		}
		note := "unique"
		if !c.Unique {
			note = fmt.Sprintf("%d matches", c.Count)
		}
		others = append(others, fmt.Sprintf("%s (%s)", c.Locator, note))
	}
	if len(others) > 0 {
		b.WriteString("\nalso: " + strings.Join(others, ", "))
	}
	return text(b.String())
}
