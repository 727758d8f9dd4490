package service

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// Every method of the table decodes its params the same strict way
// (rpcparams.Strict, whose own tests pin its messages): an unknown field
// or a params value that is not an object is invalid_params, answered
// before anything else happens (no browser is connected here, so a method
// that let bad params through would answer no_browser instead).
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
