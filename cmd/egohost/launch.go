package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/egohost/egohost/browser"
	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/config"
	"github.com/egohost/egohost/launcher"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/service"
	"github.com/egohost/egohost/weburl"
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
}

// startChain makes sure a service runs (starting one in this process if
// none answers), launches the browser with the extension and waits until
// its link is up.
func (e *env) startChain(ctx context.Context, o chainOptions) (*chain, error) {
	bin, err := findBrowser(e.cfg)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return nil, fmt.Errorf("launch: find own binary: %w", err)
	}
	ch := &chain{}
	var svcStop func() error
	if c, err := e.dial(ctx); err == nil {
		c.Close()
		ch.addr = e.serviceAddr()
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
	var stderr = e.stderr
	if o.quiet {
		stderr = nil
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
		Stderr:       filterStderr(stderr),
	})
	if err != nil {
		if svcStop != nil {
			svcStop()
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
	b, err := waitBrowser(wctx, ch.addr, ch.token, proc)
	if err != nil {
		ch.stop()
		return nil, fmt.Errorf("launch: the browser started but its extension never connected: %w (run with log_level: debug, or open the extension's popup)", err)
	}
	ch.browser = b
	return ch, nil
}

// waitBrowser polls the service until a browser link says hello.
func waitBrowser(ctx context.Context, addr, token string, proc *browser.Process) (protocol.Browser, error) {
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
		for _, b := range bl.Browsers {
			if b.ExtensionID != "" {
				return b, nil
			}
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

func findBrowser(cfg *config.Config) (string, error) {
	home, _ := os.UserHomeDir()
	return browser.Find(cfg.Browser, runtime.GOOS, home, func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && !fi.IsDir()
	})
}

func (e *env) launch(ctx context.Context, args []string) error {
	var o chainOptions
	o.headless, args = takeBool(args, "--headless")
	o.userDataDir, args = takeFlag(args, "--user-data-dir")
	for _, a := range args {
		if strings.HasPrefix(a, "--") {
			return usageError("unknown flag " + a + " (usage: egohost launch [--headless] [--user-data-dir DIR] [URL])")
		}
	}
	if len(args) > 1 {
		return usageError("usage: egohost launch [--headless] [--user-data-dir DIR] [URL]")
	}
	if len(args) == 1 {
		u, err := weburl.Normalize(args[0])
		if err != nil {
			return usageError("launch: " + err.Error())
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
	fmt.Fprintf(e.stdout, "browser %s connected (extension %s, %s)\nprofile: %s\nagents: ws://%s/rpc, token in %s\ntry: egohost tabs    (Ctrl-C ends the browser)\n",
		ch.browser.ID, ch.browser.ExtensionID, ch.browser.UserAgent, ch.proc.UserDataDir(), ch.addr, e.cfg.TokenFile)
	select {
	case <-ctx.Done():
	case <-ch.proc.Done():
		fmt.Fprintln(e.stderr, "the browser exited")
	}
	return ch.stop()
}
