package page

import (
	"encoding/json"
	"testing"

	"github.com/egohost/egohost/internal/link/extwire"
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
