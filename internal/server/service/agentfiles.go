package service

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/filegate"
	"github.com/egohost/egohost/protocol"
)

// This file is what a call may do with the person's files: filegate's
// rules applied to the caller (upload's files and bytes, script.run's
// files, a screenshot's file), and what the audit log says of them. A
// paired agent names no file of the person's outside agents.upload_dirs
// and writes only new files in agents.output_dir; nobody reaches the
// state dir.

// uploadsFolder (in the state dir) holds the files pages were handed.
const uploadsFolder = "uploads"

// uploadsKept is how many times agents.upload_max_bytes the upload store
// keeps in all before the oldest files go.
const uploadsKept = 4

// isPairedCall reports whether the caller is a paired agent (the owner
// token and the person are not).
func isPairedCall(a *agent) bool { return a.grant.kind == grantPaired }

// upload sets an <input type=file>'s files: p.Files (paths, checked for
// the caller) then p.Payloads (bytes, written into the upload store).
// Everything is checked, copied and written before the page is touched.
func (s *Service) upload(ctx context.Context, c *call, p protocol.UploadParams) (any, error) {
	if err := p.Check(protocol.MethodUpload); err != nil {
		return nil, err
	}
	files, batch, err := s.stageUpload(ctx, c, p.Files, p.Payloads)
	if err != nil {
		return nil, err
	}
	defer batch.Discard() // unless the page took them
	return s.runAct(ctx, c, p.Target, "upload", p.ActionOptions, func(ctx context.Context, tc *tabContext, r *actions.Runner, o actions.ActOptions) (*actions.Result, error) {
		o.Confirm = s.confirmHook(ctx, c, tc, r, uploadVerb(len(files)), false, confirm.Upload)
		res, err := r.SetFiles(ctx, p.Element, files, o)
		if err == nil {
			batch.Keep(tc.link.UploadOwner(tc.tabID)) // Chrome reads them when the page does
		}
		return res, err
	})
}

// uploadVerb words an upload for the person: "upload 2 files to".
func uploadVerb(n int) string {
	if n == 1 {
		return "upload 1 file to"
	}
	return fmt.Sprintf("upload %d files to", n)
}

// stageUpload checks the files of an upload for its caller and returns
// the paths to hand the browser: the owner's and the person's files as
// they are; a paired agent's files (inside agents.upload_dirs) and every
// payload as copies in the upload store, at most agents.upload_max_bytes
// in all. The audit line names each file, never its content.
func (s *Service) stageUpload(ctx context.Context, c *call, paths []string, payloads []protocol.FilePayload) (out []string, batch *filegate.Batch, err error) {
	paired := isPairedCall(c.conn)
	batch = s.uploads.Stage(s.opts.UploadMaxBytes)
	var named []string
	defer func() {
		c.noteFiles(named...)
		if err != nil {
			batch.Discard()
		}
	}()
	var total int64
	for _, pl := range payloads {
		total += int64(len(pl.Data))
	}
	for _, path := range paths {
		named = append(named, path)
		if !filepath.IsAbs(path) {
			return nil, batch, protocol.Errorf(protocol.CodeInvalidParams, "upload: %q is not an absolute path", path)
		}
		if !paired {
			real, _, err := s.files.Check(path, false)
			if err != nil {
				return nil, batch, fileError("upload", err)
			}
			out = append(out, real)
			continue
		}
		f, err := s.files.Open(path, true)
		if err != nil {
			return nil, batch, fileError("upload", err)
		}
		copied, err := batch.Copy(filepath.Base(path), f)
		f.Close()
		if err != nil {
			return nil, batch, fileError("upload", err)
		}
		out = append(out, copied)
	}
	for _, pl := range payloads {
		named = append(named, fmt.Sprintf("%s (%d bytes)", filegate.SanitizeName(pl.Name, pl.MimeType), len(pl.Data)))
	}
	if total > s.opts.UploadMaxBytes {
		return nil, batch, fileError("upload", &filegate.TooLargeError{Limit: s.opts.UploadMaxBytes})
	}
	for _, pl := range payloads {
		path, err := batch.Write(filegate.SanitizeName(pl.Name, pl.MimeType), pl.Data)
		if err != nil {
			return nil, batch, fileError("upload", err)
		}
		out = append(out, path)
	}
	return out, batch, nil
}

// checkScriptFiles checks the files a script is given (script.run's
// files and payloads) as upload checks them, before the script runs.
func (s *Service) checkScriptFiles(ctx context.Context, c *call, paths []string, payloads []protocol.FilePayload) ([]string, error) {
	var named []string
	defer func() { c.noteFiles(named...) }()
	out := make([]string, 0, len(paths))
	for _, path := range paths {
		named = append(named, path)
		if !filepath.IsAbs(path) {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "script.run: file %q is not an absolute path", path)
		}
		if _, _, err := s.files.Check(path, isPairedCall(c.conn)); err != nil {
			return nil, fileError("script.run", err)
		}
		out = append(out, filepath.Clean(path))
	}
	var total int64
	for _, pl := range payloads {
		named = append(named, fmt.Sprintf("%s (%d bytes)", filegate.SanitizeName(pl.Name, pl.MimeType), len(pl.Data)))
		total += int64(len(pl.Data))
	}
	if total > s.opts.UploadMaxBytes {
		return nil, fileError("script.run", &filegate.TooLargeError{Limit: s.opts.UploadMaxBytes})
	}
	return out, nil
}

// newFile is a file a call made to write (a screenshot): discard removes
// it unless write filled it.
type newFile struct {
	f    *os.File
	path string
}

// createFile makes the new file path names for the caller
// (filegate.Rules.Create): a paired agent's plain name in the output
// folder; the owner's or the person's absolute path too.
func (s *Service) createFile(ctx context.Context, c *call, op, path string) (*newFile, error) {
	c.noteFiles(path)
	f, real, err := s.files.Create(path, isPairedCall(c.conn))
	if err != nil {
		return nil, fileError(op, err)
	}
	c.noteFiles(real)
	return &newFile{f: f, path: real}, nil
}

func (n *newFile) write(b []byte) error {
	_, err := n.f.Write(b)
	if cerr := n.f.Close(); err == nil {
		err = cerr
	}
	n.f = nil
	if err != nil {
		os.Remove(n.path)
	}
	return err
}

func (n *newFile) discard() {
	if n.f != nil {
		n.f.Close()
		os.Remove(n.path)
		n.f = nil
	}
}

// fileError is the wire error of a file a call may not use.
func fileError(op string, err error) error {
	var (
		fe *filegate.Error
		tl *filegate.TooLargeError
	)
	switch {
	case errors.As(err, &fe):
		return protocol.Errorf(protocol.CodeForbiddenPath, "%s: %s: %s", op, fe.Path, fe.Reason).With("path", fe.Path).With("reason", fe.Reason)
	case errors.As(err, &tl):
		return protocol.Errorf(protocol.CodeTooLarge, "%s: %v", op, err).With("limit", tl.Limit)
	case errors.Is(err, fs.ErrNotExist):
		return protocol.Errorf(protocol.CodeInvalidParams, "%s: %v", op, err)
	}
	return protocol.Errorf(protocol.CodeInternal, "%s: %v", op, err)
}

// noteFiles records, for the call's audit line, the files it names
// (paths, a payload's name and size): never their content.
func (c *call) noteFiles(files ...string) {
	c.mu.Lock()
	c.files = files
	c.mu.Unlock()
}
