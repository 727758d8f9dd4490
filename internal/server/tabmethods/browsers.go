package tabmethods

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/protocol"
)

// Ping is ping: the service's version and its browsers; for the owner
// (`egohost status`) also its folders and what connections without a
// token did, which are not an agent's business.
func (m *Methods) Ping(ctx context.Context, c Call, _ rpcparams.None) (any, error) {
	connected, reconnecting := m.svc.Browsers()
	res := protocol.PingResult{Version: m.version, PID: os.Getpid(), Browsers: len(connected), Reconnecting: len(reconnecting)}
	if c.Owner() {
		res.Tokenless = m.svc.Tokenless()
		res.StateDir, res.DataDir = m.svc.Dirs()
	}
	return res, nil
}

// Browsers is browsers.list: the browsers connected, and those on their
// way back.
func (m *Methods) Browsers(ctx context.Context, _ Call, _ rpcparams.None) (any, error) {
	connected, reconnecting := m.svc.Browsers()
	return protocol.BrowsersListResult{Browsers: connected, Reconnecting: reconnecting}, nil
}

// maxEcho caps debug.echo's data: enough for the tests of chunking (3
// MiB the most), far from native messaging's 64 MiB, and a refusal that
// costs the tests little (the race-built service decoded 16 MiB + 1 in
// about 5 s of CPU).
const maxEcho = 4 << 20

// Echo is debug.echo: it sends data to the extension and back (the
// owner's, for tests of the chain).
func (m *Methods) Echo(ctx context.Context, c Call, p protocol.DebugEchoParams) (any, error) {
	if len(p.Data) > maxEcho {
		return nil, protocol.Errorf(protocol.CodeTooLarge, "debug.echo: %d bytes of data exceed %d", len(p.Data), maxEcho).With("limit", maxEcho)
	}
	b, err := c.Pick(ctx, p.Browser)
	if err != nil {
		return nil, err
	}
	raw, err := b.Call(ctx, extwire.Echo{Data: p.Data})
	if err != nil {
		return nil, err
	}
	var res struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, protocol.Errorf(protocol.CodeExtension, "echo: bad reply: %v", err)
	}
	sum := sha256.Sum256([]byte(res.Data))
	return protocol.DebugEchoResult{Length: len(res.Data), SHA256: hex.EncodeToString(sum[:])}, nil
}
