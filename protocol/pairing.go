package protocol

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// Pairing, paired agents and the audit log (PROTOCOL.md §3.7).
const (
	// MethodPairRequest asks the person for a token; the one method a
	// connection without a token may call.
	MethodPairRequest   = "pair.request"
	MethodAgentsList    = "agents.list"
	MethodAgentsApprove = "agents.approve"
	MethodAgentsDeny    = "agents.deny"
	MethodAgentsRevoke  = "agents.revoke"
	MethodAuditTail     = "audit.tail"
)

// PairRequestParams are the params of pair.request.
type PairRequestParams struct {
	Name   string   `json:"name"`
	Scopes []string `json:"scopes,omitempty"` // default ["space"]
	// WaitMs is how long to wait for the person's answer (default
	// 120000, at most 600000).
	WaitMs int `json:"waitMs,omitempty"`
}

// PairRequestResult answers an approved pair.request: the agent's token,
// shown this once (the service keeps only its hash).
type PairRequestResult struct {
	Name   string   `json:"name"`
	Token  string   `json:"token"`
	Scopes []string `json:"scopes"`
}

// AgentNameParams name a paired agent or a pairing request
// (agents.deny, agents.revoke).
type AgentNameParams struct {
	Name string `json:"name"`
}

// AgentsApproveParams are the params of agents.approve: the request by
// its agent's name or its id, and what the person grants.
type AgentsApproveParams struct {
	Name string `json:"name"` // the request's agent name, or its id
	// Scopes, when set, grants these instead of all the request asked
	// for: a subset of them (the person narrows the grant).
	Scopes []string `json:"scopes,omitempty"`
	// Replace must be true when the name is paired already: approving
	// then revokes that pairing's token. Without it such a request is
	// refused (invalid_params, data.replaces), never silently replaced.
	Replace bool `json:"replace,omitempty"`
}

// PeerProcess is the process that asked to pair, where the OS tells.
type PeerProcess struct {
	PID int    `json:"pid,omitempty"`
	Exe string `json:"exe,omitempty"`
	UID int    `json:"uid"`
	// OtherUser is set when the socket belongs to another OS user than
	// the service's (its process is then not visible: no pid, no exe).
	OtherUser bool `json:"otherUser,omitempty"`
}

// PairedAgent is one pairing in agents.list.
type PairedAgent struct {
	Name      string       `json:"name"`
	Scopes    []string     `json:"scopes"`
	Paired    time.Time    `json:"paired"`
	Process   *PeerProcess `json:"process,omitempty"`
	Revoked   bool         `json:"revoked,omitempty"`
	Connected int          `json:"connected"` // live connections with its token
}

// PairingRequest is a pairing request waiting for the person.
type PairingRequest struct {
	ID      string       `json:"id"`
	Name    string       `json:"name"`
	Scopes  []string     `json:"scopes"`
	Process *PeerProcess `json:"process,omitempty"`
	Asked   time.Time    `json:"asked"`
	Expires time.Time    `json:"expires"`
	// Replaces is the live pairing of the same name, when there is one:
	// approving the request revokes it (only with replace).
	Replaces *PairedAgent `json:"replaces,omitempty"`
}

// AgentsListResult answers agents.list.
type AgentsListResult struct {
	Agents  []PairedAgent    `json:"agents"`
	Pending []PairingRequest `json:"pending"`
}

// AgentsRevokeResult answers agents.revoke.
type AgentsRevokeResult struct {
	Name string `json:"name"`
	Cut  int    `json:"cut"` // live connections closed
	// Scripted are the person's tabs (in no agent's space) whose page ran
	// an agent's own script, or a tab linked to it did: an agent with
	// all-tabs leaves its script in the person's own pages, which a
	// revocation does not end (reload them before typing there), once
	// the tabs in CloseFirst are closed (Space.CloseFirst).
	Scripted   []Target `json:"scripted,omitempty"`
	CloseFirst []Target `json:"closeFirst,omitempty"`
}

// AuditTailParams are the params of audit.tail.
type AuditTailParams struct {
	Agent string `json:"agent,omitempty"`
	Since string `json:"since,omitempty"` // RFC 3339 time
	Limit int    `json:"limit,omitempty"` // default 50, at most 1000
}

// AuditEntry is one line of the audit log (PROTOCOL.md §3.7).
type AuditEntry struct {
	Time     time.Time `json:"time"`
	Agent    string    `json:"agent"`
	Method   string    `json:"method"`
	Browser  string    `json:"browser,omitempty"`
	Tab      int       `json:"tab,omitempty"`
	Origin   string    `json:"origin,omitempty"`
	Target   string    `json:"target,omitempty"`
	Key      string    `json:"key,omitempty"`
	Length   *int      `json:"length,omitempty"`
	SHA256   string    `json:"sha256,omitempty"`
	URL      string    `json:"url,omitempty"`
	Result   string    `json:"result"`
	Duration float64   `json:"ms"`
	Scopes   []string  `json:"scopes,omitempty"`  // a pairing's scopes: asked for (pair.request) or granted (agents.approve)
	Process  string    `json:"process,omitempty"` // pair.request: the process that asked

	// Files name the files the call read or wrote (upload: each path, or
	// a payload's name and size; screenshot: the path written); never
	// their content.
	Files []string `json:"files,omitempty"`
}

// AuditTailResult answers audit.tail.
type AuditTailResult struct {
	Entries []AuditEntry `json:"entries"`
	// Skipped counts the log's lines that were not entries (passed over).
	Skipped int `json:"skipped,omitempty"`
}

// AgentTokenPrefix starts every paired agent's token:
// "egoa_<id>_<secret>", id 16 hex digits (which pairing), secret 64
// (256 random bits).
const AgentTokenPrefix = "egoa_"

// AgentTokenID returns the id part of a paired agent's token, and whether
// token has that shape at all.
func AgentTokenID(token string) (string, bool) {
	rest, ok := strings.CutPrefix(token, AgentTokenPrefix)
	if !ok {
		return "", false
	}
	id, secret, ok := strings.Cut(rest, "_")
	if !ok || len(id) != 16 || len(secret) != 64 || !isHex(id) || !isHex(secret) {
		return "", false
	}
	return id, true
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

// TokenHash is the hex SHA-256 of a token: what the service keeps of a
// paired agent's token, and the key of its hello proof.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// ProofKey returns the key of the hello proof (HelloPath) for token, and
// the agent id the client sends with its challenge (&agent=ID): the owner
// token proves with itself; a paired agent's token with its hash, all the
// service keeps of it.
func ProofKey(token string) (key, agentID string) {
	if id, ok := AgentTokenID(token); ok {
		return TokenHash(token), id
	}
	return token, ""
}

// Popup methods of pairing (PROTOCOL.md §2.6, §3.7).
const (
	// MethodPopupAgents returns the paired agents, the requests waiting
	// and the last calls of the audit log, for the popup's agents panel.
	MethodPopupAgents = "popup.agents"
	// MethodPopupPairingDecide is the popup's approve / deny buttons.
	MethodPopupPairingDecide = "popup.pairing.decide"
)

// PopupAgentsParams are the params of popup.agents.
type PopupAgentsParams struct {
	Agent string `json:"agent,omitempty"` // only this agent's calls
	Limit int    `json:"limit,omitempty"` // calls to return (default 20, at most 200)
	// PerAgent, when > 0 (at most 20), also returns each agent's last
	// PerAgent calls in Recent.
	PerAgent int `json:"perAgent,omitempty"`
}

// PopupAgentsResult answers popup.agents.
type PopupAgentsResult struct {
	AgentsListResult
	Calls []AuditEntry `json:"calls"` // the last calls, oldest first
	// Connections are the live agent connections, with their calls in
	// flight (the popup's "doing now").
	Connections []AgentConnection `json:"connections"`
	// Recent is each agent's last calls (audit name → entries, oldest
	// first), with perAgent > 0.
	Recent map[string][]AuditEntry `json:"recent,omitempty"`
}

// AgentConnection is one live agent connection.
type AgentConnection struct {
	ID     uint64 `json:"id"`
	Agent  string `json:"agent"`  // its name; "" is the owner token without a name (the person's CLI)
	Paired bool   `json:"paired"` // a paired agent's token (else the owner token)
	// Since is when it connected.
	Since   time.Time      `json:"since"`
	Process *PeerProcess   `json:"process,omitempty"` // the process at the other end, when the OS says
	Calls   []CallInFlight `json:"calls"`             // its calls running now, oldest first
}

// CallInFlight is a call an agent is waiting on.
type CallInFlight struct {
	Method string    `json:"method"`
	Target string    `json:"target,omitempty"` // as in the audit log: a locator or @ref, never a value
	Tab    int       `json:"tab,omitempty"`    // once the call has reached a tab
	Since  time.Time `json:"since"`
}

// MethodPopupDisconnect cuts an agent's live connections now, without
// revoking anything: the agent may connect again.
const MethodPopupDisconnect = "popup.disconnect"

// PopupDisconnectParams name the connections to cut: every one of the
// agent named Agent, or those numbered in Connections (popup.agents'
// ids; the owner's connections without a name are cut this way).
type PopupDisconnectParams struct {
	Agent       string   `json:"agent,omitempty"`
	Connections []uint64 `json:"connections,omitempty"`
}

// PopupDisconnectResult says how many connections were cut.
type PopupDisconnectResult struct {
	Cut int `json:"cut"`
}

// PopupPairingDecideParams are the params of popup.pairing.decide: the
// request by its id (or its agent's name) and the person's answer.
type PopupPairingDecideParams struct {
	ID      string `json:"id,omitempty"`
	Name    string `json:"name,omitempty"`
	Approve bool   `json:"approve"`
	// Replace confirms that approving replaces the name's live pairing
	// (the request's replaces, which the popup showed).
	Replace bool `json:"replace,omitempty"`
}

// NoticePairing is the topic of the notice the service pushes to every
// browser when pairing requests come or go: params PairingNotice.
const NoticePairing = "pairing"

// PairingNotice are the params of the pairing notice: the icon's badge
// ("1", "2", … while requests wait; "" when none) and the requests.
type PairingNotice struct {
	Badge   string           `json:"badge"`
	Pending []PairingRequest `json:"pending"`
}
