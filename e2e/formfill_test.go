package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/protocol"
)

// formFillPage is a form with a field of every kind form.fill sets, and
// one it cannot (disabled).
const formFillPage = `<!doctype html><html><head><meta charset=utf-8><title>Form</title></head><body>
<form action="/done">
<label>Name <input name=name></label>
<label>Email <input name=email type=email></label>
<label>Country <select name=country><option value="">-</option><option value=fr>France</option><option value=de>Germany</option></select></label>
<label><input type=checkbox name=terms> I accept the terms</label>
<label><input type=checkbox name=news checked> Send me news</label>
<label>Locked <input name=locked disabled></label>
<button>Send</button>
</form></body></html>`

// form.fill sets every field of a form in one call, each as its own
// method would (fill, select, check, uncheck), for a paired agent with the
// default space scope; only the last field settles.
func TestFormFillSetsEveryFieldInOneCall(t *testing.T) {
	c := useSharedChain(t)
	bot, tab, ctx, _ := formFillSpace(t, c, "formfill-bot")
	var snap protocol.SnapshotResult
	if err := bot.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, Interactive: true}, &snap); err != nil {
		t.Fatal(err)
	}
	ref := func(line string) string { return refOf(t, snap.Text, line) }
	var res protocol.FormFillResult
	err := bot.Call(ctx, protocol.MethodFormFill, protocol.FormFillParams{Target: tab, Fields: []protocol.FormField{
		{Element: ref(`textbox "Name"`), Action: "fill", Text: "Ada Lovelace"},
		{Element: "label=Email", Action: "fill", Text: "ada@example.com"},
		{Element: ref(`combobox "Country"`), Action: "select", Values: []string{"Germany"}},
		{Element: ref(`checkbox "Send me news"`), Action: "uncheck"},
		{Element: ref(`checkbox "I accept the terms"`), Action: "check"},
	}}, &res)
	if err != nil {
		t.Fatalf("form.fill: %v", err)
	}
	if len(res.Fields) != 5 || res.Tab != tab.Tab {
		t.Fatalf("got %d fields on tab %d, want 5 on tab %d: %+v", len(res.Fields), res.Tab, tab.Tab, res)
	}
	for i, f := range res.Fields[:4] {
		if f.Settled.Skipped != "off" {
			t.Errorf("field %d (%s) settled (%+v), want only the last to", i+1, f.Action, f.Settled)
		}
	}
	last := res.Fields[4]
	if last.Settled.Skipped != "" || last.Checked == nil || !*last.Checked {
		t.Errorf("last field: settled %+v, checked %v; want a settle and checked", last.Settled, last.Checked)
	}
	if v := res.Fields[0].Value; v == nil || *v != "Ada Lovelace" {
		t.Errorf("field 1's value: got %v, want Ada Lovelace", v)
	}
	got := formEval(t, ctx, bot, tab, `[...new FormData(document.forms[0])].map(([k, v]) => k + '=' + v).join('&')`)
	if want := "name=Ada Lovelace&email=ada@example.com&country=de&terms=on"; got != want {
		t.Errorf("the form holds %q, want %q", got, want)
	}

	// A field that cannot be set ends the call there: its own code, which
	// field it was, and what was set before it.
	err = bot.Call(ctx, protocol.MethodFormFill, protocol.FormFillParams{Target: tab, ActionOptions: protocol.ActionOptions{TimeoutMs: 300}, Fields: []protocol.FormField{
		{Element: "label=Name", Action: "fill", Text: "Grace Hopper"},
		{Element: "label=Locked", Action: "fill", Text: "x"},
		{Element: "label=Email", Action: "fill", Text: "never@example.com"},
	}}, nil)
	pe := wantCode(t, err, protocol.CodeNotActionable)
	if !strings.Contains(pe.Message, "form.fill: field 2 (fill label=Locked)") || !strings.Contains(pe.Message, "field 1 is set") ||
		pe.Data["field"] != float64(2) || pe.Data["filled"] != float64(1) {
		t.Errorf("got %q %v, want field 2 named, field 1 set", pe.Message, pe.Data)
	}
	if got := formEval(t, ctx, bot, tab, `document.forms[0].name.value + '|' + document.forms[0].email.value`); got != "Grace Hopper|ada@example.com" {
		t.Errorf("after the failure the fields hold %q, want the first set and the third untouched", got)
	}
}

// form.fill as an attacker sends it: no fields, too many, an unknown
// action, text where none goes: refused before anything reaches the page;
// a ref from the person's tab among its fields: not_in_space at that
// field, the fields before it set, none after.
func TestFormFillRefusesBadFieldsAndForeignRefs(t *testing.T) {
	c := useSharedChain(t)
	bot, tab, ctx, url := formFillSpace(t, c, "formfill-attacker")
	many := make([]protocol.FormField, 101)
	for i := range many {
		many[i] = protocol.FormField{Element: "label=Name", Action: "fill", Text: "x"}
	}
	for _, tt := range []struct {
		name   string
		fields []protocol.FormField
	}{
		{"no fields", nil},
		{"101 fields", many},
		{"unknown action", []protocol.FormField{{Element: "label=Name", Action: "click"}}},
		{"empty target", []protocol.FormField{{Element: "", Action: "fill", Text: "x"}}},
		{"check with text", []protocol.FormField{{Element: "label=Name", Action: "fill", Text: "x"}, {Element: "#t", Action: "check", Text: "yes"}}},
		{"select without values", []protocol.FormField{{Element: "label=Country", Action: "select"}}},
	} {
		err := bot.Call(ctx, protocol.MethodFormFill, protocol.FormFillParams{Target: tab, Fields: tt.fields}, nil)
		wantCode(t, err, protocol.CodeInvalidParams)
	}
	if got := formEval(t, ctx, bot, tab, `document.forms[0].name.value`); got != "" {
		t.Errorf("a refused call set the name to %q", got)
	}

	person := c.openTab(t, url)
	var snap protocol.SnapshotResult
	if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: person, Interactive: true}, &snap); err != nil {
		t.Fatal(err)
	}
	email := refOf(t, snap.Text, `textbox "Email"`)
	err := bot.Call(ctx, protocol.MethodFormFill, protocol.FormFillParams{Target: tab, Fields: []protocol.FormField{
		{Element: "label=Name", Action: "fill", Text: "Mallory"},
		{Element: email, Action: "fill", Text: "stolen@example.com"},
		{Element: "label=Country", Action: "select", Values: []string{"fr"}},
	}}, nil)
	pe := wantCode(t, err, protocol.CodeNotInSpace)
	if pe.Data["field"] != float64(2) || pe.Data["filled"] != float64(1) {
		t.Errorf("got %v, want field 2, 1 filled", pe.Data)
	}
	if got := formEval(t, ctx, bot, tab, `[document.forms[0].name.value, document.forms[0].country.value].join('|')`); got != "Mallory|" {
		t.Errorf("the bot's form holds %q, want the name set and the country not", got)
	}
	if got, err := c.eval(ctx, person, `document.forms[0].email.value`); err != nil || string(got) != `""` {
		t.Errorf("the person's email field holds %s (%v), want it untouched", got, err)
	}
}

// formEval is an expression's string value on cl's tab (eval: what an
// agent with the default scope may run).
func formEval(t *testing.T, ctx context.Context, cl *client.Client, tab protocol.Target, expr string) string {
	t.Helper()
	var r protocol.EvalResult
	if err := cl.Call(ctx, protocol.MethodEval, protocol.EvalParams{Target: tab, Expression: expr}, &r); err != nil {
		t.Fatalf("eval %s: %v", expr, err)
	}
	var s string
	raw, _ := json.Marshal(r.Value)
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("eval %s: got %s, want a string", expr, raw)
	}
	return s
}

// formReady waits until the form page has loaded in cl's tab.
// formFillSpace serves formFillPage and opens it in the own space of a
// paired agent called name (botSpace), with a minute for the test, and
// waits until the form has loaded: the agent, its tab, the context and
// the page's URL.
func formFillSpace(t *testing.T, c *chain, name string) (*client.Client, protocol.Target, context.Context, string) {
	t.Helper()
	url := serve(t, map[string]string{"/form": formFillPage}) + "/form"
	bot, tab := botSpace(t, c, name, url)
	ctx := ctxT(t, 60*time.Second)
	formReady(t, ctx, bot, tab)
	return bot, tab, ctx, url
}

func formReady(t *testing.T, ctx context.Context, cl *client.Client, tab protocol.Target) {
	t.Helper()
	for formEval(t, ctx, cl, tab, `String(document.readyState === 'complete' && !!document.querySelector('button'))`) != "true" {
		if ctx.Err() != nil {
			t.Fatal("the form never loaded")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// goto with snapshot answers the loaded page's snapshot with the
// navigation, for a paired agent with the default scope: its refs act as
// a snapshot's do; the full kind is every element.
func TestGotoAnswersTheSnapshot(t *testing.T) {
	c := useSharedChain(t)
	url := serve(t, map[string]string{"/form": formFillPage}) + "/form"
	bot, tab := botSpace(t, c, "goto-snapshot-bot", url)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var nav protocol.NavResult
	if err := bot.Call(ctx, protocol.MethodGoto, protocol.GotoParams{Target: tab, URL: url + "?again", Snapshot: &protocol.PageSnapshot{Interactive: true}}, &nav); err != nil {
		t.Fatal(err)
	}
	if nav.Reached != "load" || nav.Snapshot == nil || nav.SnapshotError != nil {
		t.Fatalf("got %+v, want the load reached and a snapshot", nav)
	}
	if nav.Snapshot.Tab != tab.Tab || nav.Snapshot.URL != url+"?again" || !strings.Contains(nav.Snapshot.Text, `textbox "Name"`) || strings.Contains(nav.Snapshot.Text, "Form") {
		t.Errorf("snapshot of tab %d at %s, want tab %d at %s, interactive:\n%s", nav.Snapshot.Tab, nav.Snapshot.URL, tab.Tab, url+"?again", nav.Snapshot.Text)
	}
	name := refOf(t, nav.Snapshot.Text, `textbox "Name"`)
	if err := bot.Call(ctx, protocol.MethodFill, protocol.FillParams{Target: tab, Element: name, Text: "Ada"}, nil); err != nil {
		t.Fatalf("fill %s from goto's snapshot: %v", name, err)
	}
	if got := formEval(t, ctx, bot, tab, `document.forms[0].name.value`); got != "Ada" {
		t.Errorf("the name holds %q, want Ada", got)
	}
	if err := bot.Call(ctx, protocol.MethodGoto, protocol.GotoParams{Target: tab, URL: url, Snapshot: &protocol.PageSnapshot{}}, &nav); err != nil {
		t.Fatal(err)
	}
	if nav.Snapshot == nil || !strings.Contains(nav.Snapshot.Text, "Send") || !strings.Contains(nav.Snapshot.Text, "Locked") {
		t.Errorf("full snapshot: got %+v", nav.Snapshot)
	}
	err := bot.Call(ctx, protocol.MethodGoto, protocol.GotoParams{Target: tab, URL: url, Snapshot: &protocol.PageSnapshot{MaxChars: -1}}, nil)
	wantCode(t, err, protocol.CodeInvalidParams)
}
