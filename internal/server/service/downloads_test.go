package service

import (
	"context"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// A download wait takes only a download that starts after it began: an
// earlier download's late change (chrome.downloads reports each change
// as the whole item, "complete" again) is not the answer. CI caught the
// wait answering with the agent's previous download, 0.3 ms in.
func TestDownloadWaitSkipsEarlierDownloads(t *testing.T) {
	f := newFixture(t)
	ext := f.linkedExt(t)
	agent := f.agent(t)
	item := func(id int, state string) map[string]any {
		return map[string]any{"event": "download", "download": map[string]any{
			"id": id, "url": "https://example.com/r.csv", "filename": "/home/p/Downloads/r.csv", "state": state, "bytes": 4,
		}}
	}
	ext.Send(item(2, "in_progress"))
	ext.Send(item(2, "complete"))
	// Download 2 is past before the waits begin: the service has read it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if links := f.s.hub.Links(); len(links) == 1 && links[0].Downloads.Latest() == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the service never read download 2")
		}
	}

	type answer struct {
		r   protocol.DownloadResult
		err error
	}
	wait := func(timeout time.Duration) <-chan answer {
		out := make(chan answer, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var r protocol.DownloadResult
			err := agent.Call(ctx, protocol.MethodDownload, protocol.DownloadParams{TimeoutMs: int(timeout / time.Millisecond)}, &r)
			out <- answer{r, err}
		}()
		return out
	}

	alone := wait(1500 * time.Millisecond)
	time.Sleep(300 * time.Millisecond) // the wait has begun
	ext.Send(item(2, "complete"))      // a late change of download 2
	if a := <-alone; protocol.CodeOf(a.err) != protocol.CodeTimeout || a.r.ID != 0 {
		t.Errorf("a wait that saw only download 2's late change: got %+v, %v; want a timeout", a.r, a.err)
	}

	next := wait(5 * time.Second)
	time.Sleep(300 * time.Millisecond)
	ext.Send(item(2, "complete"))
	ext.Send(item(3, "in_progress"))
	ext.Send(item(3, "complete"))
	if a := <-next; a.err != nil || a.r.ID != 3 || a.r.State != "complete" {
		t.Errorf("a wait during download 3: got %+v, %v; want download 3, complete", a.r, a.err)
	}
}
