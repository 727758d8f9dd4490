package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/egohost/egohost/protocol"
)

// handler runs one method. params is the raw JSON params (may be empty).
type handler func(ctx context.Context, a *agent, params json.RawMessage) (any, error)

// handlers returns every method: the core ones below, and those that other
// files of this package add (one file per capability). New builds it once.
func (s *Service) handlers() map[string]handler {
	all := make(map[string]handler)
	for _, group := range []map[string]handler{s.coreHandlers(), s.snapshotHandlers(), s.resolveHandlers(), s.actionHandlers(), s.recordHandlers(), s.cookieHandlers()} {
		for name, h := range group {
			all[name] = h
		}
	}
	return all
}

func (s *Service) coreHandlers() map[string]handler {
	return map[string]handler{
		protocol.MethodPing:           s.ping,
		protocol.MethodBrowsersList:   s.browsersList,
		protocol.MethodTabsList:       s.tabsList,
		protocol.MethodTabsOpen:       s.tabsOpen,
		protocol.MethodTabsClose:      s.tabsClose,
		protocol.MethodTabsSelect:     s.tabsSelect,
		protocol.MethodCDPSend:        s.cdpSend,
		protocol.MethodCDPSubscribe:   s.cdpSubscribe,
		protocol.MethodCDPUnsubscribe: s.cdpUnsubscribe,
		protocol.MethodDebugEcho:      s.debugEcho,
	}
}

// dispatch runs a method with the service's request deadline.
func (s *Service) dispatch(ctx context.Context, a *agent, method string, params json.RawMessage) (any, error) {
	h, ok := s.methods[method]
	if !ok {
		return nil, protocol.Errorf(protocol.CodeMethodNotFound, "unknown method %q", method)
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	return h(ctx, a, params)
}

// decode unmarshals params strictly into v.
func decode(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(params)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return protocol.Errorf(protocol.CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}

func (s *Service) ping(ctx context.Context, _ *agent, _ json.RawMessage) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return protocol.PingResult{Version: Version, PID: os.Getpid(), Browsers: len(s.links)}, nil
}

func (s *Service) browsersList(ctx context.Context, _ *agent, _ json.RawMessage) (any, error) {
	s.mu.Lock()
	links := make([]*link, 0, len(s.order))
	for _, id := range s.order {
		links = append(links, s.links[id])
	}
	s.mu.Unlock()
	res := protocol.BrowsersListResult{Browsers: []protocol.Browser{}}
	for _, l := range links {
		res.Browsers = append(res.Browsers, l.info())
	}
	return res, nil
}

// pickLink returns the named browser link, or the only one. It waits for
// the link's hello.
func (s *Service) pickLink(ctx context.Context, name string) (*link, error) {
	s.mu.Lock()
	var l *link
	switch {
	case name != "":
		l = s.links[name]
		if l == nil {
			ids := strings.Join(s.order, ", ")
			s.mu.Unlock()
			return nil, protocol.Errorf(protocol.CodeNoBrowser, "no browser %q (connected: %s)", name, orNone(ids))
		}
	case len(s.order) == 0:
		s.mu.Unlock()
		return nil, protocol.Errorf(protocol.CodeNoBrowser, "no browser is connected: start one with `egohost launch`, or check the extension's popup")
	case len(s.order) > 1:
		ids := strings.Join(s.order, ", ")
		s.mu.Unlock()
		return nil, protocol.Errorf(protocol.CodeAmbiguousBrowser, "%d browsers are connected (%s): name one with \"browser\"", strings.Count(ids, ",")+1, ids)
	default:
		l = s.links[s.order[0]]
	}
	s.mu.Unlock()
	select {
	case <-l.ready:
		return l, nil
	case <-l.closed:
		return nil, protocol.Errorf(protocol.CodeBrowserGone, "browser %s disconnected", l.id)
	case <-ctx.Done():
		return nil, protocol.Errorf(protocol.CodeTimeout, "browser %s connected but never said hello", l.id)
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func (s *Service) listTabs(ctx context.Context, l *link) ([]protocol.Tab, error) {
	raw, err := l.call(ctx, "tabs.list", 0, nil)
	if err != nil {
		return nil, err
	}
	var res protocol.TabsListResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, protocol.Errorf(protocol.CodeExtension, "tabs.list: bad reply: %v", err)
	}
	for i := range res.Tabs {
		res.Tabs[i].Browser = l.id
	}
	if res.Tabs == nil {
		res.Tabs = []protocol.Tab{}
	}
	return res.Tabs, nil
}

// pickTab returns the tab ID: the given one, or the active tab of the last
// focused window.
func (s *Service) pickTab(ctx context.Context, l *link, tab int) (int, error) {
	if tab != 0 {
		return tab, nil
	}
	tabs, err := s.listTabs(ctx, l)
	if err != nil {
		return 0, err
	}
	sort.SliceStable(tabs, func(i, j int) bool { return tabs[i].Focused && !tabs[j].Focused })
	for _, t := range tabs {
		if t.Active {
			return t.ID, nil
		}
	}
	return 0, protocol.Errorf(protocol.CodeTabNotFound, "browser %s has no active tab", l.id)
}

func (s *Service) target(ctx context.Context, t protocol.Target) (*link, int, error) {
	l, err := s.pickLink(ctx, t.Browser)
	if err != nil {
		return nil, 0, err
	}
	id, err := s.pickTab(ctx, l, t.Tab)
	return l, id, err
}

func (s *Service) tabsList(ctx context.Context, _ *agent, params json.RawMessage) (any, error) {
	var p protocol.TabsListParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	l, err := s.pickLink(ctx, p.Browser)
	if err != nil {
		return nil, err
	}
	tabs, err := s.listTabs(ctx, l)
	if err != nil {
		return nil, err
	}
	return protocol.TabsListResult{Tabs: tabs}, nil
}

func (s *Service) tabReply(raw json.RawMessage, l *link, op string) (any, error) {
	var res protocol.TabResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, protocol.Errorf(protocol.CodeExtension, "%s: bad reply: %v", op, err)
	}
	res.Tab.Browser = l.id
	return res, nil
}

func (s *Service) tabsOpen(ctx context.Context, _ *agent, params json.RawMessage) (any, error) {
	var p protocol.TabsOpenParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.URL == "" {
		p.URL = "about:blank"
	}
	l, err := s.pickLink(ctx, p.Browser)
	if err != nil {
		return nil, err
	}
	raw, err := l.call(ctx, "tabs.open", 0, map[string]any{"url": p.URL, "active": !p.Background})
	if err != nil {
		return nil, err
	}
	return s.tabReply(raw, l, "tabs.open")
}

func (s *Service) tabsClose(ctx context.Context, _ *agent, params json.RawMessage) (any, error) {
	var p protocol.TabParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	l, id, err := s.target(ctx, p.Target)
	if err != nil {
		return nil, err
	}
	if _, err := l.call(ctx, "tabs.close", 0, map[string]any{"tabId": id}); err != nil {
		return nil, err
	}
	return map[string]any{"closed": true, "tab": id}, nil
}

func (s *Service) tabsSelect(ctx context.Context, _ *agent, params json.RawMessage) (any, error) {
	var p protocol.TabParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.Tab == 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "tabs.select needs a tab")
	}
	l, err := s.pickLink(ctx, p.Browser)
	if err != nil {
		return nil, err
	}
	raw, err := l.call(ctx, "tabs.activate", 0, map[string]any{"tabId": p.Tab})
	if err != nil {
		return nil, err
	}
	return s.tabReply(raw, l, "tabs.select")
}

func (s *Service) cdpSend(ctx context.Context, _ *agent, params json.RawMessage) (any, error) {
	var p protocol.CDPSendParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.Method == "" || !strings.Contains(p.Method, ".") {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "cdp.send: method %q is not Domain.method", p.Method)
	}
	if len(p.Params) > 0 && p.Params[0] != '{' && string(p.Params) != "null" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "cdp.send: params must be a JSON object")
	}
	if p.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(p.TimeoutMs)*time.Millisecond)
		defer cancel()
	}
	l, id, err := s.target(ctx, p.Target)
	if err != nil {
		return nil, err
	}
	fields := map[string]any{"tabId": id, "method": p.Method}
	if p.SessionID != "" {
		fields["sessionId"] = p.SessionID
	}
	if len(p.Params) > 0 && string(p.Params) != "null" {
		fields["params"] = p.Params
	}
	raw, err := l.call(ctx, "cdp", id, fields)
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	return raw, nil
}

func (s *Service) cdpSubscribe(ctx context.Context, a *agent, params json.RawMessage) (any, error) {
	var p protocol.CDPSubscribeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	l, id, err := s.target(ctx, p.Target)
	if err != nil {
		return nil, err
	}
	methods := make(map[string]bool, len(p.Methods))
	for _, m := range p.Methods {
		methods[m] = true
	}
	a.mu.Lock()
	if a.subs == nil {
		a.mu.Unlock()
		return nil, protocol.Errorf(protocol.CodeInternal, "agent is closing")
	}
	a.nextSub++
	name := "s" + strconv.Itoa(a.nextSub)
	a.mu.Unlock()

	q := newQueue[*inbound](4096)
	cancel := l.subscribe(&subscriber{
		filter: func(in *inbound) bool {
			switch in.Event {
			case "cdp":
				return in.TabID == id && (len(methods) == 0 || methods[in.Method])
			case "detached", "tab.removed":
				return in.TabID == id
			}
			return false
		},
		deliver: func(in *inbound) { q.put(in) },
		done:    q.close,
	})
	a.subWG.Add(1)
	go func() {
		defer a.subWG.Done()
		for in := range q.ch {
			if in.Event == "cdp" {
				a.notify(context.Background(), protocol.NotifyCDPEvent, protocol.CDPEvent{
					Subscription: name, Browser: l.id, Tab: in.TabID, SessionID: in.SessionID, Method: in.Method, Params: in.Params,
				})
				continue
			}
			reason := in.Reason
			if in.Event == "tab.removed" {
				reason = "tab_closed"
			}
			a.notify(context.Background(), protocol.NotifyTabDetached, protocol.TabDetached{Subscription: name, Browser: l.id, Tab: in.TabID, Reason: reason})
		}
	}()
	a.mu.Lock()
	a.subs[name] = cancel
	a.mu.Unlock()
	// Events flow only while the debugger is attached: attach now.
	if _, err := l.call(ctx, "attach", id, map[string]any{"tabId": id}); err != nil {
		a.unsubscribe(name)
		return nil, err
	}
	return protocol.CDPSubscribeResult{Subscription: name, Tab: id, Browser: l.id}, nil
}

func (a *agent) unsubscribe(name string) bool {
	a.mu.Lock()
	cancel, ok := a.subs[name]
	delete(a.subs, name)
	a.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

func (s *Service) cdpUnsubscribe(ctx context.Context, a *agent, params json.RawMessage) (any, error) {
	var p protocol.CDPUnsubscribeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if !a.unsubscribe(p.Subscription) {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "no subscription %q", p.Subscription)
	}
	return map[string]any{"unsubscribed": true}, nil
}

func (s *Service) debugEcho(ctx context.Context, _ *agent, params json.RawMessage) (any, error) {
	var p protocol.DebugEchoParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	l, err := s.pickLink(ctx, p.Browser)
	if err != nil {
		return nil, err
	}
	raw, err := l.call(ctx, "echo", 0, map[string]any{"data": p.Data})
	if err != nil {
		return nil, err
	}
	var res struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, protocol.Errorf(protocol.CodeExtension, "echo: bad reply: %v", err)
	}
	sum := sha256.Sum256([]byte(res.Data))
	return protocol.DebugEchoResult{Length: len(res.Data), SHA256: hex.EncodeToString(sum[:])}, nil
}
