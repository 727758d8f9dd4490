package service

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/script"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

// scriptCalls runs a script's browser calls: the agents' own handlers,
// each with its method's deadline, as if the agent had sent it.
type scriptCalls struct {
	s    *Service
	a    *agent
	home *link // the script.run call's (a popup's browser, or nil)
}

// Call implements script.Service.
func (c scriptCalls) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if m, ok := c.s.methods[method]; ok && m.noScript != "" {
		return nil, protocol.Errorf(protocol.CodeMethodNotFound, "unknown method %q", method)
	}
	res, err := c.s.call(ctx, c.a, c.home, method, params) // the agent's grant and the audit log, as for its own calls
	if err != nil {
		return nil, wireerr.Of(err)
	}
	if raw, ok := res.(json.RawMessage); ok {
		return raw, nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, "%s: encode result: %v", method, err)
	}
	return b, nil
}

func (s *Service) scriptRun(ctx context.Context, c *call, p protocol.ScriptRunParams) (any, error) {
	a := c.conn
	if strings.TrimSpace(p.Script) == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "script.run: script is empty")
	}
	timeout := s.opts.ScriptTimeout
	switch {
	case p.TimeoutMs < 0:
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "script.run: timeoutMs must not be negative")
	case p.TimeoutMs > 0:
		timeout = actwire.Millis(p.TimeoutMs)
	}
	if timeout > s.opts.ScriptMax {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "script.run: a timeout of %v exceeds timeouts.script_max (%v)", timeout, s.opts.ScriptMax)
	}
	// The files it may hand setInputFiles: under upload's rules, checked
	// now (and again by each upload call, as the agent's own).
	files, named, err := s.files.CheckScript(s.opts.UploadMaxBytes, isPairedCall(c.conn), p.Files, p.Payloads)
	c.noteFiles(named...)
	if err != nil {
		return nil, err
	}
	// The script's page stays the tab that is active now, whatever tabs
	// it opens. Without a browser the script still runs: its calls fail
	// with the reason.
	t := p.Target
	if l, id, err := s.target(ctx, c, t); err == nil {
		t = protocol.Target{Browser: l.ID, Tab: id}
	}
	return script.Run(ctx, scriptCalls{s: s, a: a, home: c.home}, p.Script, script.Options{
		Target:    t,
		Timeout:   timeout,
		MaxMemory: s.opts.ScriptMemory,
		MaxOutput: s.opts.ScriptOutput,
		Files:     files,
		Payloads:  p.Payloads,
	})
}
