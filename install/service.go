package install

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/kardianos/service"
)

// ServiceName is the name of egohost's service (systemd unit
// egohost.service, launchd label egohost).
const ServiceName = "egohost"

var (
	// ErrNotInstalled is returned by Status (and matched by the errors
	// of Start and Stop) when the service is not installed.
	ErrNotInstalled = errors.New("service not installed")

	// ErrUserServiceUnsupported is returned by Install on systems where
	// kardianos/service cannot install a per-user service (Windows,
	// whose services run as a system account).
	ErrUserServiceUnsupported = errors.New("per-user service not supported on this OS")
)

// ServiceConfig describes the service to install.
type ServiceConfig struct {
	// Name is the service name; empty means ServiceName.
	Name string
	// DisplayName is a human-readable name; empty means "egohost".
	DisplayName string
	// Description is a one-line description.
	Description string
	// Executable is the absolute path of the egohost binary.
	Executable string
	// Args are the arguments the service runs it with; nil means
	// {"serve"}.
	Args []string
}

func (c ServiceConfig) withDefaults() ServiceConfig {
	if c.Name == "" {
		c.Name = ServiceName
	}
	if c.DisplayName == "" {
		c.DisplayName = "egohost"
	}
	if c.Description == "" {
		c.Description = "egohost: lets local agents drive your own browser"
	}
	if c.Args == nil {
		c.Args = []string{"serve"}
	}
	return c
}

// Service is egohost's per-user system service: a systemd user unit on
// Linux, a launchd agent on macOS. Install, Uninstall, Start and Stop
// call the OS's service manager (systemctl --user, launchctl) and
// return when it does; kardianos/service gives them no context to cancel.
//
// A systemd user service starts at login; to keep it running without a
// session, the user runs `loginctl enable-linger`.
type Service struct {
	cfg  ServiceConfig
	goos string
	kcfg *service.Config
	svc  service.Service
}

// NewService returns the service for c. It fails if c.Executable is not
// absolute.
func NewService(c ServiceConfig) (*Service, error) {
	return newService(c, runtime.GOOS)
}

func newService(c ServiceConfig, goos string) (*Service, error) {
	c = c.withDefaults()
	kcfg, err := kardianosConfig(c, goos)
	if err != nil {
		return nil, fmt.Errorf("new service: %w", err)
	}
	svc, err := service.New(program{}, kcfg)
	if err != nil {
		return nil, fmt.Errorf("new service: %w", err)
	}
	return &Service{cfg: c, goos: goos, kcfg: kcfg, svc: svc}, nil
}

// kardianosConfig builds kardianos's configuration: a per-user service
// running c.Executable with c.Args. On Linux it carries egohost's own
// systemd unit, wanted by default.target: kardianos's built-in unit says
// WantedBy=multi-user.target, a target a user's systemd never reaches, so
// the enabled unit would not start at login.
func kardianosConfig(c ServiceConfig, goos string) (*service.Config, error) {
	if !filepath.IsAbs(c.Executable) {
		return nil, fmt.Errorf("executable %q is not an absolute path", c.Executable)
	}
	kc := &service.Config{
		Name:        c.Name,
		DisplayName: c.DisplayName,
		Description: c.Description,
		Executable:  c.Executable,
		Arguments:   c.Args,
		Option: service.KeyValue{
			"UserService": true,
			"RunAtLoad":   true, // launchd: start at login
			"KeepAlive":   true, // launchd: restart when it exits
		},
	}
	if goos == "linux" {
		unit, err := SystemdUserUnit(c)
		if err != nil {
			return nil, err
		}
		kc.Option["SystemdScript"] = unit
	}
	return kc, nil
}

// SystemdUserUnit returns the systemd user unit that runs the service
// described by c: restarted when it exits, and started at login through
// WantedBy=default.target.
func SystemdUserUnit(c ServiceConfig) (string, error) {
	c = c.withDefaults()
	if !strings.HasPrefix(c.Executable, "/") {
		return "", fmt.Errorf("systemd unit: executable %q is not an absolute path", c.Executable)
	}
	words := append([]string{c.Executable}, c.Args...)
	quoted := make([]string, len(words))
	for i, w := range words {
		q, err := systemdQuote(w)
		if err != nil {
			return "", fmt.Errorf("systemd unit: argument %d: %w", i, err)
		}
		quoted[i] = q
	}
	desc := c.Description
	if err := checkUnitText(desc); err != nil {
		return "", fmt.Errorf("systemd unit: description: %w", err)
	}
	desc = strings.ReplaceAll(desc, "%", "%%")
	return "[Unit]\n" +
		"Description=" + desc + "\n" +
		"StartLimitIntervalSec=60\n" +
		"StartLimitBurst=10\n" +
		"\n" +
		"[Service]\n" +
		"Type=simple\n" +
		"ExecStart=" + strings.Join(quoted, " ") + "\n" +
		"Restart=always\n" +
		"RestartSec=2\n" +
		"\n" +
		"[Install]\n" +
		"WantedBy=default.target\n", nil
}

// checkUnitText refuses text that cannot sit on one unit-file line, or
// that kardianos's template engine would interpret.
func checkUnitText(s string) error {
	if strings.ContainsAny(s, "\n\r\x00") {
		return fmt.Errorf("%q contains a line break or NUL", s)
	}
	if strings.Contains(s, "{{") {
		return fmt.Errorf("%q contains \"{{\"", s)
	}
	return nil
}

// systemdQuote quotes one ExecStart word: specifiers (%) and variable
// expansion ($) are escaped, and a word with spaces, quotes or
// backslashes is double-quoted with C escapes.
func systemdQuote(w string) (string, error) {
	if err := checkUnitText(w); err != nil {
		return "", err
	}
	w = strings.ReplaceAll(w, "%", "%%")
	w = strings.ReplaceAll(w, "$", "$$")
	if w != "" && !strings.ContainsAny(w, " \t\"'\\;") {
		return w, nil
	}
	w = strings.ReplaceAll(w, `\`, `\\`)
	w = strings.ReplaceAll(w, `"`, `\"`)
	return `"` + w + `"`, nil
}

// Install registers and enables the service with the OS's service
// manager. It does not start it.
func (s *Service) Install() error {
	if s.goos == "windows" {
		return fmt.Errorf("install service: %w", ErrUserServiceUnsupported)
	}
	if err := s.svc.Install(); err != nil {
		return fmt.Errorf("install service: %w", err)
	}
	return nil
}

// Uninstall disables and removes the service.
func (s *Service) Uninstall() error {
	return serviceErr("uninstall", s.svc.Uninstall())
}

// Start starts the installed service.
func (s *Service) Start() error {
	return serviceErr("start", s.svc.Start())
}

// Stop stops the running service.
func (s *Service) Stop() error {
	return serviceErr("stop", s.svc.Stop())
}

// serviceErr is the error of the service manager's op, mapped (mapErr)
// and named; nil when err is.
func serviceErr(op string, err error) error {
	if err != nil {
		return fmt.Errorf("%s service: %w", op, mapErr(err))
	}
	return nil
}

// Platform names the service manager in use, e.g. "linux-systemd".
func (s *Service) Platform() string {
	return s.svc.Platform()
}

// mapErr translates kardianos's errors into this package's sentinels,
// keeping the original in the chain.
func mapErr(err error) error {
	if errors.Is(err, service.ErrNotInstalled) {
		return fmt.Errorf("%w: %w", ErrNotInstalled, err)
	}
	return err
}

// Run runs body as the service's main function and returns its error.
//
// body receives a context that is cancelled when ctx is, when the OS's
// service manager asks the service to stop, or on SIGINT/SIGTERM; Run
// returns once body has returned. A body that returns context.Canceled
// because of a stop request (not because ctx was cancelled) counts as a
// clean stop: Run returns nil.
//
// Started from a terminal (`egohost serve` in the foreground), Run calls
// body directly; started by the service manager, it runs body under
// kardianos/service so that stop requests reach it.
func (s *Service) Run(ctx context.Context, body func(context.Context) error) error {
	return s.run(ctx, body, service.Interactive())
}

func (s *Service) run(ctx context.Context, body func(context.Context) error, interactive bool) error {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		once    sync.Once
		done    = make(chan struct{})
		bodyErr error
	)
	start := func() {
		once.Do(func() {
			go func() {
				defer close(done)
				defer cancel()
				bodyErr = body(runCtx)
			}()
		})
	}
	waitStop := func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sig)
		select {
		case <-sig:
		case <-runCtx.Done():
		}
	}

	if interactive {
		start()
		waitStop()
		cancel()
		<-done
	} else {
		kcfg := *s.kcfg
		kcfg.Option = maps.Clone(s.kcfg.Option)
		kcfg.Option["RunWait"] = waitStop
		p := program{
			start: func() error { start(); return nil },
			stop: func() error {
				cancel()
				once.Do(func() { close(done) }) // never started
				<-done
				return nil
			},
		}
		svc, err := service.New(p, &kcfg)
		if err != nil {
			return fmt.Errorf("run service: %w", err)
		}
		runErr := svc.Run()
		cancel()
		once.Do(func() { close(done) })
		<-done
		if runErr != nil && bodyErr == nil {
			return fmt.Errorf("run service: %w", runErr)
		}
	}
	if errors.Is(bodyErr, context.Canceled) && ctx.Err() == nil {
		return nil
	}
	return bodyErr
}

// program adapts start and stop functions to kardianos's Interface.
type program struct {
	start, stop func() error
}

// Start implements service.Interface.
func (p program) Start(service.Service) error {
	if p.start == nil {
		return nil
	}
	return p.start()
}

// Stop implements service.Interface.
func (p program) Stop(service.Service) error {
	if p.stop == nil {
		return nil
	}
	return p.stop()
}
