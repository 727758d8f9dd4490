// The Playwright-shaped facade scripts see: page, browser, cdp, help,
// console, setTimeout. Every browser operation is one of the service's
// agent methods, called through host.call (PROTOCOL.md); this file only
// builds params and shapes results. It is evaluated once per script and
// returns the globals to install.
(function (host) {
  'use strict';

  class EgohostError extends Error {
    constructor(name, message, code, data) {
      super(message);
      this.name = name;
      this.code = code;
      this.data = data;
    }
  }

  const parse = (s) => (s === '' || s === undefined ? undefined : JSON.parse(s));
  const call = (method, params) => host.call(method, JSON.stringify(params)).then(parse);
  const callSync = (method, params) => parse(host.callSync(method, JSON.stringify(params)));
  const ms = (o) => (o && o.timeout !== undefined ? Math.max(1, Math.round(o.timeout)) : undefined);
  const q = (s) => JSON.stringify(String(s));
  const isRegExp = (v) => Object.prototype.toString.call(v) === '[object RegExp]';
  const fail = (msg) => { throw new EgohostError('invalid_params', msg, -32602, {}); };

  // A text value in the locator grammar (docs/locators.md): substring and
  // any case by default, exact on request, or a regular expression.
  function textArg(v, exact) {
    if (isRegExp(v)) return '/' + v.source + '/' + v.flags;
    return q(v) + (exact ? 's' : 'i');
  }
  function selOf(sel) {
    if (sel instanceof Locator) return sel._sel;
    if (typeof sel !== 'string' || sel === '') fail('a selector must be a non-empty string or a Locator');
    return sel;
  }
  // "has=" takes a quoted locator.
  const quoted = (sel) => q(selOf(sel));

  function byRole(role, o) {
    o = o || {};
    let s = 'role=' + role;
    if (o.name !== undefined) s += '[name=' + textArg(o.name, o.exact) + ']';
    for (const k of ['checked', 'pressed', 'selected', 'expanded', 'disabled', 'level']) {
      if (o[k] !== undefined) s += '[' + k + '=' + o[k] + ']';
    }
    if (o.includeHidden) s += '[include-hidden]';
    return s;
  }
  const byKind = (kind) => (v, o) => kind + '=' + textArg(v, o && o.exact);
  const getters = {
    getByRole: byRole,
    getByText: byKind('text'),
    getByLabel: byKind('label'),
    getByPlaceholder: byKind('placeholder'),
    getByAltText: byKind('alt'),
    getByTitle: byKind('title'),
    getByTestId: (v) => 'testid=' + (isRegExp(v) ? textArg(v) : q(v)),
  };

  // Runs fn on the one element sel names (waiting for it as actions do)
  // and returns its value: the reads below. It is the eval method with a
  // target, which every agent that may eval has (raw CDP is a scope of its
  // own) and which judges the element's document as eval does.
  async function onElement(page, sel, fn, arg, o) {
    const a = arg === undefined ? 'undefined' : JSON.stringify(arg);
    const r = await call('eval', {
      ...page._t, target: sel, expression: '(el) => (' + String(fn) + ').call(el, ' + a + ')', timeoutMs: ms(o),
    });
    return r.value;
  }

  class Locator {
    constructor(page, sel) { this._page = page; this._sel = sel; }
    toString() { return 'locator(' + q(this._sel) + ')'; }
    toJSON() { return this.toString(); }
    get selector() { return this._sel; }
    get page() { return this._page; }

    _then(step) { return new Locator(this._page, this._sel + ' >> ' + step); }
    locator(sel, o) { let l = this._then(selOf(sel)); return o ? l.filter(o) : l; }
    nth(i) { return this._then('nth=' + Math.trunc(i)); }
    first() { return this.nth(0); }
    last() { return this.nth(-1); }
    filter(o) {
      o = o || {};
      let l = this;
      if (o.hasText !== undefined) l = l._then('has-text=' + textArg(o.hasText));
      if (o.hasNotText !== undefined) l = l._then('has-not-text=' + textArg(o.hasNotText));
      if (o.has !== undefined) l = l._then('has=' + quoted(o.has));
      if (o.hasNot !== undefined) l = l._then('has-not=' + quoted(o.hasNot));
      if (o.visible !== undefined) l = l._then('visible=' + !!o.visible);
      return l;
    }

    // As in Playwright, only the actions that may navigate (click, press,
    // drag) wait after acting, for the navigation and a quiet DOM; the
    // others answer at once (noWaitAfter: false asks for the settle).
    _act(method, extra, o) {
      o = o || {};
      const settles = method === 'click' || method === 'press' || method === 'drag';
      const noSettle = o.noWaitAfter === undefined ? !settles : !!o.noWaitAfter;
      return call(method, {
        ...this._page._t, target: this._sel, timeoutMs: ms(o), force: o.force || undefined,
        noSettle: noSettle || undefined, ...extra,
      }).then((r) => {
        if (r && r.opened) this._page._opened(r.opened);
        return r;
      });
    }
    click(o) {
      o = o || {};
      return this._act('click', { button: o.button, count: o.clickCount, modifiers: o.modifiers }, o);
    }
    dblclick(o) { o = o || {}; return this._act('click', { button: o.button, count: 2, modifiers: o.modifiers }, o); }
    hover(o) { return this._act('hover', {}, o); }
    focus(o) { return this._act('focus', {}, o); }
    check(o) { return this._act('check', {}, o); }
    uncheck(o) { return this._act('uncheck', {}, o); }
    setChecked(v, o) { return v ? this.check(o) : this.uncheck(o); }
    fill(value, o) { return this._act('fill', { text: String(value) }, o); }
    clear(o) { return this.fill('', o); }
    type(text, o) { return this._act('type', { text: String(text), delayMs: o && o.delay }, o); }
    pressSequentially(text, o) { return this.type(text, o); }
    press(key, o) { return this._act('press', { key: String(key) }, o); }
    async selectOption(v, o) {
      const p = { values: [], labels: [], indexes: [] };
      for (const x of (Array.isArray(v) ? v : [v])) {
        if (typeof x === 'string') p.values.push(x);
        else if (x && x.value !== undefined) p.values.push(String(x.value));
        else if (x && x.label !== undefined) p.labels.push(String(x.label));
        else if (x && x.index !== undefined) p.indexes.push(x.index);
        else fail('selectOption: want a value, {value}, {label} or {index}');
      }
      const r = await this._act('select', p, o);
      return r.selected || [];
    }
    // Paths the run was given (script.run's files), names of its payloads,
    // or Playwright's {name, mimeType, buffer} (buffer: a string, an
    // ArrayBuffer, a typed array or an array of bytes), sent as bytes.
    setInputFiles(files, o) {
      const p = { files: [], payloads: [] };
      for (const f of (Array.isArray(files) ? files : [files])) {
        if (typeof f === 'string') p.files.push(f);
        else if (f && typeof f === 'object' && f.buffer !== undefined) {
          p.payloads.push({ name: String(f.name || 'file'), mimeType: f.mimeType ? String(f.mimeType) : undefined, data: host.base64(f.buffer) });
        } else fail('setInputFiles: want a path, or {name, mimeType, buffer}');
      }
      return this._act('upload', p, o);
    }
    dragTo(target, o) { return this._act('drag', { to: selOf(target) }, o); }
    scrollIntoViewIfNeeded(o) { return this._act('scroll', {}, o); }
    async waitFor(o) {
      o = o || {};
      await call('wait', { ...this._page._t, target: this._sel, state: o.state, timeoutMs: ms(o) });
    }

    textContent(o) { return onElement(this._page, this._sel, function () { return this.textContent; }, null, o); }
    innerText(o) { return onElement(this._page, this._sel, function () { return this.innerText; }, null, o); }
    innerHTML(o) { return onElement(this._page, this._sel, function () { return this.innerHTML; }, null, o); }
    inputValue(o) {
      return onElement(this._page, this._sel, function () {
        if (!('value' in this) || this.tagName === 'BUTTON') throw new Error('not an <input>, <textarea> or <select>');
        return this.value;
      }, null, o);
    }
    getAttribute(name, o) {
      return onElement(this._page, this._sel, function (n) { return this.getAttribute(n); }, String(name), o);
    }
    isChecked(o) {
      return onElement(this._page, this._sel, function () {
        if (this.type === 'checkbox' || this.type === 'radio') return this.checked;
        const a = this.getAttribute('aria-checked');
        if (a === null) throw new Error('not a checkbox or radio');
        return a === 'true';
      }, null, o);
    }
    isEnabled(o) { return onElement(this._page, this._sel, function () { return !this.disabled && this.getAttribute('aria-disabled') !== 'true'; }, null, o); }
    async isDisabled(o) { return !(await this.isEnabled(o)); }
    isEditable(o) { return onElement(this._page, this._sel, function () { return !this.disabled && !this.readOnly && (this.isContentEditable || 'value' in this); }, null, o); }
    // evaluate(fn, arg) calls fn(element, arg) in the page, as Playwright does.
    evaluate(fn, arg, o) {
      if (typeof fn !== 'function' && typeof fn !== 'string') fail('evaluate: want a function');
      return onElement(this._page, this._sel, 'function (a) { return (' + String(fn) + ')(this, a) }', arg, o);
    }
    async count() { return (await call('resolve', { ...this._page._t, target: this._sel })).count; }
    async all() {
      const n = await this.count();
      const out = [];
      for (let i = 0; i < n; i++) out.push(this.nth(i));
      return out;
    }
    async allTextContents() {
      const out = [];
      for (const l of await this.all()) out.push(await l.textContent());
      return out;
    }
    async allInnerTexts() {
      const out = [];
      for (const l of await this.all()) out.push(await l.innerText());
      return out;
    }
    async isVisible() {
      const n = await this.count();
      if (n > 1) {
        throw new EgohostError('ambiguous', 'strict mode: ' + this._sel + ' matched ' + n + ' elements; add nth=… or make it more specific', 1101, { count: n, target: this._sel });
      }
      return n === 1 && (await this._then('visible=true').count()) === 1;
    }
    async isHidden() { return !(await this.isVisible()); }
    async boundingBox() {
      const r = await call('resolve', { ...this._page._t, target: this._sel });
      if (r.count > 1) return onElement(this._page, this._sel, function () { return null; });
      const m = r.matches[0];
      return m && m.box ? { x: m.box.x - m.box.width / 2, y: m.box.y - m.box.height / 2, width: m.box.width, height: m.box.height } : null;
    }
    screenshot(o) {
      o = o || {};
      return host.shot(JSON.stringify({ ...this._page._t, target: this._sel, timeoutMs: ms(o) }), o.name || '');
    }
  }
  for (const [name, make] of Object.entries(getters)) {
    Locator.prototype[name] = function (v, o) { return this._then(make(v, o)); };
  }

  class Keyboard {
    constructor(page) { this._page = page; }
    press(key, o) {
      return call('press', { ...this._page._t, key: String(key), timeoutMs: ms(o) }).then((r) => {
        if (r && r.opened) this._page._opened(r.opened);
        return r;
      });
    }
    type(text, o) { return call('type', { ...this._page._t, text: String(text), delayMs: o && o.delay }); }
    insertText(text) { return this.type(text); }
  }

  class Mouse {
    constructor(page) { this._page = page; this._x = 0; this._y = 0; }
    _send(type, x, y, o) {
      o = o || {};
      return call('cdp.send', {
        ...this._page._t, method: 'Input.dispatchMouseEvent',
        params: { type, x, y, button: o.button || (type === 'mouseMoved' ? 'none' : 'left'), clickCount: o.clickCount || 1 },
      });
    }
    async move(x, y) { this._x = x; this._y = y; await this._send('mouseMoved', x, y); }
    async down(o) { await this._send('mousePressed', this._x, this._y, o); }
    async up(o) { await this._send('mouseReleased', this._x, this._y, o); }
    async click(x, y, o) { await this.move(x, y); await this.down(o); await this.up(o); }
    async dblclick(x, y, o) { await this.click(x, y, { ...o, clickCount: 1 }); await this.click(x, y, { ...o, clickCount: 2 }); }
    async wheel(dx, dy) { await call('scroll', { ...this._page._t, dx, dy }); }
  }

  function expression(fn, arg) {
    if (typeof fn === 'function') return '(' + String(fn) + ')(' + (arg === undefined ? '' : JSON.stringify(arg)) + ')';
    if (typeof fn !== 'string') fail('evaluate: want a function or a string');
    return fn;
  }

  class Page {
    constructor(target) {
      this._t = target;
      this.keyboard = new Keyboard(this);
      this.mouse = new Mouse(this);
      this._popups = []; // pages of the tabs this page's actions opened, not yet waited for
      this._waiting = []; // waitForEvent('popup')'s resolvers
    }
    get id() { return this._t.tab; }
    toString() { return 'page(tab ' + this._t.tab + ')'; }
    toJSON() { return this.toString(); }

    locator(sel, o) { const l = new Locator(this, selOf(sel)); return o ? l.filter(o) : l; }
    goto(url, o) { o = o || {}; return call('goto', { ...this._t, url: String(url), until: o.waitUntil, timeoutMs: ms(o) }); }
    reload(o) { o = o || {}; return call('reload', { ...this._t, until: o.waitUntil, timeoutMs: ms(o) }); }
    goBack(o) { o = o || {}; return call('back', { ...this._t, until: o.waitUntil, timeoutMs: ms(o) }); }
    goForward(o) { o = o || {}; return call('forward', { ...this._t, until: o.waitUntil, timeoutMs: ms(o) }); }
    // url() is synchronous, as in Playwright.
    url() { return callSync('eval', { ...this._t, expression: 'location.href' }).value; }
    async title() { return (await call('eval', { ...this._t, expression: 'document.title' })).value; }
    async content() { return (await call('eval', { ...this._t, expression: 'document.documentElement.outerHTML' })).value; }
    async evaluate(fn, arg) { return (await call('eval', { ...this._t, expression: expression(fn, arg) })).value; }
    async waitForURL(url, o) {
      const u = isRegExp(url) ? '/' + url.source + '/' + url.flags : String(url);
      await call('wait', { ...this._t, url: u, timeoutMs: ms(o) });
    }
    async waitForLoadState(state, o) { await call('wait', { ...this._t, load: state || 'load', timeoutMs: ms(o) }); }
    async waitForFunction(fn, arg, o) {
      return (await call('wait', { ...this._t, function: expression(fn, arg), timeoutMs: ms(o) })).value;
    }
    async waitForSelector(sel, o) {
      o = o || {};
      await call('wait', { ...this._t, target: selOf(sel), state: o.state, timeoutMs: ms(o) });
      return this.locator(sel);
    }
    waitForTimeout(t) { return host.sleep(Number(t) || 0); }
    async snapshot(o) {
      o = o || {};
      const r = await call('snapshot', {
        ...this._t, interactive: o.interactive, viewport: o.viewport, maxChars: o.maxChars, start: o.start,
        diff: o.diff, scope: o.scope === undefined ? undefined : selOf(o.scope),
      });
      return r.text;
    }
    screenshot(o) {
      o = o || {};
      return host.shot(JSON.stringify({ ...this._t, fullPage: o.fullPage, timeoutMs: ms(o) }), o.name || '');
    }
    cdp(method, params) { return call('cdp.send', { ...this._t, method: String(method), params: params || {} }); }
    async bringToFront() { await call('tabs.select', { ...this._t }); }
    async close() { await call('tabs.close', { ...this._t }); }
    // waitForEvent('popup') is the page of the next tab an action of this
    // page opened (a link with target=_blank, window.open: the action's
    // result names it), as Playwright's: start the wait, act, await it.
    // Within {timeout} ms (5 s).
    waitForEvent(event, o) {
      if (event !== 'popup') fail("waitForEvent: only 'popup' (the tab an action of this page opens)");
      if (this._popups.length) return Promise.resolve(this._popups.shift());
      const t = ms(o) || 5000;
      return new Promise((resolve, reject) => {
        const entry = { resolve, timer: 0 };
        entry.timer = host.setTimeout(() => {
          this._waiting = this._waiting.filter((w) => w !== entry);
          reject(new EgohostError('timeout', "waitForEvent('popup'): no action of " + this + ' opened a tab in ' + t + ' ms', 1004, { timeoutMs: t }));
        }, t);
        this._waiting.push(entry);
      });
    }
    _opened(tabs) {
      for (const t of tabs) {
        const p = pageFor({ browser: t.browser || this._t.browser, tab: t.id });
        const w = this._waiting.shift();
        if (w) {
          host.clearTimeout(w.timer);
          w.resolve(p);
        } else {
          this._popups.push(p);
        }
      }
    }
  }
  for (const [name, make] of Object.entries(getters)) {
    Page.prototype[name] = function (v, o) { return new Locator(this, make(v, o)); };
  }
  // Playwright's page-level shortcuts: page.click(sel) is page.locator(sel).click().
  for (const name of ['click', 'dblclick', 'hover', 'focus', 'check', 'uncheck', 'fill', 'type', 'press',
    'selectOption', 'setInputFiles', 'textContent', 'innerText', 'innerHTML', 'inputValue', 'getAttribute',
    'isVisible', 'isHidden', 'isChecked', 'isEnabled', 'isDisabled', 'isEditable']) {
    Page.prototype[name] = function (sel, ...args) { return this.locator(sel)[name](...args); };
  }

  const pages = new Map();
  function pageFor(t) {
    const key = (t.browser || '') + '/' + t.tab;
    if (!pages.has(key)) pages.set(key, new Page(t));
    return pages.get(key);
  }
  const page = pageFor(host.target);
  const browser = {
    async tabs() {
      const r = await call('tabs.list', { browser: host.target.browser });
      return r.tabs.map((t) => ({ id: t.id, url: t.url, title: t.title, active: t.active }));
    },
    async newTab(url) {
      const r = await call('tabs.open', { browser: host.target.browser, url: url === undefined ? undefined : String(url) });
      const p = pageFor({ browser: r.tab.browser || host.target.browser, tab: r.tab.id });
      if (url !== undefined && url !== 'about:blank') await p.waitForLoadState('load');
      return p;
    },
    tab(id) {
      if (!Number.isInteger(id) || id <= 0) fail('browser.tab: want a tab ID (see browser.tabs())');
      return pageFor({ browser: host.target.browser, tab: id });
    },
  };
  browser.newPage = browser.newTab;
  browser.pages = async () => (await browser.tabs()).map((t) => browser.tab(t.id));

  const docs = {
    page: 'page: the tab the script runs on (--tab, default the active tab). goto(url, {waitUntil, timeout}), reload(), goBack(), goForward(), url() (sync), title(), content(), evaluate(fn|string, arg), locator(sel), getByRole/Text/Label/Placeholder/AltText/Title/TestId, keyboard, mouse, waitForURL(url|RegExp), waitForLoadState(state), waitForFunction(fn|string, arg), waitForSelector(sel, {state}), waitForTimeout(ms), waitForEvent("popup", {timeout}) (start it, act, await it: the page of the tab the action opened), snapshot({interactive, scope, viewport, maxChars, start, diff}), screenshot({fullPage, name}), cdp(method, params), bringToFront(), close(); and page.click(sel)… shortcuts for every locator action.',
    locator: 'locator: page.locator(sel) or page.getBy…(). Selectors are egohost targets: a @ref from page.snapshot(), or a locator (css, role=, text=, label=, … see docs/locators.md). Chaining: locator(sel), getBy…(), nth(i), first(), last(), filter({hasText, hasNotText, has, hasNot, visible}). Actions (auto-wait, strict; click, press and dragTo then wait for a navigation they started and a quiet DOM, the others do not unless {noWaitAfter: false}): click({button, clickCount, modifiers, force, timeout, noWaitAfter}), dblclick(), hover(), focus(), check(), uncheck(), setChecked(bool), fill(text), clear(), type(text, {delay}), pressSequentially(), press(key), selectOption(v|[v]|{label}|{index}), setInputFiles(paths run was given), dragTo(locator), scrollIntoViewIfNeeded(), waitFor({state: attached|visible|hidden|detached}). Reads: textContent(), innerText(), innerHTML(), inputValue(), getAttribute(name), isVisible(), isHidden(), isChecked(), isEnabled(), isDisabled(), isEditable(), count(), all(), allTextContents(), allInnerTexts(), boundingBox(), evaluate(fn, arg), screenshot({name}).',
    getByRole: "getByRole(role, {name, exact, checked, pressed, selected, expanded, disabled, level, includeHidden}): roles and names as Chrome computes them; name matches as a substring in any case unless exact: true, or a RegExp.",
    keyboard: 'page.keyboard: press(key) ("Enter", "Control+a", "ControlOrMeta+a"), type(text, {delay}), insertText(text); keys go to the focused element.',
    mouse: 'page.mouse: move(x, y), down(), up(), click(x, y, {button, clickCount}), dblclick(x, y), wheel(dx, dy); CSS pixels of the viewport. All but wheel are raw CDP: a paired agent needs the cdp scope.',
    browser: 'browser: tabs() → [{id, url, title, active}], newTab(url) → page of the new tab (waits for load), tab(id) → page of that tab, pages().',
    cdp: 'cdp(method, params): one CDP command on the script\'s tab, e.g. await cdp("Page.getLayoutMetrics"); page.cdp(…) for another tab. A paired agent needs the cdp scope, and only the methods of its allow-list (PROTOCOL.md §3.7.1).',
    console: 'console.log/info/warn/error/debug(...values): strings print raw, other values as JSON, errors as "name: message (line:col)". Output comes back when the script ends, capped (limits.script_output).',
    screenshot: 'page.screenshot({fullPage, name}) / locator.screenshot({name}): returns a handle {screenshot, width, height, bytes}; the image comes back with the result and `egohost run` saves it (--out DIR).',
    snapshot: 'page.snapshot({interactive, scope, viewport, maxChars, start, diff}): the page as text with refs (button "Buy" @12); use a ref as page.locator("@12").',
    errors: 'A failing call throws an Error whose name is the stable code (not_found, ambiguous, not_actionable, timeout, …), with .code (number) and .data; uncaught, the run reports its line, locator and what was logged before.',
    sandbox: 'Scripts reach the browser and nothing else: no require, no file system, network, process or environment. Guards: a wall-clock timeout (--timeout), a memory cap and a call-depth cap.',
  };
  // help(name) prints the facade's own docs.
  function help(name) { host.print(helpText(name)); }
  function helpText(name) {
    if (name === undefined) {
      return 'egohost script facade (Playwright-shaped; every call returns a promise except page.url()). Topics: ' + Object.keys(docs).join(', ') + '. help("page") prints one.';
    }
    const key = String(name).replace(/^page\./, '');
    if (docs[key]) return docs[key];
    if (getters[key] || Locator.prototype[key] || Page.prototype[key]) {
      return key + ': see help("locator") and help("page")';
    }
    return 'no help for ' + q(name) + '; topics: ' + Object.keys(docs).join(', ');
  }

  const console = {};
  for (const k of ['log', 'info', 'warn', 'error', 'debug']) console[k] = (...args) => host.print(...args);

  return {
    globals: {
      page, browser, context: browser, console, help,
      cdp: (method, params) => page.cdp(method, params),
      setTimeout: host.setTimeout, clearTimeout: host.clearTimeout,
    },
    makeError: (name, message, code, data) => new EgohostError(name, message, code, data),
  };
})
