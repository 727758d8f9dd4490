package page

import (
	"sync"

	"github.com/egohost/egohost/internal/link/extwire"
)

// URLs is a browser's registry of its tabs' current URLs, kept from the
// browser's tab events (tab.created, tab.updated, tab.removed), so the
// origin rules see where a tab is now, whoever navigated it. The zero
// value is ready to use.
type URLs struct {
	mu   sync.Mutex
	urls map[int]string
}

// Track follows one event of the browser's link. It runs in the link's
// reader.
func (u *URLs) Track(in *extwire.Message) {
	u.mu.Lock()
	defer u.mu.Unlock()
	switch in.Event {
	case "tab.created", "tab.updated":
		if in.Tab != nil {
			if u.urls == nil {
				u.urls = make(map[int]string)
			}
			u.urls[in.Tab.ID] = in.Tab.URL
		}
	case "tab.removed":
		delete(u.urls, in.TabID)
	}
}

// Get returns tab id's URL, if known.
func (u *URLs) Get(id int) (string, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	url, ok := u.urls[id]
	return url, ok
}

// Set records tab id's URL.
func (u *URLs) Set(id int, url string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.urls == nil {
		u.urls = make(map[int]string)
	}
	u.urls[id] = url
}
