package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/egohost/egohost/protocol"
)

// The tools of issue 25 besides actions: history, closing the page, the
// viewport, one request's details and the page's storage.

type resizeIn struct {
	Width  int `json:"width" jsonschema:"viewport width in CSS pixels, 1 to 8192 (0 with height 0: the window's own size)"`
	Height int `json:"height" jsonschema:"viewport height in CSS pixels, 1 to 8192"`
}

type networkRequestIn struct {
	Index int    `json:"index" jsonschema:"the request's number (#N) in browser_network_requests"`
	Part  string `json:"part,omitempty" enum:"request-headers,request-body,response-headers,response-body" jsonschema:"only this part (default: all of them)"`
}

type storageIn struct {
	Type string `json:"type,omitempty" enum:"local,session" jsonschema:"localStorage (default) or sessionStorage"`
	Key  string `json:"key,omitempty" jsonschema:"only this item"`
}

// history goes back or forward, or reloads, and answers the page.
func (t *tools) history(ctx context.Context, method, verb string) *mcp.CallToolResult {
	var r protocol.NavResult
	if err := t.call(ctx, method, protocol.NavParams{Target: t.target()}, &r); err != nil {
		return failure(err)
	}
	if r.Dialog != nil {
		t.sawDialog(r.Dialog)
		return text(navOutcome(verb+" "+r.URL, r))
	}
	return t.page(ctx, navOutcome(verb+" "+r.URL, r))
}

func (t *tools) back(ctx context.Context, _ noIn) *mcp.CallToolResult {
	return t.history(ctx, protocol.MethodBack, "went back to")
}

func (t *tools) forward(ctx context.Context, _ noIn) *mcp.CallToolResult {
	return t.history(ctx, protocol.MethodForward, "went forward to")
}

func (t *tools) reload(ctx context.Context, _ noIn) *mcp.CallToolResult {
	return t.history(ctx, protocol.MethodReload, "reloaded")
}

// closePage closes the session's tab, as browser_tabs close does.
func (t *tools) closePage(ctx context.Context, _ noIn) *mcp.CallToolResult {
	return t.tabs(ctx, tabsIn{Action: "close"})
}

func (t *tools) resize(ctx context.Context, in resizeIn) *mcp.CallToolResult {
	var r protocol.ResizeResult
	if err := t.call(ctx, protocol.MethodResize, protocol.ResizeParams{Target: t.target(), Width: in.Width, Height: in.Height}, &r); err != nil {
		return failure(err)
	}
	line := fmt.Sprintf("the viewport of tab %d is %d × %d", r.Tab, r.Width, r.Height)
	if in.Width == 0 && in.Height == 0 {
		line += " (its window's own size)"
	}
	return t.changes(ctx, line, false)
}

func (t *tools) networkRequest(ctx context.Context, in networkRequestIn) *mcp.CallToolResult {
	body := in.Part == "" || strings.HasSuffix(in.Part, "-body")
	var r protocol.NetworkRequestResult
	// The body is cut a little past what is shown, so the cut is seen.
	p := protocol.NetworkRequestParams{Target: t.target(), ID: in.Index, Body: body, MaxBytes: maxBodyShown}
	if err := t.call(ctx, protocol.MethodNetworkRequest, p, &r); err != nil {
		return failure(err)
	}
	var b strings.Builder
	b.WriteString(requestLine(r.Request))
	if r.Request.MimeType != "" {
		fmt.Fprintf(&b, " (%s)", r.Request.MimeType)
	}
	section := func(part, title string, write func()) {
		if in.Part == "" || in.Part == part {
			b.WriteString("\n" + title + ":")
			write()
		}
	}
	headers := func(h map[string]string) func() {
		return func() {
			names := make([]string, 0, len(h))
			for k := range h {
				names = append(names, k)
			}
			slices.Sort(names)
			if len(names) == 0 {
				b.WriteString(" none")
			}
			for _, k := range names {
				fmt.Fprintf(&b, "\n  %s: %s", k, h[k])
			}
		}
	}
	bodyOf := func(x *protocol.Body) func() {
		return func() {
			switch {
			case x == nil:
				b.WriteString(" none")
			case x.Missing != "":
				b.WriteString(" none (" + x.Missing + ")")
			case x.Base64:
				fmt.Fprintf(&b, " %d bytes, not text (base64 of the first %d):\n%s", x.Bytes, x.Bytes-x.Cut, x.Text)
			case x.Bytes == 0:
				b.WriteString(" empty")
			default:
				b.WriteString("\n" + x.Text)
				if x.Cut > 0 {
					fmt.Fprintf(&b, "\n[cut: %d of %d bytes shown]", x.Bytes-x.Cut, x.Bytes)
				}
			}
		}
	}
	section("request-headers", "request headers", headers(r.RequestHeaders))
	section("request-body", "request body", bodyOf(r.RequestBody))
	section("response-headers", "response headers", headers(r.ResponseHeaders))
	section("response-body", "response body", bodyOf(r.ResponseBody))
	return text(b.String())
}

// maxBodyShown is how much of a body browser_network_request shows.
const maxBodyShown = 20000

func (t *tools) storage(ctx context.Context, in storageIn) *mcp.CallToolResult {
	var r protocol.StorageGetResult
	if err := t.call(ctx, protocol.MethodStorageGet, protocol.StorageGetParams{Target: t.target(), Kind: in.Type, Name: in.Key}, &r); err != nil {
		return failure(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %sStorage item(s) of %s (tab %d)", len(r.Items), r.Kind, r.Origin, r.Tab)
	for _, it := range r.Items {
		v := it.Value
		if strings.ContainsAny(v, "\n\r") {
			v = jsonText(v)
		}
		fmt.Fprintf(&b, "\n%s = %s", it.Key, v)
		if it.Cut {
			fmt.Fprintf(&b, " … (cut: %d characters in all)", it.Length)
		}
	}
	return text(b.String())
}
