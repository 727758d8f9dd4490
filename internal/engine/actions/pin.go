package actions

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	cdpruntime "github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/internal/link/cdptab"
)

// A Pin holds a Runner's evaluations in the main frame's page world
// (eval, wait's text, url and function, scrolling the page, what the keys
// go to, a screenshot's first look) to the documents its caller may
// reach, without a round trip of its own: each evaluation first checks,
// in the same script, that it runs in a document of the origin the Pin
// expects (location is unforgeable: the page cannot fake it). When it
// does not, it runs nothing and reports the document it found; the Pin's
// Reach judges that one: refused, the evaluation fails with a
// *cdptab.WithheldError; reached, the Pin expects it from then on and the
// evaluation runs again. Elements are found by the resolver, which judges
// their documents itself (resolver.Within). A Pin is safe for concurrent
// use.
type Pin struct {
	reach cdptab.Reach
	mark  string // what a moved document throws: a nonce the page cannot guess

	mu          sync.Mutex
	origin, url string // the document expected: its origin; its URL too when the origin is opaque
}

// NewPin returns a Pin that expects the document at url (the tab's URL as
// the caller last judged it; a wrong guess costs one more evaluation) and
// asks reach about any other.
func NewPin(url string, reach cdptab.Reach) *Pin {
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	p := &Pin{reach: reach, mark: "\x00egohost-pin-" + hex.EncodeToString(nonce[:]) + "\n"}
	p.origin, p.url = expectedOrigin(url), url
	return p
}

// expectedOrigin guesses what location.origin says in a document at raw:
// scheme://host[:port] for a web URL, file:// for a file, the wrapped
// URL's for blob: and filesystem:, "null" (opaque) for the rest.
func expectedOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "null"
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ws", "wss", "ftp":
		return strings.ToLower(u.Scheme + "://" + u.Host)
	case "file":
		return "file://"
	case "blob", "filesystem":
		return expectedOrigin(u.Opaque)
	}
	return "null"
}

// guard is the statement that starts every pinned evaluation.
func (p *Pin) guard() string {
	p.mu.Lock()
	origin, href := p.origin, p.url
	p.mu.Unlock()
	o, _ := json.Marshal(origin)
	m, _ := json.Marshal(p.mark)
	cond := "location.origin !== " + string(o)
	if origin == "null" {
		h, _ := json.Marshal(href)
		cond += " || location.href !== " + string(h)
	}
	return "if (" + cond + ") throw " + string(m) + " + location.origin + \"\\n\" + location.href; "
}

// moved reads the report of a document the Pin did not expect from an
// evaluation's exception: its origin and URL.
func (p *Pin) moved(e *cdpruntime.ExceptionDetails) (origin, href string, ok bool) {
	if e == nil || e.Exception == nil || e.Exception.Type != "string" {
		return "", "", false
	}
	var s string
	if json.Unmarshal(e.Exception.Value, &s) != nil {
		return "", "", false
	}
	rest, ok := strings.CutPrefix(s, p.mark)
	if !ok {
		return "", "", false
	}
	origin, href, _ = strings.Cut(rest, "\n")
	return origin, href, true
}

// follow judges a document the Pin did not expect; reached, the Pin
// expects it from then on.
func (p *Pin) follow(origin, href string) error {
	if err := p.reach.Check(href, origin, false); err != nil {
		return err
	}
	p.mu.Lock()
	p.origin, p.url = origin, href
	p.mu.Unlock()
	return nil
}

// errPageMoves is a page that moved again between an evaluation and the
// next: the Pin gives up rather than chase it.
var errPageMoves = errors.New("the page keeps moving to other documents")

// pageEval runs an evaluation in the main frame's page world, under the
// Runner's Pin when it has one (params' Expression is prefixed with the
// Pin's guard).
func (r *Runner) pageEval(ctx context.Context, params cdpruntime.EvaluateParams) (cdpruntime.EvaluateResult, error) {
	pin := r.opts.Pin
	if pin == nil {
		return cdp.Call(ctx, r.tab, cdpruntime.Evaluate, params)
	}
	expr := params.Expression
	for attempt := 0; ; attempt++ {
		guard := pin.guard()
		params.Expression = guard + expr
		res, err := cdp.Call(ctx, r.tab, cdpruntime.Evaluate, params)
		if err != nil {
			return res, err
		}
		origin, href, moved := pin.moved(res.ExceptionDetails)
		if !moved {
			if e := res.ExceptionDetails; e != nil && e.LineNumber == 0 && e.ColumnNumber >= int64(len(guard)) {
				e.ColumnNumber -= int64(len(guard)) // where it is in the caller's expression
			}
			return res, nil
		}
		if err := pin.follow(origin, href); err != nil {
			return cdpruntime.EvaluateResult{}, err
		}
		if attempt > 0 {
			return cdpruntime.EvaluateResult{}, fmt.Errorf("evaluate: %w", errPageMoves)
		}
	}
}
