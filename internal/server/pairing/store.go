package pairing

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/egohost/egohost/protocol"
)

// Agent is a paired agent as the store keeps it: never its token, only
// the token's SHA-256.
type Agent struct {
	Name      string    `json:"name"`
	ID        string    `json:"id"` // the token's id part
	Scopes    []Scope   `json:"scopes"`
	Hash      string    `json:"sha256"` // hex SHA-256 of the whole token
	Paired    time.Time `json:"paired"`
	Process   *Process  `json:"process,omitempty"` // who asked, when known
	Revoked   bool      `json:"revoked,omitempty"`
	RevokedAt time.Time `json:"revokedAt,omitzero"`
}

// ErrUnknownToken is Lookup's error for a token the store never issued.
var ErrUnknownToken = errors.New("unknown agent token")

// ErrRevoked is Lookup's error for a token whose agent was revoked.
var ErrRevoked = errors.New("agent token revoked")

// ErrNoAgent is the error for a name that is not paired.
var ErrNoAgent = errors.New("no such paired agent")

// namePattern is compiled on first use: {0,63} makes a large program,
// and every start of the binary (a CLI call) would pay for it.
var namePattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
})

// CheckName refuses names the CLI, the popup and the audit log could not
// show plainly: 1 to 64 of letters, digits, '.', '_', '-', starting with a
// letter or digit.
// "owner" and "person" are taken: the audit log's names for the owner
// token and the person at the popup.
func CheckName(name string) error {
	if !namePattern().MatchString(name) {
		return fmt.Errorf("agent name %q: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	if strings.EqualFold(name, "owner") || strings.EqualFold(name, "person") {
		return fmt.Errorf("agent name %q is reserved (the audit log's name for the owner and the person)", name)
	}
	return nil
}

// Store is the paired agents, kept in an owner-only JSON file. It is safe
// for concurrent use.
type Store struct {
	path string
	now  func() time.Time

	mu     sync.Mutex
	agents []*Agent
}

type storeFile struct {
	Agents []*Agent `json:"agents"`
}

// Open reads the store at path (missing: empty).
func Open(path string, now func() time.Time) (*Store, error) {
	s := &Store{path: path, now: now}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("open paired agents: %w", err)
	}
	var f storeFile
	if err := json.Unmarshal(b, &f); err != nil {
		return s, fmt.Errorf("open paired agents %s: %w", path, err)
	}
	s.agents = f.Agents
	return s, nil
}

// Add pairs name with scopes and returns its new token, shown once. A
// name paired before is revoked first (its token stops working).
func (s *Store) Add(name string, scopes []Scope, proc *Process) (token string, a Agent, err error) {
	if err := CheckName(name); err != nil {
		return "", a, err
	}
	var id [8]byte
	var secret [32]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", a, fmt.Errorf("pair %s: %w", name, err)
	}
	if _, err := rand.Read(secret[:]); err != nil {
		return "", a, fmt.Errorf("pair %s: %w", name, err)
	}
	token = protocol.AgentTokenPrefix + hex.EncodeToString(id[:]) + "_" + hex.EncodeToString(secret[:])
	na := &Agent{Name: name, ID: hex.EncodeToString(id[:]), Scopes: slices.Clone(scopes), Hash: HashToken(token), Paired: s.now().UTC(), Process: proc}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Earlier pairings of the name stay, revoked: their tokens answer
	// "revoked", not "unknown".
	for _, old := range s.agents {
		if old.Name == name && !old.Revoked {
			old.Revoked, old.RevokedAt = true, s.now().UTC()
		}
	}
	s.agents = append(s.agents, na)
	if err := s.save(); err != nil {
		s.agents = s.agents[:len(s.agents)-1]
		return "", a, err
	}
	return token, *na, nil
}

// Lookup returns the agent a token belongs to.
func (s *Store) Lookup(token string) (Agent, error) {
	id, ok := tokenID(token)
	if !ok {
		return Agent{}, ErrUnknownToken
	}
	h := HashToken(token)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.agents {
		if a.ID == id && subtle.ConstantTimeCompare([]byte(a.Hash), []byte(h)) == 1 {
			if a.Revoked {
				return *a, ErrRevoked
			}
			return *a, nil
		}
	}
	return Agent{}, ErrUnknownToken
}

// ByID returns the agent whose token has the id part id (the service's
// hello proof for paired tokens is keyed with its hash).
func (s *Store) ByID(id string) (Agent, bool) {
	return s.liveCopy(func(a *Agent) bool { return a.ID == id })
}

// Revoke revokes name's token and returns the revoked agent's token id.
func (s *Store) Revoke(name string) (Agent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.live(func(a *Agent) bool { return a.Name == name })
	if a == nil {
		return Agent{}, fmt.Errorf("revoke %q: %w", name, ErrNoAgent)
	}
	a.Revoked, a.RevokedAt = true, s.now().UTC()
	if err := s.save(); err != nil {
		a.Revoked, a.RevokedAt = false, time.Time{}
		return Agent{}, err
	}
	return *a, nil
}

// List returns every pairing, the live ones first, each group by name.
func (s *Store) List() []Agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Agent, 0, len(s.agents))
	for _, a := range s.agents {
		out = append(out, *a)
	}
	slices.SortStableFunc(out, func(a, b Agent) int {
		if a.Revoked != b.Revoked {
			if a.Revoked {
				return 1
			}
			return -1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// Live returns the pairing of name that is not revoked, if any.
func (s *Store) Live(name string) (Agent, bool) {
	return s.liveCopy(func(a *Agent) bool { return a.Name == name })
}

// liveCopy is live under s.mu: a copy of the pairing, if any.
func (s *Store) liveCopy(is func(*Agent) bool) (Agent, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.live(is); a != nil {
		return *a, true
	}
	return Agent{}, false
}

// live returns the first pairing that is not revoked and for which is
// holds, or nil. s.mu is held.
func (s *Store) live(is func(*Agent) bool) *Agent {
	for _, a := range s.agents {
		if !a.Revoked && is(a) {
			return a
		}
	}
	return nil
}

// save writes the store, owner-only, atomically. s.mu is held.
func (s *Store) save() error {
	b, err := json.MarshalIndent(storeFile{Agents: s.agents}, "", "  ")
	if err != nil {
		return fmt.Errorf("save paired agents: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".agents-*")
	if err != nil {
		return fmt.Errorf("save paired agents: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("save paired agents: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("save paired agents: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save paired agents: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("save paired agents: %w", err)
	}
	return nil
}

// HashToken is the hex SHA-256 the store keeps of a token. A token holds
// 256 random bits, so a plain hash is enough (no salt, no stretching).
func HashToken(token string) string { return protocol.TokenHash(token) }

func tokenID(token string) (string, bool) { return protocol.AgentTokenID(token) }

// Path is the store's file.
func (s *Store) Path() string { return s.path }
