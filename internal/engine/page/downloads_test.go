package page

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/protocol"
)

// A download is the tab's whose Page.downloadWillBegin named its URL
// (the latest unclaimed start); one nothing names is nobody's.
func TestDownloadTabs(t *testing.T) {
	var d Downloads
	began := func(tab int, url string) {
		params, _ := json.Marshal(map[string]string{"frameId": "F", "guid": "g", "url": url, "suggestedFilename": "x"})
		d.Track(&extwire.Message{Event: "cdp", TabID: tab, Method: DownloadWillBegin, Params: params})
	}
	item := func(id int, url, final string) extwire.Download {
		return extwire.Download{ID: id, URL: url, FinalURL: final}
	}
	if _, ok := d.TabOf(item(1, "https://a/x", "")); ok {
		t.Error("a download nothing named has a tab")
	}
	began(7, "https://a/x")
	if tab, ok := d.TabOf(item(1, "https://a/x", "")); !ok || tab != 7 {
		t.Errorf("after tab 7's start: got %d, %t; want 7", tab, ok)
	}
	if tab, ok := d.TabOf(item(1, "https://a/x", "")); !ok || tab != 7 {
		t.Errorf("the same download again: got %d, %t; want 7", tab, ok)
	}
	if _, ok := d.TabOf(item(2, "https://a/x", "")); ok {
		t.Error("a second download of the URL took the first one's start")
	}
	began(8, "https://b/final")
	if tab, ok := d.TabOf(item(3, "https://b/redirect", "https://b/final")); !ok || tab != 8 {
		t.Errorf("by the final URL: got %d, %t; want 8", tab, ok)
	}
	d.Track(&extwire.Message{Event: "cdp", TabID: 9, Method: "Page.frameNavigated", Params: json.RawMessage(`{}`)})
	for i := range downloadMemory + 10 {
		began(100+i, "https://c/many")
	}
	if len(d.began) > downloadMemory {
		t.Errorf("%d starts remembered, want at most %d", len(d.began), downloadMemory)
	}
}

// Latest is the highest chrome.downloads ID seen: a change of an older
// download does not lower it, a CDP event does not touch it.
func TestDownloadsLatest(t *testing.T) {
	var d Downloads
	if got := d.Latest(); got != 0 {
		t.Errorf("before any download: got %d, want 0", got)
	}
	for _, tc := range []struct {
		name string
		in   *extwire.Message
		want int
	}{
		{"the first download", &extwire.Message{Event: "download", Download: &extwire.Download{ID: 3, State: "in_progress"}}, 3},
		{"a later one", &extwire.Message{Event: "download", Download: &extwire.Download{ID: 5, State: "in_progress"}}, 5},
		{"the first one's change", &extwire.Message{Event: "download", Download: &extwire.Download{ID: 3, State: "complete"}}, 5},
		{"a download event without an item", &extwire.Message{Event: "download"}, 5},
		{"a tab's start", &extwire.Message{Event: "cdp", TabID: 7, Method: DownloadWillBegin, Params: json.RawMessage(`{"url":"https://a/x"}`)}, 5},
	} {
		d.Track(tc.in)
		if got := d.Latest(); got != tc.want {
			t.Errorf("after %s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}

// A wait takes the first download that starts after it began and is its
// caller's, once something attributes it: earlier downloads' changes and
// other callers' downloads are never the answer.
func TestDownloadWait(t *testing.T) {
	var d Downloads
	d.Track(&extwire.Message{Event: "download", Download: &extwire.Download{ID: 2, State: "complete"}})
	attributed := map[int]bool{}
	w := d.Wait(func(it extwire.Download) (bool, bool) {
		if !attributed[it.ID] {
			return false, false
		}
		return it.ID != 4, true // 4 is another caller's
	})
	item := func(id int, state string) *extwire.Download { return &extwire.Download{ID: id, State: state} }
	steps := []struct {
		name      string
		attribute int
		it        *extwire.Download
		want      int // the download taken, 0 for none
		first     bool
	}{
		{"a download before the wait", 0, item(2, "complete"), 0, false},
		{"another caller's", 4, item(4, "in_progress"), 0, false},
		{"one nothing attributes yet", 0, item(5, "in_progress"), 0, false},
		{"its start in a tab attributes it", 5, nil, 5, true},
		{"its next state", 0, item(5, "complete"), 5, false},
		{"a later one", 6, item(6, "in_progress"), 0, false},
	}
	for _, st := range steps {
		if st.attribute != 0 {
			attributed[st.attribute] = true
		}
		got, first, ok := w.Take(st.it)
		if ok != (st.want != 0) || got.ID != st.want || first != st.first {
			t.Errorf("%s: got %d, first %v, ok %v; want %d, first %v", st.name, got.ID, first, ok, st.want, st.first)
		}
	}
	if id, ok := w.Chosen(); !ok || id != 5 {
		t.Errorf("chosen: got %d, %v, want 5", id, ok)
	}
}

// A download is answered when it completes (its final URL), and an
// interruption is download_failed; one running is not done.
func TestDownloadDone(t *testing.T) {
	it := extwire.Download{ID: 3, URL: "https://a/x", FinalURL: "https://b/x", State: "in_progress"}
	if _, done, _ := DownloadDone(it, time.Second); done {
		t.Error("a running download is done")
	}
	it.State = "complete"
	if r, done, err := DownloadDone(it, 1500*time.Microsecond); !done || err != nil || r.URL != "https://b/x" || r.TookMs != 1.5 {
		t.Errorf("complete: got %+v, %v, %v; want the final URL, 1.5 ms", r, done, err)
	}
	it.State, it.Error = "interrupted", "NETWORK_FAILED"
	if _, done, err := DownloadDone(it, time.Second); !done || protocol.CodeOf(err) != protocol.CodeDownloadFailed {
		t.Errorf("interrupted: got %v, %v; want download_failed", done, err)
	}
}
