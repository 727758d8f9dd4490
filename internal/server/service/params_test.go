package service

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// Every method of the table decodes its params the same strict way: an
// unknown field or a params value that is not an object is invalid_params,
// answered before anything else happens (no browser is connected here, so a
// method that let bad params through would answer no_browser instead).
func TestEveryMethodRefusesBadParams(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t)
	methods := make([]string, 0, len(f.s.methods))
	for name := range f.s.methods {
		methods = append(methods, name)
	}
	sort.Strings(methods)
	if len(methods) < 30 {
		t.Fatalf("got %d methods in the table, want every method (30 or more)", len(methods))
	}
	bad := []struct {
		name   string
		params string
	}{
		{"unknown field", `{"bogus":1}`},
		{"unknown field beside known ones", `{"browser":"b1","bogus":1}`},
		{"known field in the wrong case", `{"BROWSER":"b1"}`},
		{"known field of the wrong type", `{"browser":1}`},
		{"object inside an array", `[{"browser":"b1"}]`},
		{"empty array", `[]`},
		{"array", `[1,2]`},
		{"string", `"x"`},
		{"number", `1`},
		{"boolean", `true`},
	}
	for _, m := range methods {
		for _, b := range bad {
			t.Run(m+"/"+b.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				err := a.Call(ctx, m, json.RawMessage(b.params), nil)
				wantCode(t, err, protocol.CodeInvalidParams)
			})
		}
	}
}

// The error says what was wrong, in words an agent can act on.
func TestBadParamsMessages(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t)
	tests := []struct {
		method, params, want string
	}{
		{protocol.MethodTabsList, `{"Browser":"b1"}`, `unknown field "Browser" (did you mean "browser"?)`},
		{protocol.MethodPing, `{"bogus":1}`, `unknown field "bogus" (this method takes no params)`},
		{protocol.MethodTabsClose, `{"tabb":1}`, `unknown field "tabb" (known: browser, tab)`},
		{protocol.MethodBrowsersList, `[]`, `must be a JSON object (params by name), got an array`},
		{protocol.MethodTabsClose, `{"tab":"7"}`, `cannot unmarshal string into Go struct field`},
	}
	for _, tt := range tests {
		err := a.Call(context.Background(), tt.method, json.RawMessage(tt.params), nil)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.CodeInvalidParams || !strings.Contains(pe.Message, tt.want) {
			t.Errorf("%s %s: got %v, want invalid_params saying %q", tt.method, tt.params, err, tt.want)
		}
	}
}

// Methods without params take them absent, null or empty.
func TestNoParamsMethodsAcceptNothing(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t)
	for _, m := range []string{protocol.MethodPing, protocol.MethodBrowsersList} {
		for _, params := range []any{nil, json.RawMessage(`null`), json.RawMessage(`{}`)} {
			if err := a.Call(context.Background(), m, params, nil); err != nil {
				t.Errorf("%s with params %s: got %v, want success", m, params, err)
			}
		}
	}
}
