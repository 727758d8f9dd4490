package actions

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
)

// ScreenshotOptions tune Screenshot. With neither FullPage nor Target it
// captures the viewport.
type ScreenshotOptions struct {
	// FullPage captures the whole scrollable page.
	FullPage bool
	// Target captures one element (scrolled into view, visible and stable
	// first, waiting up to Timeout).
	Target  string
	Timeout time.Duration
}

// Shot is a screenshot: PNG bytes and the image's size in pixels.
type Shot struct {
	PNG           []byte
	Width, Height int
	// Element describes the element captured (Target only).
	Element string
}

// hiddenShotTimeout bounds a background tab's capture (see Screenshot).
const hiddenShotTimeout = 3 * time.Second

// Screenshot captures the viewport, the full page or one element as PNG.
// A background (hidden) tab is captured while Chrome still keeps its last
// frame (a few seconds after it was hidden); after that Chrome answers
// no capture of it, and Screenshot fails after hiddenShotTimeout with
// ErrUnsupported saying so.
func (r *Runner) Screenshot(ctx context.Context, o ScreenshotOptions) (*Shot, error) {
	if o.FullPage && o.Target != "" {
		return nil, fmt.Errorf("screenshot: %w", invalid("full page and an element are exclusive"))
	}
	yes := true
	p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}
	shot := &Shot{}
	hidden := false // the document is hidden (a background tab)
	switch {
	case o.Target != "":
		if r.find == nil {
			return nil, fmt.Errorf("screenshot %s: no element finder", o.Target)
		}
		var s spot
		err := r.retry(ctx, "screenshot", o.Target, timeout(o.Timeout, r.opts.Timeout), nil, func(ctx context.Context, n int) error {
			el, err := r.find.Find(ctx, o.Target)
			if err != nil {
				return err
			}
			defer r.release(ctx, el)
			s, err = r.measure(ctx, el, checks{Visible: true, Stable: true}, false, n)
			hidden = s.hidden
			return err
		})
		if err != nil {
			return nil, err
		}
		m, err := cdp.Call(ctx, r.tab, page.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return nil, fmt.Errorf("screenshot %s: layout metrics: %w", o.Target, err)
		}
		var px, py float64
		if m.CSSVisualViewport != nil {
			px, py = m.CSSVisualViewport.PageX, m.CSSVisualViewport.PageY
		}
		if s.box.Width < 1 || s.box.Height < 1 {
			return nil, fmt.Errorf("screenshot %s: %w", o.Target, &NotActionableError{Reason: NotVisible, Element: s.desc, Detail: "it has an empty box"})
		}
		p.Clip = &page.Viewport{X: s.box.X + px, Y: s.box.Y + py, Width: s.box.Width, Height: s.box.Height, Scale: 1}
		p.CaptureBeyondViewport = &yes
		shot.Element = s.desc
	case o.FullPage:
		m, err := cdp.Call(ctx, r.tab, page.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return nil, fmt.Errorf("screenshot: layout metrics: %w", err)
		}
		if m.CSSContentSize == nil {
			return nil, fmt.Errorf("screenshot: the page reports no content size")
		}
		w, h := math.Ceil(m.CSSContentSize.Width), math.Ceil(m.CSSContentSize.Height)
		p.Clip = &page.Viewport{X: 0, Y: 0, Width: w, Height: h, Scale: 1}
		p.CaptureBeyondViewport = &yes
	}
	if o.Target == "" {
		if err := r.evalMain(ctx, "document.hidden", &hidden); err != nil {
			return nil, fmt.Errorf("screenshot: %w", err)
		}
	}
	cctx := ctx
	if hidden {
		// A background tab that has not drawn for a few seconds never
		// answers: Chrome captures the next frame, which a hidden tab
		// does not draw.
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, hiddenShotTimeout)
		defer cancel()
	}
	res, err := cdp.Call(cctx, r.tab, page.CaptureScreenshot, p)
	if err != nil {
		if hidden && ctx.Err() == nil && cctx.Err() != nil {
			return nil, fmt.Errorf("screenshot: %w", unsupported("the tab is in the background (its document is hidden) and Chrome has stopped drawing it: show the tab to take a screenshot"))
		}
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	if len(res.Data) == 0 {
		return nil, fmt.Errorf("screenshot: Chrome returned no image")
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(res.Data))
	if err != nil {
		return nil, fmt.Errorf("screenshot: Chrome's image: %w", err)
	}
	shot.PNG, shot.Width, shot.Height = res.Data, cfg.Width, cfg.Height
	return shot, nil
}
