package tabdata

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/protocol"
)

// Downloads come from chrome.downloads (the extension's "download"
// events), which says nothing of the tab a download came from. A paired
// agent may learn only of its own tabs' downloads (a download's URL can
// carry a signed query, its file name is on the person's disk), so each
// download is attributed to a tab: the tab's own CDP session reports
// Page.downloadWillBegin with the URL (on every tab egohost has
// attached, with the Page domain on), and the download of that URL is
// that tab's (page.Downloads). A download nothing attributes (the
// person's tab that egohost never attached) is nobody's: no paired agent
// sees it.

// downloadIsMine says whether the caller may see a download: yes for the
// owner and the person; for a paired agent only when it came from a tab
// the agent may see (its spaces' tabs, on an origin its rules allow),
// and unknown while nothing attributes it.
func downloadIsMine(c Call, b Browser, it extwire.Download) (mine, known bool) {
	if !c.Paired() {
		return true, true
	}
	tab, ok := b.Downloads().TabOf(it)
	if !ok {
		return false, false
	}
	return b.Sees(tab), true
}

// downloadEvent is what the download method waits on: a download's
// state, or (item nil) the start of a download in some tab, which may
// attribute one seen before.
type downloadEvent struct {
	item *extwire.Download
}

// Download is download: it waits for the browser's next download
// (chrome.downloads events from the extension) to start and to finish,
// after clicking p.Click when given. A paired agent waits for the next
// download of its own tabs. Only a download that starts after the call
// began is one: the browser's earlier ones are never an answer.
func (m *Methods) Download(ctx context.Context, c Call, p protocol.DownloadParams) (any, error) {
	start := time.Now()
	b, err := c.Browser(ctx, p.Browser)
	if err != nil {
		return nil, err
	}
	d := actwire.Millis(p.TimeoutMs)
	if d <= 0 {
		d = 30 * time.Second
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl)-time.Second < d {
		d = max(time.Until(dl)-time.Second, time.Second)
	}
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	// The wait is for a download that starts from now on: one seen
	// before (it may still report a change, complete again) is not it.
	w := b.Downloads().Wait(func(it extwire.Download) (bool, bool) { return downloadIsMine(c, b, it) })
	q := browserlink.NewQueue[downloadEvent](256)
	unsubscribe := b.Subscribe(&browserlink.Subscriber{
		Filter: func(in *extwire.Message) bool {
			return (in.Event == "download" && in.Download != nil) || (in.Event == "cdp" && in.Method == page.DownloadWillBegin)
		},
		Deliver: func(in *extwire.Message) { q.Put(downloadEvent{item: in.Download}) },
		Done:    q.Close,
	})
	defer unsubscribe()
	if p.Click != "" {
		_, err := c.Act(wctx, p.Target, "download", func(ctx context.Context, r actwire.Runner) (any, error) {
			return r.Click(ctx, p.Click, actions.ClickOptions{ActOptions: actions.ActOptions{Settle: &actions.Settle{Off: true}}})
		})
		if err != nil {
			return nil, err
		}
	}
	for {
		select {
		case <-wctx.Done():
			if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, ctx.Err()
			}
			id, ok := w.Chosen()
			if !ok {
				return nil, protocol.Errorf(protocol.CodeTimeout, "download: no download started within %v", d)
			}
			return nil, protocol.Errorf(protocol.CodeTimeout, "download: download %d did not finish within %v", id, d).With("download", id)
		case ev, ok := <-q.C:
			if !ok {
				return nil, protocol.Errorf(protocol.CodeBrowserGone, "download: browser %s disconnected", b.ID())
			}
			it, first, ok := w.Take(ev.item)
			if !ok {
				continue
			}
			if first && c.MayAsk(confirm.Download) {
				// Asked at the download's start, the first moment it is
				// known (a click cannot tell it will download); Chrome
				// goes on meanwhile, and a no deletes what it saved.
				if err := m.confirmDownload(ctx, c, b, it); err != nil {
					return nil, err
				}
				// The person's time is not the download's (once per
				// call: first).
				var more context.CancelFunc
				wctx, more = context.WithTimeout(ctx, d)
				defer more()
			}
			if res, done, err := page.DownloadDone(it, time.Since(start)); done {
				if err != nil {
					return nil, err
				}
				return res, nil
			}
		}
	}
}

// confirmDownload asks the person about a download of the call's agent,
// on the origin of the tab it came from, when its policy names download
// there; a no or no answer cancels the download, deletes its file and
// erases it from the browser's list before the error is returned: the
// agent never gets it.
func (m *Methods) confirmDownload(ctx context.Context, c Call, b Browser, it extwire.Download) error {
	tab, _ := b.Downloads().TabOf(it)
	page, _ := b.TabURL(tab)
	src := it.URL
	if it.FinalURL != "" {
		src = it.FinalURL
	}
	name := filepath.Base(it.Filename)
	if it.Filename == "" {
		if u, err := url.Parse(src); err == nil {
			name = path.Base(u.Path)
		}
	}
	q := protocol.Confirm{Action: confirm.DescribeDownload(name, pairing.Host(src)), Browser: b.ID(), Tab: tab}
	err := c.Confirm(ctx, confirm.Download, page, q)
	if err == nil {
		return nil
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if _, derr := b.Call(dctx, extwire.DownloadsDiscard{DownloadID: it.ID}); derr != nil {
		m.log.Warn("download: the refused download was not discarded", "download", it.ID, "err", derr)
		return fmt.Errorf("%w (and discarding download %d failed: %v)", err, it.ID, derr)
	}
	return err
}
