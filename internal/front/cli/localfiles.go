package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/egohost/egohost/internal/server/filegate"
	"github.com/egohost/egohost/protocol"
)

// The CLI's side of the file rules (README "Security"): on a paired
// agent's token (EGOHOST_AGENT_TOKEN_FILE) it reads the files it uploads
// itself and sends their bytes (it can give only what its own user or
// sandbox can read); it writes screenshots itself, with its own rights,
// from the bytes the service returns. Either way never the state dir,
// never through a symlink.

// pairedToken reports whether the CLI speaks as a paired agent.
func pairedToken() bool { return os.Getenv(EnvAgentTokenFile) != "" }

// localFiles are the CLI's file rules: egohost's own state is out of
// reach, as it is for the service.
func (e *env) localFiles() filegate.Rules {
	return filegate.Rules{Private: []string{e.cfg.StateDir, e.cfg.DataDir, e.cfg.TokenFile}}
}

// readPayloads reads files (absolute paths) into payloads, at most
// agents.upload_max_bytes in all.
func (e *env) readPayloads(op string, files []string) ([]protocol.FilePayload, error) {
	rules, limit := e.localFiles(), int64(e.cfg.Agents.UploadMaxBytes)
	var out []protocol.FilePayload
	var total int64
	for _, path := range files {
		f, err := rules.Open(path, false)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		data, err := io.ReadAll(io.LimitReader(f, limit-total+1))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		if total += int64(len(data)); total > limit {
			return nil, fmt.Errorf("%s: the files exceed %d bytes in all (agents.upload_max_bytes)", op, limit)
		}
		out = append(out, protocol.FilePayload{Name: filepath.Base(path), Data: data})
	}
	return out, nil
}

// uploadParams sends an upload's files as bytes on a paired token.
func (e *env) uploadParams(params any) (any, error) {
	p := params.(protocol.UploadParams)
	if !pairedToken() || len(p.Files) == 0 {
		return p, nil
	}
	payloads, err := e.readPayloads("upload", p.Files)
	if err != nil {
		return nil, err
	}
	p.Files, p.Payloads = nil, payloads
	return p, nil
}

// screenshotCall is the screenshot verb's call: the service returns the
// PNG, the CLI writes it to file.
type screenshotCall struct {
	protocol.ScreenshotParams
	file string // absolute
}

// saveScreenshot writes the PNG of raw to the call's file (as the
// person's own tools write: filegate.Rules.Replace) and answers raw with
// the path instead of the bytes.
func (e *env) saveScreenshot(params any, raw json.RawMessage) (json.RawMessage, error) {
	call := params.(screenshotCall)
	var r protocol.ScreenshotResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("screenshot: bad reply: %w", err)
	}
	if err := e.localFiles().Replace(call.file, r.Data); err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	r.Path, r.Data = call.file, nil
	return json.Marshal(r)
}
