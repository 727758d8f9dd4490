package service

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/egohost/egohost"
	"github.com/egohost/egohost/internal/server/browserids"
	"github.com/egohost/egohost/internal/server/hub"
	"github.com/egohost/egohost/internal/server/privfile"
)

// Where the service keeps what (README "Where egohost keeps its files"):
//
//   - the state dir (Options.StateDir, a runtime folder that may be wiped at
//     logout): service.json, the relay socket and the owner token. They
//     belong to the running service: the token is made again at start, and
//     never lands on a disk a backup copies.
//   - the data dir (Options.DataDir): what must outlive a logout or a
//     reboot — the paired agents (agents.json) and their tokens
//     (agents/NAME.token, written by `egohost pair` and `egohost mcp`), the
//     known browsers, the spaces, the ref counter and the audit log.

// AgentsDir is the folder (in the data dir) of the paired agents' tokens
// that `egohost pair` and `egohost mcp` keep: NAME.token, owner-only.
const AgentsDir = egohost.AgentsDir

// durableFiles are the data dir's files, as an older egohost left them in
// the state dir; the audit log's rotated files and AgentsDir go with them.
var durableFiles = []string{agentsFile, spacesFile, browserids.File, hub.RefsFile, AuditFile}

// MigrateDurable moves the durable files an older egohost kept in
// stateDir to dataDir, each only when dataDir has none of that name yet
// (a file there is never overwritten), and returns what it moved. Both
// dirs are made owner-only. The same dir twice moves nothing.
func MigrateDurable(stateDir, dataDir string) ([]string, error) {
	if filepath.Clean(stateDir) == filepath.Clean(dataDir) {
		return nil, nil
	}
	names := slices.Clone(durableFiles)
	if ents, err := os.ReadDir(stateDir); err == nil {
		for _, e := range ents {
			if rest, ok := strings.CutPrefix(e.Name(), AuditFile+"."); ok {
				if _, err := strconv.Atoi(rest); err == nil {
					names = append(names, e.Name())
				}
			}
		}
	}
	if ents, err := os.ReadDir(filepath.Join(stateDir, AgentsDir)); err == nil {
		for _, e := range ents {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".token") {
				names = append(names, filepath.Join(AgentsDir, e.Name()))
			}
		}
	}
	var moved []string
	for _, name := range names {
		ok, err := privfile.Move(filepath.Join(stateDir, name), filepath.Join(dataDir, name))
		if err != nil {
			return moved, err
		}
		if ok {
			moved = append(moved, name)
		}
	}
	return moved, nil
}
