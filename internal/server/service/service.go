// Package service is the long-running egohost process: it accepts browser
// links from relays on an owner-only local socket, serves agents JSON-RPC
// over a loopback WebSocket with a bearer token, and routes CDP between them.
package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/egohost/egohost"
	"github.com/egohost/egohost/internal/peercred"
	"github.com/egohost/egohost/internal/server/agentconn"
	"github.com/egohost/egohost/internal/server/agentlive"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/cdpsub"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/confirm/asks"
	"github.com/egohost/egohost/internal/server/filegate"
	"github.com/egohost/egohost/internal/server/hub"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/privfile"
	"github.com/egohost/egohost/internal/server/trace"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

// Version is the service's version, reported to agents and the extension.
const Version = egohost.Version

// Options configure a Service.
type Options struct {
	Listen          string        // loopback host:port for agents (port 0: any free port)
	Socket          string        // relay socket path
	StateDir        string        // holds service.json: the live files (datadir.go)
	DataDir         string        // holds the durable state (datadir.go); "" means StateDir
	TokenFile       string        // agents' bearer token (created 0600 when missing)
	AllowedIDs      []string      // extension IDs a relay may speak for
	RequestTimeout  time.Duration // default deadline of one agent request
	ActionTimeout   time.Duration // default auto-wait of actions and resolution
	ReconnectGrace  time.Duration // how long a known browser that dropped counts as reconnecting
	ReconnectWait   time.Duration // how long one call waits for a reconnecting browser (at most ReconnectGrace)
	MaxBrowserFrame int           // cap of one frame from the browser
	MaxRPCMessage   int           // cap of one agent WebSocket message
	MaxInFlight     int           // requests one agent connection may have running at once
	ScriptTimeout   time.Duration // a script's default wall-clock limit
	ScriptMax       time.Duration // the longest a script may ask for
	ScriptMemory    int64         // heap growth a running script may cause
	ScriptOutput    int           // a script's console output cap
	AllTabs         []string      // agents the user granted every tab, not only their spaces' (agents.all_tabs)
	// OriginRules are the paired agents' origin rules by agent name ("*":
	// every paired agent), config agents.origins.
	OriginRules map[string]pairing.Rules
	// AuditMaxSize is the audit log's size before it rotates (config
	// audit.max_size); 0 means 10 MiB. AuditKeep is how many rotated
	// files it keeps (audit.keep); 0 means 5.
	AuditMaxSize int64
	AuditKeep    int
	// PairLimits cap the pairing requests (zero: pairing.DefaultLimits).
	PairLimits pairing.Limits
	// UploadDirs are the folders a paired agent may upload from by path
	// (agents.upload_dirs); UploadMaxBytes caps one upload's bytes (0: 50
	// MiB); OutputDir is where plain file names are written
	// (agents.output_dir). README "Security", agentfiles.go.
	UploadDirs     []string
	UploadMaxBytes int64
	OutputDir      string
	// TraceEnabled starts a trace of TraceAgents' calls (none: every
	// agent's) when the service starts (trace.enabled, trace.agents);
	// TraceMaxBytes bounds a trace (trace.max_bytes; 0: 50 MiB).
	// TraceMaxAge: traces older than it are deleted when the service
	// starts and when a trace starts (trace.max_age; 0: kept forever).
	// service/trace.go.
	TraceEnabled  bool
	TraceAgents   []string
	TraceMaxBytes int64
	TraceMaxAge   time.Duration
	// Confirm is the confirmation policy (agents.confirm, confirm_words);
	// ConfirmTimeout how long an ask waits for the person
	// (timeouts.confirm; 0: 60 s). confirmmethods.go.
	Confirm        confirm.Policy
	ConfirmTimeout time.Duration
	Logger         *slog.Logger
}

// Service is the egohost service.
type Service struct {
	opts  Options
	log   *slog.Logger
	token string

	hub          *hub.Hub[*link]         // the connected browsers
	methods      map[string]method       // the agents' methods, their registry rows (registry.go), built once
	popupMethods map[string]popupHandler // the popup channel's own methods
	spaces       *agentSpaces            // the agents' spaces (spaces.go)

	pairs    *pairing.Store   // paired agents (access.go, ownermethods)
	pending  *pairing.Pending // pairing requests waiting for the person
	audit    *audit.Log       // every call that reaches a tab
	recent   *audit.Recent    // each agent's last calls, for the popup (writeAudit feeds it)
	files    filegate.Rules   // which of the person's files a call may reach (filegate: wire.go)
	uploads  *filegate.Store  // the files pages were handed, kept while their tab lives
	confirms *asks.Store      // the acts waiting for the person, and their always answers (confirmmethods.go)

	// conns are the live agent connections and their calls in flight:
	// the popup shows them, a revoke cuts them.
	conns agentlive.Registry[*agent, *call]

	tokenless tokenless // what connections without a valid token did (tokenless.go)

	traces *trace.Recorder // the trace being recorded, if any (trace.go)

	subscriptions cdpsub.Options // what the agents' cdp.subscribe subscriptions run on (cdpmethods.go)

	// peerUID names the user at the other end of the agent socket (the
	// kernel's answer; a test's own in tests): checkPeer refuses others.
	peerUID func(fd int) (uint32, error)

	ln      net.Listener // relay socket
	agentLn net.Listener // agent socket (agentsock.go)
	httpLn  net.Listener
	httpSrv *http.Server
}

// New prepares a service: state dir, token, and both listeners. Serve runs it.
func New(opts Options) (*Service, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 30 * time.Second
	}
	if opts.ActionTimeout <= 0 {
		opts.ActionTimeout = 5 * time.Second
	}
	if opts.ReconnectGrace <= 0 {
		opts.ReconnectGrace = 60 * time.Second
	}
	if opts.ReconnectWait <= 0 {
		opts.ReconnectWait = 5 * time.Second
	}
	opts.ReconnectWait = min(opts.ReconnectWait, opts.ReconnectGrace)
	if opts.MaxBrowserFrame <= 0 {
		opts.MaxBrowserFrame = 64 << 20
	}
	if opts.MaxRPCMessage <= 0 {
		opts.MaxRPCMessage = 64 << 20
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = 64
	}
	if opts.ScriptTimeout <= 0 {
		opts.ScriptTimeout = 30 * time.Second
	}
	opts.ScriptMax = max(opts.ScriptMax, opts.ScriptTimeout)
	if opts.DataDir == "" {
		opts.DataDir = opts.StateDir
	}
	if opts.UploadMaxBytes <= 0 {
		opts.UploadMaxBytes = 50 << 20
	}
	s := &Service{opts: opts, log: opts.Logger, peerUID: peercred.Kernel}
	var err error
	for _, dir := range []string{opts.StateDir, opts.DataDir, filepath.Dir(opts.Socket), filepath.Dir(opts.TokenFile)} {
		if err := privfile.EnsureDir(dir); err != nil {
			return nil, fmt.Errorf("start service: %w", err)
		}
	}
	moved, err := MigrateDurable(opts.StateDir, opts.DataDir)
	if len(moved) > 0 {
		s.log.Info("durable state moved out of the runtime folder (it is wiped at logout)", "from", opts.StateDir, "to", opts.DataDir, "files", strings.Join(moved, ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("start service: %w", err)
	}
	s.methods = methodsByName(s.registry())
	// Nobody reaches the state dir, the durable data dir or the token
	// through a call; the files pages are handed live in the state dir's
	// uploads folder.
	s.files = filegate.Rules{Private: []string{opts.StateDir, opts.DataDir, opts.TokenFile}, UploadDirs: opts.UploadDirs, OutputDir: opts.OutputDir}
	s.spaces = newAgentSpaces(opts.DataDir, s.log)
	if s.pairs, err = pairing.Open(filepath.Join(opts.DataDir, agentsFile), time.Now); err != nil {
		return nil, fmt.Errorf("start service: %w", err)
	}
	lim := opts.PairLimits
	if lim.MaxPending <= 0 {
		lim = pairing.DefaultLimits
	}
	s.pending = pairing.NewPending(lim, time.Now, s.owner().PairingChanged)
	for name, r := range opts.OriginRules {
		if err := r.CheckPatterns(); err != nil {
			return nil, fmt.Errorf("start service: origin rules of %q: %w", name, err)
		}
	}
	for name, rules := range opts.Confirm.Agents {
		for _, r := range rules {
			if err := (pairing.Rules{Allow: r.Origins}).CheckPatterns(); err != nil {
				return nil, fmt.Errorf("start service: confirmation rules of %q: %w", name, err)
			}
		}
	}
	s.confirms = asks.Load(opts.DataDir, s.log.Warn)
	s.popupMethods = s.popupHandlers()
	tok, err := privfile.LoadOrCreateToken(opts.TokenFile)
	if err != nil {
		return nil, fmt.Errorf("start service: %w", err)
	}
	s.token = tok
	if err := agentconn.CheckLoopback(opts.Listen); err != nil {
		return nil, fmt.Errorf("start service: listen: %w", err)
	}
	if s.ln, err = privfile.ListenSocket(opts.Socket); err != nil {
		return nil, fmt.Errorf("start service: %w", err)
	}
	if s.agentLn, err = privfile.ListenSocket(s.agentSocket()); err != nil {
		s.ln.Close()
		return nil, fmt.Errorf("start service: agent %w", err)
	}
	if s.httpLn, err = net.Listen("tcp", opts.Listen); err != nil {
		s.ln.Close()
		s.agentLn.Close()
		return nil, fmt.Errorf("start service: listen %s: %w", opts.Listen, err)
	}
	if s.audit, err = audit.Open(s.auditPath(), opts.AuditMaxSize, opts.AuditKeep); err != nil {
		s.ln.Close()
		s.agentLn.Close()
		s.httpLn.Close()
		return nil, fmt.Errorf("start service: %w", err)
	}
	s.recent = audit.LoadRecent(s.auditPath(), recentPerAgent, s.log)
	s.traces = trace.NewRecorder(filepath.Join(opts.DataDir, TracesDir), opts.TraceMaxBytes, opts.TraceMaxAge, s.log)
	s.traces.Prune(time.Now())
	if opts.TraceEnabled {
		if _, err := s.owner().StartTrace(opts.TraceAgents, ""); err != nil {
			s.log.Warn("trace.enabled: no trace", "err", err)
		}
	}
	// Only now that no other service runs: what a previous one left goes.
	if s.uploads, err = filegate.OpenStore(filepath.Join(opts.StateDir, uploadsFolder), uploadsKept*opts.UploadMaxBytes); err != nil {
		s.ln.Close()
		s.agentLn.Close()
		s.httpLn.Close()
		s.audit.Close()
		return nil, fmt.Errorf("start service: %w", err)
	}
	s.subscriptions = cdpsub.Options{Browsers: subBrowsers{s}, ReconnectGrace: opts.ReconnectGrace, RequestTimeout: opts.RequestTimeout, CodeOf: wireerr.CodeOf}
	s.hub = hub.New(hub.Options[*link]{
		AllowedIDs:     opts.AllowedIDs,
		MaxFrame:       opts.MaxBrowserFrame,
		ReconnectGrace: opts.ReconnectGrace,
		ReconnectWait:  opts.ReconnectWait,
		DataDir:        opts.DataDir,
		PeerUID:        peercred.Kernel,
		Uploads:        s.uploads,
		Log:            s.log,
		New:            s.newLink,
		Call:           s.popupCall,
		ReplyError:     wireerr.Reply,
		Held:           s.heldByPerson,
		Regrouped:      s.regrouped,
	})
	return s, nil
}

// Addr returns the agents' listen address (host:port).
func (s *Service) Addr() string { return s.httpLn.Addr().String() }

// Token returns the agents' bearer token.
func (s *Service) Token() string { return s.token }

// Serve runs until ctx ends. It returns only when every goroutine it
// started has ended.
func (s *Service) Serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	state := protocol.ServiceState{Addr: s.Addr(), PID: os.Getpid(), Socket: s.opts.Socket, Version: Version}
	statePath := filepath.Join(s.opts.StateDir, protocol.StateFile)
	if b, err := json.Marshal(state); err == nil {
		if err := privfile.Write(statePath, b); err != nil {
			s.log.Warn("write state file", "err", err)
		}
	}
	defer os.Remove(statePath)

	var wg sync.WaitGroup
	s.httpSrv = &http.Server{
		Handler:           s.routes(ctx, &wg),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 3)
	wg.Add(4)
	go func() {
		defer wg.Done()
		s.idleLoop(ctx)
	}()
	go func() {
		defer wg.Done()
		err := s.httpSrv.Serve(s.httpLn)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		errc <- err
	}()
	go func() {
		defer wg.Done()
		errc <- s.acceptRelays(ctx, &wg)
	}()
	go func() {
		defer wg.Done()
		errc <- s.accept(ctx, &wg, s.agentLn, "agent socket", s.serveAgentSocket)
	}()
	s.log.Info("egohost service ready", "agents", "ws://"+s.Addr()+"/rpc", "socket", s.opts.Socket, "pid", os.Getpid())

	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
		cancel()
	}
	shutCtx, done := context.WithTimeout(context.Background(), 3*time.Second)
	defer done()
	_ = s.httpSrv.Shutdown(shutCtx)
	s.httpSrv.Close()
	s.ln.Close()
	s.agentLn.Close()
	for _, l := range s.hub.Links() {
		l.Close()
	}
	wg.Wait()
	os.Remove(s.opts.Socket)
	os.Remove(s.agentSocket())
	if _, _, err := s.traces.Stop(); err != nil {
		s.log.Warn("trace", "err", err)
	}
	s.audit.Close()
	if err := s.uploads.Close(); err != nil {
		s.log.Warn("remove the uploaded files", "err", err)
	}
	return err
}

func (s *Service) acceptRelays(ctx context.Context, wg *sync.WaitGroup) error {
	return s.accept(ctx, wg, s.ln, "relay", s.hub.Serve)
}

// accept serves each connection ln accepts (what names them in the log)
// on a goroutine of wg, until ctx ends or ln is closed.
func (s *Service) accept(ctx context.Context, wg *sync.WaitGroup, ln net.Listener, what string, serve func(context.Context, net.Conn)) error {
	var delay time.Duration
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			// Out of file descriptors and the like: wait and try again, as
			// net/http does, rather than end the service.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			s.log.Warn("accept "+what, "err", err, "retry", delay)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(delay):
			}
			continue
		}
		delay = 0
		wg.Add(1)
		go func() {
			defer wg.Done()
			serve(ctx, conn)
		}()
	}
}

// agentsFile (in the data dir) holds the paired agents, their tokens
// hashed; AuditFile the audit log.
const agentsFile = "agents.json"

// AuditFile is the audit log's name in the data dir (rotated to
// AuditFile.1, AuditFile.2, …).
const AuditFile = egohost.AuditFile

func (s *Service) auditPath() string { return filepath.Join(s.opts.DataDir, AuditFile) }
