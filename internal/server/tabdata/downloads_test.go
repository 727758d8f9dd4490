package tabdata

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/protocol"
)

// item is chrome.downloads' event of download id of u in state.
func item(id int, u, state string) *extwire.Message {
	return &extwire.Message{Event: "download", Download: &extwire.Download{
		ID: id, URL: "https://example.com/" + u, Filename: "/home/p/Downloads/" + u, State: state, Bytes: 4,
	}}
}

// began is tab's CDP event of the start of a download of u.
func began(tab int, u string) *extwire.Message {
	return &extwire.Message{Event: "cdp", TabID: tab, Method: page.DownloadWillBegin, Params: json.RawMessage(`{"url":"https://example.com/` + u + `"}`)}
}

// download answers the download that starts after the wait began and is
// its caller's (a paired agent's only once a tab it sees started it),
// when it finishes; the person asked, when the policy says, at its start.
func TestDownload(t *testing.T) {
	no := errors.New("the person said no")
	tests := []struct {
		name      string
		paired    bool
		events    []*extwire.Message
		gone      bool
		timeoutMs int
		asks      bool
		answer    error
		discard   error
		want      int // the download answered
		code      protocol.Code
		err       error  // the error, when it is one of the test's
		msg       string // a part of the error's message
		asked     []protocol.Confirm
		discarded []extwire.Op
	}{
		{name: "the owner's next download", events: []*extwire.Message{item(2, "old.csv", "complete"), item(3, "r.csv", "in_progress"), item(3, "r.csv", "complete")}, want: 3},
		{name: "one that fails", events: []*extwire.Message{item(3, "r.csv", "in_progress"), item(3, "r.csv", "interrupted")}, code: protocol.CodeDownloadFailed},
		{name: "a paired agent's, not another tab's", paired: true,
			events: []*extwire.Message{began(5, "theirs.csv"), item(4, "theirs.csv", "complete"), began(7, "r.csv"), item(6, "r.csv", "complete")}, want: 6},
		{name: "a paired agent's, attributed after it started", paired: true,
			events: []*extwire.Message{item(8, "r.csv", "in_progress"), began(7, "r.csv"), item(8, "r.csv", "complete")}, want: 8},
		{name: "nobody's is not a paired agent's", paired: true, timeoutMs: 20,
			events: []*extwire.Message{item(8, "r.csv", "complete")}, code: protocol.CodeTimeout, msg: "no download started"},
		{name: "none starts", timeoutMs: 20, code: protocol.CodeTimeout, msg: "no download started"},
		{name: "one does not finish", timeoutMs: 20, events: []*extwire.Message{item(3, "r.csv", "in_progress")}, code: protocol.CodeTimeout, msg: "download 3 did not finish"},
		{name: "the browser goes", gone: true, code: protocol.CodeBrowserGone},
		{name: "the person says yes", paired: true, asks: true,
			events: []*extwire.Message{began(7, "r.csv"), item(3, "r.csv", "in_progress"), item(3, "r.csv", "complete")}, want: 3,
			asked: []protocol.Confirm{{Action: confirm.DescribeDownload("r.csv", "example.com"), Browser: "b1", Tab: 7}}},
		{name: "the person says no", paired: true, asks: true, answer: no,
			events: []*extwire.Message{began(7, "r.csv"), item(3, "r.csv", "in_progress"), item(3, "r.csv", "complete")}, err: no,
			asked:     []protocol.Confirm{{Action: confirm.DescribeDownload("r.csv", "example.com"), Browser: "b1", Tab: 7}},
			discarded: []extwire.Op{extwire.DownloadsDiscard{DownloadID: 3}}},
		{name: "a refused download not discarded", paired: true, asks: true, answer: no, discard: errors.New("no such download"),
			events: []*extwire.Message{began(7, "r.csv"), item(3, "r.csv", "in_progress")}, err: no, msg: "discarding download 3 failed: no such download",
			asked:     []protocol.Confirm{{Action: confirm.DescribeDownload("r.csv", "example.com"), Browser: "b1", Tab: 7}},
			discarded: []extwire.Op{extwire.DownloadsDiscard{DownloadID: 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &fakeBrowser{events: tt.events, gone: tt.gone, discard: tt.discard, seen: map[int]bool{7: true}, urls: map[int]string{7: "https://example.com/files"}}
			b.downloads.Track(item(2, "old.csv", "complete")) // before the call
			c := &fakeCall{paired: tt.paired, browser: b, answer: tt.answer}
			if tt.asks {
				c.kinds = []confirm.Kind{confirm.Download}
			}
			res, err := testMethods().Download(context.Background(), c, protocol.DownloadParams{TimeoutMs: tt.timeoutMs})
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("got %v, want %v", err, tt.err)
				}
			} else if got := codeOf(err); got != tt.code {
				t.Fatalf("got %v (%v), want code %v", got, err, tt.code)
			}
			if err != nil && !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %q, want it to say %q", err, tt.msg)
			}
			if d := cmp.Diff(tt.asked, c.asked); d != "" {
				t.Errorf("asked (-want +got):\n%s", d)
			}
			if len(tt.asked) > 0 && c.askedOn[0] != "https://example.com/files" {
				t.Errorf("asked on %s, want the tab's origin", c.askedOn[0])
			}
			if d := cmp.Diff(tt.discarded, b.ops); d != "" {
				t.Errorf("discarded (-want +got):\n%s", d)
			}
			if err == nil {
				if r := res.(protocol.DownloadResult); r.ID != tt.want || r.State != "complete" {
					t.Errorf("got %+v, want download %d, complete", r, tt.want)
				}
			}
		})
	}
}

// With a click, download clicks the element first (the page is not
// waited on to settle: the download is what is waited for), and a click
// that fails is the answer.
func TestDownloadClick(t *testing.T) {
	missed := protocol.Errorf(protocol.CodeNotFound, "no element matches")
	for _, tt := range []struct {
		name    string
		actErr  error
		clicked []string
		code    protocol.Code
	}{
		{name: "a click", clicked: []string{"download text=Export no settle"}},
		{name: "a click that fails", actErr: missed, code: protocol.CodeNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &fakeBrowser{events: []*extwire.Message{item(3, "r.csv", "complete")}}
			c := &fakeCall{browser: b, actErr: tt.actErr}
			_, err := testMethods().Download(context.Background(), c, protocol.DownloadParams{Click: "text=Export"})
			if got := codeOf(err); got != tt.code {
				t.Fatalf("got %v (%v), want code %v", got, err, tt.code)
			}
			if d := cmp.Diff(tt.clicked, c.clicked); d != "" {
				t.Errorf("clicked (-want +got):\n%s", d)
			}
		})
	}
}
