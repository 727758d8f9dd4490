package install

import (
	"github.com/egohost/egohost/internal/link/chromeext"

	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// HostManifest is a native messaging host manifest, as Chrome reads it
// from <name>.json.
type HostManifest struct {
	// Name is the host name the extension passes to connectNative; it is
	// also the manifest's file name.
	Name string `json:"name"`
	// Description is a short description of the host.
	Description string `json:"description"`
	// Path is the absolute path of the host binary.
	Path string `json:"path"`
	// Type is always "stdio".
	Type string `json:"type"`
	// AllowedOrigins lists "chrome-extension://<id>/" origins, each with
	// its trailing slash.
	AllowedOrigins []string `json:"allowed_origins"`
}

// NewHostManifest returns the manifest for host name, run as binary, that
// the given extensions may use.
func NewHostManifest(name, binary string, extensionIDs []string) HostManifest {
	origins := make([]string, len(extensionIDs))
	for i, id := range extensionIDs {
		origins[i] = chromeext.Origin(id)
	}
	return HostManifest{
		Name:           name,
		Description:    "egohost: lets local agents drive this browser",
		Path:           binary,
		Type:           "stdio",
		AllowedOrigins: origins,
	}
}

// Validate checks the manifest against Chrome's rules: a valid host name,
// an absolute binary path (on the running OS), type "stdio", and at least
// one well-formed origin with its trailing slash.
func (m HostManifest) Validate() error {
	switch {
	case !chromeext.ValidHostName(m.Name):
		return fmt.Errorf("host manifest: name %q: want [a-z0-9_.] with no leading, trailing or double dot", m.Name)
	case !filepath.IsAbs(m.Path):
		return fmt.Errorf("host manifest: path %q is not absolute", m.Path)
	case m.Type != "stdio":
		return fmt.Errorf("host manifest: type %q: want \"stdio\"", m.Type)
	case len(m.AllowedOrigins) == 0:
		return errors.New("host manifest: no allowed origins")
	}
	for _, o := range m.AllowedOrigins {
		id, ok := strings.CutPrefix(o, "chrome-extension://")
		id, slash := strings.CutSuffix(id, "/")
		if !ok || !slash || !chromeext.ValidID(id) {
			return fmt.Errorf("host manifest: origin %q: want chrome-extension://<32 letters a-p>/", o)
		}
	}
	return nil
}

// WriteManifest validates m and writes it to dir/<name>.json, creating dir
// (0700) if needed. The file is owner-only (0600) and replaced atomically:
// a browser never reads a half-written manifest. It returns the file's
// path.
func WriteManifest(dir string, m HostManifest) (path string, err error) {
	if err := m.Validate(); err != nil {
		return "", fmt.Errorf("write manifest: %w", err)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", fmt.Errorf("write manifest: %w", err)
	}
	data = append(data, '\n')
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("write manifest: %w", err)
	}
	path = filepath.Join(dir, m.Name+".json")
	tmp, err := os.CreateTemp(dir, "."+m.Name+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("write manifest: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return "", fmt.Errorf("write manifest: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		return "", fmt.Errorf("write manifest: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return "", fmt.Errorf("write manifest: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("write manifest: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("write manifest: %w", err)
	}
	return path, nil
}

// RemoveManifest deletes dir/<name>.json. A manifest that is not there is
// not an error.
func RemoveManifest(dir, name string) error {
	if !chromeext.ValidHostName(name) {
		return fmt.Errorf("remove manifest: bad host name %q", name)
	}
	err := os.Remove(filepath.Join(dir, name+".json"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove manifest: %w", err)
	}
	return nil
}

// ManifestState is what InspectManifest found.
type ManifestState int

// The states of an installed manifest.
const (
	// ManifestMissing: no <name>.json in the folder.
	ManifestMissing ManifestState = iota
	// ManifestUpToDate: the file is the manifest egohost would write.
	ManifestUpToDate
	// ManifestDifferent: a valid manifest that differs (another binary,
	// other origins, …); Detail says how.
	ManifestDifferent
	// ManifestInvalid: unreadable, not JSON, or breaking Chrome's rules;
	// Detail says why.
	ManifestInvalid
)

// ManifestReport is what InspectManifest found at Path.
type ManifestReport struct {
	Path   string
	State  ManifestState
	Detail string // why it is different or invalid
	Found  HostManifest
}

// InspectManifest reads dir/<want.Name>.json and compares it with want,
// the manifest egohost would write. Every failure is part of the report
// (a read error is ManifestInvalid), so that a caller can show it next to
// the others.
func InspectManifest(dir string, want HostManifest) ManifestReport {
	r := ManifestReport{Path: filepath.Join(dir, want.Name+".json")}
	data, err := os.ReadFile(r.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		r.State = ManifestMissing
		return r
	case err != nil:
		r.State, r.Detail = ManifestInvalid, err.Error()
		return r
	}
	if err := json.Unmarshal(data, &r.Found); err != nil {
		r.State, r.Detail = ManifestInvalid, "not valid JSON: "+err.Error()
		return r
	}
	if err := r.Found.Validate(); err != nil {
		r.State, r.Detail = ManifestInvalid, err.Error()
		return r
	}
	var diffs []string
	if r.Found.Name != want.Name {
		diffs = append(diffs, fmt.Sprintf("name is %q, not %q", r.Found.Name, want.Name))
	}
	if r.Found.Path != want.Path {
		diffs = append(diffs, fmt.Sprintf("points at %s, not this binary (%s)", r.Found.Path, want.Path))
	}
	for _, o := range want.AllowedOrigins {
		if !slices.Contains(r.Found.AllowedOrigins, o) {
			diffs = append(diffs, fmt.Sprintf("allowed_origins %v lack %s", r.Found.AllowedOrigins, o))
		}
	}
	if len(diffs) > 0 {
		r.State, r.Detail = ManifestDifferent, strings.Join(diffs, "; ")
		return r
	}
	r.State = ManifestUpToDate
	return r
}
