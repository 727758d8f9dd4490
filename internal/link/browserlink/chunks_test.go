package browserlink

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/nativemsg"
)

// PROTOCOL.md §2.4: "Chunks of different messages are never interleaved on
// one link." Large and small messages sent at once by many callers: on
// the wire, every chunked message's frames follow each other, in order,
// and each reassembles into what its caller sent.
func TestChunksOfConcurrentMessagesNeverInterleave(t *testing.T) {
	l, ext := pipeLink(t, Options{})
	defer l.Close()

	const large, small = 4, 8
	sent := map[string]bool{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for i := range large + small {
		data := fmt.Sprintf("small %d", i)
		if i < large {
			// 1.3 MiB: three chunks; each message its own text.
			data = strings.Repeat(fmt.Sprintf("large %d ✓ ", i), (13<<17)/14)
		}
		sent[data] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Call(ctx, extwire.Echo{Data: data}) // never answered: ends with ctx
		}()
	}

	ext.SetReadDeadline(time.Now().Add(30 * time.Second))
	r := nativemsg.NewReader(ext, 2<<20)
	var current *extwire.Chunk // the chunked message in progress
	var pieces []byte
	got := map[string]bool{}
	for frames := 0; len(got) < large+small; frames++ {
		b, err := r.Read()
		if err != nil {
			t.Fatalf("read frame %d (%d of %d messages whole): %v", frames, len(got), large+small, err)
		}
		var c extwire.Chunk
		if json.Unmarshal(b, &c) == nil && c.Chunk != "" {
			switch {
			case current == nil && c.Index != 0:
				t.Fatalf("frame %d: chunk %s index %d with no message in progress", frames, c.Chunk, c.Index)
			case current != nil && (c.Chunk != current.Chunk || c.Index != current.Index+1 || c.Count != current.Count):
				t.Fatalf("frame %d: chunk %s %d/%d while chunk %s was at %d/%d: interleaved", frames, c.Chunk, c.Index, c.Count, current.Chunk, current.Index, current.Count)
			}
			piece, err := base64.StdEncoding.DecodeString(c.Data)
			if err != nil {
				t.Fatal(err)
			}
			pieces = append(pieces, piece...)
			current = &c
			if c.Index < c.Count-1 {
				continue
			}
			b, current, pieces = pieces, nil, nil
		} else if current != nil {
			t.Fatalf("frame %d: a whole message while chunk %s was at %d/%d: interleaved", frames, current.Chunk, current.Index, current.Count)
		}
		var req struct {
			Op   string `json:"op"`
			Data string `json:"data"`
		}
		if err := json.Unmarshal(b, &req); err != nil || req.Op != "echo" || !sent[req.Data] {
			t.Fatalf("frame %d: not one of the messages sent (%v): %.80s", frames, err, b)
		}
		got[req.Data] = true
	}
	cancel()
	wg.Wait()
}
