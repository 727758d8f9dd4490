package resolver_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
	"github.com/egohost/egohost/refmap"
	"github.com/egohost/egohost/resolver"
)

// refs is a ref map with one entry.
type refs map[string]refmap.Entry

func (m refs) Lookup(_ context.Context, input string) (refmap.Entry, error) {
	ref, _ := refmap.ParseRef(input)
	if e, ok := m[ref]; ok {
		return e, nil
	}
	return refmap.Entry{}, fmt.Errorf("no ref %s", input)
}

// Twins: every entry is the only one with its role and name.
func (m refs) Twins(_ context.Context, e refmap.Entry) ([]refmap.Entry, error) {
	return []refmap.Entry{e}, nil
}

// Owner: the map knows no node but its own.
func (m refs) Owner(_ context.Context, _ refmap.Entry, id cdp.BackendNodeID) (bool, string, error) {
	for _, e := range m {
		if e.BackendNodeID == id {
			return true, e.Ref, nil
		}
	}
	return false, "", nil
}

func Example() {
	ctx := context.Background()
	// A scripted tab stands in for a real one here (in production: the
	// tab's *cdptab.Page over the extension relay, and its *snapshot.Tab).
	tab := cdpfake.New()
	tab.Reply(dom.CommandGetBoxModel, dom.GetBoxModelResult{Model: &dom.BoxModel{
		Border: []float64{10, 20, 110, 20, 110, 60, 10, 60},
	}})
	r := resolver.New(tab, refs{"12": {Ref: "12", BackendNodeID: 7, Role: "button", Name: "Save"}})

	pt, err := r.Center(ctx, "@12")
	fmt.Println(pt.X, pt.Y, err)

	_, err = r.Center(ctx, `role=button[name="Save"`)
	var e *resolver.Error
	if errors.As(err, &e) {
		fmt.Println(e.Kind, err)
	}
	// Output:
	// 60 40 <nil>
	// permanent parse role=button[name="Save": invalid locator "role=button[name=\"Save\"": unclosed [ at offset 11
}

func ExampleWait() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	attempts := 0
	v, err := resolver.Wait(ctx, func(ctx context.Context) (string, error) {
		attempts++
		if attempts < 3 { // not rendered yet: transient, so Wait tries again
			return "", &resolver.Error{Kind: resolver.Transient, Op: "resolve", Target: "#late", Err: resolver.ErrNotFound}
		}
		return "found", nil
	})
	fmt.Println(v, err, attempts)
	// Output: found <nil> 3
}
