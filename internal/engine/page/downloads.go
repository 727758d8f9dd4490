package page

import (
	"slices"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/protocol"
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

// DownloadWait picks, from a browser's download events, the download a
// wait (the download method) is about: the first to start after the wait
// began that its caller may see, once something attributes it to a tab.
type DownloadWait struct {
	before  int                                       // the latest download before the wait began
	mine    func(extwire.Download) (mine, known bool) // whether the caller may see a download (Downloads.Wait)
	chosen  int                                       // the download waited on, -1 until one is
	unknown []extwire.Download                        // downloads nothing attributed yet, latest state each
}

// Wait begins a wait for the next download; mine reports whether the
// caller may see one (known is false while nothing attributes it).
func (d *Downloads) Wait(mine func(extwire.Download) (mine, known bool)) *DownloadWait {
	return &DownloadWait{before: d.Latest(), mine: mine, chosen: -1}
}

// Chosen returns the download waited on, false before one started.
func (w *DownloadWait) Chosen() (int, bool) { return w.chosen, w.chosen >= 0 }

// Take takes an event: a download's state (it), or (it nil) a download's
// start in some tab, which may attribute one seen before. It returns the
// state of the download waited on when the event is about it (ok), and
// whether the event chose it (first: its first state the wait sees).
func (w *DownloadWait) Take(it *extwire.Download) (got extwire.Download, first, ok bool) {
	items := slices.Clone(w.unknown) // a start: those seen before may be attributed now
	if it != nil {
		items = []extwire.Download{*it}
	}
	for _, it := range items {
		if it.ID <= w.before {
			continue
		}
		if w.chosen < 0 {
			mine, known := w.mine(it)
			w.unknown = withoutDownload(w.unknown, it.ID)
			if !known {
				w.unknown = append(w.unknown, it)
			}
			if !mine {
				continue
			}
			w.chosen, first = it.ID, true
		}
		if it.ID == w.chosen {
			return it, first, true
		}
	}
	return extwire.Download{}, false, false
}

func withoutDownload(items []extwire.Download, id int) []extwire.Download {
	out := items[:0]
	for _, it := range items {
		if it.ID != id {
			out = append(out, it)
		}
	}
	return out
}

// DownloadDone answers a download that finished (complete, or
// interrupted: download_failed), took after the wait began; done is false
// while it runs.
func DownloadDone(it extwire.Download, took time.Duration) (res protocol.DownloadResult, done bool, err error) {
	r := protocol.DownloadResult{ID: it.ID, URL: it.URL, Filename: it.Filename, Mime: it.Mime, Bytes: it.Bytes, State: it.State, Error: it.Error}
	if it.FinalURL != "" {
		r.URL = it.FinalURL
	}
	switch it.State {
	case "complete":
		r.TookMs = float64(took.Microseconds()) / 1000
		return r, true, nil
	case "interrupted":
		return protocol.DownloadResult{}, true, protocol.Errorf(protocol.CodeDownloadFailed, "download %d of %s was interrupted: %s", it.ID, r.URL, it.Error).With("download", r)
	}
	return protocol.DownloadResult{}, false, nil
}
