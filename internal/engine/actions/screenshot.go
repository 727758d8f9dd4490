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

const (
	// hiddenShotTimeout bounds a background tab's capture (captureHidden).
	hiddenShotTimeout = 3 * time.Second
	// hiddenShotEvery is how often captureHidden asks again.
	hiddenShotEvery = 250 * time.Millisecond
)

// Screenshot captures the viewport, the full page or one element as PNG.
// A background (hidden) tab is captured too (captureHidden).
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
	capture := r.capture
	if hidden {
		capture = r.captureHidden
	}
	res, err := capture(ctx, p)
	if err != nil {
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

// capture takes one screenshot.
func (r *Runner) capture(ctx context.Context, p page.CaptureScreenshotParams) (page.CaptureScreenshotResult, error) {
	return cdp.Call(ctx, r.tab, page.CaptureScreenshot, p)
}

// captureHidden takes a screenshot of a hidden (background) tab. Chrome
// captures the tab's next frame, and a tab hidden for more than a few
// seconds draws none until something else asks for a frame: a second
// capture does (measured in Chromium 156: of two overlapping captures,
// one or both answer). So it asks again every hiddenShotEvery until one
// answers, the others cancelled, within hiddenShotTimeout; then it fails
// with ErrUnsupported.
func (r *Runner) captureHidden(ctx context.Context, p page.CaptureScreenshotParams) (page.CaptureScreenshotResult, error) {
	cctx, cancel := context.WithTimeout(ctx, hiddenShotTimeout)
	defer cancel() // the captures still out
	type answer struct {
		res page.CaptureScreenshotResult
		err error
	}
	answers := make(chan answer, int(hiddenShotTimeout/hiddenShotEvery)+1)
	ask := func() {
		res, err := r.capture(cctx, p)
		answers <- answer{res, err}
	}
	go ask()
	tick := time.NewTicker(hiddenShotEvery)
	defer tick.Stop()
	out := 1
	for {
		select {
		case a := <-answers:
			out--
			if a.err == nil || cctx.Err() == nil {
				return a.res, a.err
			}
			if out > 0 {
				continue
			}
			if ctx.Err() != nil {
				return page.CaptureScreenshotResult{}, a.err
			}
			return page.CaptureScreenshotResult{}, unsupported("the tab is in the background (its document is hidden) and Chrome drew no frame of it in %v: show the tab to take a screenshot", hiddenShotTimeout)
		case <-tick.C:
			if cctx.Err() == nil && out < cap(answers) {
				out++
				go ask()
			}
		}
	}
}
