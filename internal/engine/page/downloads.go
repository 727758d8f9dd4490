package page

import (
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/egohost/egohost/internal/link/extwire"
)

// DownloadWillBegin is the tab's CDP event of a download's start.
// Deprecated in the protocol (and gone from cdproto) in favour of
// Browser.downloadWillBegin, which chrome.debugger cannot enable; Chrome
// still sends it to a tab's session, with the same params.
const DownloadWillBegin = "Page.downloadWillBegin"

// downloadMemory bounds the starts a link remembers: the last 64, of
// the last 5 minutes.
const (
	downloadMemory    = 64
	downloadRemembers = 5 * time.Minute
)

// Downloads attributes a browser's downloads (chrome.downloads, which
// says nothing of the tab) to the tabs they came from: the tab's own
// session reports Page.downloadWillBegin with the URL, and the download of
// that URL is that tab's. The zero value is ready to use; it is safe for
// concurrent use.
type Downloads struct {
	mu     sync.Mutex
	began  []downloadBegan // oldest first
	byItem map[int]int     // chrome.downloads id → tab
	latest int             // the highest chrome.downloads id seen
}

type downloadBegan struct {
	url  string
	tab  int
	at   time.Time
	used bool
}

// Track notes a tab's Page.downloadWillBegin and the IDs of
// chrome.downloads' items; the link calls it for every event, before the
// subscribers see it.
func (d *Downloads) Track(in *extwire.Message) {
	if in.Event == "download" && in.Download != nil {
		d.mu.Lock()
		d.latest = max(d.latest, in.Download.ID)
		d.mu.Unlock()
		return
	}
	if in.Event != "cdp" || in.Method != DownloadWillBegin {
		return
	}
	var ev browser.EventDownloadWillBegin
	if jsonv2.Unmarshal(in.Params, &ev) != nil || ev.URL == "" {
		return
	}
	now := time.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	for len(d.began) > 0 && (len(d.began) >= downloadMemory || now.Sub(d.began[0].at) > downloadRemembers) {
		d.began = d.began[1:]
	}
	d.began = append(d.began, downloadBegan{url: ev.URL, tab: in.TabID, at: now})
}

// Latest returns the highest chrome.downloads ID seen, 0 before any.
// Chrome numbers a profile's downloads in the order they start, so a
// download of a higher ID started after: a wait that begins now takes
// only those (a download that finished before it still reports changes,
// and each change is a whole item, state and all).
func (d *Downloads) Latest() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.latest
}

// TabOf returns the tab a download came from, and false while nothing
// says (its tab's start may come a little after chrome.downloads' event,
// or never). A download is the latest unclaimed start of its URL.
func (d *Downloads) TabOf(it extwire.Download) (int, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if tab, ok := d.byItem[it.ID]; ok {
		return tab, true
	}
	for i := len(d.began) - 1; i >= 0; i-- {
		b := &d.began[i]
		if b.used || (b.url != it.URL && b.url != it.FinalURL) {
			continue
		}
		b.used = true
		if d.byItem == nil {
			d.byItem = make(map[int]int)
		}
		d.byItem[it.ID] = b.tab
		return b.tab, true
	}
	return 0, false
}
