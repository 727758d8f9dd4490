package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/egohost/egohost/protocol"
)

func TestRecordVerbParams(t *testing.T) {
	tests := []struct {
		name      string
		args      []string // as typed after "egohost"
		wantVerb  string
		want      string // the params' JSON
		wantError string
	}{
		{"console", []string{"console", "--level", "warning"}, "console", `{"level":"warning"}`, ""},
		{"console takes no arguments", []string{"console", "x"}, "console", "", "usage"},
		{"network with static", []string{"network", "--static", "--clear"}, "network", `{"static":true,"clear":true}`, ""},
		{"cookies is get", []string{"cookies"}, "cookies get", `{}`, ""},
		{"cookies get a name", []string{"cookies", "get", "sid"}, "cookies get", `{"name":"sid"}`, ""},
		{"a bare name is get", []string{"cookies", "sid"}, "cookies get", `{"name":"sid"}`, ""},
		{"cookies set", []string{"cookies", "set", "theme", "dark", "--path", "/", "--secure", "--same-site", "Lax", "--expires", "1900000000"}, "cookies set",
			`{"name":"theme","value":"dark","path":"/","expires":1900000000,"secure":true,"sameSite":"Lax"}`, ""},
		{"cookies set needs a value", []string{"cookies", "set", "theme"}, "cookies set", "", "usage"},
		{"cookies clear one", []string{"cookies", "clear", "sid"}, "cookies clear", `{"name":"sid"}`, ""},
		{"cookies clear two", []string{"cookies", "clear", "a", "b"}, "cookies clear", "", "usage"},
	}
	verbs := recordVerbs()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, rest := subVerb(tt.args[0], tt.args[1:])
			if name != tt.wantVerb {
				t.Fatalf("verb: got %q, want %q", name, tt.wantVerb)
			}
			p, err := verbs[name].params(&argv{args: rest}, protocol.Target{})
			if tt.wantError != "" {
				var ue usageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("got %v, want a usage error with %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(p)
			if string(b) != tt.want {
				t.Errorf("params: got %s, want %s", b, tt.want)
			}
		})
	}
}
