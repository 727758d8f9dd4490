package service

import (
	"context"
	"sync"

	"github.com/egohost/egohost/extwire"
)

// tabURLs is a link's registry of its tabs' current URLs, kept from the
// browser's tab events (tab.created, tab.updated, tab.removed), so the
// origin rules see where a tab is now, whoever navigated it.
type tabURLs struct {
	mu   sync.Mutex
	urls map[int]string
}

// track follows one event of the link. It runs in the link's reader.
func (u *tabURLs) track(in *extwire.Message) {
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

func (u *tabURLs) get(id int) (string, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	url, ok := u.urls[id]
	return url, ok
}

func (u *tabURLs) set(id int, url string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.urls == nil {
		u.urls = make(map[int]string)
	}
	u.urls[id] = url
}

// tabURL returns the tab's URL now: from the registry, or, for a tab it
// has heard nothing of yet, from the browser (and remembered).
func (s *Service) tabURL(ctx context.Context, l *link, id int) (string, error) {
	if url, ok := l.urls.get(id); ok {
		return url, nil
	}
	tabs, err := s.listTabs(ctx, l)
	if err != nil {
		return "", err
	}
	url := ""
	for _, t := range tabs {
		l.urls.set(t.ID, t.URL)
		if t.ID == id {
			url = t.URL
		}
	}
	return url, nil
}
