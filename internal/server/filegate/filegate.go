// Package filegate decides which of the person's files a call may reach:
// what an upload may hand the browser to read, where a screenshot may be
// written. The service's own folder (the state dir, the token) is out of
// reach for everyone; a paired agent reads only inside the folders the
// person named and writes only plain file names into the output folder;
// nothing is ever written through a symlink or over an existing file.
//
// It also keeps the files a page was given by their bytes (Store): the
// browser reads a file lazily, so they live as long as the tab does.
// And it applies the rules to an agent's call (StageUpload, CheckScript,
// CreateOutput), its refusals worded with the wire's codes (protocol).
package filegate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Rules say where the files a call names may be.
type Rules struct {
	// Private are the service's own files and folders (the state dir, the
	// token file): no call reads or writes inside them, whoever makes it.
	Private []string
	// UploadDirs are the folders whose files a paired agent may upload by
	// path (config agents.upload_dirs).
	UploadDirs []string
	// OutputDir is where a plain file name is written (config
	// agents.output_dir), created 0700 when missing.
	OutputDir string
}

// Error is a path a call may not use (CodeForbiddenPath on the wire).
type Error struct {
	Path   string
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Path, e.Reason) }

func refuse(path, format string, args ...any) *Error {
	return &Error{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// Check checks a file a call names for reading (an upload): an absolute
// path to a regular file once every symlink is resolved, outside the
// private places and, for a paired agent, inside one of UploadDirs. It
// returns the resolved path and the file's info. A refusal is an *Error;
// a file that does not exist is an error wrapping fs.ErrNotExist.
func (r Rules) Check(path string, agent bool) (string, os.FileInfo, error) {
	if !filepath.IsAbs(path) {
		return "", nil, refuse(path, "not an absolute path")
	}
	clean := filepath.Clean(path)
	if agent {
		// Before looking at the file at all: an agent learns nothing of
		// files outside the folders it was given, not even that they exist.
		if len(r.UploadDirs) == 0 {
			return "", nil, refuse(path, "a paired agent uploads by path only from the folders in agents.upload_dirs, and none is set: send the file's bytes instead (payloads)")
		}
		if !r.underUploadDir(clean) {
			return "", nil, refuse(path, "outside the folders a paired agent may upload from (agents.upload_dirs: %s)", strings.Join(r.UploadDirs, ", "))
		}
	}
	real, err := filepath.EvalSymlinks(clean)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
		}
		return "", nil, refuse(path, "cannot be resolved: %v", err)
	}
	if r.private(real) {
		return "", nil, refuse(path, "inside egohost's own state (the token, the agents' tokens): no call may read it")
	}
	if agent && !r.underUploadDir(real) {
		return "", nil, refuse(path, "leads (through a symlink) outside the folders of agents.upload_dirs")
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", nil, refuse(path, "not a regular file (%v)", fi.Mode().Type())
	}
	return real, fi, nil
}

// Open checks path as Check does and opens it; the file opened is the
// one checked (a swap between the check and the open is refused).
func (r Rules) Open(path string, agent bool) (*os.File, error) {
	real, fi, err := r.Check(path, agent)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if now, err := f.Stat(); err != nil || !os.SameFile(fi, now) {
		f.Close()
		return nil, refuse(path, "changed while it was being opened")
	}
	return f, nil
}

// Create makes a new file for a call to write (a screenshot), 0600, and
// returns it with its path. A plain file name goes into OutputDir, the
// only form a paired agent may use; the owner may also give an absolute
// path. Never inside the private places, never through a symlink of the
// last component, never over an existing file.
func (r Rules) Create(path string, agent bool) (*os.File, string, error) {
	plain := path != "" && !strings.ContainsAny(path, `/\`) && path != "." && path != ".." && !filepath.IsAbs(path)
	var dir, base string
	switch {
	case plain:
		if r.OutputDir == "" {
			return nil, "", refuse(path, "no output folder is set (agents.output_dir)")
		}
		dir, base = r.OutputDir, SanitizeName(path, "")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, "", fmt.Errorf("output folder: %w", err)
		}
	case agent:
		return nil, "", refuse(path, "a paired agent writes only a plain file name, into the output folder (agents.output_dir %s)", r.OutputDir)
	case !filepath.IsAbs(path):
		return nil, "", refuse(path, "not an absolute path (a plain file name goes into the output folder)")
	default:
		dir, base = filepath.Split(filepath.Clean(path))
		if base == "" {
			return nil, "", refuse(path, "names a folder, not a file")
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	if r.private(real) {
		return nil, "", refuse(path, "inside egohost's own state: no call may write there")
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	defer root.Close()
	if a, err := root.Stat("."); err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	} else if b, err := os.Stat(real); err != nil || !os.SameFile(a, b) {
		return nil, "", refuse(path, "its folder changed while it was being opened")
	}
	// O_EXCL never follows a symlink and never opens an existing file.
	f, err := root.OpenFile(base, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, "", refuse(path, "already exists: egohost writes only new files, never over one (choose another name)")
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return f, filepath.Join(real, base), nil
}

// Replace writes data to path (absolute) for the person's own tools (the
// CLI, with its own rights): a new file, or a regular file there replaced
// at once (a new file renamed over it). Never inside the private places,
// never a symlink (refused, not followed), never a folder.
func (r Rules) Replace(path string, data []byte) error {
	if !filepath.IsAbs(path) {
		return refuse(path, "not an absolute path")
	}
	dir, base := filepath.Split(filepath.Clean(path))
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	target := filepath.Join(real, base)
	if r.private(real) || r.private(target) {
		return refuse(path, "inside egohost's own state: nothing writes there")
	}
	if fi, err := os.Lstat(target); err == nil && !fi.Mode().IsRegular() {
		return refuse(path, "not a regular file (%v): never replaced, never followed", fi.Mode().Type())
	}
	tmp, err := os.CreateTemp(real, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is there
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// private reports whether path (resolved) is one of the private places
// or inside one. Identity decides (os.SameFile on path and each folder
// above it), so another spelling of the same folder (case, a bind mount)
// or a hard link to the token does not get past.
func (r Rules) private(path string) bool {
	var places []os.FileInfo
	for _, p := range r.Private {
		if p == "" {
			continue
		}
		if within(path, p) {
			return true
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && within(path, real) {
			return true
		}
		if fi, err := os.Stat(p); err == nil {
			places = append(places, fi)
		}
	}
	for p := path; ; {
		if fi, err := os.Stat(p); err == nil {
			for _, place := range places {
				if os.SameFile(fi, place) {
					return true
				}
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
}

// underUploadDir reports whether path is inside one of UploadDirs, as
// written or with their symlinks resolved.
func (r Rules) underUploadDir(path string) bool {
	for _, d := range r.UploadDirs {
		if d == "" {
			continue
		}
		if within(path, filepath.Clean(d)) {
			return true
		}
		if real, err := filepath.EvalSymlinks(d); err == nil && within(path, real) {
			return true
		}
	}
	return false
}

// within reports whether path is dir or inside it, both clean and
// absolute (a lexical test).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
