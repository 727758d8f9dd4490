package page

import (
	"context"
	"encoding/json"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"

	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/resolver"
)

// MaxStorageValue is how much of one value ReadStorage answers (UTF-16
// units, as the page counts).
const MaxStorageValue = 65536

// storageJS reads the items of one storage: {origin, items: [[key, value
// (cut), length]]} sorted by key, or {error}. It has the calling
// convention of package aria (el is the main frame's root element).
const storageJS = `(el, ns, kind, key, max) => {
	let st;
	try { st = kind === "session" ? sessionStorage : localStorage; } catch (e) { return { error: String(e && e.message || e) }; }
	const keys = [];
	if (key) { if (st.getItem(key) !== null) keys.push(key); }
	else for (let i = 0; i < st.length; i++) keys.push(st.key(i));
	keys.sort();
	return { origin: location.origin, items: keys.map((k) => { const v = st.getItem(k) || ""; return [k, v.slice(0, max), v.length]; }) };
}`

// mainRoot is the main frame's root element (the resolver lists the main
// frame first).
const mainRoot = "css=:root >> nth=0"

// ReadStorage reads the localStorage or sessionStorage ("local",
// "session") of the main frame of tab (its ID, for the errors), one key or all, in egohost's
// isolated world there (the page's scripts cannot change what it reads;
// the world shares the page's storage), through res (which holds the
// caller's reach). A value is cut at MaxStorageValue (its Length says how
// long it is). The resolver's own errors come back as they are.
func ReadStorage(ctx context.Context, res *resolver.Resolver, tab int, kind, key string) (origin string, items []protocol.StorageItem, err error) {
	obj, called, err := res.ObjectCall(ctx, mainRoot, storageJS, kind, key, MaxStorageValue)
	if err != nil {
		return "", nil, err
	}
	res.Release(ctx, obj)
	if called.Exception != "" {
		return "", nil, protocol.Errorf(protocol.CodeJSException, "storage.get: %s", called.Exception)
	}
	var out struct {
		Origin string  `json:"origin"`
		Items  [][]any `json:"items"`
		Error  string  `json:"error"`
	}
	if err := json.Unmarshal(called.Value, &out); err != nil {
		return "", nil, protocol.Errorf(protocol.CodeInternal, "storage.get: bad answer: %v", err)
	}
	if out.Error != "" {
		return "", nil, protocol.Errorf(protocol.CodeUnsupported, "storage.get: tab %d has no %sStorage here: %s", tab, kind, out.Error)
	}
	items = []protocol.StorageItem{}
	for _, it := range out.Items {
		if len(it) != 3 {
			continue
		}
		k, _ := it[0].(string)
		v, _ := it[1].(string)
		n, _ := it[2].(float64)
		items = append(items, protocol.StorageItem{Key: k, Value: v, Length: int(n), Cut: int(n) > MaxStorageValue})
	}
	return out.Origin, items, nil
}

// Resize sets the size of the tab's viewport to width × height CSS pixels
// (Emulation's device metrics, as Playwright's setViewportSize: that one
// tab's layout, never a window), or ends the override when both are 0.
// It returns the size the page sees then, read in egohost's world (the
// size asked when that read fails).
func Resize(ctx context.Context, p *cdptab.Page, res *resolver.Resolver, width, height int) (int, int, error) {
	var err error
	if width == 0 && height == 0 {
		_, err = cdp.Call(ctx, p, emulation.ClearDeviceMetricsOverride, cdp.Empty{})
	} else {
		_, err = cdp.Call(ctx, p, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: int64(width), Height: int64(height)})
	}
	if err != nil {
		return 0, 0, err
	}
	obj, called, err := res.ObjectCall(ctx, mainRoot, "() => [innerWidth, innerHeight]")
	if err == nil {
		res.Release(ctx, obj)
		var wh []int
		if json.Unmarshal(called.Value, &wh) == nil && len(wh) == 2 {
			return wh[0], wh[1], nil
		}
	}
	return width, height, nil
}
