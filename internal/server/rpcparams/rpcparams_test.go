package rpcparams

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/protocol"
)

// decoded is what a method given rpcparams.Strict was called with, or the
// error it was refused with.
func decoded[P any](raw string) (P, error) {
	var got P
	run := Strict(func(_ context.Context, _ struct{}, p P) (any, error) {
		got = p
		return nil, nil
	})
	_, err := run(context.Background(), struct{}{}, Parse(json.RawMessage(raw)))
	return got, err
}

// The error says what was wrong, in words an agent can act on.
func TestBadParamsMessages(t *testing.T) {
	tests := []struct {
		name, params, want string
		decode             func(raw string) error
	}{
		{"a field in the wrong case", `{"Browser":"b1"}`, `unknown field "Browser" (did you mean "browser"?)`, decodeAs[protocol.TabsListParams]},
		{"a method that takes none", `{"bogus":1}`, `unknown field "bogus" (this method takes no params)`, decodeAs[None]},
		{"an unknown field", `{"tabb":1}`, `unknown field "tabb" (known: browser, tab)`, decodeAs[protocol.TabParams]},
		{"an array", `[]`, `must be a JSON object (params by name), got an array`, decodeAs[None]},
		{"a string", ` "x"`, `must be a JSON object (params by name), got a string`, decodeAs[None]},
		{"a number", `1`, `must be a JSON object (params by name), got a number`, decodeAs[None]},
		{"a boolean", `true`, `must be a JSON object (params by name), got a boolean`, decodeAs[None]},
		{"the wrong JSON type", `{"tab":"7"}`, `cannot unmarshal string into Go struct field`, decodeAs[protocol.TabParams]},
		{"not JSON", `{"tab":`, `invalid params: unexpected end of JSON input`, decodeAs[protocol.TabParams]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.decode(tt.params)
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Code != protocol.CodeInvalidParams || !strings.Contains(pe.Message, tt.want) {
				t.Errorf("%s: got %v, want invalid_params saying %q", tt.params, err, tt.want)
			}
		})
	}
}

// decodeAs decodes raw params as a method whose params are a P would.
func decodeAs[P any](raw string) error {
	_, err := decoded[P](raw)
	return err
}

// Methods without params take them absent, null or empty; the others get
// what was sent, embedded structs' members included.
func TestGoodParams(t *testing.T) {
	for _, raw := range []string{``, `null`, ` {} `} {
		if _, err := decoded[None](raw); err != nil {
			t.Errorf("None from %q: got %v, want success", raw, err)
		}
	}
	got, err := decoded[protocol.TabParams](`{"browser":"b1","tab":7}`)
	if want := (protocol.TabParams{Target: protocol.Target{Browser: "b1", Tab: 7}}); err != nil || got != want {
		t.Errorf("got %+v, %v; want %+v", got, err, want)
	}
}

// A method's fields are the JSON members its params type decodes: tagged
// or not, embedded structs' included, never an unexported or "-" field.
func TestFieldNames(t *testing.T) {
	type inner struct {
		Deep string `json:"deep"`
	}
	type params struct {
		inner
		Tagged  int    `json:"tagged,omitempty"`
		Plain   bool   // its name is its member's
		Skipped string `json:"-"`
		hidden  string
	}
	got, _ := shape(reflect.TypeOf(&params{hidden: "not a member"}))
	want := map[string]bool{"deep": true, "tagged": true, "Plain": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if got, _ := shape(reflect.TypeOf(0)); len(got) != 0 {
		t.Errorf("fields of an int: got %v, want none", got)
	}
}

// The members are read before the decode: what the caller checks (a
// scope, an audit line) is what was sent.
func TestMembers(t *testing.T) {
	tests := []struct {
		raw  string
		want map[string]json.RawMessage
	}{
		{``, nil},
		{`null`, nil},
		{`[1]`, nil},
		{`{"tab":7,"function":"() => 1"}`, map[string]json.RawMessage{"tab": json.RawMessage(`7`), "function": json.RawMessage(`"() => 1"`)}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Parse(json.RawMessage(tt.raw)).Members()); diff != "" {
			t.Errorf("%q: members (-want +got):\n%s", tt.raw, diff)
		}
	}
}

// A method refused its params does not run.
func TestStrictDoesNotRunRefused(t *testing.T) {
	ran := false
	run := Strict(func(context.Context, string, None) (any, error) { ran = true; return "ok", nil })
	if _, err := run(context.Background(), "caller", Parse(json.RawMessage(`{"x":1}`))); err == nil || ran {
		t.Errorf("got err %v, ran %v; want an error and no run", err, ran)
	}
	if res, err := run(context.Background(), "caller", Parse(nil)); err != nil || !ran || res != "ok" {
		t.Errorf("got %v, %v, ran %v; want ok and a run", res, err, ran)
	}
}

// Params with objects below their top level are decoded by a decoder that
// refuses their unknown members too; flat ones by json.Unmarshal, after
// decode has checked every member's name.
func TestNestedShape(t *testing.T) {
	type inner struct{ A int }
	tests := []struct {
		name string
		typ  any
		want bool
	}{
		{"none", None{}, false},
		{"strings and numbers", protocol.DebugEchoParams{}, false},
		{"an embedded target", protocol.TabParams{}, false},
		{"a slice of strings", struct{ S []string }{}, false},
		{"any", struct{ V any }{}, false},
		{"a slice of structs", protocol.FormFillParams{}, true},
		{"a struct", struct{ In inner }{}, true},
		{"a pointer to a struct", struct{ In *inner }{}, true},
		{"a map of structs", struct{ M map[string]inner }{}, true},
		{"an embedded struct holding one", struct{ protocol.FormFillParams }{}, true},
		{"a pointer to params", &protocol.TabParams{}, false},
		{"a struct no member holds", struct {
			In  inner `json:"-"`
			in  inner
			Tab int
		}{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, got := shape(reflect.TypeOf(tt.typ)); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// A nested object's unknown member is refused as the top level's is; a
// flat type's members decode as before.
func TestNestedUnknownFieldsRefused(t *testing.T) {
	err := decodeAs[protocol.FormFillParams](`{"tab":1,"fields":[{"target":"#a","action":"fill","text":"x","bogus":1}]}`)
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeInvalidParams || !strings.Contains(pe.Message, `unknown field "bogus"`) {
		t.Errorf("got %v, want invalid_params naming the unknown nested field", err)
	}
	got, err := decoded[protocol.DebugEchoParams](`{"browser":"b1","data":"a\u00e9\n"}`)
	if want := (protocol.DebugEchoParams{Browser: "b1", Data: "aé\n"}); err != nil || got != want {
		t.Errorf("got %+v, %v; want %+v", got, err, want)
	}
}
