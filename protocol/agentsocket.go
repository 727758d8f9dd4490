package protocol

// AgentSocketFile is the name of the agents' unix socket in the state dir
// (PROTOCOL.md §3, "The agent socket"): the CLI's transport. A frame on it
// is a 32-bit length in native byte order and that many bytes of JSON (the
// relay leg's framing); the handshake is a SocketHello answered by a
// SocketReply with the proof, then a SocketAuth answered by a SocketReply
// with OK, then one JSON-RPC message per frame both ways.
const AgentSocketFile = "agent.sock"

// SocketHelloWord is SocketHello.Hello.
const SocketHelloWord = "egohost"

// SocketHandshakeLimit caps a handshake frame on the agent socket, both
// ways: no token, challenge or error is near it.
const SocketHandshakeLimit = 64 << 10

// SocketHello is a client's first frame on the agent socket: a challenge
// the service must answer with Proof before the client sends its token,
// as GET HelloPath on the WebSocket's port.
type SocketHello struct {
	Hello     string `json:"hello"`           // SocketHelloWord
	Challenge string `json:"c"`               // 32 to 128 characters of random challenge
	Agent     string `json:"agent,omitempty"` // the paired token's id (ProofKey); "" for the owner token
}

// SocketAuth is a client's second frame, sent once the service proved it
// holds the token: the token and the agent name (as the Authorization and
// X-Egohost-Agent headers of the WebSocket's handshake).
type SocketAuth struct {
	Token string `json:"token"`
	Agent string `json:"agent,omitempty"`
}

// SocketReply is the service's answer to a SocketHello (Proof, Version) or
// to a SocketAuth (OK). A refusal carries only Error, and the service
// closes the socket after it.
type SocketReply struct {
	Proof   string `json:"proof,omitempty"`
	Version string `json:"version,omitempty"`
	OK      bool   `json:"ok,omitempty"`
	Error   *Error `json:"error,omitempty"`
}
