package hub

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/server/privfile"
)

// MarksFile (in the data dir) keeps what the links knew of their tabs'
// pages (carried: the documents an agent's script ran in, the tabs'
// openers, the agents whose raw CDP reached a tab's session, the spaces'
// popup windows), by browser ID, so that a restart of the service does not forget them either: the
// browser's pages, and what agents left in them, outlive it. It is
// written when a link ends, at a hello that takes marks, and when a link
// makes a mark, so that a service killed or failed leaves what its links
// knew then (a page a tab left since counts as shown still: a warning
// too many, never one too few). A link takes its browser's marks at its
// hello.
const MarksFile = "page-marks.json"

// savedTab is a tab's marks in MarksFile.
type savedTab struct {
	Current  string   `json:"current,omitempty"`
	Followed bool     `json:"followed,omitempty"`
	Ever     bool     `json:"ever,omitempty"`
	Reached  bool     `json:"reached,omitempty"`
	Scripted []string `json:"scripted,omitempty"` // loader IDs
	Linked   []int    `json:"linked,omitempty"`
	CDP      []string `json:"cdp,omitempty"` // agents
	// Popup: the tab is a popup window's, counted in this group, while it
	// is in this window (page.PopupTab).
	Popup *page.PopupTab `json:"popup,omitempty"`
}

func (c carried) saved() map[int]savedTab {
	out := make(map[int]savedTab)
	for id, t := range c.tabs {
		s := out[id]
		s.Current, s.Followed, s.Ever, s.Reached = t.current, t.followed, t.ever, t.reached
		for doc, on := range t.scripted {
			if on {
				s.Scripted = append(s.Scripted, doc)
			}
		}
		out[id] = s
	}
	for id, to := range c.links {
		s := out[id]
		for other := range to {
			s.Linked = append(s.Linked, other)
		}
		out[id] = s
	}
	for id, agents := range c.cdp {
		s := out[id]
		s.CDP = agents
		out[id] = s
	}
	for id, p := range c.popups {
		s := out[id]
		s.Popup = &p
		out[id] = s
	}
	return out
}

func carriedFrom(saved map[int]savedTab) carried {
	c := carried{tabs: make(map[int]*tabDocs), links: make(map[int]map[int]bool), cdp: make(map[int][]string), popups: make(map[int]page.PopupTab)}
	for id, s := range saved {
		t := &tabDocs{current: s.Current, followed: s.Followed, ever: s.Ever, reached: s.Reached, scripted: make(map[string]bool)}
		for _, doc := range s.Scripted {
			t.scripted[doc] = true
		}
		c.tabs[id] = t
		for _, other := range s.Linked {
			if c.links[id] == nil {
				c.links[id] = make(map[int]bool)
			}
			c.links[id][other] = true
		}
		if len(s.CDP) > 0 {
			c.cdp[id] = s.CDP
		}
		if s.Popup != nil {
			c.popups[id] = *s.Popup
		}
	}
	return c
}

// loadMarks reads MarksFile at path (none: nothing carried).
func loadMarks(path string) (map[string]carried, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]carried{}, nil
	}
	if err != nil {
		return map[string]carried{}, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	var saved map[string]map[int]savedTab
	if err := json.Unmarshal(b, &saved); err != nil {
		return map[string]carried{}, fmt.Errorf("decode %s: %w", filepath.Base(path), err)
	}
	out := make(map[string]carried, len(saved))
	for browser, tabs := range saved {
		out[browser] = carriedFrom(tabs)
	}
	return out, nil
}

// saveLiveMarks writes MarksFile after a link made a mark.
func (h *Hub[L]) saveLiveMarks() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.saveMarks()
}

// saveMarks writes h.carried and the marks of the links up (those of a
// browser with a key: one without comes back under a new ID) to
// MarksFile; h.mu is held.
func (h *Hub[L]) saveMarks() {
	saved := make(map[string]map[int]savedTab, len(h.carried)+len(h.links))
	for browser, m := range h.links {
		if m.link.key != "" {
			saved[browser] = m.link.saved()
		}
	}
	for browser, c := range h.carried { // a link that ended: carry took its marks
		saved[browser] = c.saved()
	}
	b, err := json.Marshal(saved)
	if err == nil {
		err = privfile.Write(filepath.Join(h.opts.DataDir, MarksFile), append(b, '\n'))
	}
	if err != nil {
		h.log.Warn("remember what agents left in pages", "err", err)
	}
}
