package actions

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/egohost/egohost/internal/server/confirm"
)

//go:embed facts.js
var factsJS string

// Facts are what a confirmation reads of the element an action is about
// to act on: confirm.Facts, and its border box in the top-level viewport.
type Facts struct {
	confirm.Facts
	Box Box
	// URL is the element's document's.
	URL string
}

// factsResult is what facts.js returns.
type factsResult struct {
	confirm.Facts
	Gone bool      `json:"gone"`
	Box  []float64 `json:"box"`
	URL  string    `json:"url"`
}

// Facts reads el's facts (for a press of Enter in it when enter; else a
// click, of the button or link it is in). An element that is gone is a
// NotActionableError.
func (r *Runner) Facts(ctx context.Context, el Element, enter bool) (Facts, error) {
	var res factsResult
	if err := r.callOn(ctx, el, factsJS, &res, map[string]bool{"enter": enter}); err != nil {
		return Facts{}, fmt.Errorf("facts: %w", err)
	}
	if res.Gone {
		return Facts{}, fmt.Errorf("facts: %w", &NotActionableError{Reason: NotAttached, Detail: "the element is gone"})
	}
	f := Facts{Facts: res.Facts, URL: res.URL}
	if len(res.Box) == 4 {
		f.Box = Box{X: res.Box[0], Y: res.Box[1], Width: res.Box[2], Height: res.Box[3]}
	}
	return f, nil
}

// pictureMargin is the page around the element a Picture shows; a
// picture is at most pictureMax CSS pixels each way.
const (
	pictureMargin = 40
	pictureMax    = 800
)

// Picture is a PNG of the tab's viewport around box (in the top-level
// viewport) with the box drawn on it: what the person sees when asked to
// confirm an act on that element.
func (r *Runner) Picture(ctx context.Context, box Box) ([]byte, error) {
	x0 := math.Max(0, box.X-pictureMargin)
	y0 := math.Max(0, box.Y-pictureMargin)
	w := math.Min(pictureMax, box.X+box.Width+pictureMargin-x0)
	h := math.Min(pictureMax, box.Y+box.Height+pictureMargin-y0)
	if w < 1 || h < 1 {
		return nil, fmt.Errorf("picture: %w", &NotActionableError{Reason: NotVisible, Detail: "it has an empty box"})
	}
	m, err := cdp.Call(ctx, r.tab, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return nil, fmt.Errorf("picture: layout metrics: %w", err)
	}
	var px, py float64
	if m.CSSVisualViewport != nil {
		px, py = m.CSSVisualViewport.PageX, m.CSSVisualViewport.PageY
	}
	yes := true
	res, err := r.capture(ctx, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatPng, CaptureBeyondViewport: &yes,
		Clip: &page.Viewport{X: x0 + px, Y: y0 + py, Width: w, Height: h, Scale: 1},
	})
	if err != nil {
		return nil, fmt.Errorf("picture: %w", err)
	}
	src, err := png.Decode(bytes.NewReader(res.Data))
	if err != nil {
		return nil, fmt.Errorf("picture: Chrome's image: %w", err)
	}
	img := image.NewRGBA(src.Bounds())
	draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Src)
	// Chrome's image is in device pixels: scale the box to it.
	sx, sy := float64(img.Bounds().Dx())/w, float64(img.Bounds().Dy())/h
	frame(img, image.Rect(int((box.X-x0)*sx), int((box.Y-y0)*sy), int((box.X-x0+box.Width)*sx), int((box.Y-y0+box.Height)*sy)), 3, color.RGBA{R: 0xd0, G: 0x1c, B: 0x1c, A: 0xff})
	var out bytes.Buffer
	if err := png.Encode(&out, img); err != nil {
		return nil, fmt.Errorf("picture: %w", err)
	}
	return out.Bytes(), nil
}

// frame draws a rectangle's outline, th pixels wide, inside img.
func frame(img *image.RGBA, r image.Rectangle, th int, c color.Color) {
	r = r.Intersect(img.Bounds())
	if r.Empty() {
		return
	}
	fill := func(x0, y0, x1, y1 int) {
		draw.Draw(img, image.Rect(x0, y0, x1, y1).Intersect(img.Bounds()), image.NewUniform(c), image.Point{}, draw.Src)
	}
	fill(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+th)
	fill(r.Min.X, r.Max.Y-th, r.Max.X, r.Max.Y)
	fill(r.Min.X, r.Min.Y, r.Min.X+th, r.Max.Y)
	fill(r.Max.X-th, r.Min.Y, r.Max.X, r.Max.Y)
}
