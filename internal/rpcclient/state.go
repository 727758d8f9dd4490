package rpcclient

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/egohost/egohost/protocol"
)

// ReadState reads the state file of the service that runs (or last ran)
// with stateDir; ok is false when there is none, or it says no address.
func ReadState(stateDir string) (st protocol.ServiceState, ok bool) {
	b, err := os.ReadFile(filepath.Join(stateDir, protocol.StateFile))
	if err != nil || json.Unmarshal(b, &st) != nil || st.Addr == "" {
		return st, false
	}
	return st, true
}

// ReadToken reads the service's token file (the bearer token a dial needs).
func ReadToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read token: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
