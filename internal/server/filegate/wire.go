package filegate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/egohost/egohost/protocol"
)

// The rules applied to an agent's call: the files upload hands the
// browser (StageUpload), those a script is given (CheckScript), the file
// a screenshot writes (CreateOutput), each refusal worded with the wire's
// codes. agent is true for a paired agent (not the owner token nor the
// person): it names no file outside UploadDirs and writes only plain
// names into OutputDir. The named lists are for the call's audit line:
// each path and each payload's name and size, never a file's content.

// StageUpload checks an upload's files (paths, then payloads by their
// bytes) and returns the paths to hand the browser: the owner's and the
// person's files as they are; a paired agent's files and every payload as
// copies in b, at most b's limit in all. named is what the checks went
// through, refused or not. On an error b is discarded.
func (r Rules) StageUpload(b *Batch, agent bool, paths []string, payloads []protocol.FilePayload) (out, named []string, err error) {
	defer func() {
		if err != nil {
			b.Discard()
		}
	}()
	for _, path := range paths {
		named = append(named, path)
		if !filepath.IsAbs(path) {
			return nil, named, protocol.Errorf(protocol.CodeInvalidParams, "upload: %q is not an absolute path", path)
		}
		if !agent {
			real, _, err := r.Check(path, false)
			if err != nil {
				return nil, named, wireError("upload", err)
			}
			out = append(out, real)
			continue
		}
		f, err := r.Open(path, true)
		if err != nil {
			return nil, named, wireError("upload", err)
		}
		copied, err := b.Copy(filepath.Base(path), f)
		f.Close()
		if err != nil {
			return nil, named, wireError("upload", err)
		}
		out = append(out, copied)
	}
	named = append(named, payloadNames(payloads)...)
	if total(payloads) > b.limit {
		return nil, named, wireError("upload", &TooLargeError{Limit: b.limit})
	}
	for _, pl := range payloads {
		path, err := b.Write(SanitizeName(pl.Name, pl.MimeType), pl.Data)
		if err != nil {
			return nil, named, wireError("upload", err)
		}
		out = append(out, path)
	}
	return out, named, nil
}

// CheckScript checks the files a script is given (script.run's files and
// payloads, at most limit bytes) as StageUpload does, copying nothing:
// it returns the paths, cleaned, and what the checks went through.
func (r Rules) CheckScript(limit int64, agent bool, paths []string, payloads []protocol.FilePayload) (out, named []string, err error) {
	out = make([]string, 0, len(paths))
	for _, path := range paths {
		named = append(named, path)
		if !filepath.IsAbs(path) {
			return nil, named, protocol.Errorf(protocol.CodeInvalidParams, "script.run: file %q is not an absolute path", path)
		}
		if _, _, err := r.Check(path, agent); err != nil {
			return nil, named, wireError("script.run", err)
		}
		out = append(out, filepath.Clean(path))
	}
	named = append(named, payloadNames(payloads)...)
	if total(payloads) > limit {
		return nil, named, wireError("script.run", &TooLargeError{Limit: limit})
	}
	return out, named, nil
}

// payloadNames are payloads as the audit line names them: "a.txt (3 bytes)".
func payloadNames(payloads []protocol.FilePayload) []string {
	var out []string
	for _, pl := range payloads {
		out = append(out, fmt.Sprintf("%s (%d bytes)", SanitizeName(pl.Name, pl.MimeType), len(pl.Data)))
	}
	return out
}

// total is the payloads' bytes in all.
func total(payloads []protocol.FilePayload) int64 {
	var n int64
	for _, pl := range payloads {
		n += int64(len(pl.Data))
	}
	return n
}

// Output is a new file a call writes (a screenshot): Discard removes it
// unless Write filled it.
type Output struct {
	// Path is where it is, its folder's symlinks resolved.
	Path string
	f    *os.File
}

// CreateOutput makes the new file path names for op's caller (Create): a
// paired agent's plain name in OutputDir; the owner's or the person's
// absolute path too.
func (r Rules) CreateOutput(op, path string, agent bool) (*Output, error) {
	f, real, err := r.Create(path, agent)
	if err != nil {
		return nil, wireError(op, err)
	}
	return &Output{Path: real, f: f}, nil
}

// Write fills the file with b and closes it; on an error the file goes.
func (o *Output) Write(b []byte) error {
	_, err := o.f.Write(b)
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	o.f = nil
	if err != nil {
		os.Remove(o.Path)
	}
	return err
}

// Discard removes the file unless Write filled it.
func (o *Output) Discard() {
	if o.f != nil {
		o.f.Close()
		os.Remove(o.Path)
		o.f = nil
	}
}

// wireError is the wire error of a file op may not use.
func wireError(op string, err error) error {
	var (
		fe *Error
		tl *TooLargeError
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
