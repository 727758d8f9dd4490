package service

import (
	"context"
	"testing"

	"github.com/egohost/egohost/protocol"
)

// A script runs without a browser; its first browser call fails with the
// reason, after what it logged.
func TestScriptRunWithoutBrowser(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t)
	res, err := a.RunScript(context.Background(), protocol.ScriptRunParams{Script: "console.log('hi'); 6 * 7"})
	if err != nil || res.Output != "hi\n" || string(res.Value) != "42" || res.Calls != 0 {
		t.Fatalf("got %+v, %v; want output hi, value 42, no calls", res, err)
	}
	_, err = a.RunScript(context.Background(), protocol.ScriptRunParams{Script: "console.log('before')\nawait page.title()"})
	wantCode(t, err, protocol.CodeNoBrowser)
	e := err.(*protocol.Error)
	if e.Data["output"] != "before\n" || e.Data["line"] != float64(2) || e.Data["call"] != "eval" {
		t.Errorf("data: got %v, want output, line 2, call eval", e.Data)
	}
}

func TestScriptRunParams(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t)
	for name, p := range map[string]protocol.ScriptRunParams{
		"empty script":         {Script: "  \n"},
		"negative timeout":     {Script: "1", TimeoutMs: -1},
		"timeout over the max": {Script: "1", TimeoutMs: 31_000},
		"relative file":        {Script: "1", Files: []string{"cv.pdf"}},
		"missing file":         {Script: "1", Files: []string{"/nonexistent/cv.pdf"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := a.RunScript(context.Background(), p)
			wantCode(t, err, protocol.CodeInvalidParams)
		})
	}
}
