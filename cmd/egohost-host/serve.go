package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/egohost/egohost/install"
	"github.com/egohost/egohost/internal/front/cli"
	"github.com/egohost/egohost/internal/link/relay"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/service"
	"github.com/egohost/egohost/internal/setup/config"
	"github.com/egohost/egohost/internal/setup/config/viperconfig"
)

func (e *env) serviceOptions() service.Options {
	c := e.cfg
	return service.Options{
		Listen:          c.Listen,
		Socket:          c.Socket,
		StateDir:        c.StateDir,
		DataDir:         c.DataDir,
		TokenFile:       c.TokenFile,
		AllowedIDs:      c.AllowedExtensionIDs,
		RequestTimeout:  c.Timeouts.Request,
		ActionTimeout:   c.Timeouts.Action,
		ReconnectGrace:  c.Timeouts.Reconnect,
		ReconnectWait:   c.Timeouts.ReconnectWait,
		MaxBrowserFrame: c.Limits.MaxBrowserFrame,
		MaxRPCMessage:   c.Limits.MaxRPCMessage,
		MaxInFlight:     c.Limits.MaxInFlight,
		ScriptTimeout:   c.Timeouts.Script,
		ScriptMax:       c.Timeouts.ScriptMax,
		ScriptMemory:    int64(c.Limits.ScriptMemory),
		ScriptOutput:    c.Limits.ScriptOutput,
		AllTabs:         c.Agents.AllTabs,
		OriginRules:     originRules(c.AgentOrigins),
		AuditMaxSize:    int64(c.AuditMaxSize),
		AuditKeep:       c.AuditKeep,
		TraceEnabled:    c.Trace.Enabled,
		TraceAgents:     c.Trace.Agents,
		TraceMaxBytes:   int64(c.Trace.MaxBytes),
		TraceMaxAge:     c.Trace.MaxAge,
		UploadDirs:      c.Agents.UploadDirs,
		UploadMaxBytes:  int64(c.Agents.UploadMaxBytes),
		OutputDir:       c.Agents.OutputDir,
		Confirm:         confirm.Policy{Agents: c.Agents.Confirm, Words: c.Agents.ConfirmWords},
		ConfirmTimeout:  c.Timeouts.Confirm,
		Logger:          e.log,
	}
}

func originRules(in map[string]config.OriginRules) map[string]pairing.Rules {
	out := make(map[string]pairing.Rules, len(in))
	for name, r := range in {
		out[name] = pairing.Rules{Allow: r.Allow, Deny: r.Deny, Schemes: r.Schemes}
	}
	return out
}

func (e *env) serve(ctx context.Context) error {
	s, err := service.New(e.serviceOptions())
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "egohost service: agents on ws://%s/rpc (token in %s), relays on %s\n", s.Addr(), e.cfg.TokenFile, e.cfg.Socket)
	// Under the OS's service manager (launchd, systemd), kardianos turns its
	// stop requests into ctx's end; from a terminal Run calls Serve directly.
	self, err := cli.Self()
	if err != nil {
		return s.Serve(ctx)
	}
	svc, err := install.NewService(install.ServiceConfig{Executable: self})
	if err != nil {
		e.log.Debug("serve without the service manager", "err", err)
		return s.Serve(ctx)
	}
	return svc.Run(ctx, s.Serve)
}

// runRelay is relay mode: Chrome started us for an extension.
func runRelay(origin string, stdin io.Reader, stdout, stderr io.Writer) error {
	// Chrome may close our stderr; a log line must then fail, not kill the
	// relay with SIGPIPE (Go's default for fds 1 and 2).
	signal.Ignore(syscall.SIGPIPE)
	cfg, err := cli.LoadConfig("", viperconfig.Load)
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	log := cli.NewLogger(stderr, cfg.LogLevel).With("relay", os.Getpid())
	return relay.Run(context.Background(), stdin, stdout, relay.Options{
		Origin:          origin,
		AllowedIDs:      cfg.AllowedExtensionIDs,
		Socket:          cfg.Socket,
		DialTimeout:     cfg.Timeouts.Connect,
		MaxBrowserFrame: cfg.Limits.MaxBrowserFrame,
		Logger:          log,
	})
}
