package service

import (
	"context"
	"encoding/json"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/protocol"
)

// storage.get reads the localStorage or sessionStorage of a tab's main
// frame, in egohost's isolated world there (the page's scripts cannot
// change what it reads; the world shares the page's storage). Like
// cookies, what it reads may be credentials: it needs act.

// maxStorageValue is how much of one value storage.get answers (UTF-16
// units, as the page counts).
const maxStorageValue = 65536

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

func (s *Service) storageGet(ctx context.Context, c *call, p protocol.StorageGetParams) (any, error) {
	kind := p.Kind
	switch kind {
	case "":
		kind = "local"
	case "local", "session":
	default:
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "storage.get: kind %q is not local or session", p.Kind)
	}
	tc, err := s.tabContextWithin(ctx, c, p.Target, "storage.get", 0)
	if err != nil {
		return nil, err
	}
	if err := tc.checkDialog("storage.get"); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.ActionTimeout)
	defer cancel()
	// The main frame's root: the resolver lists the main frame first.
	obj, called, err := tc.res.ObjectCall(ctx, "css=:root >> nth=0", storageJS, kind, p.Name, maxStorageValue)
	if err != nil {
		return nil, classify(err)
	}
	releaseObject(ctx, tc.page, obj)
	if called.Exception != "" {
		return nil, protocol.Errorf(protocol.CodeJSException, "storage.get: %s", called.Exception)
	}
	var out struct {
		Origin string  `json:"origin"`
		Items  [][]any `json:"items"`
		Error  string  `json:"error"`
	}
	if err := json.Unmarshal(called.Value, &out); err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, "storage.get: bad answer: %v", err)
	}
	if out.Error != "" {
		return nil, protocol.Errorf(protocol.CodeUnsupported, "storage.get: tab %d has no %sStorage here: %s", tc.tabID, kind, out.Error)
	}
	res := protocol.StorageGetResult{Tab: tc.tabID, Origin: out.Origin, Kind: kind, Items: []protocol.StorageItem{}}
	for _, it := range out.Items {
		if len(it) != 3 {
			continue
		}
		k, _ := it[0].(string)
		v, _ := it[1].(string)
		n, _ := it[2].(float64)
		res.Items = append(res.Items, protocol.StorageItem{Key: k, Value: v, Length: int(n), Cut: int(n) > maxStorageValue})
	}
	return res, nil
}

// releaseObject lets the page forget an object the resolver handed out.
func releaseObject(ctx context.Context, page *cdptab.Page, o cdptab.Object) {
	if o.ObjectID == "" {
		return
	}
	var sess cdp.Session = page
	if o.SessionID != "" {
		sess = page.Child(o.SessionID)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	_, _ = cdp.Call(ctx, sess, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: o.ObjectID})
}
