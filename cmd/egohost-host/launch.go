package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/internal/front/cli"
	"github.com/egohost/egohost/internal/server/service"
	"github.com/egohost/egohost/internal/server/weburl"
	"github.com/egohost/egohost/internal/setup/browser"
	"github.com/egohost/egohost/internal/setup/config"
	"github.com/egohost/egohost/internal/setup/launcher"
	"github.com/egohost/egohost/protocol"
)

// chain is a running browser wired to a service (ours or one already running).
type chain struct {
	proc    *browser.Process
	addr    string
	token   string
	browser protocol.Browser
	stop    func() error // ends the browser and, if we started it, the service
}

type chainOptions struct {
	headless    bool
	userDataDir string
	url         string
	quiet       bool
	verbose     bool // the browser's own stderr to ours
}

// startChain makes sure a service runs (starting one in this process if
// none answers), launches the browser with the extension and waits until
// its link is up.
func (e *env) startChain(ctx context.Context, o chainOptions) (*chain, error) {
	bin, err := findBrowser(e.cfg)
	if err != nil {
		return nil, err
	}
	self, err := cli.Self()
	if err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	ch := &chain{}
	var svcStop func() error
	// The browsers already connected: the one launched here is none of them.
	before := map[string]bool{}
	if c, err := e.Dial(ctx); err == nil {
		var bl protocol.BrowsersListResult
		if c.Call(ctx, protocol.MethodBrowsersList, nil, &bl) == nil {
			for _, b := range bl.Browsers {
				before[b.ID] = true
			}
		}
		c.Close()
		ch.addr = e.ServiceAddr()
		if !o.quiet {
			fmt.Fprintf(e.stderr, "using the egohost service already running at %s\n", ch.addr)
		}
	} else {
		svc, err := service.New(e.serviceOptions())
		if err != nil {
			return nil, err
		}
		sctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		var serr error
		wg.Add(1)
		go func() { defer wg.Done(); serr = svc.Serve(sctx) }()
		svcStop = func() error { cancel(); wg.Wait(); return serr }
		ch.addr = svc.Addr()
		if !o.quiet {
			fmt.Fprintf(e.stderr, "started the egohost service: agents on ws://%s/rpc\n", ch.addr)
		}
	}
	if ch.token, err = client.ReadToken(e.cfg.TokenFile); err != nil {
		if svcStop != nil {
			svcStop()
		}
		return nil, err
	}
	envv := os.Environ()
	if e.cfg.File != "" {
		envv = append(envv, config.EnvConfigFile+"="+e.cfg.File)
	}
	// The relay must find this service's socket even when it was moved by flags.
	envv = append(envv, config.EnvVar("socket")+"="+e.cfg.Socket)
	out := &browserStderr{}
	if o.verbose {
		out.w = e.stderr
	}
	proc, err := launcher.Launch(ctx, launcher.Options{
		Browser:      bin,
		Host:         self,
		HostName:     e.cfg.HostName,
		ExtensionIDs: e.cfg.AllowedExtensionIDs,
		ExtensionDir: filepath.Join(e.cfg.StateDir, "extension"),
		UserDataDir:  o.userDataDir,
		Headless:     o.headless,
		URL:          o.url,
		Env:          envv,
		Stderr:       out,
	})
	if err != nil {
		if svcStop != nil {
			svcStop()
		}
		var pe *browser.ProfileInUseError
		if errors.As(err, &pe) {
			return nil, &cli.LaunchError{Err: err, Reason: "profile in use by " + pe.Owner}
		}
		return nil, err
	}
	ch.proc = proc
	ch.stop = func() error {
		err := proc.Close()
		if svcStop != nil {
			err = errors.Join(err, svcStop())
		}
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, e.cfg.Timeouts.Launch)
	defer cancel()
	b, err := waitBrowser(wctx, ch.addr, ch.token, proc, before)
	if err != nil {
		ch.stop()
		reason := out.Tail()
		select {
		case <-proc.Done():
			msg := fmt.Sprintf("launch: the browser exited before its extension connected (%v)", proc.Err())
			if proc.Err() == nil {
				msg = "launch: the browser exited at once (it may have handed the page to a browser already running on this profile)"
			}
			if reason != "" {
				msg += "; it said:\n" + reason
			}
			return nil, &cli.LaunchError{Err: errors.New(msg), Reason: reason}
		default:
		}
		msg := fmt.Sprintf("launch: the browser started but its extension never connected: %v (run with --verbose and log_level: debug, or open the extension's popup)", err)
		if reason != "" {
			msg += "; the browser said:\n" + reason
		}
		return nil, &cli.LaunchError{Err: errors.New(msg), Reason: reason}
	}
	ch.browser = b
	return ch, nil
}

// waitBrowser polls the service until the browser launched as proc says
// hello: its relay carries the launch's mark; where marks cannot be read,
// the first browser that was not connected before.
func waitBrowser(ctx context.Context, addr, token string, proc *browser.Process, before map[string]bool) (protocol.Browser, error) {
	c, err := client.Dial(ctx, addr, token, client.Options{})
	if err != nil {
		return protocol.Browser{}, err
	}
	defer c.Close()
	for {
		var bl protocol.BrowsersListResult
		if err := c.Call(ctx, protocol.MethodBrowsersList, nil, &bl); err != nil {
			return protocol.Browser{}, err
		}
		if b, ok := launched(bl.Browsers, proc.Started, before); ok {
			return b, nil
		}
		select {
		case <-ctx.Done():
			return protocol.Browser{}, ctx.Err()
		case <-proc.Done():
			return protocol.Browser{}, errors.New("the browser exited")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// launched picks the launched browser among those connected: the one
// whose relay process started knows (by its mark), else one that was not
// connected before.
func launched(browsers []protocol.Browser, started func(pid int) (yes, known bool), before map[string]bool) (protocol.Browser, bool) {
	for _, b := range browsers {
		if b.ExtensionID == "" {
			continue
		}
		yes, known := started(b.RelayPID)
		if yes || (!known && !before[b.ID]) {
			return b, true
		}
	}
	return protocol.Browser{}, false
}

func findBrowser(cfg *config.Config) (string, error) { return browser.FindHere(cfg.Browser) }

func (e *env) launch(ctx context.Context, o chainOptions, args []string) error {
	if o.userDataDir != "" {
		abs, err := filepath.Abs(o.userDataDir)
		if err != nil {
			return fmt.Errorf("launch: %w", err)
		}
		o.userDataDir = abs
	}
	if len(args) == 1 {
		u, err := weburl.Normalize(args[0])
		if err != nil {
			return cli.UsageError("launch: " + err.Error())
		}
		o.url = u
	}
	if o.userDataDir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("launch: %w", err)
		}
		o.userDataDir = filepath.Join(home, ".local", "share", "egohost", "profile")
	}
	ch, err := e.startChain(ctx, o)
	if err != nil {
		return err
	}
	if e.json {
		cli.PrintJSON(e.stdout, map[string]any{"browser": ch.browser, "profile": ch.proc.UserDataDir(), "agents": "ws://" + ch.addr + "/rpc", "tokenFile": e.cfg.TokenFile})
	} else {
		fmt.Fprintf(e.stdout, "browser %s connected (extension %s, %s)\nprofile: %s\nagents: ws://%s/rpc, token in %s\ntry: egohost tabs    (Ctrl-C ends the browser)\n",
			ch.browser.ID, ch.browser.ExtensionID, ch.browser.UserAgent, ch.proc.UserDataDir(), ch.addr, e.cfg.TokenFile)
	}
	select {
	case <-ctx.Done():
	case <-ch.proc.Done():
		fmt.Fprintln(e.stderr, "the browser exited")
	}
	return ch.stop()
}
