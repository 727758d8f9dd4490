package hub

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/testkit/fakeext"
	"github.com/egohost/egohost/internal/testkit/sockdir"
)

// quiet waits for the next events.quiet request the fake extension
// answered.
func quiet(t *testing.T, e *fakeext.Ext) fakeext.Quiet {
	t.Helper()
	select {
	case q := <-e.Quiets():
		return q
	case <-time.After(10 * time.Second):
		t.Fatal("no events.quiet request within 10 s")
	}
	return fakeext.Quiet{}
}

// noMoreQuiets checks that the extension of l got no events.quiet request
// more before an echo.
func noMoreQuiets(t *testing.T, f *fixture, e *fakeext.Ext, l *Link) {
	t.Helper()
	go pickAndEcho(f, 5*time.Second, l.ID, "x")
	if m := e.Read(); m["op"] != "echo" {
		t.Errorf("got %v, want the echo", m)
	}
	select {
	case q := <-e.Quiets():
		t.Errorf("an events.quiet request more: %+v", q)
	default:
	}
}

// want runs l.WantEvents in the background: its result comes on the
// channel.
func want(l *Link, methods ...string) <-chan error {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		release, err := l.WantEvents(ctx, methods)
		if err == nil {
			release()
			release() // twice: once counts
		}
		done <- err
	}()
	return done
}

// After its hello the extension is told which events no one reads; a
// subscription's want takes its events out of that set before it returns,
// and its release puts them back; a want of every event empties it.
func TestQuietEventsFollowTheWants(t *testing.T) {
	f := newFixture(t, sockdir.New(t), nil)
	e := f.connectExt(t, testOrigin)
	l := f.h.Get(e.HelloAs(keyA))
	q := quiet(t, e)
	if !slices.Equal(q.Methods, quietMethods) || !slices.Equal(q.Lifecycle, quietLifecycle) {
		t.Fatalf("first set: got %v %v, want %v %v", q.Methods, q.Lifecycle, quietMethods, quietLifecycle)
	}

	done := want(l, "Network.dataReceived", "Runtime.consoleAPICalled")
	q = quiet(t, e)
	if slices.Contains(q.Methods, "Network.dataReceived") || len(q.Methods) != len(quietMethods)-1 || !slices.Equal(q.Lifecycle, quietLifecycle) {
		t.Errorf("with Network.dataReceived wanted: got %v %v", q.Methods, q.Lifecycle)
	}
	if err := <-done; err != nil {
		t.Fatalf("WantEvents: %v", err)
	}
	// The release (right after) puts it back.
	if q = quiet(t, e); !slices.Equal(q.Methods, quietMethods) {
		t.Errorf("after the release: got %v, want %v", q.Methods, quietMethods)
	}

	// A want of an event that is never quiet sends nothing.
	if err := <-want(l, "Runtime.consoleAPICalled"); err != nil {
		t.Fatalf("WantEvents: %v", err)
	}

	done = want(l, "Page.lifecycleEvent")
	if q = quiet(t, e); !slices.Equal(q.Methods, quietMethods) || len(q.Lifecycle) != 0 {
		t.Errorf("with every lifecycle event wanted: got %v %v", q.Methods, q.Lifecycle)
	}
	if err := <-done; err != nil {
		t.Fatalf("WantEvents: %v", err)
	}
	quiet(t, e)

	// A method named "" is one no event has, not every event.
	if err := <-want(l, ""); err != nil {
		t.Fatalf("WantEvents: %v", err)
	}

	done = want(l)
	if q = quiet(t, e); len(q.Methods)+len(q.Lifecycle) != 0 {
		t.Errorf("with every event wanted: got %v %v, want none quiet", q.Methods, q.Lifecycle)
	}
	if err := <-done; err != nil {
		t.Fatalf("WantEvents: %v", err)
	}
	quiet(t, e)

	noMoreQuiets(t, f, e, l)
}

// A want the extension could not be told of fails (the subscription
// fails, rather than miss its events), and the next want tells it again.
func TestAWantTheExtensionMissedFails(t *testing.T) {
	f := newFixture(t, sockdir.New(t), nil)
	e := f.connectExt(t, testOrigin)
	l := f.h.Get(e.HelloAs(keyA))
	quiet(t, e)
	e.RefuseNextQuiet("internal")
	done := want(l, "Network.dataReceived")
	if q := quiet(t, e); q.Refused == "" || slices.Contains(q.Methods, "Network.dataReceived") {
		t.Errorf("the want's request: got %+v, want one without Network.dataReceived, refused", q)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "events.quiet") {
		t.Errorf("WantEvents when the extension failed: got %v, want an events.quiet error", err)
	}
	// The release after the failure sends the set again (the extension's
	// is unknown).
	if q := quiet(t, e); !slices.Equal(q.Methods, quietMethods) || q.Refused != "" {
		t.Errorf("after the failure: got %+v, want %v", q, quietMethods)
	}
}

// A want waits for its turn to tell the extension (another's set in
// flight, to an extension that may not answer) only within its context.
func TestAWantWaitsWithinItsContext(t *testing.T) {
	f := newFixture(t, sockdir.New(t), nil)
	e := f.connectExt(t, testOrigin)
	l := f.h.Get(e.HelloAs(keyA))
	quiet(t, e) // the turn is made
	l.events.mu.Lock()
	turn := l.events.turn
	l.events.mu.Unlock()
	turn <- struct{}{} // a set in flight
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := l.WantEvents(ctx, []string{"Network.dataReceived"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WantEvents while the turn is taken: got %v, want its deadline", err)
	}
	<-turn
	// Its release left the set as it was: nothing is sent.
	noMoreQuiets(t, f, e, l)
	if err := <-want(l, "Network.dataReceived"); err != nil {
		t.Errorf("WantEvents after: %v", err)
	}
}

// An extension without the op (an older one) forwards every event: it is
// asked once, and wants then return at once.
func TestAnExtensionWithoutQuietEvents(t *testing.T) {
	f := newFixture(t, sockdir.New(t), nil)
	e := f.connectExt(t, testOrigin)
	e.RefuseNextQuiet("unknown_op")
	l := f.h.Get(e.HelloAs(keyA))
	if q := quiet(t, e); q.Refused != "unknown_op" {
		t.Fatalf("first request: got %+v, want it refused", q)
	}
	if err := <-want(l, "Network.dataReceived"); err != nil {
		t.Fatalf("WantEvents: %v", err)
	}
	noMoreQuiets(t, f, e, l)
}

// No code of the service reads a quiet event: the extension does not
// forward them unless an agent subscribed to them. A package that starts
// reading one must take it out of quietMethods (or quietLifecycle).
func TestQuietEventsAreReadByNoOne(t *testing.T) {
	var words []string
	for _, m := range quietMethods {
		domain, name, _ := strings.Cut(m, ".")
		// Its string, and cdproto's names for it (network.DataReceived,
		// network.EventDataReceived).
		exported := strings.ToUpper(name[:1]) + name[1:]
		words = append(words, strconv.Quote(m), strings.ToLower(domain)+"."+exported, "Event"+exported)
	}
	for _, n := range quietLifecycle {
		words = append(words, strconv.Quote(n))
	}
	root := filepath.Join("..", "..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, filepath.Join("hub", "events.go")) {
			return nil
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var text string
			switch n := n.(type) {
			case *ast.BasicLit:
				text = n.Value
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok {
					text = x.Name + "." + n.Sel.Name
				}
			case *ast.Ident:
				text = n.Name
			}
			if slices.Contains(words, text) {
				t.Errorf("%s reads %s, which the extension does not forward (hub's quietMethods, quietLifecycle)", path, text)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Errorf("read %d Go files of the service, want all of them (over 100)", files)
	}
}
