package install

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"

	"github.com/kardianos/service"
)

// ErrNoUserServiceManager means this system runs no per-user service
// manager egohost can install into (no systemd user manager, a SystemV
// init, Windows); Install and Uninstall match it with errors.Is.
var ErrNoUserServiceManager = errors.New("no per-user service manager")

// UnitPath returns the file the per-user service manager reads for the
// service called name: ~/.config/systemd/user/<name>.service on Linux,
// ~/Library/LaunchAgents/<name>.plist on macOS, "" elsewhere.
func UnitPath(goos, home, name string) string {
	switch goos {
	case "linux":
		return path.Join(home, ".config/systemd/user", name+".service")
	case "darwin":
		return path.Join(home, "Library/LaunchAgents", name+".plist")
	}
	return ""
}

// enabledPath returns the link that makes systemd start the unit at
// login (its WantedBy=default.target), "" where there is none.
func enabledPath(goos, home, name string) string {
	if goos != "linux" {
		return ""
	}
	return path.Join(home, ".config/systemd/user/default.target.wants", name+".service")
}

// userManagerProblem says why there is no per-user service manager to
// install into, or returns "" when there is one. platform is
// kardianos's name for the system's manager ("linux-systemd",
// "unix-systemv", "darwin-launchd", …); runtimeDir is the user's
// $XDG_RUNTIME_DIR (Linux), where systemd's user manager keeps its
// socket (systemctl --user finds it nowhere else).
func userManagerProblem(goos, platform, runtimeDir string, exists func(string) bool) string {
	switch goos {
	case "darwin":
		return ""
	case "linux":
		if platform != "linux-systemd" {
			return fmt.Sprintf("this system's init is %s, not systemd: it has no per-user services", platform)
		}
		if runtimeDir == "" || !exists(path.Join(runtimeDir, "systemd/private")) {
			return "systemd's user manager is not running for this user (no $XDG_RUNTIME_DIR/systemd/private; a container, or a session without logind)"
		}
		return ""
	case "windows":
		return "Windows services run as a system account, not as you"
	}
	return fmt.Sprintf("per-user services are not supported on %s (%s)", goos, platform)
}

// UserManager returns nil when a per-user service manager runs here,
// else an error matching ErrNoUserServiceManager (and, on Windows,
// ErrUserServiceUnsupported) that says why.
func (s *Service) UserManager() error {
	// systemctl --user finds the manager through $XDG_RUNTIME_DIR only.
	runtimeDir := os.Getenv("XDG_RUNTIME_DIR")
	why := userManagerProblem(s.goos, s.svc.Platform(), runtimeDir, func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	})
	switch {
	case why == "":
		return nil
	case s.goos == "windows":
		return fmt.Errorf("%w: %w: %s", ErrNoUserServiceManager, ErrUserServiceUnsupported, why)
	}
	return fmt.Errorf("%w: %s", ErrNoUserServiceManager, why)
}

// ServiceState is what is installed of the service, as files and the
// service manager say.
type ServiceState struct {
	// UnitPath is the unit (or launchd plist) file.
	UnitPath string
	// Installed: the unit file exists.
	Installed bool
	// UpToDate: the unit runs this Service's executable (on Linux: the
	// file is exactly the unit egohost writes).
	UpToDate bool
	// Enabled: it starts at login.
	Enabled bool
	// Running: the service manager says it runs (false when it cannot
	// be asked).
	Running bool
}

// State reports what is installed for the user whose home is home. It
// reads files and asks the service manager whether the service runs
// (when there is one).
func (s *Service) State(home string) (ServiceState, error) {
	st := ServiceState{UnitPath: UnitPath(s.goos, home, s.cfg.Name)}
	if st.UnitPath == "" {
		return st, nil
	}
	data, err := os.ReadFile(st.UnitPath)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return st, nil
	case err != nil:
		return st, fmt.Errorf("service state: %w", err)
	}
	st.Installed = true
	switch s.goos {
	case "linux":
		want, err := SystemdUserUnit(s.cfg)
		if err != nil {
			return st, fmt.Errorf("service state: %w", err)
		}
		st.UpToDate = string(data) == want
		_, err = os.Lstat(enabledPath(s.goos, home, s.cfg.Name))
		st.Enabled = err == nil
	case "darwin":
		st.UpToDate = bytes.Contains(data, []byte("<string>"+s.cfg.Executable+"</string>"))
		st.Enabled = true // RunAtLoad
	}
	if s.UserManager() == nil {
		status, err := s.svc.Status()
		st.Running = err == nil && status == service.StatusRunning
	}
	return st, nil
}
