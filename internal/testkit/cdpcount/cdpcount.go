// Package cdpcount counts the CDP commands sent to a tab, by method, for
// tests that say how many round trips something takes.
package cdpcount

import (
	"context"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/internal/link/cdptab"
)

// Counted is what a Tab counts the commands of: a tab with its event
// streams (what the actions need).
type Counted interface {
	cdptab.Tab
	cdptab.Streamer
}

// Tab is a tab whose commands are counted: those of its main session, of
// its child sessions, and each command of a sequence.
type Tab struct {
	Counted
	mu sync.Mutex
	n  map[string]int
}

// New counts the commands sent through t.
func New(t Counted) *Tab { return &Tab{Counted: t, n: map[string]int{}} }

func (c *Tab) count(method string) {
	c.mu.Lock()
	c.n[method]++
	c.mu.Unlock()
}

// Call counts and sends a command.
func (c *Tab) Call(ctx context.Context, method string, params, result any) error {
	c.count(method)
	return c.Counted.Call(ctx, method, params, result)
}

// CallSequence counts each command of the sequence and sends it as the
// tab would (in one go when it can).
func (c *Tab) CallSequence(ctx context.Context, cmds []cdptab.Command) error {
	for _, cmd := range cmds {
		c.count(cmd.Method)
		if cmd.Then != nil {
			c.count(cmd.Then.Method)
		}
	}
	return cdptab.CallSequence(ctx, c.Counted, cmds)
}

// Child is a child session whose commands count as the tab's.
func (c *Tab) Child(id target.SessionID) cdp.Session {
	return session{c, c.Counted.Child(id)}
}

type session struct {
	tab *Tab
	cdp.Session
}

func (s session) Call(ctx context.Context, method string, params, result any) error {
	s.tab.count(method)
	return s.Session.Call(ctx, method, params, result)
}

// Take returns the counts since the last Take, and starts again.
func (c *Tab) Take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = map[string]int{}
	return n
}
