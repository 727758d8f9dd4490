package client

import (
	"github.com/egohost/egohost/internal/rpcclient"
	"github.com/egohost/egohost/protocol"
)

// StateFile is the name of the file (in the state dir) where a running
// service says where it listens (protocol.StateFile).
const StateFile = protocol.StateFile

// State is the content of StateFile (protocol.ServiceState).
type State = protocol.ServiceState

// ReadState reads the state file of the service that runs (or last ran)
// with stateDir; ok is false when there is none, or it says no address.
func ReadState(stateDir string) (st State, ok bool) { return rpcclient.ReadState(stateDir) }

// ReadToken reads the service's token file (the bearer token Dial needs).
func ReadToken(path string) (string, error) { return rpcclient.ReadToken(path) }
