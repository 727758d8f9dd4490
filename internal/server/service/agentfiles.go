package service

import (
	"context"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/protocol"
)

// This file is what a call may do with the person's files: filegate's
// rules applied to the caller (upload's files and bytes here, script.run's
// files, a screenshot's file), and what the audit log says of them
// (noteFiles). A paired agent names no file of the person's outside
// agents.upload_dirs and writes only new files in agents.output_dir;
// nobody reaches the state dir.

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
	// The owner's and the person's files as they are; a paired agent's
	// (inside agents.upload_dirs) and every payload as copies in the
	// upload store, at most agents.upload_max_bytes in all.
	batch := s.uploads.Stage(s.opts.UploadMaxBytes)
	files, named, err := s.files.StageUpload(batch, isPairedCall(c.conn), p.Files, p.Payloads)
	c.noteFiles(named...)
	if err != nil {
		return nil, err
	}
	defer batch.Discard() // unless the page took them
	return s.pageMethods().RunAct(ctx, pageCall{c}, p.Target, "upload", p.ActionOptions, func(ctx context.Context, pt *pageTab, r *actions.Runner, o actions.ActOptions) (*actions.Result, error) {
		tc := pt.tc
		o.Confirm = s.confirmHook(ctx, c, tc, r, confirm.UploadVerb(len(files)), false, confirm.Upload)
		res, err := r.SetFiles(ctx, p.Element, files, o)
		if err == nil {
			batch.Keep(tc.link.UploadOwner(tc.tabID)) // Chrome reads them when the page does
		}
		return res, err
	})
}

// noteFiles records, for the call's audit line, the files it names
// (paths, a payload's name and size): never their content.
func (c *call) noteFiles(files ...string) {
	c.mu.Lock()
	c.files = files
	c.mu.Unlock()
}
