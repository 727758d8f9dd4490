package audit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
	"github.com/google/go-cmp/cmp"
)

func entry(agent string, i int, at time.Time) Entry {
	return Entry{Time: at, Agent: agent, Method: "click", Tab: i, Target: "#b" + strconv.Itoa(i), Result: "ok"}
}

func TestAppendRotateRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l, err := Open(path, 400, 1)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := range 10 {
		agent := "a"
		if i%2 == 1 {
			agent = "b"
		}
		if err := l.Append(entry(agent, i, t0.Add(time.Duration(i)*time.Second))); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	for _, p := range []string{path, path + ".1"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatalf("%s: %v (no rotation?)", p, err)
		}
		if st.Size() > 400 {
			t.Errorf("%s is %d bytes, over the 400-byte cap", p, st.Size())
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", p, st.Mode().Perm())
		}
	}
	all, err := Read(path, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 || all[len(all)-1].Tab != 9 {
		t.Fatalf("read: got %+v, want the newest last", all)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Tab != all[i-1].Tab+1 {
			t.Errorf("entries out of order or missing between the two files: %d then %d", all[i-1].Tab, all[i].Tab)
		}
	}
	got, _ := Read(path, Filter{Agent: "b", Since: t0.Add(5 * time.Second), Limit: 2})
	if len(got) != 2 || got[0].Tab != 7 || got[1].Tab != 9 {
		t.Errorf("agent b since 5s, last 2: got %+v, want tabs 7 and 9", got)
	}
}

func TestFollow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l, err := Open(path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Append(entry("a", 0, time.Now())) // before Follow: not followed
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan Entry, 10)
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, path, -1, 5*time.Millisecond, Filter{Agent: "a"}, func(e Entry) { got <- e }, nil)
	}()
	// Follow starts at the end it sees: wait until it has, by appending
	// until the first one comes through.
	for i := 1; ; i++ {
		l.Append(entry("b", i, time.Now())) // filtered out
		l.Append(entry("a", i, time.Now()))
		select {
		case e := <-got:
			if e.Agent != "a" || e.Tab == 0 {
				t.Fatalf("followed %+v, want a later entry of a", e)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			return
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			t.Fatal("Follow gave nothing within 10 s")
		}
	}
}

func TestTailFilter(t *testing.T) {
	since := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		p       protocol.AuditTailParams
		want    Filter
		wantErr bool
	}{
		{"the defaults", protocol.AuditTailParams{}, Filter{Limit: 50}, false},
		{"all given", protocol.AuditTailParams{Agent: "bot", Limit: 1000, Since: "2026-12-01T10:00:00Z"}, Filter{Agent: "bot", Since: since, Limit: 1000}, false},
		{"too many", protocol.AuditTailParams{Limit: 1001}, Filter{}, true},
		{"a negative limit", protocol.AuditTailParams{Limit: -1}, Filter{}, true},
		{"a since that is no time", protocol.AuditTailParams{Since: "yesterday"}, Filter{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TailFilter(tc.p)
			if tc.wantErr {
				var e *protocol.Error
				if !errors.As(err, &e) || e.Code != protocol.CodeInvalidParams {
					t.Errorf("got %v, want invalid_params", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got %v, want nil", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("filter (-want +got):\n%s", diff)
			}
		})
	}
}
