// Package hub keeps the connected browsers: it accepts a relay's
// connection (the peer's user, the relay's handshake, the allowed
// extension IDs), gives each browser its ID at its hello (the known
// browser IDs, internal/server/browserids), keeps the links by ID in
// connection order, remembers what the browsers that dropped said of
// themselves, and chooses the link a call goes to, waiting a while for a
// browser that is reconnecting.
//
// A Link is what every user of a browser needs: its browser link
// (browserlink) and the state of its tabs. What the hub's user keeps for
// each browser of its own (the service: the person at the browser, its
// popup, its spaces' sync) is not the hub's business: the hub is generic
// over that value, L, which its user makes for each new Link
// (Options.New) and which the hub hands back wherever it hands out a
// browser (Pick, Get, Links). The service's L embeds the *Link.
package hub

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/egohost/egohost"
	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/link/chromeext"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/peercred"
	"github.com/egohost/egohost/internal/server/browserids"
	"github.com/egohost/egohost/internal/server/filegate"
	"github.com/egohost/egohost/nativemsg"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
)

// Options configure a Hub whose user keeps an L for each browser.
type Options[L any] struct {
	AllowedIDs     []string      // extension IDs a relay may speak for
	MaxFrame       int           // cap of one frame from the browser
	ReconnectGrace time.Duration // how long a known browser that dropped counts as reconnecting
	ReconnectWait  time.Duration // how long Pick waits for a reconnecting browser (at most ReconnectGrace)
	// DataDir holds the known browser IDs (browserids.File) and the next
	// ref number (RefsFile).
	DataDir string
	// PeerUID names the user at the other end of a relay's connection
	// (peercred.Kernel; a test's own in tests): Serve refuses others.
	PeerUID func(fd int) (uint32, error)
	Uploads *filegate.Store // the files pages were handed: a tab's go when it closes
	Log     *slog.Logger

	// New makes the user's value for a browser whose relay was accepted,
	// before its link runs.
	New func(*Link) L
	// Call answers a request the extension makes of the service (the
	// popup channel) on the link of v; ReplyError words the error of its
	// reply (browserlink.Options).
	Call       func(ctx context.Context, v L, method string, params json.RawMessage) (any, error)
	ReplyError func(err error) *protocol.Error
	// Held reports whether a tab of l is one the person holds now, or
	// held at time at (Link.Held, Link.HeldAt; at zero: now).
	Held func(l *Link, tab int, at time.Time) bool
	// Regrouped is told that a tab of l moved from group from to group
	// to (0: none), as the browser reported it (the person dragged it, or
	// egohost grouped it). It runs in the link's reader: it must not
	// block. Optional.
	Regrouped func(l *Link, tab, from, to int)
}

// Hub is the set of connected browsers.
type Hub[L any] struct {
	opts  Options[L]
	log   *slog.Logger
	ids   atomic.Int64         // request and chunk numbers of every link
	known *browserids.Registry // browser IDs by profile key, and when each was last connected
	refs  *refmap.Counter      // ref numbers of every tab of every link, kept across restarts

	mu       sync.Mutex
	links    map[string]member[L]        // by browser ID, from their first hello
	order    []string                    // link IDs in connection order
	lastInfo map[string]protocol.Browser // what the browsers that dropped said of themselves, by ID
	carried  map[string]carried          // what the links that dropped knew of their tabs' pages, by ID (scripted.go)
	waiting  int                         // relay connections that have not said hello yet
	changed  chan struct{}               // closed and replaced whenever links change
}

// member is a connected browser: the hub's Link and its user's value.
type member[L any] struct {
	link *Link
	v    L
}

// New makes a hub, with the browser IDs known and the ref numbers
// reserved in opts.DataDir.
func New[L any](opts Options[L]) *Hub[L] {
	h := &Hub[L]{opts: opts, log: opts.Log, links: make(map[string]member[L]), lastInfo: make(map[string]protocol.Browser), changed: make(chan struct{})}
	// Start the numbering at a random point below 2^52 (exact in the
	// extension's JavaScript numbers), so a restarted service does not
	// reuse the numbers of the one before.
	var seed [8]byte
	_, _ = rand.Read(seed[:])
	h.ids.Store(int64(binary.LittleEndian.Uint64(seed[:]) >> 13))
	var err error
	if h.known, err = browserids.Load(filepath.Join(opts.DataDir, browserids.File), time.Now); err != nil {
		h.log.Warn("known browsers forgotten: browser IDs start over", "err", err)
	}
	h.refs = refCounter(filepath.Join(opts.DataDir, RefsFile), h.log)
	if h.carried, err = loadMarks(filepath.Join(opts.DataDir, MarksFile)); err != nil {
		h.log.Warn("what agents left in pages forgotten", "err", err)
	}
	return h
}

// Serve serves one relay's connection until it ends or ctx does: it
// checks the peer and the relay's handshake, and the browser is the hub's
// from its hello until its link ends.
func (h *Hub[L]) Serve(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	if err := peercred.Check(conn, h.opts.PeerUID); err != nil {
		h.log.Warn("relay refused", "err", err)
		return
	}
	r := nativemsg.NewBufferedReader(conn, h.opts.MaxFrame) // the link reads on with it
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	first, err := r.Read()
	if err != nil {
		h.log.Warn("relay handshake", "err", err)
		return
	}
	conn.SetReadDeadline(time.Time{})
	var hello extwire.RelayHello
	if err := json.Unmarshal(first, &hello); err != nil || hello.Relay != "hello" {
		h.log.Warn("relay handshake: not a hello frame", "err", err)
		writeError(conn, extwire.CodeBadFrame, "first frame must be the relay hello")
		return
	}
	if !originAllowed(hello.Origin, h.opts.AllowedIDs) {
		h.log.Warn("relay refused: origin not allowed", "origin", hello.Origin)
		writeError(conn, extwire.CodeForbiddenOrigin, "extension origin "+hello.Origin+" is not in allowed_extension_ids")
		return
	}
	l := &Link{relayPID: hello.PID, origin: hello.Origin, connected: time.Now(), uploads: h.opts.Uploads}
	l.Tabs = page.NewTabs(func(id int) cdptab.Sessions { return l.Session(id) }, h.refs)
	l.HeldAt = func(tab int, at time.Time) bool { return h.opts.Held(l, tab, at) }
	if h.opts.Regrouped != nil {
		l.regrouped = func(tab, from, to int) { h.opts.Regrouped(l, tab, from, to) }
	}
	m := member[L]{link: l, v: h.opts.New(l)}
	l.Link = browserlink.New(conn, browserlink.Options{
		IDs: &h.ids,
		Log: h.log.With("relayPid", hello.PID),
		Hello: func(in *extwire.Message) {
			h.register(m, in)
			go l.quietEvents(ctx)
		},
		Event:  l.event,
		Closed: l.Tabs.CloseAll,
		Call: func(ctx context.Context, method string, params json.RawMessage) (any, error) {
			return h.opts.Call(ctx, m.v, method, params)
		},
		ReplyError:     h.opts.ReplyError,
		ServiceVersion: egohost.Version,
		ServicePID:     os.Getpid(),
	})
	h.mu.Lock()
	h.waiting++ // until its hello, the browser is on its way: calls wait for it
	h.notifyChanged()
	h.mu.Unlock()
	h.log.Debug("relay connected", "origin", hello.Origin, "relayPid", hello.PID)

	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	err = l.Serve(r)
	h.unregister(l)
	if l.ID == "" {
		h.log.Info("relay left before the browser said hello", "relayPid", hello.PID)
		return
	}
	if !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.EOF) && ctx.Err() == nil { // Serve's error is never nil
		h.log.Warn("browser link down", "browser", l.ID, "err", err)
	} else {
		h.log.Info("browser link down", "browser", l.ID)
	}
}

// takeoverWait bounds how long a hello waits for an older link of the same
// browser key to go (the same browser reconnecting while its previous
// relay is still on its way out) before the newcomer gets a fresh ID.
const takeoverWait = time.Second

// register gives a link its browser ID at its first hello and makes it
// reachable to calls. A browser that sends its key gets the ID the key
// had before (the same across relay and service restarts); one without a
// key, or a second live browser with the same key (a copied profile),
// gets a fresh ID.
func (h *Hub[L]) register(m member[L], in *extwire.Message) {
	l := m.link
	key := in.BrowserKey
	if key != "" && !browserids.KeyPattern().MatchString(key) {
		h.log.With("relayPid", l.relayPID).Warn("hello with a malformed browser key: a fresh browser ID instead", "key", key)
		key = ""
	}
	deadline := time.NewTimer(takeoverWait)
	defer deadline.Stop()
	h.mu.Lock()
	for key != "" {
		id, _ := h.known.IDFor(key)
		if _, up := h.links[id]; !up {
			break
		}
		changed := h.changed
		h.mu.Unlock()
		select {
		case <-changed:
			h.mu.Lock()
			continue
		case <-deadline.C:
		}
		h.mu.Lock()
		if _, up := h.links[id]; up {
			h.log.With("relayPid", l.relayPID).Warn("another connected browser has the same browser key (a copied profile?): a fresh browser ID for this one", "other", id)
			key = ""
		}
	}
	if key != "" {
		l.ID, _ = h.known.IDFor(key)
		h.known.SetConnected(key, true)
	} else {
		l.ID = h.known.Fresh()
	}
	l.key = key
	l.SetStopped(in.AutomationStopped) // the extension's switch survives its restarts
	l.Layout.Reset(in.Tabs)
	c, hadMarks := h.carried[l.ID]
	delete(h.carried, l.ID)
	l.resume(c, in.Tabs)
	if key != "" {
		l.saveMarks = h.saveLiveMarks
	}
	l.Log = h.log.With("browser", l.ID)
	l.Tabs.SetLog(l.Log)
	l.SetID(l.ID, l.Log)
	h.links[l.ID] = m
	if hadMarks {
		h.saveMarks() // the link has them now: those of the tabs it found
	}
	h.order = append(h.order, l.ID)
	h.waiting--
	h.saveKnown()
	h.notifyChanged()
	h.mu.Unlock()
	h.log.Info("browser link up", "browser", l.ID, "origin", l.origin, "relayPid", l.relayPID, "stableId", key != "")
}

// unregister removes a link that ended, and records when its browser was
// last seen.
func (h *Hub[L]) unregister(l *Link) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if l.ID == "" {
		h.waiting--
	} else if h.links[l.ID].link == l {
		h.lastInfo[l.ID] = l.Info()
		if l.key != "" { // a browser without a key comes back under a new ID
			h.carried[l.ID] = l.carry()
			h.saveMarks()
		}
		delete(h.links, l.ID)
		h.order = slices.DeleteFunc(h.order, func(id string) bool { return id == l.ID })
		if l.key != "" {
			h.known.SetConnected(l.key, false)
			h.saveKnown()
		}
	}
	h.notifyChanged()
}

// Links is the connected browsers, in connection order.
func (h *Hub[L]) Links() []L {
	h.mu.Lock()
	defer h.mu.Unlock()
	links := make([]L, 0, len(h.order))
	for _, id := range h.order {
		links = append(links, h.links[id].v)
	}
	return links
}

// Get returns the browser with id, or the zero L when it is not
// connected.
func (h *Hub[L]) Get(id string) L {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.links[id].v
}

// Changed is closed when the links next change: a browser comes, says
// hello or goes. Take it before looking (Get), so that a change after
// the look closes it.
func (h *Hub[L]) Changed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
}

// Browsers describes the connected browsers, in connection order, and
// the reconnecting ones (Reconnecting), in ID order.
func (h *Hub[L]) Browsers() (connected, reconnecting []protocol.Browser) {
	h.mu.Lock()
	defer h.mu.Unlock()
	connected = make([]protocol.Browser, 0, len(h.order))
	for _, id := range h.order {
		connected = append(connected, h.links[id].link.Info())
	}
	return connected, h.reconnecting("")
}

// saveKnown writes the known browsers. h.mu is held.
func (h *Hub[L]) saveKnown() {
	if err := h.known.Save(); err != nil {
		h.log.Warn("remember browser IDs", "err", err)
	}
}

// notifyChanged wakes whoever waits for links to change. h.mu is held.
func (h *Hub[L]) notifyChanged() {
	close(h.changed)
	h.changed = make(chan struct{})
}

func writeError(conn net.Conn, code, msg string) {
	b, _ := json.Marshal(extwire.Notice{Event: extwire.EventError, Code: code, Message: msg})
	conn.SetWriteDeadline(time.Now().Add(time.Second))
	_ = nativemsg.NewWriter(conn, nativemsg.MaxHostFrame).Write(b)
}

func originAllowed(origin string, ids []string) bool {
	id, err := chromeext.ParseOrigin(origin)
	return err == nil && slices.Contains(ids, id)
}
