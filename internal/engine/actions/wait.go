package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/egohost/egohost/refmap"
	"regexp"
	"strings"
	"time"
)

// Element states a wait can wait for.
const (
	StateAttached = "attached"
	StateVisible  = "visible"
	StateHidden   = "hidden"
	StateDetached = "detached"
)

// WaitOptions say what to wait for: exactly one of Target (with State),
// Text, URL, Load or Function.
type WaitOptions struct {
	// Target is a locator or a @ref; State is attached, visible (default),
	// hidden or detached.
	Target string
	State  string
	// Text waits for the page's visible text to contain Text
	// (case-insensitive, white space normalised), or with Gone, to stop
	// containing it.
	Text string
	Gone bool
	// URL waits for the main frame's URL: an exact URL, a glob (* matches
	// within a path segment, ** across) or a /regular expression/flags.
	URL string
	// Load waits for a load state of the current document: load,
	// domcontentloaded or networkidle.
	Load string
	// Function waits for a JavaScript expression, or a function, to be
	// truthy (awaiting promises). The page's exceptions fail the wait.
	Function string
	Timeout  time.Duration
}

// WaitResult says what a wait waited for and for how long.
type WaitResult struct {
	What     string
	Took     time.Duration
	Attempts int
	// Value is the truthy value (Function), the URL (URL), or null.
	Value json.RawMessage
	// Element describes the element (Target, when it is there).
	Element string
}

// pending is a wait's condition not met yet: transient.
type pending string

func (p pending) Error() string   { return string(p) }
func (p pending) Transient() bool { return true }

// Wait waits for one condition (see WaitOptions) until its timeout,
// polling at 0, 20, 50, 100 ms and then every 100 ms.
func (r *Runner) Wait(ctx context.Context, o WaitOptions) (*WaitResult, error) {
	set := 0
	for _, s := range []string{o.Target, o.Text, o.URL, o.Load, o.Function} {
		if s != "" {
			set++
		}
	}
	if set != 1 {
		return nil, fmt.Errorf("wait: %w", invalid("give exactly one of a target, text, url, load state or function (got %d)", set))
	}
	d := timeout(o.Timeout, r.opts.Timeout)
	if o.Load != "" {
		res, err := r.WaitLoad(ctx, o.Load, d)
		if err != nil {
			return nil, err
		}
		v, _ := json.Marshal(res.URL)
		return &WaitResult{What: "load state " + o.Load, Took: res.Took, Attempts: 1, Value: v}, nil
	}
	start := time.Now()
	res := &WaitResult{Value: json.RawMessage("null")}
	var attempt func(ctx context.Context, n int) error
	switch {
	case o.Target != "":
		state := o.State
		if state == "" {
			state = StateVisible
		}
		switch state {
		case StateAttached, StateVisible, StateHidden, StateDetached:
		default:
			return nil, fmt.Errorf("wait: %w", invalid("unknown state %q: want attached, visible, hidden or detached", o.State))
		}
		if r.find == nil {
			return nil, errors.New("wait: no element finder")
		}
		res.What = o.Target + " " + state
		attempt = func(ctx context.Context, n int) error { return r.waitState(ctx, o.Target, state, res) }
	case o.Text != "":
		res.What = fmt.Sprintf("text %q", o.Text)
		if o.Gone {
			res.What += " gone"
		}
		needle, _ := json.Marshal(o.Text)
		expr := fmt.Sprintf(`(() => { const norm = (s) => String(s).replace(/\s+/g, " ").trim().toLowerCase();
			return norm(document.body ? document.body.innerText : "").includes(norm(%s)); })()`, needle)
		attempt = func(ctx context.Context, n int) error {
			var has bool
			if err := r.evalMain(ctx, expr, &has); err != nil {
				return pageErr(err)
			}
			switch {
			case has && o.Gone:
				return pending("the text is still on the page")
			case !has && !o.Gone:
				return pending("the text is not on the page")
			}
			return nil
		}
	case o.URL != "":
		match, err := URLMatcher(o.URL)
		if err != nil {
			return nil, fmt.Errorf("wait: %w", err)
		}
		res.What = "url " + o.URL
		attempt = func(ctx context.Context, n int) error {
			var href string
			if err := r.evalMain(ctx, "location.href", &href); err != nil {
				return pageErr(err)
			}
			if !match(href) {
				return pending("the URL is " + href)
			}
			res.Value, _ = json.Marshal(href)
			return nil
		}
	case o.Function != "":
		res.What = "function"
		expr := fmt.Sprintf(`(async () => { let v = await (%s); if (typeof v === "function") v = await v(); return { ok: !!v, v: v === undefined ? null : v }; })()`, o.Function)
		attempt = func(ctx context.Context, n int) error {
			var out struct {
				OK bool            `json:"ok"`
				V  json.RawMessage `json:"v"`
			}
			if err := r.evalMain(ctx, expr, &out); err != nil {
				return pageErr(err)
			}
			if !out.OK {
				return pending("the function is not truthy")
			}
			if len(out.V) > 0 {
				res.Value = out.V
			}
			return nil
		}
	}
	w := r.watch(ctx, "wait")
	defer w.close()
	var log waitLog
	err := r.retryEvery(w.ctx, "wait", res.What, d, &log, poll, attempt)
	res.Attempts, res.Took = log.attempts, time.Since(start)
	if dl := w.opened(); dl != nil {
		return nil, &DialogOpenError{Op: "wait", Dialog: *dl}
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// pageErr keeps a page's exception as it is (the wait fails) and makes the
// document going away transient (a navigation: look again in the new one).
func pageErr(err error) error {
	if chromeContextGone(err) {
		return pending("the page is navigating")
	}
	return err
}

// waitState checks a target's state once.
func (r *Runner) waitState(ctx context.Context, target, state string, res *WaitResult) error {
	el, err := r.find.Find(ctx, target)
	if err != nil {
		// Only "nothing matches" means hidden or detached: another passing
		// error (the page is navigating) says nothing about the element.
		if errors.Is(err, refmap.ErrNotFound) && (state == StateHidden || state == StateDetached) {
			return nil // not there: hidden and detached both hold
		}
		return err
	}
	defer r.release(ctx, el)
	var vis struct {
		Visible bool   `json:"visible"`
		Desc    string `json:"desc"`
	}
	err = r.callOn(ctx, el, `(node) => {
		const el = node.nodeType === 1 ? node : node.parentElement;
		if (!el || !el.isConnected) return { visible: false, desc: "" };
		const r = el.getBoundingClientRect();
		const st = el.ownerDocument.defaultView.getComputedStyle(el);
		const d = "<" + el.localName + (el.id ? ' id="' + el.id + '"' : "") + ">";
		return { visible: r.width > 0 && r.height > 0 && st.visibility !== "hidden" && st.visibility !== "collapse", desc: d };
	}`, &vis)
	if err != nil {
		var na *NotActionableError
		if errors.As(err, &na) && na.Reason == NotAttached && (state == StateHidden || state == StateDetached) {
			return nil
		}
		return err
	}
	res.Element = vis.Desc
	switch state {
	case StateAttached:
		return nil
	case StateDetached:
		return pending("the element is still attached")
	case StateVisible:
		if !vis.Visible {
			return pending("the element is not visible")
		}
	case StateHidden:
		if vis.Visible {
			return pending("the element is still visible")
		}
	}
	return nil
}

// URLMatcher returns a matcher for a URL pattern: "/re/flags" is a regular
// expression (flags: i, m, s), a pattern with * is a glob (* within a path
// segment, ** across segments, everything else literal), anything else an
// exact URL.
func URLMatcher(pattern string) (func(string) bool, error) {
	if len(pattern) >= 2 && pattern[0] == '/' {
		if end := strings.LastIndexByte(pattern, '/'); end > 0 {
			src, flags := pattern[1:end], pattern[end+1:]
			if strings.Trim(flags, "ims") == "" {
				if flags != "" {
					src = "(?" + flags + ")" + src
				}
				re, err := regexp.Compile(src)
				if err != nil {
					return nil, invalid("url pattern %s: %v", pattern, err)
				}
				return re.MatchString, nil
			}
		}
	}
	if strings.Contains(pattern, "*") {
		var b strings.Builder
		b.WriteString("^")
		for i := 0; i < len(pattern); i++ {
			switch {
			case strings.HasPrefix(pattern[i:], "**"):
				b.WriteString(".*")
				i++
			case pattern[i] == '*':
				b.WriteString("[^/]*")
			default:
				b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
			}
		}
		b.WriteString("$")
		re, err := regexp.Compile(b.String())
		if err != nil {
			return nil, invalid("url glob %s: %v", pattern, err)
		}
		return re.MatchString, nil
	}
	return func(u string) bool { return u == pattern }, nil
}
